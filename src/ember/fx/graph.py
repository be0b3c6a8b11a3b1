"""torch.fx.graph: Graph (a doubly linked list of Nodes), its Python code generator, lint and dead-code removal.

`Graph.python_code("self")` turns the nodes into the source of a `forward` method: one line per node,
operator targets printed as Python operators, every value set to None right after its last use (so memory
is freed as in eager), and a `# File: ...` comment from the node's stack trace when it has one.
"""
import builtins
import copy
import inspect
import keyword
import math
import operator
import re
from collections import defaultdict

from .node import Node, _format_arg, _get_qualified_name, map_arg

# operator targets printed as Python expressions
_BINARY = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
           operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.matmul: "@",
           operator.lshift: "<<", operator.rshift: ">>", operator.and_: "&", operator.or_: "|",
           operator.xor: "^", operator.eq: "==", operator.ne: "!=", operator.lt: "<", operator.le: "<=",
           operator.gt: ">", operator.ge: ">="}
_UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}
_INPLACE = {operator.iadd: "+=", operator.isub: "-=", operator.imul: "*=", operator.itruediv: "/="}


class _Namespace:
    """Unique Python identifiers for nodes and globals."""

    def __init__(self):
        self._used = set()
        self._base_count = defaultdict(int)
        self._obj_to_name = {}

    def create_name(self, candidate, obj=None):
        if obj is not None and id(obj) in self._obj_to_name:
            return self._obj_to_name[id(obj)][1]
        candidate = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate)
        if not candidate:
            candidate = "_unnamed"
        if candidate[0].isdigit():
            candidate = f"_{candidate}"
        m = re.match(r"(.*)_(\d+)$", candidate)
        base, num = (m.group(1), int(m.group(2))) if m else (candidate, None)
        name = candidate if num is None else f"{base}_{num}"
        if num is None:
            num = self._base_count[base]
        while name in self._used or _is_illegal_name(name, obj):
            num += 1
            name = f"{base}_{num}"
        self._used.add(name)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[id(obj)] = (obj, name)
        return name

    def associate_name_with_obj(self, name, obj):
        self._obj_to_name[id(obj)] = (obj, name)

    def _rename_object(self, obj, name):
        self._obj_to_name[id(obj)] = (obj, name)


def _is_illegal_name(name, obj):
    if keyword.iskeyword(name) or name in ("self", "ember", "operator", "inf", "nan"):
        return True
    if name in builtins.__dict__:
        return obj is not builtins.__dict__[name]
    return False


def _snake_case(s):
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s).lower()


def _name_hint(op, target):
    if op == "call_function":
        from ember._ops import OpOverload, OpOverloadPacket
        if isinstance(target, OpOverload):
            return target._packet.__name__
        if isinstance(target, OpOverloadPacket):
            return target.__name__
        return _snake_case(getattr(target, "__name__", "fn"))
    if op in ("call_module", "get_attr", "call_method", "placeholder"):
        return str(target).replace("*", "")
    return op


class _NodeList:
    """A live view of a graph's nodes in order (reversible, sized)."""

    def __init__(self, graph, direction="_next"):
        self._graph = graph
        self._dir = direction

    def __len__(self):
        return self._graph._len

    def __iter__(self):
        root, d = self._graph._root, self._dir
        cur = getattr(root, d)
        while cur is not root:
            nxt = getattr(cur, d)
            if not cur._erased:
                yield cur
            cur = nxt

    def __reversed__(self):
        return iter(_NodeList(self._graph, "_prev" if self._dir == "_next" else "_next"))


class _InsertPoint:
    def __init__(self, graph, new_insert):
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.graph._insert = self.orig_insert


class PythonCode:
    """The generated source of `forward` and the globals it needs (torch.fx.graph.PythonCode)."""

    def __init__(self, src, globals, _lineno_map=None):
        self.src = src
        self.globals = globals
        self._lineno_map = _lineno_map


