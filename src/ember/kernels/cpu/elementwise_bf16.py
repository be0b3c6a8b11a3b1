"""torch's NaN bits in bfloat16 results of elementwise ops (ATen's cpu_kernel_vec loops, native/cpu/Loops.h, and
c10's BFloat16 conversion), where ml_dtypes' loops keep the sign of float32's default NaN (0xffc0).

torch computes a bfloat16 op in float32 and rounds back in one of two ways: its vectorised loop's cvtfp32_bf16
blends 0xffff into every NaN lane, its scalar loop (c10's round_to_nearest_even) writes 0x7fc0. Which loop
writes an element depends on the CPU and the layout, so these bits are not portable even within torch:
- unary math whose kernel converts through float32 vectors (sqrt, log, exp, sin, cos, tanh, pow with a number
  exponent, ...: VECTORISED_UNARY) runs vectorised to the end of the row (the tail is a partial vector
  load): every NaN, computed or passed through, is 0xffff; other unary kernels differ op by op (abs, neg,
  relu, square, sigmoid keep a NaN input's 0x7fc0; rsqrt and atanh write 0x7fc0) and keep ml_dtypes' bits
  here; pow with a number exponent runs sqrt's kernel for 0.5 (0xffff) and for others a loop of twice the
  arithmetic step (see pow_nans);
- binary arithmetic (add, sub, mul, div, fmod, remainder, ...) runs the vectorised loop in steps of two float32
  vectors (32 elements with AVX-512, 16 with AVX2) over the inner dimension TensorIterator builds when every
  operand is contiguous or broadcast along it, and the scalar loop over each row's tail (0x7fc0) and over
  everything when an operand is strided along it (x[::2] / y: all 0x7fc0).
Measured on torch 2.13 (AVX-512 EPYC): 0 / 0 of 33 elements gives 32 x 0xffff then 0x7fc0; of 31, 31 x 0x7fc0.
Ember reproduces these rules with the step of the CPU it runs on; threads' chunks of a big range (each with
its own tail in torch) are not modelled. Reductions (sum of a NaN) keep ml_dtypes' bits.
"""
import numpy as np

_STEP = []
VECTORISED_UNARY = frozenset(("sqrt", "log", "log2", "log10", "log1p", "exp", "expm1", "sin", "cos", "tan", "tanh",
                              "asin", "acos", "erfinv", "lgamma", "floor", "ceil", "round", "trunc", "logit"))


def _step():
    """float32 lanes per step of ATen's vectorised loop (two vectors): 32 with AVX-512, 16 with AVX2."""
    if not _STEP:
        feats = getattr(np, "__cpu_features__", None)
        if feats is None:
            from numpy._core._multiarray_umath import __cpu_features__ as feats
        _STEP.append(32 if feats.get("AVX512F") and feats.get("AVX512BW") else 16)
    return _STEP[0]


def _nan_mask(u):
    return (u & 0x7fff) > 0x7f80


def unary_nans(r):
    """Every NaN of a unary op's bfloat16 result r (a numpy array) as torch's vectorised loop writes it."""
    u = r.view(np.uint16)
    nan = _nan_mask(u)
    if nan.any():
        u[nan] = 0xffff


def binary_nans(r, a, b, step=None):
    """The NaNs of a binary op's bfloat16 result r (numpy, written in place) as torch writes them for
    operands a and b (numpy arrays or numbers): see the module docstring. `step`: elements per step of the
    vectorised loop (default two float32 vectors)."""
    u = r.view(np.uint16)
    nan = _nan_mask(u)
    if not nan.any():
        return
    if r.ndim == 0:
        u[nan] = 0x7fc0
        return
    ops = [r] + [np.broadcast_to(x, r.shape) for x in (a, b) if isinstance(x, np.ndarray)]
    dims = sorted((k for k in range(r.ndim) if r.shape[k] > 1), key=lambda k: -abs(r.strides[k]))
    if not dims:
        u[nan] = 0x7fc0
        return
    inner = dims[-1]
    for x in ops:
        if x.strides[inner] not in (0, x.itemsize):
            u[nan] = 0x7fc0             # the scalar loop over everything
            return
    L = r.shape[inner]
    k = len(dims) - 1                   # coalesce outwards while every operand allows it
    while k > 0:
        o, i = dims[k - 1], dims[k]
        if any(x.strides[o] != x.strides[i] * x.shape[i] for x in ops):
            break
        L *= r.shape[o]
        k -= 1
    perm = [d for d in range(r.ndim) if d not in dims] + dims
    u_t, nan_t = u.transpose(perm), nan.transpose(perm)
    pos = np.flatnonzero(nan_t) % L
    step = step or _step()
    u_t[nan_t] = np.where(pos >= L - L % step, np.uint16(0x7fc0), np.uint16(0xffff))


def pow_nans(r, a, exponent):
    """pow(Tensor a, Scalar)'s bfloat16 NaNs in its result r: exponent 0.5 runs sqrt's vectorised kernel
    (every NaN 0xffff); any other runs a loop of two bfloat16 vectors per step (64 elements with AVX-512,
    twice the arithmetic step), the row's tail and strided inputs scalar (0x7fc0)."""
    if exponent == 0.5:
        unary_nans(r)
    else:
        binary_nans(r, a, None, 2 * _step())
