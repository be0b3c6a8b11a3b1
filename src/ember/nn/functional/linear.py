"""nn.functional's linear maps (torch/nn/functional.py linear, bilinear)."""


import numpy as np

import ember
from ... import _ops
from ..._arg_parser import _bad_arg
from ..._tensor import Tensor
from ..._core.dispatch_keys import AUTOGRAD_BIT, DispatchKey
from ..._core.tensor_impl import TensorImpl
from ..._core.tls import GRAD_OFF as _GRAD_OFF, KEYS_ACTIVE as _KEYS_ACTIVE, state as _tls
from ..._core import torch_function as _tf
from ...kernels.common import _tname
from ...kernels.cpu import linalg_matmul as _cpu
from ...kernels.cpu.runtime import gemm as _gemm

_AUTOCAST_CPU_BIT = 1 << DispatchKey.AutocastCPU
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_F32 = np.dtype(np.float32)
_wrap_fresh = TensorImpl._wrap_fresh
_TF = False      # the __torch_function__ check: kept current by _tf.register (see _core/torch_function.py)
_TFM = False
_TFP = _tf.PLAIN_TYPES
_tf.register(globals())
_addmm_cache = ember.ops.aten.addmm.default._dispatch_cache
_mm_cache = ember.ops.aten.mm.default._dispatch_cache
# When `_direct` computes x @ w^T (m rows, w of n x k, c-contiguous) as (w @ x^T)^T. numpy hands x @ w^T to
# cblas as a row-major NT gemm; OpenBLAS (0.3.31, DYNAMIC_ARCH on an AVX-512 EPYC, one thread) runs that slowly
# for a few rows once the product leaves its small-matrix kernels: us per call, NT / swapped, float32,
# min CPU time: k=128 n=384 at 4 rows 29.8 / 13.0, 16 rows 41.4 / 26.5, 48 rows 77.0 / 62.5; k=512 n=128 at 12
# rows 54.9 / 34.3, 32 rows 90.8 / 65.6; k=784 n=512 at 3 rows 291 / 139, 16 rows 405 / 183; k=256 n=1024 at 2
# rows 177 / 57. Below ~150k multiply-adds NT stays in the small kernels and the swap only adds the copy
# (k=128 n=128 at 8 rows 4.0 / 4.9, k=512 n=128 at 3-8 rows ~1 us slower); from ~64 rows the swap stops
# paying (k=128 n=384 at 64 rows 85.5 / 102.8). For float32 the swap's result equals x @ w^T bit for bit:
# every element is the same k-long sum in the same order (17,280 shapes with one BLAS thread, float32 and
# float64, 1-200 rows; 1,000 float32 shapes of 2-48 rows with two threads). float64 is left out: with two
# threads dgemm splits some of these shapes (33-48 rows, 33-100 outputs, k >= 128) into parts whose sums
# differ in the last bit between the two orders. tests/nn/test_linear_direct_path.py checks the shapes used
# here against the general addmm path.
_SWAP_MAX_ROWS = 48
_SWAP_MIN_WORK = 150_000
# From here (multiply-adds, with 2+ threads) the swapped product splits over the pool, by blocks of rows of w
# (runtime/gemm.py's mm_t: OpenBLAS's regular kernels in every block, so the bits stay the single call's; its
# transpose and bias written by each block's thread). Us per call at 2 threads, min of 1,500 alternated calls,
# load ~9 (numpy swap / split): x (16, 128) by w (384, 128) 23.9 / 25.1, (24, 128) 37.7 / 30.9, (48, 128) 62.4 /
# 47.4, by w (512, 128) 81.7 / 58.2; (48, 512) by w (128, 512) 79.9 / 56.1, (32, 512) 55.6 / 41.8; (32, 128) by
# w (128, 128) 16.7 / 21.1 (524k multiply-adds: the hand-off costs more than half the product saves).
_SWAP_SPLIT_MACS = 1 << 20
_SERIAL = _gemm.OPENBLAS_SERIAL


