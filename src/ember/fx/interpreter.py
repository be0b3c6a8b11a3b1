"""torch.fx.interpreter: Interpreter (runs a GraphModule node by node) and Transformer (rewrites it).

The Interpreter keeps an env dict from Node to value and deletes each value right after the node that
uses it last, so a graph run holds no more memory than the eager code it came from. Override the
per-opcode methods (placeholder, get_attr, call_function, call_method, call_module, output) to change
what a node does; Transformer returns a new GraphModule built from the proxies those methods return.
"""
import inspect
from contextlib import contextmanager

from .graph import Graph
from .graph_module import GraphModule
from .node import map_aggregate, map_arg
from .proxy import Proxy


class Interpreter:
    """torch.fx.Interpreter."""

    def __init__(self, module, garbage_collect_values=True, graph=None):
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        if garbage_collect_values:
            node_to_last_use = {}
            self.user_to_last_uses = {}
            for node in reversed(self.graph.nodes):
                for n in node._input_nodes:
                    if n not in node_to_last_use:
                        node_to_last_use[n] = node
                        self.user_to_last_uses.setdefault(node, []).append(n)

    def run(self, *args, initial_env=None, enable_io_processing=True):
        """Run the graph on args; returns the output node's value."""
        self.env = initial_env if initial_env is not None else {}
        self.args_iter = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback and not getattr(e, "_fx_interp_noted", False):
                    msg = f"While executing {node.format_node()}"
                    if node.stack_trace:
                        msg += f"\nOriginal traceback:\n{node.stack_trace}"
                    if hasattr(e, "add_note"):
                        e.add_note(msg)
                    e._fx_interp_noted = True
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    del self.env[to_delete]
            if node.op == "output":
                return self.env[node]
        return None

    def boxed_run(self, args_list):
        """Run with the inputs in a list that is cleared first, so the caller holds no reference to them."""
        args = list(args_list)
        args_list.clear()
        return self.run(*args)

    @contextmanager
    def _set_current_node(self, node):
        from . import traceback as fx_traceback
        with fx_traceback.set_current_meta(node, f"Interpreter_{self.__class__.__name__}"):
            self.current_node = node
            yield

    def run_node(self, n):
        with self._set_current_node(n):
            args, kwargs = self.fetch_args_kwargs_from_env(n)
            return getattr(self, n.op)(n.target, args, kwargs)

    # -- one method per opcode
    def placeholder(self, target, args, kwargs):
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration:
            if len(args) > 0:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one was not passed in!")

    def get_attr(self, target, args, kwargs):
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        self_obj, *args_tail = args
        return getattr(self_obj, target)(*args_tail, **kwargs)

    def call_module(self, target, args, kwargs):
        submod = self.fetch_attr(target)
        return submod(*args, **kwargs)

    def output(self, target, args, kwargs):
        return args[0]

    # -- helpers
    def fetch_attr(self, target):
        attr_itr = self.module
        atoms = target.split(".")
        for i, atom in enumerate(atoms):
            if not hasattr(attr_itr, atom):
                raise RuntimeError(f"Node referenced nonexistent target {'.'.join(atoms[:i + 1])}")
            attr_itr = getattr(attr_itr, atom)
        return attr_itr

    def fetch_args_kwargs_from_env(self, n):
        args = self.map_nodes_to_values(n.args, n)
        kwargs = self.map_nodes_to_values(n.kwargs, n)
        return args, kwargs

    def map_nodes_to_values(self, args, n):
        def load_arg(n_arg):
            if n_arg not in self.env:
                raise RuntimeError(f"Node {n} referenced nonexistent value {n_arg}! Run Graph.lint() "
                                   f"to diagnose such issues")
            return self.env[n_arg]
        return map_arg(args, load_arg)


class Transformer(Interpreter):
    """torch.fx.Transformer: run the graph on Proxies to build a new GraphModule."""

    def __init__(self, module):
        super().__init__(module)
        self.new_graph = Graph()
        from ._symbolic_trace import Tracer

        class TransformerTracer(Tracer):
            def __init__(self, graph):
                super().__init__()
                self.graph = graph
                self.tensor_attrs = {}

            def is_leaf_module(self, _, __):
                return True

        self.tracer = TransformerTracer(self.new_graph)
        self.tracer.root = module

    def run_node(self, n):
        self.tracer._current_meta = n.meta
        try:
            return super().run_node(n)
        finally:
            self.tracer._current_meta = None

    def placeholder(self, target, args, kwargs):
        default = next(iter(args)) if args else inspect.Signature.empty
        return Proxy(self.new_graph.placeholder(target, default_value=default), self.tracer)

    def get_attr(self, target, args, kwargs):
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        submod = self.fetch_attr(target)
        return self.tracer.call_module(submod, submod.forward, args, kwargs)

    def call_function(self, target, args, kwargs):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def transform(self):
        result = super().run(enable_io_processing=False)
        if result is not None:
            self.new_graph.output(map_aggregate(result, lambda a: a.node if isinstance(a, Proxy) else a))
        return GraphModule(self.module, self.new_graph)


