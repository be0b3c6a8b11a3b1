"""torch.fx.experimental.symbolic_shapes: ShapeEnv, the owner of size symbols, their value ranges and guards.

A ShapeEnv makes one sympy Symbol per dynamic size (`s0`, `s1`, ...) and remembers where it came from (its
sources: `L['x'].size()[0]`), its example value and its value range. As torch's:
- sizes 0 and 1 are never symbols (specialize_zero_one): a size-1 dimension broadcasts and a size-0 one is
  empty, so code behaves differently there; a dynamic size symbol starts with the range [2, inf];
- duck sizing (duck_shape): two sizes with the same example value share one symbol, and the guard
  `src1 == src0` keeps that true;
- `evaluate_expr(expr)` is what `bool()` of a symbolic relation comes to: when the value ranges (and the
  relations guarded so far) decide it, no guard; otherwise the example value decides, and the relation (or its
  negation) becomes a guard, narrowing the symbol's range when it bounds one symbol;
- `specialize(expr)` is `int()` of a SymInt: the guard `expr == value`; a symbol specialised this way is
  replaced by its value in every expression made afterwards.
`produce_guards` turns all of this into Python boolean expressions over the sources (dynamo compiles them into
its guard function); `format_guards` lists them for explain.

sympy is imported when the first ShapeEnv is made (never by `import ember`).
"""
import enum
import math
import os
import sys

from ember._core.symint import SymBool, SymFloat, SymInt, hint_int, is_symbolic  # noqa: F401

from .sym_node import SymNode, wrap_node

__all__ = ["ShapeEnv", "DimDynamic", "StatelessSymbolicContext", "StatefulSymbolicContext", "ValueRanges",
           "guard_int", "guard_bool", "guard_float", "is_concrete_int", "is_concrete_bool", "free_symbols",
           "has_free_symbols", "hint_int", "statically_known_true", "definitely_true", "definitely_false",
           "sym_eq", "GuardOnDataDependentSymNode", "ConstraintViolationError", "SymbolicSizeSource"]

INF = math.inf


class GuardOnDataDependentSymNode(RuntimeError):
    pass


class ConstraintViolationError(RuntimeError):
    pass


class DimDynamic(enum.Enum):
    """How a dimension becomes a size (torch's DimDynamic)."""
    DYNAMIC = 0        # a fresh symbol of its own
    DUCK = 1           # a symbol shared with other sizes of the same value
    STATIC = 2         # the plain int


class StatelessSymbolicContext:
    """Per dimension of one tensor, how its size is made (torch's StatelessSymbolicContext)."""

    def __init__(self, dynamic_sizes, constraint_sizes=None):
        self.dynamic_sizes = list(dynamic_sizes)
        self.constraint_sizes = constraint_sizes


StatefulSymbolicContext = StatelessSymbolicContext


class SymbolicSizeSource:
    """Where a size symbol came from: dimension `dim` of the tensor at `base` (a source or a name)."""

    def __init__(self, base, dim):
        self.base, self.dim = base, dim

    def name(self):
        b = self.base.name() if hasattr(self.base, "name") else str(self.base)
        return f"{b}.size()[{self.dim}]"

    def __repr__(self):
        return self.name()


class ValueRanges:
    """A closed integer interval [lower, upper] (either end may be infinite)."""

    __slots__ = ("lower", "upper")

    def __init__(self, lower, upper):
        self.lower, self.upper = lower, upper

    def __repr__(self):
        return f"VR[{self.lower}, {self.upper}]"

    def __eq__(self, other):
        return isinstance(other, ValueRanges) and (self.lower, self.upper) == (other.lower, other.upper)

    def is_singleton(self):
        return self.lower == self.upper


def _sympy():
    import sympy
    return sympy


def _log(text):
    """torch's TORCH_LOGS=dynamic: symbols made, guards added (EMBER_LOGS=dynamic)."""
    if "dynamic" in {p.strip().lstrip("+") for p in os.environ.get("EMBER_LOGS", "").split(",")}:
        print(f"[ember.fx.experimental.symbolic_shapes:dynamic] {text}", file=sys.stderr)


