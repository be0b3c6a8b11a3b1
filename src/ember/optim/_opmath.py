"""One torch op of an update rule = one rounding (torch's CPU "opmath" for reduced floats).

torch's single-tensor optimizers (the CPU default) run each step as a chain of tensor ops on the parameter's
own dtype. For float16 / bfloat16 every such op widens its inputs to float32, computes, and rounds the result
back once. Measured on torch 2.13 (CPU, vectorized path): `add`'s alpha and a Scalar `other` are first
rounded to the tensor's dtype (the wrapped number takes the tensor's type), while mul/div/addcmul/addcdiv/lerp
keep their scalar at float32; `c / tensor` is reciprocal(tensor) * c, two roundings. The scalar tail of torch's vectorized loop (the last n % 32 elements of a
contiguous run, on AVX2) rounds alpha*b separately, so sizes that are not multiples of the vector width can
differ from torch by one rounding in those few elements. torch's float32 sqrt (Sleef) is not always correctly
rounded, so float32 results can differ from torch by an ulp where a sqrt is involved. `Ops(dtype)` reproduces that: each method is one torch op, taking numpy arrays in the storage
dtype and returning the rounded result. For float32/float64 the compute type is the dtype itself.
"""
import numpy as np

__all__ = ["Ops"]


class Ops:
    def __init__(self, np_dtype):
        self.dt = np.dtype(np_dtype)
        self.reduced = self.dt.itemsize == 2          # float16 and bfloat16
        self.op = np.dtype(np.float32) if self.reduced else self.dt
        self.s = self.op.type                      # scalar in compute precision

    def rs(self, c):
        """A scalar rounded to the tensor's dtype first (then widened), as add's alpha/other are."""
        return self.s(self.dt.type(c)) if self.reduced else self.s(c)

    def up(self, x):
        return x.astype(self.op, copy=False) if self.reduced else x

    def out(self, x):
        return x.astype(self.dt, copy=False) if self.reduced else x

    def fma(self, x, y, z):
        """x * y + z with one rounding to the compute type (torch's vectorized kernels use fused multiply-add);
        exact through float64 when the compute type is float32."""
        if self.op.itemsize == 4:
            w = np.float64
            return (np.asarray(x, w) * np.asarray(y, w) + np.asarray(z, w)).astype(self.op)
        return x * y + z

    def add(self, a, b, alpha=1):                  # a.add(b, alpha=alpha)
        if alpha == 1:
            return self.out(self.up(a) + self.up(b))
        return self.out(self.fma(self.rs(alpha), self.up(b), self.up(a)))

    def add_scalar(self, a, c):                    # a.add(c)
        return self.out(self.up(a) + self.rs(c))

    def mul(self, a, c):                           # a.mul(c), c a Python number
        return self.out(self.up(a) * self.s(c))

    def div(self, a, c):                           # a / c, c a Python number
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return self.out(self.up(a) / self.s(c))

    def rdiv(self, c, a):                          # c / a, c a Python number: torch takes reciprocal(a) * c
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return self.out(self.s(c) * self.up(self.out(1 / self.up(a))))

    def tmul(self, a, b):                          # a * b, both tensors
        return self.out(self.up(a) * self.up(b))

    def tdiv(self, a, b):                          # a / b, both tensors
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return self.out(self.up(a) / self.up(b))

    def abs(self, a):
        return np.abs(a)

    def neg(self, a):
        return -a

    def sqrt(self, a):
        return self.out(np.sqrt(self.up(a)))

    def maximum(self, a, b):
        return np.maximum(a, b)

    def lerp(self, a, b, w):                       # a.lerp(b, w) = a + w (b - a), or b - (b - a)(1 - w) for
        a, b, s = self.up(a), self.up(b), self.s     # w >= 0.5, each a fused multiply-add; 1 - w is taken in
        d = b - a                                    # the compute type
        if w < 0.5:
            return self.out(self.fma(s(w), d, a))
        return self.out(self.fma(-d, s(1) - s(w), b))

    def addcmul(self, a, t1, t2, value=1):         # a.addcmul(t1, t2, value=value)
        return self.out(self.fma(self.s(value) * self.up(t1), self.up(t2), self.up(a)))

    def addcdiv(self, a, t1, t2, value=1):         # a.addcdiv(t1, t2, value=value)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):   # torch gives inf/nan silently
            return self.out(self.up(a) + self.s(value) * self.up(t1) / self.up(t2))
