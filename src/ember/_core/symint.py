"""torch.SymInt / SymFloat / SymBool and the sym_* functions of torch/__init__.py: symbolic scalars.

A SymInt stands for an integer known only as an expression over size symbols (`s0`, `2*s1`) while a graph is
traced with dynamic shapes. It holds a SymNode (ember.fx.experimental.sym_node), which knows the expression,
its example value (the "hint") and the ShapeEnv that records guards; every operator here only forwards to the
node, so this layer imports nothing from the compiler.

Rules, as torch's:
- arithmetic (+ - * // % ** abs, negation, min/max through sym_min/sym_max) gives a new SymInt, or a plain int
  when the expression simplifies to a number; `/` gives a SymFloat; comparisons give a SymBool;
- `bool(symbool)` (an `if` on a symbolic comparison) asks the ShapeEnv: if the value ranges decide it, no guard;
  otherwise the example value decides and a guard on the relation is recorded (the graph is valid only while it
  holds);
- `int(s)`, `operator.index(s)` (`range(s)`, list indexing, numpy) specialise: they return the example value and
  record the guard `s == value`; code that must stay symbolic uses the SymInt's arithmetic instead;
- a SymInt is unhashable (torch: "unhashable type: non-nested SymInt"), so caches keyed by sizes skip it.
"""
import builtins
import math

__all__ = ["SymInt", "SymFloat", "SymBool", "sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_ite",
           "sym_sqrt", "is_symbolic", "hint_int", "size_int"]


def _other_node(self, other):
    if other.__class__ in _SYM_TYPES:
        return other.node
    if isinstance(other, (bool, int, float)):
        return self.node.wrap(other)
    return None


def _binary(op, reflected=False):
    def method(self, other):
        o = _other_node(self, other)
        if o is None:
            return NotImplemented
        return o.binary(op, self.node) if reflected else self.node.binary(op, o)
    method.__name__ = f"__{'r' if reflected else ''}{op}__"
    return method


class _SymBase:
    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    def __repr__(self):
        return self.node.str()

    __str__ = __repr__

    def __hash__(self):
        raise TypeError(f"unhashable type: non-nested {type(self).__name__}")

    def __eq__(self, other):
        o = _other_node(self, other)
        return NotImplemented if o is None else self.node.binary("eq", o)

    def __ne__(self, other):
        o = _other_node(self, other)
        return NotImplemented if o is None else self.node.binary("ne", o)

    __lt__ = _binary("lt")
    __le__ = _binary("le")
    __gt__ = _binary("gt")
    __ge__ = _binary("ge")

    def __bool__(self):
        return self.node.guard_bool()

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self


class SymInt(_SymBase):
    """An int whose value is an expression over size symbols (torch.SymInt)."""

    __slots__ = ()

    __add__, __radd__ = _binary("add"), _binary("add", True)
    __sub__, __rsub__ = _binary("sub"), _binary("sub", True)
    __mul__, __rmul__ = _binary("mul"), _binary("mul", True)
    __floordiv__, __rfloordiv__ = _binary("floordiv"), _binary("floordiv", True)
    __mod__, __rmod__ = _binary("mod"), _binary("mod", True)
    __truediv__, __rtruediv__ = _binary("truediv"), _binary("truediv", True)
    __pow__, __rpow__ = _binary("pow"), _binary("pow", True)
    __and__, __rand__ = _binary("and"), _binary("and", True)
    __or__, __ror__ = _binary("or"), _binary("or", True)

    def __neg__(self):
        return self.node.unary("neg")

    def __pos__(self):
        return self

    def __abs__(self):
        return self.node.unary("abs")

    def __int__(self):
        return self.node.guard_int()

    __index__ = __int__

    def __float__(self):
        return float(self.node.guard_int())

    def __bool__(self):
        return bool(self.node.binary("ne", self.node.wrap(0)))

    def __round__(self, ndigits=None):
        return self

    def __trunc__(self):
        return self

    __floor__ = __ceil__ = __trunc__

    def __sym_max__(self, other):
        o = _other_node(self, other)
        return self.node.binary("max", o)

    def __sym_min__(self, other):
        o = _other_node(self, other)
        return self.node.binary("min", o)

    def __sym_float__(self):
        return self.node.unary("sym_float")

    def is_integer(self):
        return True

    def as_integer_ratio(self):
        return self, 1