class ShapeEnv:
    """Size symbols, their sources, example values and ranges, and the guards recorded on them."""

    def __init__(self, *, duck_shape=True, specialize_zero_one=True, assume_static_by_default=False,
                 allow_scalar_outputs=True, allow_dynamic_output_shape_ops=False):
        _sympy()
        self.duck_shape = duck_shape
        self.specialize_zero_one = specialize_zero_one
        self.assume_static_by_default = assume_static_by_default
        self.var_to_val = {}          # Symbol -> example value
        self.var_to_range = {}        # Symbol -> ValueRanges (narrowed by guards)
        self.var_to_declared = {}     # Symbol -> the range it was made with (2 <= s) or declared (mark_dynamic)
        self.var_to_sources = {}      # Symbol -> [source]
        self.val_to_var = {}          # example value -> Symbol (duck sizing)
        self.replacements = {}        # Symbol (or term) -> Integer (specialised by int() or an equality guard)
        self._replaced_syms = set()   # the symbols the replacements' keys contain
        self.guards = []              # sympy boolean expressions recorded as guards, in order
        self._known = {}              # relation -> its value (guarded)
        self._next = 0
        self._expr_cache = {}         # (op, expr, expr) -> expr (sympy construction is the cost of tracing)
        self._decided = {}            # relation -> True/False/None from the ranges (cleared when they change)

    # ---------------------------------------------------------------- symbols
    def create_symbol(self, val, source=None, dynamic_dim=DimDynamic.DUCK, constraint_dim=None):
        """A Symbol for a size of example value `val` (or sympy.Integer(val) when the size stays static)."""
        sp = _sympy()
        val = int(val)
        if dynamic_dim is DimDynamic.STATIC or (self.specialize_zero_one and val in (0, 1)):
            return sp.Integer(val)
        if dynamic_dim is DimDynamic.DUCK and self.duck_shape and val in self.val_to_var:
            sym = self.val_to_var[val]
            if source is not None:
                self.var_to_sources[sym].append(source)
            return sym
        sym = sp.Symbol(f"s{self._next}", integer=True, positive=True)
        self._next += 1
        self.var_to_val[sym] = val
        self.var_to_range[sym] = ValueRanges(2 if self.specialize_zero_one else 0, INF)
        self.var_to_declared[sym] = self.var_to_range[sym]
        self.var_to_sources[sym] = [source] if source is not None else []
        if dynamic_dim is DimDynamic.DUCK and self.duck_shape:
            self.val_to_var[val] = sym
        _log(f"create_symbol {sym} = {val} for {source.name() if hasattr(source, 'name') else source}")
        return sym

    def create_symintnode(self, sym, hint=None, source=None):
        """A SymInt over `sym` (a plain int when `sym` is a number)."""
        sp = _sympy()
        sym = sp.sympify(sym)
        if sym.is_number:
            return int(sym)
        if hint is None:
            hint = self._hint(sym)
        return SymInt(SymNode(sym, self, int, hint))

    def create_symbolic_sizes_strides_storage_offset(self, ex, source=None, symbolic_context=None):
        """SymInt sizes for tensor `ex` (dims by `symbolic_context`, all duck-sized by default) and strides:
        dense tensors get strides expressed through the sizes, others keep their concrete strides."""
        from ember._core.strides import is_non_overlapping_and_dense, strides_in_order
        shape = tuple(ex.shape)
        dyn = symbolic_context.dynamic_sizes if symbolic_context is not None else [DimDynamic.DUCK] * len(shape)
        sizes = []
        for d, v in enumerate(shape):
            sym = self.create_symbol(v, SymbolicSizeSource(source, d) if source is not None else None, dyn[d])
            sizes.append(self.create_symintnode(sym, v))
        sizes = tuple(sizes)
        strides = tuple(ex.stride())
        if any(is_symbolic(s) for s in sizes) and len(shape) and is_non_overlapping_and_dense(shape, strides):
            perm = sorted(range(len(shape)), key=lambda i: (strides[i], -i) if shape[i] != 1 else (INF, -i))
            dense = strides_in_order(shape, perm)
            if dense == strides:
                strides = strides_in_order(sizes, perm)
        return sizes, strides, ex.storage_offset()

    def _hint(self, expr):
        sp = _sympy()
        v = expr.xreplace({s: sp.Integer(self.var_to_val[s]) for s in expr.free_symbols if s in self.var_to_val})
        return int(v) if v.is_integer else float(v)

    def _replace(self, target, value):
        """From now on `target` (a symbol or a term such as floor(s1/2)**2) is `value` in every new expression."""
        self.replacements[target] = value
        self._replaced_syms |= target.free_symbols
        self._decided.clear()

    def _simplify(self, expr):
        if self.replacements and not expr.free_symbols.isdisjoint(self._replaced_syms):
            expr = expr.xreplace(self.replacements)
        return expr

    def _make_value(self, expr, pytype, hint):
        """The result of an operation: a plain Python value when the expression is a number, else a Sym*."""
        sp = _sympy()
        expr = self._simplify(expr)
        if pytype is bool:
            if expr in (sp.true, sp.false):
                return bool(expr)
            decided = self._static_eval(expr)
            if decided is not None:
                return decided
            return SymBool(SymNode(expr, self, bool, bool(hint)))
        if expr.is_number:
            return int(expr) if pytype is int else float(expr)
        return wrap_node(SymNode(expr, self, pytype, hint))

    # ---------------------------------------------------------------- value ranges
    def bound_sympy(self, expr):
        """An interval holding every value of `expr` allowed by the symbols' ranges."""
        sp = _sympy()
        if expr.is_number:
            v = float(expr) if not expr.is_integer else int(expr)
            return ValueRanges(v, v)
        if expr.is_Symbol:
            return self.var_to_range.get(expr, ValueRanges(-INF, INF))
        if isinstance(expr, sp.Add):
            lo = hi = 0
            for a in expr.args:
                r = self.bound_sympy(a)
                lo, hi = lo + r.lower, hi + r.upper
            return ValueRanges(lo, hi)
        if isinstance(expr, sp.Mul):
            r = ValueRanges(1, 1)
            for a in expr.args:
                b = self.bound_sympy(a)
                corners = [_mul(x, y) for x in (r.lower, r.upper) for y in (b.lower, b.upper)]
                r = ValueRanges(min(corners), max(corners))
            return r
        if isinstance(expr, sp.Pow) and expr.exp.is_Integer and int(expr.exp) >= 0:
            b = self.bound_sympy(expr.base)
            if b.lower >= 0:
                e = int(expr.exp)
                return ValueRanges(b.lower ** e, b.upper ** e)
            return ValueRanges(-INF, INF)
        if isinstance(expr, (sp.floor, sp.ceiling)):
            b = self.bound_sympy(expr.args[0])
            f = math.floor if isinstance(expr, sp.floor) else math.ceil
            return ValueRanges(f(b.lower) if b.lower != -INF else -INF, f(b.upper) if b.upper != INF else INF)
        if isinstance(expr, sp.Mod):
            b = self.bound_sympy(expr.args[1])
            if b.lower > 0:
                return ValueRanges(0, b.upper - 1 if b.upper != INF else INF)
            return ValueRanges(-INF, INF)
        if isinstance(expr, (sp.Max, sp.Min)):
            rs = [self.bound_sympy(a) for a in expr.args]
            f = max if isinstance(expr, sp.Max) else min
            return ValueRanges(f(r.lower for r in rs), f(r.upper for r in rs))
        return ValueRanges(-INF, INF)

    def _static_eval(self, expr):
        """True/False when ranges and earlier guards decide the boolean `expr`, else None."""
        try:
            return self._decided[expr]
        except KeyError:
            pass
        r = self._decided[expr] = self._static_eval_uncached(expr)
        return r

    def _static_eval_uncached(self, expr):
        sp = _sympy()
        if expr in (sp.true, sp.false):
            return bool(expr)
        known = self._known.get(expr)
        if known is not None:
            return known
        if isinstance(expr, sp.Not):
            r = self._static_eval(expr.args[0])
            return None if r is None else not r
        if isinstance(expr, (sp.And, sp.Or)):
            rs = [self._static_eval(a) for a in expr.args]
            if isinstance(expr, sp.And):
                return False if False in rs else (True if all(r is True for r in rs) else None)
            return True if True in rs else (False if all(r is False for r in rs) else None)
        if not isinstance(expr, sp.core.relational.Relational):
            return None
        diff = sp.expand(expr.lhs - expr.rhs)
        b = self.bound_sympy(diff)
        lo, hi = b.lower, b.upper
        r = self._decide(expr, lo, hi)
        if r is None and isinstance(diff, sp.Add) and len(diff.free_symbols) > 1:
            # intervals lose the correlation between terms (48*s1 - 48*s0*s1): a factored form may keep it
            b = self.bound_sympy(sp.factor(diff))
            r = self._decide(expr, b.lower, b.upper)
        return r

    @staticmethod
    def _decide(expr, lo, hi):
        sp = _sympy()
        if isinstance(expr, sp.StrictLessThan):
            return True if hi < 0 else False if lo >= 0 else None
        if isinstance(expr, sp.LessThan):
            return True if hi <= 0 else False if lo > 0 else None
        if isinstance(expr, sp.StrictGreaterThan):
            return True if lo > 0 else False if hi <= 0 else None
        if isinstance(expr, sp.GreaterThan):
            return True if lo >= 0 else False if hi < 0 else None
        if isinstance(expr, sp.Eq):
            return True if lo == hi == 0 else False if lo > 0 or hi < 0 else None
        if isinstance(expr, sp.Ne):
            return False if lo == hi == 0 else True if lo > 0 or hi < 0 else None
        return None

    def statically_known_true(self, expr):
        return self._static_eval(_sympy().sympify(expr)) is True

    # ---------------------------------------------------------------- guards
    def evaluate_expr(self, expr, hint=None):
        """The value of boolean `expr`: decided by the ranges when possible, else by the example value, with a
        guard recorded so the traced code is only reused where the same decision holds."""
        sp = _sympy()
        expr = self._simplify(expr)
        decided = self._static_eval(expr)
        if decided is not None:
            return decided
        if hint is None:
            hint = bool(self._hint_bool(expr))
        value = bool(hint)
        guard = expr if value else sp.Not(expr)
        self._record(guard)
        self._known[expr] = value
        return value

    def _hint_bool(self, expr):
        sp = _sympy()
        return expr.xreplace({s: sp.Integer(self.var_to_val[s]) for s in expr.free_symbols if s in self.var_to_val})

    def specialize(self, expr, hint):
        """`int()` of a symbolic value: the guard `expr == hint`; a lone symbol is replaced by its value."""
        sp = _sympy()
        expr = self._simplify(expr)
        if expr.is_number:
            return expr
        eq = sp.Eq(expr, hint)
        if self._known.get(eq) is not True:
            self._record(eq)
            self._known[eq] = True
        if expr.is_Symbol:
            self._replace(expr, sp.Integer(hint))
            self.var_to_range[expr] = ValueRanges(hint, hint)
        return hint

    def _record(self, guard):
        sp = _sympy()
        if guard in (sp.true, sp.false):
            return
        self.guards.append(guard)
        self._decided.clear()
        self._refine(guard)
        _log(f"eval {guard} [guard added]")

    def _refine(self, guard):
        """A guard bounding one symbol by a constant narrows the symbol's range."""
        sp = _sympy()
        if not isinstance(guard, sp.core.relational.Relational) or isinstance(guard, sp.Ne):
            return
        diff = sp.expand(guard.lhs - guard.rhs)
        syms = diff.free_symbols
        if isinstance(guard, sp.Eq) and syms:
            # `c*term + k == 0` with one non-constant term (4*floor(s1/2)**2 == 64): the term is a constant from
            # now on, so expressions made later that contain it simplify (and relations implied by it decide)
            coeff, term = diff.as_independent(*syms, as_Add=True)
            if term.is_Mul or term.is_Pow or isinstance(term, (sp.floor, sp.Mod)):
                c, t = term.as_coeff_Mul()
                value = -coeff / c
                if value.is_Integer and not t.is_Symbol:
                    self._replace(t, sp.Integer(value))
        if len(syms) != 1:
            return
        (s,) = syms
        coeff = diff.coeff(s)
        const = diff - coeff * s
        if not (coeff.is_number and const.is_number) or coeff == 0 or diff != coeff * s + const:
            return
        bound = -const / coeff                   # the relation compares s with `bound`
        flip = coeff < 0
        r = self.var_to_range.get(s)
        if r is None:
            return
        lo, hi = r.lower, r.upper
        kind = type(guard)
        if flip:
            kind = {sp.StrictLessThan: sp.StrictGreaterThan, sp.StrictGreaterThan: sp.StrictLessThan,
                    sp.LessThan: sp.GreaterThan, sp.GreaterThan: sp.LessThan}.get(kind, kind)
        if kind is sp.StrictLessThan:
            hi = min(hi, math.ceil(bound) - 1)
        elif kind is sp.LessThan:
            hi = min(hi, math.floor(bound))
        elif kind is sp.StrictGreaterThan:
            lo = max(lo, math.floor(bound) + 1)
        elif kind is sp.GreaterThan:
            lo = max(lo, math.ceil(bound))
        elif kind is sp.Eq and bound.is_Integer:
            lo = hi = int(bound)
            self._replace(s, sp.Integer(lo))       # (torch: a guarded `s == 8` makes s the constant 8)
        self.var_to_range[s] = ValueRanges(lo, hi)

    def constrain_range(self, sym, lower=None, upper=None):
        """Narrow `sym`'s range to [lower, upper] (mark_dynamic's min/max); the bounds become guards."""
        r = self.var_to_range[sym]
        lo = r.lower if lower is None else max(r.lower, lower)
        hi = r.upper if upper is None else min(r.upper, upper)
        val = self.var_to_val[sym]
        if not lo <= val <= hi:
            raise ConstraintViolationError(f"the example size {val} is outside the declared range [{lower}, {upper}]")
        self.var_to_range[sym] = ValueRanges(lo, hi)
        self.var_to_declared[sym] = ValueRanges(lo, hi)
        self._decided.clear()

    def check_marked_dynamic(self, marked, name_of):
        """Raise ConstraintViolationError if a dimension marked dynamic was specialised (torch's message)."""
        bad = []
        for sym, source, dim in marked:
            name = name_of(SymbolicSizeSource(source, dim))
            if sym in self.replacements:
                bad.append(f"  - Not all values of {name} are valid because {name} was inferred to be a constant "
                           f"({self.replacements[sym]}).")
        if bad:
            names = ", ".join(name_of(SymbolicSizeSource(s, d)) for _, s, d in marked)
            raise ConstraintViolationError(f"Constraints violated ({names})! For more information, run with "
                                           f"EMBER_LOGS=dynamic.\n" + "\n".join(bad))

    def source_names(self, name_of=None):
        """Symbol -> the Python expression of its first source."""
        name_of = name_of or (lambda src: src.name() if hasattr(src, "name") else str(src))
        return {s: name_of(srcs[0]) for s, srcs in self.var_to_sources.items() if srcs}

    def produce_guards_expression(self, name_of=None):
        """The guards as Python boolean expressions over the sources: equalities from duck sizing, the
        symbols' ranges (2 <= size), then every relation recorded while tracing."""
        name_of = name_of or (lambda src: src.name() if hasattr(src, "name") else str(src))
        names = self.source_names(name_of)
        out = []
        for s, srcs in self.var_to_sources.items():
            if not srcs:
                continue
            first = name_of(srcs[0])
            for other in srcs[1:]:
                out.append(f"{name_of(other)} == {first}")
            if s in self.replacements:
                continue
            r = self.var_to_declared[s]          # (narrowing by guards is said by the guards themselves)
            if r.lower != -INF:
                out.append(f"{first} >= {r.lower}")
            if r.upper != INF:
                out.append(f"{first} <= {r.upper}")
        for g in self.guards:
            text = to_python(g, names)
            if text not in out:
                out.append(text)
        return out

    def format_guards(self):
        return "\n".join(f" - {g}" for g in self.produce_guards_expression())

    def size_hint(self, expr):
        return self._hint(_sympy().sympify(expr))