class Graph:
    """torch.fx.Graph: the nodes of one function, in execution order."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        self._root = Node(self, "", "root", "", (), {})
        self._used_names = {}
        self._insert = self._root.prepend
        self._len = 0
        self._graph_namespace = _Namespace()
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._co_fields = {}

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod):
        self._owning_module = mod

    @property
    def nodes(self):
        return _NodeList(self)

    def find_nodes(self, *, op, target=None, sort=True):
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    # ---------------------------------------------------------------- building
    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        if not isinstance(args, tuple):
            raise TypeError(f"args must be a tuple, got {type(args).__name__}")
        if not isinstance(kwargs, dict):
            raise TypeError(f"kwargs must be a dict, got {type(kwargs).__name__}")
        candidate = name if name is not None else _name_hint(op, target)
        name = self._graph_namespace.create_name(candidate, None)
        n = Node(self, name, op, target, args, kwargs, type_expr)
        self._graph_namespace.associate_name_with_obj(name, n)
        self._insert(n)
        self._len += 1
        return n

    def placeholder(self, name, type_expr=None, default_value=inspect.Signature.empty):
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args=args, type_expr=type_expr)

    def get_attr(self, qualified_name, type_expr=None):
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None):
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result, type_expr=None):
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def inserting_before(self, n=None):
        if n is None:
            return self.inserting_after(self._root)
        return _InsertPoint(self, n.prepend)

    def inserting_after(self, n=None):
        if n is None:
            return self.inserting_before(self._root)
        return _InsertPoint(self, n.append)

    def erase_node(self, to_erase):
        """Remove a node that has no users (RuntimeError otherwise)."""
        if len(to_erase.users) > 0:
            raise RuntimeError(f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} "
                               f"users in the graph: {to_erase.users}!")
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase.args = ()
        to_erase.kwargs = {}

    def node_copy(self, node, arg_transform=lambda x: x):
        """Copy a node from another graph into this one; its Node args go through arg_transform."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        name = node.name if node.op != "placeholder" else node.target.replace("*", "")
        result = self.create_node(node.op, node.target, args, kwargs, name, node.type)
        result.meta = copy.copy(node.meta)
        return result

    def graph_copy(self, g, val_map, return_output_node=False):
        """Copy every node of g into this graph (val_map maps g's nodes to ours); returns the output value."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return rv if not return_output_node else (rv, node)
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def __deepcopy__(self, memo=None):
        memo = memo if memo is not None else {}
        g = Graph(tracer_cls=self._tracer_cls)
        output_vals = g.graph_copy(self, val_map=memo, return_output_node=True)
        if output_vals is not None:
            rv, out_node = output_vals
            g.output(rv, type_expr=out_node.type).meta = copy.copy(out_node.meta)
        return g

    # pickling: nodes as records (no recursion through the linked list)
    def __getstate__(self):
        index = {n: i for i, n in enumerate(self.nodes)}
        enc = lambda a: map_arg(a, lambda n: _NodeRef(index[n]))
        records = [(n.op, n.name, n.target, enc(n.args), enc(n.kwargs), n.type, _picklable_meta(n.meta))
                   for n in self.nodes]
        return {"records": records, "tracer_cls": self._tracer_cls}

    def __setstate__(self, state):
        self.__init__(tracer_cls=state["tracer_cls"])
        nodes = []
        dec = lambda a: map_aggregate_refs(a, nodes)
        for op, name, target, args, kwargs, type_expr, meta in state["records"]:
            n = self.create_node(op, target, dec(args), dec(kwargs), name, type_expr)
            n.meta.update(meta)
            nodes.append(n)

    # ---------------------------------------------------------------- passes
    def eliminate_dead_code(self, is_impure_node=None):
        """Erase nodes without users that have no side effect; returns whether anything changed."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            impure = is_impure_node(node) if is_impure_node is not None else node.is_impure()
            if not impure and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def lint(self):
        """Check the graph's invariants: ownership, unique names, def before use, existing targets."""
        seen_names = set()
        seen_values = set()
        prev = self._root
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node '{node}' does not belong to this Graph!")
            if node._prev is not prev and not prev._erased:
                raise RuntimeError(f"Node '{node}' has a broken linked list (prev is not {prev})")
            if node.op not in ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output"):
                raise RuntimeError(f"Node {node} had unknown opcode {node.op}!")
            for arg in node._input_nodes:
                if arg.graph is not self:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' does not belong to this Graph, "
                                       f"but was used as an argument! If you are copying nodes from another "
                                       f"graph, make sure to use ``arg_transform`` on node_copy() to remap "
                                       f"values\n{self}")
                if arg not in seen_values:
                    raise RuntimeError(f"Argument '{arg}' of Node '{node}' was used before it has been defined! "
                                       f"Please check that Nodes in the graph are topologically ordered\n{self}")
                if node not in arg.users:
                    raise RuntimeError(f"Node '{node}' is not recorded as a user of its input '{arg}'")
            if node.name in seen_names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen_names.add(node.name)
            seen_values.add(node)
            prev = node
        if self.owning_module is not None:
            for node in self.nodes:
                if node.op in ("get_attr", "call_module"):
                    m_itr = self.owning_module
                    atoms = node.target.split(".")
                    for i, atom in enumerate(atoms):
                        if not hasattr(m_itr, atom):
                            seen_qualname = ".".join(atoms[:i])
                            raise RuntimeError(f"Node {node} target {node.target} references nonexistent "
                                               f"attribute {atom} of {seen_qualname or 'root'}")
                        m_itr = getattr(m_itr, atom)
                    from ember.nn import Module
                    if node.op == "call_module" and not isinstance(m_itr, Module):
                        raise RuntimeError(f"Node {node} target {node.target} {atoms[-1]} of "
                                           f"{'.'.join(atoms[:-1]) or 'root'} does not reference an nn.Module")

    # ---------------------------------------------------------------- printing
    def __str__(self):
        placeholder_names = []
        lines = [n.format_node(placeholder_names) for n in self.nodes]
        sig = ", ".join(placeholder_names)
        return f"graph({sig}):\n" + "\n".join("    " + ln for ln in lines)

    def print_tabular(self):
        """Print the nodes as a table: opcode, name, target, args, kwargs."""
        rows = [["opcode", "name", "target", "args", "kwargs"]]
        for n in self.nodes:
            rows.append([n.op, n.name, n._pretty_print_target(n.target), _format_arg(n.args),
                         _format_arg(n.kwargs)])
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        out = []
        for k, r in enumerate(rows):
            out.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
            if k == 0:
                out.append("  ".join("-" * w for w in widths))
        print("\n".join(out))

    # ---------------------------------------------------------------- code generation
    def python_code(self, root_module, *, verbose=False):
        return _CodeGen(self, root_module).generate()

    def on_generate_code(self, make_transformer):
        raise NotImplementedError("Graph.on_generate_code: custom code transformers are not supported by ember.fx")


