"""torch/_inductor/virtualized.py: `ops`, the ops handler that inner functions call, set per use.

An IR inner function (`Pointwise.inner_fn(index)`) is plain Python that calls `ops.load`, `ops.add`,
`ops.exp`, ...; what those calls do depends on the handler installed with `set_ops_handler`: the C code
generator returns C temporaries, the dependency recorder (`ir.ReadRecorder`) notes which buffers are read at
which index, the op counter counts work. The vocabulary (every handler implements it):

    load(name, index)          constant(value, dtype)      index_expr(index, dtype)     to_dtype(x, dtype)
    masked(mask, body, other)  indirect_indexing(x, size)  where(c, a, b)
    unary:  phi (the standard normal CDF) gauss (exp(-x^2/2)) neg abs exp exp2 expm1 log log2 log10 log1p sqrt rsqrt reciprocal sin cos tan asin acos atan sinh
            cosh tanh asinh acosh atanh erf erfc sigmoid relu floor ceil trunc round sign logical_not
            bitwise_not isnan isinf isfinite signbit lgamma
    binary: add sub mul truediv floordiv truncdiv remainder fmod pow maximum minimum atan2 copysign
            bitwise_and bitwise_or bitwise_xor logical_and logical_or logical_xor lshift rshift
            eq ne lt le gt ge
Values are opaque to the inner function; dtypes are explicit (lowering casts operands to one compute dtype).
"""
import contextlib
import threading

_state = threading.local()


class _OpsProxy:
    """`ops.name(...)` calls the method `name` of the handler installed when the call happens (so `ops.add`
    may be taken as a function object before any handler is installed)."""

    def __getattr__(self, name):
        def call(*args, **kwargs):
            handler = getattr(_state, "handler", None)
            if handler is None:
                raise RuntimeError("ember._inductor: an inner function ran with no ops handler installed")
            return getattr(handler, name)(*args, **kwargs)
        call.__name__ = name
        setattr(self, name, call)
        return call


ops = _OpsProxy()


def current_graph():
    """The GraphLowering being run in this thread (torch's V.graph); lowerings that add buffers read it."""
    return getattr(_state, "graph", None)


def set_current_graph(graph):
    _state.graph = graph


@contextlib.contextmanager
def set_ops_handler(handler):
    old = getattr(_state, "handler", None)
    _state.handler = handler
    try:
        yield handler
    finally:
        _state.handler = old


UNARY_OPS = ("phi gauss neg abs exp exp2 expm1 log log2 log10 log1p sqrt rsqrt reciprocal sin cos tan asin acos atan sinh "
             "cosh tanh asinh acosh atanh erf erfc sigmoid relu floor ceil trunc round sign logical_not "
             "bitwise_not isnan isinf isfinite signbit lgamma").split()
BINARY_OPS = ("add sub mul truediv floordiv truncdiv remainder fmod pow maximum minimum atan2 copysign "
              "bitwise_and bitwise_or bitwise_xor logical_and logical_or logical_xor lshift rshift "
              "eq ne lt le gt ge").split()
COMPARISONS = frozenset("eq ne lt le gt ge".split())
BOOL_RESULT = COMPARISONS | {"logical_not", "logical_and", "logical_or", "logical_xor", "isnan", "isinf",
                             "isfinite", "signbit"}