def _mul(x, y):
    if x == 0 or y == 0:
        return 0
    return x * y


# ---------------------------------------------------------------- printing sympy expressions as Python
def to_python(expr, names):
    """A Python expression for sympy `expr`, symbols written as `names[symbol]` (integer arithmetic)."""
    sp = _sympy()
    p = lambda e: to_python(e, names)            # noqa: E731
    if expr is sp.true:
        return "True"
    if expr is sp.false:
        return "False"
    if expr.is_Symbol:
        return names.get(expr, str(expr))
    if expr.is_Integer:
        return str(int(expr))
    if expr.is_Rational:
        return f"({expr.p} / {expr.q})"
    if expr.is_Float:
        return repr(float(expr))
    if isinstance(expr, sp.Add):
        terms = [p(a) for a in expr.args]
        return "(" + " + ".join(terms) + ")"
    if isinstance(expr, sp.Mul):
        num, den = sp.fraction(expr)
        if den != 1:
            return f"({p(num)} / {p(den)})"
        return "*".join(p(a) if not isinstance(a, sp.Add) else f"({p(a)})" for a in expr.args)
    if isinstance(expr, sp.Pow):
        return f"({p(expr.base)} ** {p(expr.exp)})"
    if isinstance(expr, sp.floor):
        num, den = sp.fraction(sp.together(expr.args[0]))
        if den != 1:
            return f"({p(num)} // {p(den)})"
        return f"___floor({p(num)})"
    if isinstance(expr, sp.Mod):
        return f"({p(expr.args[0])} % {p(expr.args[1])})"
    if isinstance(expr, (sp.Max, sp.Min)):
        f = "max" if isinstance(expr, sp.Max) else "min"
        return f"{f}({', '.join(p(a) for a in expr.args)})"
    if isinstance(expr, sp.Not):
        return f"not ({p(expr.args[0])})"
    if isinstance(expr, (sp.And, sp.Or)):
        j = " and " if isinstance(expr, sp.And) else " or "
        return "(" + j.join(f"({p(a)})" for a in expr.args) + ")"
    if isinstance(expr, sp.core.relational.Relational):
        op = {sp.Eq: "==", sp.Ne: "!=", sp.StrictLessThan: "<", sp.LessThan: "<=", sp.StrictGreaterThan: ">",
              sp.GreaterThan: ">="}[type(expr)]
        return f"{p(expr.lhs)} {op} {p(expr.rhs)}"
    if isinstance(expr, sp.Abs):
        return f"abs({p(expr.args[0])})"
    raise NotImplementedError(f"symbolic_shapes: printing {type(expr).__name__} as Python")


