"""torch._dynamo.trace_rules: which callables are graph leaves (ember ops), which are inlined (user code,
`ember.nn` modules), which always break the graph, and which builtins fold on constants."""
import types

_CONST_TYPES = (int, float, bool, str, bytes, type(None), complex, type(Ellipsis), slice, range)
# Tensor methods that need the tensor's data (a graph break)
_BREAK_METHODS = {"item", "tolist", "numpy", "__bool__", "backward", "data_ptr", "__array__", "__index__",
                  "__int__", "__float__", "register_hook", "retain_grad", "untyped_storage"}
_BREAK_BUILTINS = {print, input, open, id, exec, eval, globals, locals, vars, breakpoint}
# builtins computed at capture time when every argument is a constant
_PURE_BUILTINS = {len, abs, min, max, int, float, bool, str, round, divmod, pow, sorted, tuple, list, any, all,
                  sum, chr, ord, hash, repr, format, complex, slice, isinstance, issubclass, callable, type,
                  hasattr, set, frozenset}

_allowed_in_graph = set()     # functions registered with allow_in_graph: graph leaves
_disallowed = set()           # functions under compiler.disable: always a graph break, called eagerly
_SPECIAL_FUNCTIONS = set()    # ember._dynamo.graph_break: a break wherever it is called


def _is_ember_module(name):
    return name == "ember" or name.startswith("ember.")


def _is_ember_leaf(fn):
    """Whether a call to `fn` becomes one graph node (ember's ops and bindings) rather than being inlined."""
    if fn in _allowed_in_graph:
        return True
    mod = getattr(fn, "__module__", None) or ""
    if isinstance(fn, (types.BuiltinFunctionType, types.BuiltinMethodType)) and _is_ember_module(mod):
        return True
    if not _is_ember_module(mod):
        return hasattr(fn, "_schema") or type(fn).__module__.startswith("ember._ops")
    if mod.startswith(("ember.nn.modules", "ember._dynamo", "ember.compiler", "ember.optim")):
        return False                  # inlined: optimizer steps take their tensor-op path under capture
    return True