def _direct(input, weight, bias):
    """linear computed as the cpu addmm (mm without a bias) kernel computes it, without the views around it
    (`input.view(rows, k)`, `weight.t()`, the result's view back), for the case where the dispatcher would
    hand the call straight to that kernel: plain cpu tensors with nothing for autograd to record (grad
    mode off, or no input requiring grad), no mode, no override and no observer (the dispatch cache of
    the key set holds the builtin kernel itself); float32/float64 of one dtype, a contiguous input of 2+
    dims, a vector bias. The result is bitwise the general path's. None for every other case.
    At batch 1 a model's Linear is mostly its views: generating with a small GPT, 25 per token."""
    if _KEYS_ACTIVE[0] or (input._ks | weight._ks) & AUTOGRAD_BIT and not _GRAD_OFF:
        return None         # (grad mode on everywhere and an input needing grad: the recorded path, ~1 us sooner)
    x, w = input._np, weight._np
    if x is None or w is None or x.dtype not in _FLOATS or w.dtype != x.dtype or x.ndim < 2 or w.ndim != 2:
        return None
    ks = input._ks | weight._ks
    b = None
    if bias is not None:
        b = bias._np
        if b is None or b.dtype != x.dtype or b.shape != (w.shape[0],):
            return None
        ks |= bias._ks
    if ks & AUTOGRAD_BIT and _GRAD_OFF:
        ks &= ~_tls._exclude
    if bias is None:
        if _mm_cache.get(ks) is not _cpu.mm:
            return None
    elif _addmm_cache.get(ks) is not _cpu.addmm:
        return None
    k = x.shape[-1]
    if k != w.shape[1] or not x.flags.c_contiguous:
        return None
    lead = x.shape[:-1]
    x2 = x.reshape(-1, k) if x.ndim > 2 else x
    m, n = x2.shape[0], w.shape[0]
    swap = 2 <= m <= _SWAP_MAX_ROWS and m * n * k > _SWAP_MIN_WORK and x.dtype is _F32 and w.flags.c_contiguous
    r = _gemm.mm(x2, w.T, b) if m * k * n > _SERIAL and not swap else None    # split over the pool
    if swap:
        # (w @ x^T)^T: the same products summed in the same order (bit for bit x @ w^T, tests), on a path of
        # OpenBLAS's that is up to 3x faster at these shapes; the transpose is undone while adding the bias.
        # With 2+ threads, from _SWAP_SPLIT_MACS, in blocks over the pool (before: from gemm.SPLIT_MACS x @ w^T
        # split into its slow NT column blocks, slower than the swapped product on one thread: 2 threads, min us,
        # load ~3, x (1, 48, 128) by w (512, 128) 102.7 against 86.9 on one thread).
        r = _gemm.mm_t(w, x2.T, b, min_macs=_SWAP_SPLIT_MACS)
        if r is None:
            p = w.dot(x2.T)
            r = _gemm.transpose_add(p, b)       # (numpy's strided add of p.T took ~10 us at (384, 48))
            if r is None:
                r = np.empty((m, n), x.dtype)
                if bias is not None:
                    np.add(p.T, b, out=r)
                else:
                    np.copyto(r, p.T)
    elif r is None:
        r = np.matmul(x2, w.T)
        if bias is not None:
            np.add(r, b, out=r)
    return _wrap_fresh(r.reshape(lead + (n,)) if x.ndim > 2 else r, input.dtype)

__all__ = ["bilinear", "linear"]


def bilinear(input1, input2, weight, bias=None):
    return ember.bilinear(input1, input2, weight, bias)


def linear(input, weight, bias=None):
    # the generated binding's checks (torch's F.linear is the binding itself); this one skips a dispatch
    if _TF and (_TFM or input.__class__ not in _TFP or weight.__class__ not in _TFP or bias.__class__ not in _TFP):
        # the binding's __torch_function__ check: a mode or an overriding subclass sees `linear`, not its
        # insides (and never the direct path below, which returns a plain Tensor once mm's cache is warm)
        _r = _tf.bound(linear, locals(), ("input", "weight", "bias"), "ember._C._nn.linear")
        if _r is not _tf.NOT_HANDLED:
            return _r
        return ember._nn.linear(input, weight, bias)
    if input.__class__ is not Tensor and not isinstance(input, Tensor):
        raise _bad_arg("linear", "input", 1, "Tensor", input)
    if weight.__class__ is not Tensor and not isinstance(weight, Tensor):
        raise _bad_arg("linear", "weight", 2, "Tensor", weight)
    if bias is not None and bias.__class__ is not Tensor and not isinstance(bias, Tensor):
        raise _bad_arg("linear", "bias", 3, "Tensor", bias)
    if _tls._include & _AUTOCAST_CPU_BIT:
        # under autocast, linear itself is on the lower-precision list: its weight (a leaf) is cast, and
        # cached for the region, before the transpose
        return ember._nn.linear(input, weight, bias)
    out = _direct(input, weight, bias)
    if out is not None:
        return out
    if _ops._observer is not None:      # (never with _direct's result) the profiler sees aten::linear as in torch
        return ember._nn.linear(input, weight, bias)
    if bias is not None:
        if input.dtype is not weight.dtype and (input.dim() <= 2 or input.is_contiguous()):
            # torch runs these cases as one addmm, whose dtype checks (self against mat2 first) the user sees
            if bias.dtype is not weight.dtype:
                raise RuntimeError(f"self and mat2 must have the same dtype, but got {_tname(bias.dtype)} and "
                                   f"{_tname(weight.dtype)}")
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_tname(input.dtype)} and "
                               f"{_tname(weight.dtype)}")
        if input.dim() == 2:
            return ember.addmm(bias, input, weight.t())
        if input.dim() != 2 and input.is_contiguous():
            # like torch: fold the leading dims into one addmm (one gemm with the bias fused, and
            # a 2-D backward) instead of a batched matmul plus a broadcast add
            lead = input._size[:-1]
            rows = 1
            for n in lead:
                rows *= n           # not view(-1, k): k may be 0
            return ember.addmm(bias, input.view(rows, input._size[-1]), weight.t()).view(*lead, weight._size[0])
    elif input.dim() == 2 and input.dtype is weight.dtype:
        return ember.mm(input, weight.t())      # torch's matmul of two matrices is one mm (MmBackward0)
    elif input.dim() > 2 and weight.dim() == 2 and input.dtype is weight.dtype:
        # torch's matmul folds the leading dims into one mm and ends in _unsafe_view (UnsafeViewBackward0)
        lead = input._size[:-1]
        rows = 1
        for n in lead:
            rows *= n
        out = ember.mm(input.reshape(rows, input._size[-1]), weight.t())
        return ember.ops.aten._unsafe_view.default(out, [*lead, weight._size[0]])
    out = ember.matmul(input, weight.t())
    return out + bias if bias is not None else out