# ---------------------------------------------------------------- sympy expressions as graph values
def expr_to_graph(expr, memo, leaf, call):
    """The graph value computing sympy `expr`: `leaf(symbol)` reads a symbol (a sym_size node), `call(fn, args)`
    adds an `operator` node; numbers stay Python constants; `memo` (expr -> value) computes each once."""
    import operator
    sp = _sympy()
    hit = memo.get(expr)
    if hit is not None:
        return hit
    if expr.is_Integer:
        return int(expr)
    if expr.is_Rational or expr.is_Float:
        return float(expr)
    if expr in (sp.true, sp.false):
        return bool(expr)
    g = lambda e: expr_to_graph(e, memo, leaf, call)      # noqa: E731
    if expr.is_Symbol:
        v = leaf(expr)
    elif isinstance(expr, sp.Add):
        pos = [a for a in expr.args if not a.could_extract_minus_sign()]
        neg = [-a for a in expr.args if a.could_extract_minus_sign()]
        if not pos:
            v = call(operator.neg, (g(sp.Add(*neg)),))
        else:
            v = g(pos[0])
            for a in pos[1:]:
                v = call(operator.add, (v, g(a)))
            for a in neg:
                v = call(operator.sub, (v, g(a)))
    elif isinstance(expr, sp.Mul):
        num, den = sp.fraction(expr)
        coeff, rest = expr.as_coeff_Mul()
        if den != 1:
            v = call(operator.truediv, (g(num), g(den)))
        elif coeff == -1:
            v = call(operator.neg, (g(rest),))
        else:
            v = g(expr.args[0])
            for a in expr.args[1:]:
                v = call(operator.mul, (v, g(a)))
    elif isinstance(expr, sp.floor):
        num, den = sp.fraction(sp.together(expr.args[0]))
        v = call(operator.floordiv, (g(num), g(den)))
    elif isinstance(expr, sp.Mod):
        v = call(operator.mod, (g(expr.args[0]), g(expr.args[1])))
    elif isinstance(expr, sp.Pow) and expr.exp.is_Integer and int(expr.exp) > 0:
        v = call(operator.pow, (g(expr.base), int(expr.exp)))
    elif isinstance(expr, (sp.Max, sp.Min)):
        from ember._core.symint import sym_max, sym_min
        f = sym_max if isinstance(expr, sp.Max) else sym_min
        v = g(expr.args[0])
        for a in expr.args[1:]:
            v = call(f, (v, g(a)))
    elif isinstance(expr, sp.core.relational.Relational):
        op = {sp.Eq: operator.eq, sp.Ne: operator.ne, sp.StrictLessThan: operator.lt, sp.LessThan: operator.le,
              sp.StrictGreaterThan: operator.gt, sp.GreaterThan: operator.ge}[type(expr)]
        v = call(op, (g(expr.lhs), g(expr.rhs)))
    else:
        raise NotImplementedError(f"a symbolic size {expr} ({type(expr).__name__}) as a graph value")
    memo[expr] = v
    return v


