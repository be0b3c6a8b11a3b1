"""torch/_inductor/sizevars.py + its sympy index expressions, in miniature: affine index expressions.

Every index in ember's loop IR is affine: `const + sum(coeff * var)`, where a var is a loop variable
(`x0` for an outer loop, `y3_0` for the inner loop of kernel section 3) or, for an indirect load (embedding,
gather), the C temporary holding a loaded index (`tmp7`, an *opaque* var). Sizes and strides are ints, or
`sizevars.SymSize` ints that also carry a polynomial over size symbols (dynamic shapes): coefficients and
constants may then be symbolic, and they print as C expressions of the symbols. Views compose as affine maps. A reshape that cannot be written
as an affine map of its input's layout (it would need `//` and `%`) realizes its input into a contiguous
buffer first (see `ir.view`).
"""


class Index:
    __slots__ = ("terms", "const")

    def __init__(self, terms=None, const=0):
        self.terms = {k: c for k, c in terms.items() if c} if terms else {}
        self.const = const if isinstance(const, int) else int(const)    # int, or a SymSize (sizevars.py)

    @staticmethod
    def var(name):
        return Index({name: 1})

    @staticmethod
    def wrap(x):
        return x if isinstance(x, Index) else Index(None, x)

    def __add__(self, other):
        if type(other) is not Index:
            if not other:
                return self
            other = Index(None, other)
        if not other.terms:
            out = Index.__new__(Index)
            out.terms, out.const = self.terms, self.const + other.const     # terms are never mutated
            return out
        terms = dict(self.terms)
        for k, c in other.terms.items():
            terms[k] = terms.get(k, 0) + c
        return Index(terms, self.const + other.const)

    __radd__ = __add__

    def __neg__(self):
        return Index({k: -c for k, c in self.terms.items()}, -self.const)

    def __sub__(self, other):
        return self + (-Index.wrap(other))

    def __rsub__(self, other):
        return Index.wrap(other) - self

    def __mul__(self, k):
        if isinstance(k, Index):
            if k.terms and self.terms:
                raise NotImplementedError("ember._inductor: a product of two index variables is not affine")
            if not k.terms:
                k = k.const
            else:
                return k * self.const
        return Index({v: c * k for v, c in self.terms.items()}, self.const * k)

    __rmul__ = __mul__

    def is_constant(self):
        return not self.terms

    def coeff(self, var):
        return self.terms.get(var, 0)

    def key(self):
        return (tuple(sorted(self.terms.items())), self.const)

    def __eq__(self, other):
        return isinstance(other, Index) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def c(self):
        """The C expression (int64 arithmetic)."""
        parts = []
        for v, c in self.terms.items():
            if type(c) is not int:             # a symbolic coefficient (a SymSize prints as a C expression)
                parts.append(f"{c}*{v}")
            else:
                parts.append(v if c == 1 else f"{c}*{v}" if c > 0 else f"({c})*{v}")
        if self.const or not parts:
            parts.append(str(self.const))
        return " + ".join(parts)

    __str__ = c

    def __repr__(self):
        return f"Index({self.c()})"


def contiguous_strides(size):
    strides, acc = [], 1
    for s in reversed(size):
        strides.append(acc)
        acc = acc * s if s != 0 else acc          # (a symbolic size stays symbolic)
    return tuple(reversed(strides))


def prod(xs):
    p = 1
    for x in xs:
        p = p * x
    return p
