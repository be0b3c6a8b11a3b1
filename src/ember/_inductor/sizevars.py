"""torch/_inductor/sizevars.py: symbolic sizes in the loop IR, so that one compiled graph serves every size.

A graph traced with dynamic shapes has sizes that are SymInts (sympy expressions over `s0`, `s1`, ...). The IR
(`ir.Layout`, `index.Index`, the scheduler) works on ints, so lowering sees each symbolic size as a `SymSize`:
an `int` whose value is an example value (the "hint") and which also carries the size as a polynomial over the
size symbols with integer coefficients. Its arithmetic (+ - * and exact // and %) keeps the polynomial, and it
prints as that polynomial (`s0`, `(16*s0 + 1)`) — valid C and valid Python — so the generated C takes the
symbols as `int64_t` parameters in its loop bounds and index expressions, and the wrapper computes them from its
inputs' sizes at call time.

Equality is symbolic: a SymSize equals another SymSize with the same polynomial and never a plain int (the
symbols are at least 2: the ShapeEnv specialises 0 and 1). Ordering (`<`, `>`) uses the hint. A decision that
depends on a hint is caught by `compile_fx`: it lowers a symbolic graph twice, at the example sizes and at
other sizes, and only keeps the size-parameterised code when both give the same source; otherwise (or when a
size cannot be written as a polynomial, e.g. an inexact division) the graph is compiled per concrete size.
"""
import os

# A symbolic graph compiles to C that takes its sizes as run-time arguments (one build serves every size);
# False (EMBER_INDUCTOR_DYNAMIC_CODEGEN=0) compiles it per concrete size. (Not a torch config name: torch's
# inductor always generates size-parameterised code for a symbolic graph.)
dynamic_codegen = os.environ.get("EMBER_INDUCTOR_DYNAMIC_CODEGEN", "1") not in ("0", "false", "False")


class SizeUnsupported(NotImplementedError):
    """A symbolic size the size-parameterised code cannot express (the per-size fallback compiles it)."""


# opaque factors of a monomial: "ember_floordiv_i(s1, 2)" -> the symbols it reads. Such a factor is a call that
# means the same in C (the generated preamble's integer helpers) and Python (the wrapper's helpers), so a size
# like a pooled `floor(s1 / 2)` stays a run-time expression.
_ATOMS = {}


# the example value of each symbol and factor while a graph is lowered (set by GraphLowering), for the hints of
# the parts of a normalised quotient
HINTS = {}


def _mono_value(m):
    v = 1
    for f in m:
        v *= HINTS[f]
    return v


def _atom(fn, a, b, hint):
    if fn == "ember_floordiv_i" and isinstance(a, SymSize) and type(b) is int and b > 0:
        # floor((p + k*b) / b) = floor(p / b) + k: whole multiples of b move out, so that one size written two
        # ways ((s1 - 2) // 2 + 1 and s1 // 2) is one polynomial
        out, rest = {}, {}
        for m, c in a.terms:
            q, r = divmod(c, b)
            if q:
                out[m] = q
            if r:
                rest[m] = r
        try:
            out_hint = sum(c * _mono_value(m) for m, c in out.items())
        except KeyError:
            out = {}
        if out:
            inner = SymSize.make(rest, int(a) - b * out_hint)
            inner = inner // b if inner else 0
            return SymSize.make(out, out_hint) + inner
    name = f"{fn}({a}, {b})"
    _ATOMS[name] = symbols_of(a) | symbols_of(b)
    HINTS[name] = hint
    return SymSize.make({(name,): 1}, hint)


def _mono_mul(a, b):
    return tuple(sorted(a + b))