def simplified_expr(s):
    """The expression of Sym* `s` with the symbols specialised since it was made replaced by their values."""
    node = s.node
    env = node.shape_env
    expr = node.expr
    return env._simplify(expr)


# ---------------------------------------------------------------- torch's helper functions
def guard_int(a):
    return a.node.guard_int() if isinstance(a, SymInt) else int(a)


def guard_bool(a):
    return a.node.guard_bool() if isinstance(a, SymBool) else bool(a)


def guard_float(a):
    return a.node.guard_float() if isinstance(a, SymFloat) else float(a)


def is_concrete_int(a):
    return isinstance(a, int) and not isinstance(a, bool) or (isinstance(a, SymInt) and a.node.expr.is_number)


def is_concrete_bool(a):
    return isinstance(a, bool)


def free_symbols(val):
    if is_symbolic(val):
        return val.node.expr.free_symbols
    if isinstance(val, (list, tuple)):
        out = set()
        for v in val:
            out |= free_symbols(v)
        return out
    if hasattr(val, "shape") and hasattr(val, "stride"):
        return free_symbols(tuple(val.shape)) | free_symbols(tuple(val.stride()))
    return set()


def has_free_symbols(val):
    return bool(free_symbols(val))


def statically_known_true(x):
    if isinstance(x, SymBool):
        return x.node.shape_env._static_eval(x.node.expr) is True
    return bool(x)


def definitely_true(x):
    if isinstance(x, SymBool):
        return x.node.shape_env._static_eval(x.node.expr) is True
    return bool(x)


def definitely_false(x):
    if isinstance(x, SymBool):
        return x.node.shape_env._static_eval(x.node.expr) is False
    return not bool(x)


def sym_eq(x, y):
    if isinstance(x, (tuple, list)) and isinstance(y, (tuple, list)):
        if len(x) != len(y):
            return False
        r = True
        for a, b in zip(x, y):
            r = r & (a == b) if is_symbolic(r) or is_symbolic(a) or is_symbolic(b) else (r and a == b)
        return r
    return x == y
