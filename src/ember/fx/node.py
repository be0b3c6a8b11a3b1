"""torch.fx.node: Node, one operation of a Graph, and map_arg / map_aggregate over nested arguments.

A Node's `op` is one of placeholder, get_attr, call_function, call_method, call_module, output. Its
`args`/`kwargs` may hold other Nodes (inside tuples, lists, dicts, slices); setting them keeps the
`users` of every referenced node up to date, so use-def chains are always exact.
"""
import builtins

_OPCODES = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root")


def _type_repr(t):
    if isinstance(t, type):
        return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
    return repr(t)


def _get_qualified_name(func):
    """The dotted name codegen prints for a call_function target (`ember.relu`, `operator.add`)."""
    if getattr(builtins, getattr(func, "__name__", ""), None) is func:
        return func.__name__
    from ember._ops import OpOverload, OpOverloadPacket
    if isinstance(func, OpOverload):
        return f"ember.ops.{func.namespace}.{func._packet.__name__}.{func._overloadname}"
    if isinstance(func, OpOverloadPacket):
        return f"ember.ops.{func._ns}.{func.__name__}"
    name = func.__name__
    if name == "<lambda>":
        raise RuntimeError(f"Unable to represent lambda {func!r} as a qualified name")
    module = _public_module(func)
    return f"{module}.{getattr(func, '__qualname__', name)}"


_PUBLIC_MODULES = ("ember", "ember.nn.functional", "ember.linalg", "ember.special", "ember.fft", "ember._nn",
                   "ember._linalg")


def _public_module(func):
    """The public module a function is reachable from (`ember` for generated bindings)."""
    import sys
    module = getattr(func, "__module__", None) or "builtins"
    name = getattr(func, "__name__", None)
    if module.startswith("ember.") and not module.startswith("ember.fx"):
        for cand in _PUBLIC_MODULES:
            m = sys.modules.get(cand)
            if m is not None and getattr(m, name, None) is func:
                return cand
    if module == "_operator":
        return "operator"
    return module


def map_aggregate(a, fn):
    """Apply fn to every leaf of a nested structure of tuples, lists, dicts and slices."""
    t = type(a)
    if t is tuple or (isinstance(a, tuple) and hasattr(a, "_fields")):
        v = tuple(map_aggregate(e, fn) for e in a)
        return v if t is tuple else t(*v)
    if t is list:
        return [map_aggregate(e, fn) for e in a]
    if t is dict:
        return {k: map_aggregate(v, fn) for k, v in a.items()}
    if t is slice:
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    return fn(a)


def map_arg(a, fn):
    """Apply fn to every Node inside a (nested) argument."""
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