class SymSize(int):
    """An int (the hint) that is also a polynomial over size symbols: `terms` = ((monomial, coeff), ...)."""

    def __new__(cls, hint, terms):
        obj = int.__new__(cls, hint)
        obj.terms = terms
        return obj

    # ---------------------------------------------------------------- construction
    @staticmethod
    def make(terms, hint):
        terms = {m: c for m, c in terms.items() if c}
        if not terms:
            return 0
        if len(terms) == 1 and () in terms:
            return terms[()]
        return SymSize(hint, tuple(sorted(terms.items())))

    def _d(self):
        return dict(self.terms)

    @staticmethod
    def _terms_of(x):
        if isinstance(x, SymSize):
            return dict(x.terms)
        return {(): int(x)} if x else {}

    # ---------------------------------------------------------------- arithmetic
    def __add__(self, o):
        if not isinstance(o, int):
            return NotImplemented
        t = self._d()
        for m, c in SymSize._terms_of(o).items():
            t[m] = t.get(m, 0) + c
        return SymSize.make(t, int.__add__(int(self), int(o)))

    __radd__ = __add__

    def __neg__(self):
        return SymSize.make({m: -c for m, c in self.terms}, -int(self))

    def __pos__(self):
        return self

    def __abs__(self):
        return self if int(self) >= 0 else -self

    def __sub__(self, o):
        if not isinstance(o, int):
            return NotImplemented
        return self + (-o)

    def __rsub__(self, o):
        if not isinstance(o, int):
            return NotImplemented
        return (-self) + o

    def __mul__(self, o):
        if not isinstance(o, int):
            return NotImplemented
        t = {}
        for m1, c1 in self.terms:
            for m2, c2 in SymSize._terms_of(o).items():
                m = _mono_mul(m1, m2)
                t[m] = t.get(m, 0) + c1 * c2
        return SymSize.make(t, int(self) * int(o))

    __rmul__ = __mul__

    def __floordiv__(self, o):
        if not isinstance(o, int):
            return NotImplemented
        if isinstance(o, SymSize):
            if o.terms == self.terms:
                return 1
            q = _exact_quotient(self, o)
            if q is not None:
                return q
            return _atom("ember_floordiv_i", self, o, int(self) // int(o))
        o = int(o)
        if o == 1:
            return self
        if all(c % o == 0 for _, c in self.terms):
            return SymSize.make({m: c // o for m, c in self.terms}, int(self) // o)
        if o > 0:
            return _atom("ember_floordiv_i", self, o, int(self) // o)
        raise SizeUnsupported(f"ember._inductor: {self} // {o}")

    def __rfloordiv__(self, o):
        if not isinstance(o, int):
            return NotImplemented
        if o == 0:
            return 0
        return _atom("ember_floordiv_i", o, self, int(o) // int(self))

    def __mod__(self, o):
        if not isinstance(o, int):
            return NotImplemented
        if isinstance(o, SymSize):
            if o.terms == self.terms or _exact_quotient(self, o) is not None:
                return 0
        elif int(o) == 1 or all(c % int(o) == 0 for _, c in self.terms):
            return 0
        return _atom("ember_mod_i", self, o, int(self) % int(o))

    def __rmod__(self, o):
        if not isinstance(o, int):
            return NotImplemented
        if o == 0:
            return 0
        return _atom("ember_mod_i", o, self, int(o) % int(self))

    # ---------------------------------------------------------------- comparison (symbolic equality)
    def __eq__(self, o):
        if isinstance(o, SymSize):
            return self.terms == o.terms
        return False

    def __ne__(self, o):
        return not self.__eq__(o)

    def __hash__(self):
        return hash(self.terms)

    def __bool__(self):
        return True             # symbols are >= 2, and a polynomial that is identically 0 is the int 0

    # ---------------------------------------------------------------- printing (C and Python alike)
    def __str__(self):
        parts = []
        for m, c in self.terms:
            mono = "*".join(m)
            if not m:
                s = str(abs(c))
            elif abs(c) == 1:
                s = mono
            else:
                s = f"{abs(c)}*{mono}"
            if not parts:
                parts.append(s if c > 0 else f"-{s}")
            else:
                parts.append(f"+ {s}" if c > 0 else f"- {s}")
        text = " ".join(parts)
        if len(self.terms) == 1 and self.terms[0][1] == 1:
            return text
        return f"({text})"

    __repr__ = __str__

    def __format__(self, spec):
        return format(str(self), spec)

    def __reduce__(self):
        return (SymSize, (int(self), self.terms))

    def symbols(self):
        out = set()
        for m, _ in self.terms:
            for f in m:
                out |= _ATOMS.get(f, {f})
        return out


def _exact_quotient(a, b):
    """a / b when b is a single monomial dividing every monomial of a, else None."""
    if len(b.terms) != 1:
        return None
    (bm, bc), = b.terms
    out = {}
    for m, c in a.terms:
        rest = list(m)
        for s in bm:
            if s not in rest:
                return None
            rest.remove(s)
        if c % bc:
            return None
        out[tuple(rest)] = c // bc
    return SymSize.make(out, int(a) // int(b))


def is_symbolic(x):
    return isinstance(x, SymSize)


def symbols_of(x):
    return x.symbols() if isinstance(x, SymSize) else set()


def heuristic_value(x, guess=64):
    """A plain int for size-based heuristics (fusion scores) that does not depend on the example sizes: every
    symbol counts as `guess`."""
    if not isinstance(x, SymSize):
        return int(x)
    total = 0
    for m, c in x.terms:
        total += c * guess ** len(m)
    return total


def from_sympy(expr, hints):
    """The SymSize (or int) of a sympy expression over size symbols, its hint computed from `hints`
    ({symbol name: int}). Raises SizeUnsupported for anything that is not a polynomial."""
    if expr.is_Integer:
        return int(expr)
    return SymSize.make(_poly(expr, hints), value_at(expr, hints))


def value_at(expr, hints):
    """The int value of a sympy size expression with each symbol at `hints` ({name: int})."""
    import sympy
    return int(expr.xreplace({s: sympy.Integer(hints[s.name]) for s in expr.free_symbols}))


def _poly(expr, hints):
    if expr.is_Integer:
        return {(): int(expr)}
    if expr.is_Symbol:
        return {(expr.name,): 1}
    fname = type(expr).__name__
    if fname in ("floor", "FloorDiv", "Mod"):
        import sympy
        if fname == "floor":
            num, den = sympy.fraction(sympy.together(expr.args[0]))
        else:
            num, den = expr.args
        if den.is_Integer and int(den) > 0 or not den.is_number:
            a = from_sympy(num, hints)
            b = from_sympy(den, hints)
            fn = "ember_mod_i" if fname == "Mod" else "ember_floordiv_i"
            return dict(_atom(fn, a, b, value_at(expr, hints)).terms)
    if expr.is_Add:
        out = {}
        for a in expr.args:
            for m, c in _poly(a, hints).items():
                out[m] = out.get(m, 0) + c
        return out
    if expr.is_Mul:
        out = {(): 1}
        for a in expr.args:
            p = _poly(a, hints)
            new = {}
            for m1, c1 in out.items():
                for m2, c2 in p.items():
                    m = _mono_mul(m1, m2)
                    new[m] = new.get(m, 0) + c1 * c2
            out = new
        return out
    if expr.is_Pow and expr.exp.is_Integer and int(expr.exp) > 0:
        out = {(): 1}
        base = _poly(expr.base, hints)
        for _ in range(int(expr.exp)):
            new = {}
            for m1, c1 in out.items():
                for m2, c2 in base.items():
                    m = _mono_mul(m1, m2)
                    new[m] = new.get(m, 0) + c1 * c2
            out = new
        return out
    raise SizeUnsupported(f"ember._inductor: the size {expr} is not a polynomial of the size symbols")


class SymFloatSize(float):
    """A float computed from sizes (batch norm's n / (n - 1)): its example value, and `text`, an expression over
    the size symbols that C (the preamble's `ember_f64`/`ember_truediv`) and Python (the wrapper's helpers) both
    evaluate. Arithmetic on it gives a plain float (a decision on the example value, which the second lowering
    at other sizes catches)."""

    def __new__(cls, hint, text):
        obj = float.__new__(cls, hint)
        obj.text = text
        return obj

    def __str__(self):
        return self.text

    __repr__ = __str__

    def __format__(self, spec):
        return format(self.text, spec)

    def __reduce__(self):
        return (SymFloatSize, (float(self), self.text))


def float_from_sympy(expr, hints):
    """The SymFloatSize of a sympy float expression over size symbols (SizeUnsupported if it has no C form)."""
    import sympy
    value = float(expr.xreplace({s: sympy.Integer(hints[s.name]) for s in expr.free_symbols}))
    return SymFloatSize(value, _ftext(expr, hints))


def _ftext(e, hints):
    if e.is_number:
        return repr(float(e))
    try:
        return f"ember_f64({from_sympy(e, hints)})"
    except SizeUnsupported:
        pass
    if e.is_Add:
        return "(" + " + ".join(_ftext(a, hints) for a in e.args) + ")"
    if e.is_Mul:
        num, den = [], []
        for a in e.args:
            if a.is_Pow and a.exp.is_Integer and int(a.exp) < 0:
                den.append(_ftext(a.base ** (-int(a.exp)), hints))
            else:
                num.append(_ftext(a, hints))
        n = " * ".join(num) or "1.0"
        return f"ember_truediv({n}, {' * '.join(den)})" if den else f"({n})"
    if e.is_Pow and e.exp.is_Integer:
        k = int(e.exp)
        base = _ftext(e.base, hints)
        if k > 0:
            return "(" + " * ".join([base] * k) + ")"
        return f"ember_truediv(1.0, {'(' + ' * '.join([base] * -k) + ')'})"
    raise SizeUnsupported(f"ember._inductor: the float {e} has no C form")
