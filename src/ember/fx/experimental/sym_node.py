"""torch.fx.experimental.sym_node: SymNode, the expression behind a SymInt/SymFloat/SymBool.

A SymNode holds a sympy expression over size symbols, the Python type it stands for, its example value
(`hint`, computed alongside the expression with ordinary arithmetic) and the ShapeEnv that owns the symbols.
SymInt's operators call `binary`/`unary` here; `guard_bool`/`guard_int` ask the ShapeEnv to decide a value,
recording a guard when the value ranges do not decide it.
"""
import math
import operator

from ember._core.symint import SymBool, SymFloat, SymInt


def _sympy():
    import sympy
    return sympy


def _floordiv_expr(a, b):
    sp = _sympy()
    if b == 1:
        return a
    return sp.floor(a / b)


_HINT = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "floordiv": operator.floordiv,
    "mod": operator.mod, "truediv": operator.truediv, "pow": operator.pow,
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
    "ge": operator.ge, "and": lambda a, b: a and b, "or": lambda a, b: a or b,
    "max": max, "min": min,
}
_REL = {"eq", "ne", "lt", "le", "gt", "ge"}


def _expr_of(op, a, b):
    sp = _sympy()
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if op == "floordiv":
        return _floordiv_expr(a, b)
    if op == "mod":
        return sp.Mod(a, b)
    if op == "truediv":
        return a / b
    if op == "pow":
        return a ** b
    if op == "eq":
        return sp.Eq(a, b)
    if op == "ne":
        return sp.Ne(a, b)
    if op == "lt":
        return sp.Lt(a, b)
    if op == "le":
        return sp.Le(a, b)
    if op == "gt":
        return sp.Gt(a, b)
    if op == "ge":
        return sp.Ge(a, b)
    if op == "and":
        return sp.And(a, b)
    if op == "or":
        return sp.Or(a, b)
    if op == "max":
        return sp.Max(a, b)
    if op == "min":
        return sp.Min(a, b)
    raise NotImplementedError(f"SymNode: operator {op!r}")


class SymNode:
    """An expression over size symbols with its example value (torch.fx.experimental.sym_node.SymNode)."""

    __slots__ = ("expr", "shape_env", "pytype", "hint")

    def __init__(self, expr, shape_env, pytype, hint):
        self.expr, self.shape_env, self.pytype, self.hint = expr, shape_env, pytype, hint

    def str(self):
        return str(self.expr)

    def __repr__(self):
        return f"SymNode({self.expr}, hint={self.hint})"

    def is_int(self):
        return self.pytype is int

    def is_bool(self):
        return self.pytype is bool

    def is_float(self):
        return self.pytype is float

    def wrap(self, value):
        sp = _sympy()
        if isinstance(value, bool):
            return SymNode(sp.true if value else sp.false, self.shape_env, bool, value)
        if isinstance(value, int):
            return SymNode(sp.Integer(value), self.shape_env, int, value)
        return SymNode(sp.Float(value), self.shape_env, float, float(value))

    # ---------------------------------------------------------------- arithmetic
    def binary(self, op, other):
        hint = _HINT[op](self.hint, other.hint)
        if op in _REL:
            pytype = bool
        elif op in ("and", "or"):
            pytype = bool
        elif op == "truediv" or float in (self.pytype, other.pytype):
            pytype = float
        elif op == "pow" and isinstance(hint, float):
            pytype = float
        else:
            pytype = int
        env = self.shape_env
        key = (op, self.expr, other.expr)
        expr = env._expr_cache.get(key)           # models repeat the same size arithmetic many times
        if expr is None:
            expr = env._expr_cache[key] = _expr_of(op, self.expr, other.expr)
        return env._make_value(expr, pytype, hint)

    def unary(self, op):
        sp = _sympy()
        h = self.hint
        if op == "neg":
            return self.shape_env._make_value(-self.expr, self.pytype, -h)
        if op == "abs":
            return self.shape_env._make_value(sp.Abs(self.expr), self.pytype, abs(h))
        if op == "not":
            return self.shape_env._make_value(sp.Not(self.expr), bool, not h)
        if op == "sym_float":
            return self.shape_env._make_value(self.expr, float, float(h))
        if op == "trunc":
            return self.shape_env._make_value(sp.floor(self.expr) if h >= 0 else sp.ceiling(self.expr), int,
                                              math.trunc(h))
        if op == "sqrt":
            return self.shape_env._make_value(sp.sqrt(self.expr), float, math.sqrt(h))
        raise NotImplementedError(f"SymNode: operator {op!r}")

    # ---------------------------------------------------------------- deciding values (guards)
    def guard_bool(self):
        return bool(self.shape_env.evaluate_expr(self.expr, self.hint))

    def guard_int(self):
        return int(self.shape_env.specialize(self.expr, self.hint))

    def guard_float(self):
        return float(self.shape_env.specialize(self.expr, self.hint))


def wrap_node(node):
    """The Sym* object for `node`, by its type."""
    return SymInt(node) if node.pytype is int else SymBool(node) if node.pytype is bool else SymFloat(node)
