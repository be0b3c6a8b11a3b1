"""The CPU autocast policy (aten/src/ATen/autocast_mode.cpp, the CPU lists) and the AutocastCPU
dispatch-key fallback that applies it.

An op on the lower-precision list gets its float32 tensor arguments cast to the autocast dtype; an op
on the float32 list gets its float16/bfloat16 arguments cast to float32; an op on the promote list
gets all its floating arguments cast to the widest of their types. float64 tensors are never cast.
The casts are ordinary `to` calls, so autograd records them and gradients flow back to float32
leaves in their own dtype. The op then runs below the Autocast key with autocast excluded, so the ops
it is built from are not cast again. Every other op, and every in-place or out= overload, falls
through unchanged.

The weight cache (torch's cached_cast): inside an autocast region the lower-precision copy of a float32
leaf that requires grad (a model's parameter) is made once and reused by every op that casts it, so a
layer called twice shares one cast (one ToCopyBackward0 node). `autocast(cache_enabled=False)` turns it
off; leaving the outermost autocast region drops the cache.
"""
import threading
import weakref

from .._core import dtype as D
from .._core.tls import state as _tls
from .._core.dispatch_keys import DispatchKey
from .._ops import register_fallback
from .._tensor import Tensor

AUTOCAST_CPU_BIT = 1 << DispatchKey.AutocastCPU

LOWER_PRECISION_FP = frozenset("""
    conv1d conv2d conv3d bmm mm linalg_vecdot baddbmm addmm addbmm linear _convolution matmul conv_tbc
    mkldnn_rnn_layer conv_transpose1d conv_transpose2d conv_transpose3d prelu scaled_dot_product_attention
    _native_multi_head_attention _addmm_activation""".split())

FP32 = frozenset("""
    avg_pool3d binary_cross_entropy grid_sampler polar prod quantile nanquantile stft cdist trace
    view_as_complex cholesky cholesky_inverse cholesky_solve inverse lu_solve orgqr ormqr pinverse max_pool3d
    max_unpool2d max_unpool3d adaptive_avg_pool3d reflection_pad1d reflection_pad2d replication_pad1d
    replication_pad2d replication_pad3d mse_loss cosine_embedding_loss nll_loss nll_loss2d hinge_embedding_loss
    poisson_nll_loss smooth_l1_loss cross_entropy_loss l1_loss huber_loss margin_ranking_loss soft_margin_loss
    triplet_margin_loss multi_margin_loss ctc_loss kl_div multilabel_margin_loss binary_cross_entropy_with_logits
    fft_fft fft_ifft fft_fft2 fft_ifft2 fft_fftn fft_ifftn fft_rfft fft_irfft fft_rfft2 fft_irfft2 fft_rfftn
    fft_irfftn fft_hfft fft_ihfft linalg_cond linalg_matrix_rank linalg_solve linalg_cholesky linalg_svdvals
    linalg_eigvals linalg_eigvalsh linalg_inv linalg_householder_product linalg_tensorinv linalg_tensorsolve
    fake_quantize_per_tensor_affine geqrf _lu_with_info qr svd triangular_solve fractional_max_pool2d
    fractional_max_pool3d adaptive_max_pool3d multilabel_margin_loss_forward linalg_qr linalg_cholesky_ex
    linalg_svd linalg_eig linalg_eigh linalg_lstsq linalg_inv_ex grid_sampler_2d grid_sampler_3d
    _grid_sampler_2d_cpu_fallback""".split()
    # torch's nll_loss_nd is a decomposition into the listed nll_loss/nll_loss2d; ember's is one kernel
    + ["nll_loss_nd"])

PROMOTE = frozenset(("stack", "cat", "index_copy"))

_LOW = (D.float16, D.bfloat16)


_local = threading.local()     # the lower-precision dtype of CPU autocast, per thread as in torch


def _eligible(t):
    return isinstance(t, Tensor) and t.dtype.is_floating_point and t.dtype != D.float64


def _map(fn, args, kwargs):
    def one(a):
        if isinstance(a, Tensor):
            return fn(a)
        if type(a) in (list, tuple) and any(isinstance(x, Tensor) for x in a):
            return type(a)(fn(x) if isinstance(x, Tensor) else x for x in a)
        return a
    return tuple(one(a) for a in args), {k: one(v) for k, v in kwargs.items()}


def _tensors(args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            yield a
        elif type(a) in (list, tuple):
            yield from (x for x in a if isinstance(x, Tensor))


def _run_below(op, below, args, kwargs):
    prev = _tls.exclude
    _tls.exclude = prev | AUTOCAST_CPU_BIT
    try:
        return op.redispatch(below, *args, **kwargs)
    finally:
        _tls.exclude = prev


def _cast_to(dtype, when):
    return lambda t: _cached_cast(t, dtype) if _eligible(t) and t.dtype in when and t.dtype != dtype else t


def _cached_cast(t, dtype):
    """t.to(dtype), served from the region's cache for a float32 leaf parameter cast to the autocast dtype."""
    if not (dtype == get_dtype() and t.dtype == D.float32 and t.requires_grad and t.is_leaf and not t._is_view()
            and is_cache_enabled()):
        return t.to(dtype)
    cache = _cache()
    hit = cache.get(id(t))
    if hit is not None and hit[0]() is t and hit[1].dtype == dtype:
        return hit[1]
    cast = t.to(dtype)
    cache[id(t)] = (weakref.ref(t), cast)
    return cast


def _cache():
    c = getattr(_local, "cache", None)
    if c is None:
        c = _local.cache = {}
    return c


def clear_cache():
    _cache().clear()


def is_cache_enabled():
    return getattr(_local, "cache_enabled", True)


def set_cache_enabled(enabled):
    _local.cache_enabled = bool(enabled)


def increment_nesting():
    _local.nesting = getattr(_local, "nesting", 0) + 1
    return _local.nesting


def decrement_nesting():
    _local.nesting = getattr(_local, "nesting", 0) - 1
    return _local.nesting


def _autocast_fallback(op, below):
    name = op._packet.__name__
    if name.endswith("_") or any(a.is_write for a in op._schema.arguments.flat_all):
        return None      # in-place and out= overloads are not autocast, as in torch
    if name in LOWER_PRECISION_FP:
        def kernel(*args, **kwargs):
            target = get_dtype()
            args, kwargs = _map(_cast_to(target, (D.float32, D.float16, D.bfloat16)), args, kwargs)
            return _run_below(op, below, args, kwargs)
    elif name in FP32:
        def kernel(*args, **kwargs):
            args, kwargs = _map(_cast_to(D.float32, _LOW), args, kwargs)
            return _run_below(op, below, args, kwargs)
    elif name in PROMOTE:
        def kernel(*args, **kwargs):
            widest = get_dtype()
            for t in _tensors(args, kwargs):
                if _eligible(t) and t.dtype != widest:
                    widest = D.promote_types(widest, t.dtype)
            args, kwargs = _map(_cast_to(widest, (D.float32, D.float16, D.bfloat16)), args, kwargs)
            return _run_below(op, below, args, kwargs)
    else:
        return None
    return kernel


def get_dtype():
    return getattr(_local, "dtype", D.bfloat16)


def set_dtype(dtype):
    _local.dtype = dtype


def is_enabled():
    return bool(_tls.include & AUTOCAST_CPU_BIT)


def set_enabled(enabled):
    _tls.include = _tls.include | AUTOCAST_CPU_BIT if enabled else _tls.include & ~AUTOCAST_CPU_BIT


register_fallback(DispatchKey.AutocastCPU, _autocast_fallback)