class SymFloat(_SymBase):
    """A float whose value is an expression over size symbols (torch.SymFloat)."""

    __slots__ = ()

    __add__, __radd__ = _binary("add"), _binary("add", True)
    __sub__, __rsub__ = _binary("sub"), _binary("sub", True)
    __mul__, __rmul__ = _binary("mul"), _binary("mul", True)
    __truediv__, __rtruediv__ = _binary("truediv"), _binary("truediv", True)
    __pow__, __rpow__ = _binary("pow"), _binary("pow", True)
    __floordiv__, __rfloordiv__ = _binary("floordiv"), _binary("floordiv", True)

    def __neg__(self):
        return self.node.unary("neg")

    def __abs__(self):
        return self.node.unary("abs")

    def __float__(self):
        return float(self.node.guard_float())

    def __int__(self):
        return int(self.node.guard_float())          # truncation of the example value, guarded (specialises)

    def __trunc__(self):
        return self.node.unary("trunc")

    def __bool__(self):
        return bool(self.node.binary("ne", self.node.wrap(0.0)))

    def is_integer(self):
        t = self.node.unary("trunc")
        return bool(self == t)


class SymBool(_SymBase):
    """A bool whose value is a relation between size expressions (torch.SymBool)."""

    __slots__ = ()

    __and__, __rand__ = _binary("and"), _binary("and", True)
    __or__, __ror__ = _binary("or"), _binary("or", True)

    def __invert__(self):
        return self.node.unary("not")

    def __int__(self):
        return int(self.node.guard_bool())

    def __sym_not__(self):
        return self.node.unary("not")


_SYM_TYPES = (SymInt, SymFloat, SymBool)


def is_symbolic(x):
    return x.__class__ in _SYM_TYPES


def sym_int(a):
    """int(a) without specialising a symbolic float (torch.sym_int: truncation toward zero)."""
    if a.__class__ is SymInt:
        return a
    if a.__class__ is SymFloat:
        return a.node.unary("trunc")
    return builtins.int(a)


def sym_float(a):
    if a.__class__ is SymInt:
        return a.__sym_float__()
    if a.__class__ is SymFloat:
        return a
    return builtins.float(a)


def sym_max(a, b):
    """max(a, b) that stays symbolic (builtins.max would branch on the comparison and guard)."""
    if a.__class__ in _SYM_TYPES:
        return a.__sym_max__(b)
    if b.__class__ in _SYM_TYPES:
        return b.__sym_max__(a)
    return builtins.max(a, b)


def sym_min(a, b):
    if a.__class__ in _SYM_TYPES:
        return a.__sym_min__(b)
    if b.__class__ in _SYM_TYPES:
        return b.__sym_min__(a)
    return builtins.min(a, b)


def sym_not(a):
    if a.__class__ is SymBool:
        return a.__sym_not__()
    return not a


def sym_ite(b, t, f):
    """`t if b else f` (guards on b when symbolic, as torch's fallback does)."""
    return t if b else f


def sym_sqrt(a):
    if a.__class__ in _SYM_TYPES:
        return a.node.unary("sqrt")
    return math.sqrt(a)


def hint_int(x):
    """The example value of a (possibly symbolic) int, with no guard: for bookkeeping that must not specialise
    (the byte size of a meta storage, cache keys)."""
    if x.__class__ is SymInt:
        return x.node.hint
    return builtins.int(x)


def size_int(x):
    """A size as sizes are stored: SymInts kept, anything with __index__ made an int."""
    if x.__class__ is SymInt:
        return x
    return builtins.int(x)


# argument parsing and kernels ask `isinstance(x, numbers.Integral)` of an int argument: a SymInt is one
import numbers as _numbers  # noqa: E402

_numbers.Integral.register(SymInt)
_numbers.Real.register(SymFloat)
