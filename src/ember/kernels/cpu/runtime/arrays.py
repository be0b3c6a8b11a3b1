"""numpy glue shared by the cpu kernels (ATen's `TensorIterator` output allocation and `acc_type`,
in miniature): wrap a result array as a fresh tensor, the array to compute on (half precision in
float32), and the loss `reduction` applied to an array."""
import numpy as np

from ...._core.tensor_impl import TensorImpl as Tensor


def wrap(arr, dtype, fresh=False):
    """A fresh contiguous cpu tensor holding `arr` (cast to `dtype`). `fresh=True`: the caller knows
    `arr` (possibly a reshaped view) aliases no input, so a contiguous one is used without a copy."""
    a = np.asarray(arr, dtype=dtype._np)
    if not a.flags.c_contiguous or not (a.flags.owndata or fresh):
        a = a.copy()
    return Tensor._wrap_np(a, dtype)


def np_or_none(t):
    return None if t is None else t._np


def acc(t):
    """The numpy array to compute on: half precision is computed in float32."""
    a = t._np
    if a.dtype.kind == "f" and a.dtype.itemsize < 4 or a.dtype.kind == "V":
        return a.astype(np.float32)
    return a


def reduce(arr, reduction):
    if reduction == 0:
        return arr
    if reduction == 1:
        return arr.mean() if arr.size else np.array(np.nan, arr.dtype)
    return arr.sum()