class Node:
    """One operation in a Graph (torch.fx.Node): `op`, `name`, `target`, `args`, `kwargs`, `users`, `meta`."""

    def __init__(self, graph, name, op, target, args, kwargs, return_type=None):
        if op not in _OPCODES:
            raise ValueError(f"Node op must be one of {_OPCODES[:-1]}, got {op!r}")
        if op == "call_function" and not callable(target):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target)} but a Callable is expected")
        if op in ("placeholder", "call_method", "call_module", "get_attr") and not isinstance(target, str):
            raise ValueError(f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                             f"{type(target)} but a str is expected")
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self._input_nodes = {}
        self._args = ()
        self._kwargs = {}
        self.users = {}
        self.type = return_type
        self._prev = self
        self._next = self
        self._erased = False
        self.meta = {}
        self.__update_args_kwargs(args, kwargs)

    # -- linked list
    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def prepend(self, x):
        """Insert node x before this node (moving it if it is already in the graph)."""
        if x is self:
            return
        x._remove_from_list()
        p = self._prev
        p._next, x._prev, x._next, self._prev = x, p, self, x

    def append(self, x):
        """Insert node x after this node."""
        self._next.prepend(x)

    def _remove_from_list(self):
        p, n = self._prev, self._next
        p._next, n._prev = n, p
        self._prev = self._next = self

    # -- arguments and use-def chains
    @property
    def args(self):
        return self._args

    @args.setter
    def args(self, a):
        self.__update_args_kwargs(a, self._kwargs)

    @property
    def kwargs(self):
        return self._kwargs

    @kwargs.setter
    def kwargs(self, k):
        self.__update_args_kwargs(self._args, k)

    @property
    def all_input_nodes(self):
        return list(self._input_nodes)

    def update_arg(self, idx, arg):
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key, arg):
        self.kwargs = {**self.kwargs, key: arg}

    def __update_args_kwargs(self, new_args, new_kwargs):
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        collect = lambda n: self._input_nodes.setdefault(n) or n
        self._args = map_arg(tuple(new_args), collect)
        self._kwargs = map_arg(dict(new_kwargs), collect)
        for n in self._input_nodes:
            n.users.setdefault(self)

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True, *, propagate_meta=False):
        """Point every user of this node at `replace_with`; returns the users changed."""
        if propagate_meta:
            for k, v in self.meta.items():
                replace_with.meta.setdefault(k, v)
        changed = []
        for use in list(self.users):
            if not delete_user_cb(use):
                continue
            use.replace_input_with(self, replace_with)
            changed.append(use)
        return changed

    def replace_input_with(self, old_input, new_input):
        m = lambda n: new_input if n is old_input else n
        self.__update_args_kwargs(map_arg(self._args, m), map_arg(self._kwargs, m))

    @property
    def stack_trace(self):
        return self.meta.get("stack_trace")

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta["stack_trace"] = trace

    def is_impure(self):
        """Whether dead-code elimination must keep this node (placeholders, outputs, in-place ops, RNG)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            from ember._ops import OpOverload
            t = self.target
            if isinstance(t, OpOverload):
                schema = t._schema
                if any(a.is_write for a in schema.arguments.flat_all):
                    return True
                return "nondeterministic_seeded" in t.tags or _is_random_op(t)
            return t in _side_effectful_functions
        if self.op == "call_method":
            return isinstance(self.target, str) and self.target.endswith("_") and not self.target.endswith("__")
        if self.op == "call_module":
            mod = self.graph.owning_module
            if mod is not None:
                try:
                    sub = mod.get_submodule(self.target)
                except AttributeError:
                    return False
                return getattr(sub, "_is_impure", False)
        return False

    def format_node(self, placeholder_names=None, maybe_return_typename=None):
        """The one-line text `%name : [num_users=N] = op[target=...](args = ..., kwargs = ...)`."""
        if self.op == "placeholder":
            if placeholder_names is not None:
                placeholder_names.append(self.target)
            default = f" = {self.args[0]!r}" if self.args else ""
            return f"%{self.name} : [num_users={len(self.users)}] = placeholder[target={self.target}]{default}"
        if self.op == "get_attr":
            return f"%{self.name} : [num_users={len(self.users)}] = get_attr[target={self.target}]"
        if self.op == "output":
            return f"return {_format_arg(self.args[0])}"
        target = self.target if isinstance(self.target, str) else _pretty_target(self.target)
        return (f"%{self.name} : [num_users={len(self.users)}] = {self.op}[target={target}]"
                f"(args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})")

    def __repr__(self):
        return self.name

    def _pretty_print_target(self, target):
        return target if isinstance(target, str) else _pretty_target(target)


def _pretty_target(t):
    try:
        return _get_qualified_name(t)
    except Exception:  # noqa: BLE001
        return repr(t)


def _format_arg(arg):
    if isinstance(arg, Node):
        return "%" + arg.name
    if isinstance(arg, tuple):
        items = ", ".join(_format_arg(a) for a in arg)
        return f"({items},)" if len(arg) == 1 else f"({items})"
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    return str(arg)


def _is_random_op(op):
    name = op._packet.__name__
    return name in _RANDOM_OPS


_RANDOM_OPS = {"rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm", "bernoulli",
               "bernoulli_", "normal", "normal_", "uniform_", "dropout", "native_dropout", "multinomial",
               "exponential_", "geometric_", "cauchy_", "log_normal_", "random_", "poisson", "rrelu_with_noise",
               "feature_dropout", "alpha_dropout", "feature_alpha_dropout", "_fused_dropout"}

_side_effectful_functions = set()


def has_side_effect(fn):
    """Mark a function so eliminate_dead_code keeps calls to it (torch.fx.node.has_side_effect)."""
    _side_effectful_functions.add(fn)
    return fn


Target = object
Argument = object