class _NodeRef:
    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


def map_aggregate_refs(a, nodes):
    from .node import map_aggregate
    return map_aggregate(a, lambda x: nodes[x.i] if isinstance(x, _NodeRef) else x)


_PICKLED_META = ("stack_trace", "nn_module_stack", "tensor_meta", "source_fn_stack", "original_aten")


def _picklable_meta(meta):
    return {k: v for k, v in meta.items() if k in _PICKLED_META}


class _CodeGen:
    def __init__(self, graph, root_module):
        self.graph = graph
        self.root_module = root_module
        self.ns = _Namespace()
        for n in graph.nodes:             # node names are taken first, so globals never shadow them
            self.ns._used.add(n.name)
        self.globals = {"inf": math.inf, "nan": math.nan, "NoneType": type(None)}
        self.import_names = set()

    def add_global(self, name_hint, obj):
        """The name generated code uses for obj; importable modules are referenced by their dotted path."""
        if getattr(builtins, getattr(obj, "__name__", ""), None) is obj and not isinstance(obj, (int, float)):
            return obj.__name__
        if id(obj) in self.ns._obj_to_name:
            return self.ns._obj_to_name[id(obj)][1]
        name = self.ns.create_name(name_hint, obj)
        self.globals[name] = obj
        return name

    def qualified(self, fn):
        """`ember.relu` (with `ember` imported into the globals) or a fresh global bound to fn."""
        try:
            qn = _get_qualified_name(fn)
        except RuntimeError:
            qn = None
        if qn is not None and "." in qn and "<" not in qn and not any(keyword.iskeyword(p) for p in qn.split(".")):
            top = qn.split(".")[0]
            mod = _import(top)
            if mod is not None and _resolve_path(mod, qn.split(".")[1:]) is fn:
                self.globals[top] = mod
                self.ns._used.add(top)
                return qn
        return self.add_global(_name_hint("call_function", fn), fn)

    def fmt(self, a):
        if isinstance(a, Node):
            return a.name
        t = type(a)
        if t is tuple:
            inner = ", ".join(self.fmt(x) for x in a)
            return f"({inner},)" if len(a) == 1 else f"({inner})"
        if t is list:
            return "[" + ", ".join(self.fmt(x) for x in a) + "]"
        if t is dict:
            return "{" + ", ".join(f"{k!r}: {self.fmt(v)}" for k, v in a.items()) + "}"
        if t is slice:
            return f"slice({self.fmt(a.start)}, {self.fmt(a.stop)}, {self.fmt(a.step)})"
        if a is Ellipsis:
            return "..."
        if a is None or t in (bool, int, str, bytes):
            return repr(a)
        if t is float:
            if math.isinf(a):
                return "inf" if a > 0 else "-inf"
            if math.isnan(a):
                return "nan"
            return repr(a)
        if t is complex:
            return f"complex({self.fmt(a.real)}, {self.fmt(a.imag)})"
        from ember._core.dtype import dtype as _dtype
        from ember._core.memory_format import layout as _layout, memory_format as _memory_format
        if isinstance(a, (_dtype, _memory_format, _layout)):
            import ember
            self.globals["ember"] = ember
            self.ns._used.add("ember")
            return repr(a) if repr(a).startswith("ember.") else self.add_global(str(a), a)
        if callable(a) and not isinstance(a, type) and hasattr(a, "__name__"):
            return self.qualified(a)
        if isinstance(a, type):
            return self.add_global(a.__name__, a)
        return self.add_global(_snake_case(type(a).__name__), a)

    def generate(self):
        nodes = list(self.graph.nodes)
        last_use = {}
        user_to_last_uses = defaultdict(list)
        for node in reversed(nodes):
            for inp in node._input_nodes:
                if inp not in last_use:
                    last_use[inp] = node
                    user_to_last_uses[node].append(inp)
        free_vars = []
        body = []
        lineno_map = {}
        prev_trace = None
        wrapped_return = None
        for node in nodes:
            trace = _summarize_stack(node.meta.get("stack_trace"))
            if trace and trace != prev_trace and node.op not in ("placeholder", "output"):
                body.append(f"# {trace}")
            prev_trace = trace or prev_trace
            lineno_map[len(body) + 2] = node.name
            if node.op == "placeholder":
                t = node.target
                ann = f": {self.type_repr(node.type)}" if node.type is not None else ""
                default = f" = {self.fmt(node.args[0])}" if node.args else ""
                free_vars.append(f"{t}{ann}{default}")
                raw = t.replace("*", "")
                if raw != node.name:
                    body.append(f"{node.name} = {raw}")
                continue
            if node.op == "output":
                wrapped_return = f"return {self.fmt(node.args[0])}"
                body.append(wrapped_return)
                continue
            body.append(self.emit(node) + self.free(node, user_to_last_uses))
        if not body or not body[-1].startswith("return"):
            body.append("pass")
        code = "\n".join("    " + ln for ln in body)
        sig = ", ".join([self.root_module] + free_vars)
        src = f"\n\n\ndef forward({sig}):\n{code}\n    "
        return PythonCode(src, self.globals, lineno_map)

    def free(self, node, user_to_last_uses):
        dead = [n.name for n in user_to_last_uses.get(node, [])]
        if not node.users and node.op != "output":
            dead.append(node.name)
        if not dead:
            return ""
        return ";  " + " = ".join(dead) + " = None"

    def type_repr(self, t):
        if isinstance(t, type):
            if t.__module__ == "builtins":
                return t.__name__
            return self.add_global(t.__name__, t)
        return self.add_global("_type", t) if t is not None else "None"

    def emit(self, node):
        ann = f" : {self.type_repr(node.type)}" if node.type is not None else ""
        lhs = f"{node.name}{ann}"
        args, kwargs = node.args, node.kwargs
        if node.op == "get_attr":
            return f"{lhs} = {_attr_path(self.root_module, node.target)}"
        if node.op == "call_module":
            return f"{lhs} = {_attr_path(self.root_module, node.target)}({self.call_args(args, kwargs)})"
        if node.op == "call_method":
            return f"{lhs} = {self.fmt(args[0])}.{node.target}({self.call_args(args[1:], kwargs)})"
        t = node.target
        if not kwargs:
            if t in _BINARY and len(args) == 2:
                return f"{lhs} = {self.fmt(args[0])} {_BINARY[t]} {self.fmt(args[1])}"
            if t in _UNARY and len(args) == 1:
                return f"{lhs} = {_UNARY[t]}{self.fmt(args[0])}"
            if t is operator.getitem and len(args) == 2:
                return f"{lhs} = {self.fmt(args[0])}[{self.index(args[1])}]"
            if t is getattr and len(args) == 2 and isinstance(args[1], str) and args[1].isidentifier():
                return f"{lhs} = {self.fmt(args[0])}.{args[1]}"
        return f"{lhs} = {self.qualified(t)}({self.call_args(args, kwargs)})"

    def index(self, a):
        if type(a) is slice:
            return _slice_text(self, a)
        if type(a) is tuple and a:
            return ", ".join(_slice_text(self, x) if type(x) is slice else self.fmt(x) for x in a) + \
                ("," if len(a) == 1 else "")
        return self.fmt(a)

    def call_args(self, args, kwargs):
        parts = [self.fmt(a) for a in args]
        # a schema argument named by a Python keyword (random_'s `from`) is passed through a dict
        parts += [f"**{{{k!r}: {self.fmt(v)}}}" if keyword.iskeyword(k) else f"{k} = {self.fmt(v)}"
                  for k, v in kwargs.items()]
        return ", ".join(parts)


def _slice_text(cg, s):
    f = lambda v: "" if v is None else cg.fmt(v)
    txt = f"{f(s.start)}:{f(s.stop)}"
    return txt + (f":{f(s.step)}" if s.step is not None else "")


def _attr_path(root, target):
    expr = root
    for atom in target.split("."):
        expr = f"{expr}.{atom}" if atom.isidentifier() and not keyword.iskeyword(atom) else f'getattr({expr}, "{atom}")'
    return expr


def _summarize_stack(trace):
    """`File: path:line in fn, code: text` from the last frame of a stack trace string."""
    if not trace:
        return None
    frames = re.findall(r'^\s*File "([^"]+)", line (\d+), in (\S+)\n(?:\s{4,}(?!File )(.*)\n?)?', trace, re.MULTILINE)
    if not frames:
        return None
    path, line, fn, code = frames[-1]
    return f"File: {path}:{line} in {fn}, code: {code.strip()}"


def _import(name):
    import importlib
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _resolve_path(obj, atoms):
    for a in atoms:
        obj = getattr(obj, a, None)
        if obj is None:
            return None
    return obj

