"""torch/_inductor/lowering.py: the table from aten overloads to IR.

`lowerings[op](node, *args, **kwargs)` receives the fx node (its `meta["val"]` is the fake result: size,
dtype, strides) and the op's arguments with tensors replaced by IR values (`ir.Pointwise`/`ir.BufferView`);
it returns an IR value (or a tuple of them). Pointwise ops follow torch's type promotion: the fake result's
dtype is the result dtype, operands are cast to its compute dtype (half precision computes in float32);
comparisons compute in the promoted dtype of their operands. Reductions create a realized `Reduction` buffer.
Views return new layouts or re-indexed inner functions (`ir.remap`), never copies.

Ops with no entry here become `ir.ExternKernel`s (the eager op called from the wrapper). `EXTERN_OPS` are
externs by design (a library kernel beats generated loops); `FALLBACK_REASONS` names the other known
fallbacks and why they are not lowered.
"""
import math
import operator

from ember._core import dtype as _dt
from ember._core.promotion import result_type
from ember._ops import ops as _ops

from .codegen.cpp import compute_dtype
from .index import Index, contiguous_strides, prod
from .ir import BufferView, Layout, Pointwise, Reduction, Scan, Scatter, remap, view_strides
from .virtualized import ops

aten = _ops.aten
lowerings = {}

EXTERN_OPS = {
    "aten.mm.default": "BLAS matmul (numpy)", "aten.addmm.default": "BLAS matmul (numpy)",
    "aten.bmm.default": "BLAS batched matmul (numpy)", "aten.matmul.default": "BLAS matmul (numpy)",
    "aten.convolution.default": "ember's im2col + BLAS convolution",
    "aten.convolution_backward.default": "ember's convolution backward kernels",
    "aten._scaled_dot_product_flash_attention_for_cpu.default": "ember's fused attention kernel",
    "aten._scaled_dot_product_attention_math.default": "ember's fused attention kernel",
    "aten.scaled_dot_product_attention.default": "ember's fused attention kernel",
}
_LAPACK = "LAPACK factorisation/solve: eager's numpy.linalg kernel, by design"
_SORTING = "sorting / searching / histogram: not a loop nest, eager's kernel by design"
_MATMUL = "matmul family not routed to the BLAS externs yet (eager's kernel)"
_WINDOW = "window / resampling op without a lowering yet (2d max/avg pool and their backwards are lowered)"
_SPECIAL = "special function with no vectorisable C yet (eager's kernel)"
_SCAN = "scan with an index or log-sum-exp combine: not lowered (cumsum/cumprod are)"
_INDEXING = "indexing / layout op not lowered yet (gather, scatter, index_put, index_add are)"
_LOSS = "loss without a lowering or decomposition yet (eager's kernel)"
_OTHER = "pointwise / reduction not lowered yet (eager's kernel)"
_RANDOM = "random: eager's generator stream (extern by design)"
FALLBACK_REASONS = {
    "aten._adaptive_avg_pool2d.default": _WINDOW,
    "aten._adaptive_avg_pool2d_backward.default": _WINDOW,
    "aten._adaptive_avg_pool3d.default": _WINDOW,
    "aten._adaptive_avg_pool3d_backward.default": _WINDOW,
    "aten._cdist_forward.default": _MATMUL,
    "aten._ctc_loss.default": _LOSS,
    "aten._ctc_loss_backward.default": _LOSS,
    "aten._embedding_bag.default": _INDEXING,
    "aten._linalg_eigh.default": _LAPACK,
    "aten._linalg_svd.default": _LAPACK,
    "aten._trilinear.default": _MATMUL,
    "aten._scaled_dot_product_flash_attention_for_cpu_backward.default": "ember's fused attention backward (extern)",
    "aten._upsample_bicubic2d_aa.default": _WINDOW,
    "aten._upsample_bicubic2d_aa_backward.default": _WINDOW,
    "aten._upsample_bilinear2d_aa.default": _WINDOW,
    "aten._upsample_bilinear2d_aa_backward.default": _WINDOW,
    "aten._upsample_lanczos2d_aa.default": _WINDOW,
    "aten._upsample_lanczos2d_aa_backward.default": _WINDOW,
    "aten.adaptive_max_pool2d.default": _WINDOW,
    "aten.aminmax.default": _OTHER,
    "aten.logspace.default": _OTHER,
    "aten.nonzero_static.default": _INDEXING,
    "aten.renorm.default": _OTHER,
    "aten.softshrink.default": _OTHER,
    "aten.softshrink_backward.default": _OTHER,
    "aten.hardshrink_backward.default": _OTHER,
    "aten.nansum.default": _OTHER,
    "aten.hash_tensor.default": "bit-pattern XOR reduction over uint64: eager's kernel",
    "aten.special_entr.default": _SPECIAL,
    "aten.special_xlog1py.default": _SPECIAL,
    "aten.igamma.default": _SPECIAL,
    "aten.igammac.default": _SPECIAL,
    **{f"aten.special_{n}.default": _SPECIAL for n in (
        "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
        "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
        "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
        "shifted_chebyshev_polynomial_w")},
    "aten.pixel_shuffle.default": _INDEXING,
    "aten.pixel_unshuffle.default": _INDEXING,
    "aten.rot90.default": _INDEXING,
    "aten.unfold_copy.default": _INDEXING,
    "aten.as_strided_copy.default": _INDEXING,
    "aten.view_as_real_copy.default": _INDEXING,
    "aten.view_as_complex_copy.default": _INDEXING,
    "aten.view_copy.dtype": _INDEXING,
    "aten._fft_c2c.default": "FFT: eager's pocketfft kernel, by design",
    "aten._fft_c2r.default": "FFT: eager's pocketfft kernel, by design",
    "aten._fft_r2c.default": "FFT: eager's pocketfft kernel, by design",
    "aten.norm.ScalarOpt_dtype": _OTHER,
    "aten.angle.default": _OTHER,
    "aten.frexp.Tensor": _OTHER,
    "aten.ldexp.Tensor": _OTHER,
    "aten.logaddexp2.default": _OTHER,
    "aten.nextafter.default": _OTHER,
    "aten.adaptive_max_pool3d.default": _WINDOW,
    "aten.adaptive_max_pool3d_backward.default": _WINDOW,
    "aten.addbmm.default": _MATMUL,
    "aten.addmv.default": _MATMUL,
    "aten.addr.default": _MATMUL,
    "aten.argsort.default": _SORTING,
    "aten.argsort.stable": _SORTING,
    "aten.as_strided_scatter.default": _INDEXING,
    "aten.avg_pool3d.default": _WINDOW,
    "aten.avg_pool3d_backward.default": _WINDOW,
    "aten.baddbmm.default": _MATMUL,
    "aten.binary_cross_entropy_with_logits.default": _LOSS,
    "aten.block_diag.default": _MATMUL,
    "aten.bucketize.Tensor": _SORTING,
    "aten.cholesky_inverse.default": _LAPACK,
    "aten.cholesky_solve.default": _LAPACK,
    "aten.count_nonzero.default": _INDEXING,
    "aten.cummax.default": _SCAN,
    "aten.cummin.default": _SCAN,
    "aten.diag_embed.default": _OTHER,
    "aten.digamma.default": _SPECIAL,
    "aten.erfinv.default": _SPECIAL,
    "aten.eye.default": _INDEXING,
    "aten.eye.m": _INDEXING,
    "aten.grid_sampler_2d.default": _WINDOW,
    "aten.hardshrink.default": _OTHER,
    "aten.histc.default": _SORTING,
    "aten.histogram.bin_ct": _SORTING,
    "aten.histogram.bins_tensor": _SORTING,
    "aten.i0.default": _SPECIAL,
    "aten.index_copy.default": _INDEXING,
    "aten.index_fill.int_Scalar": _INDEXING,
    "aten.index_reduce.default": _INDEXING,
    "aten.isin.Tensor_Tensor": _SORTING,
    "aten.isneginf.default": _OTHER,
    "aten.isposinf.default": _OTHER,
    "aten.kl_div.default": _LOSS,
    "aten.kthvalue.default": _SORTING,
    "aten.linalg_cholesky_ex.default": _LAPACK,
    "aten.linalg_cross.default": _LAPACK,
    "aten.linalg_det.default": _LAPACK,
    "aten.linalg_inv_ex.default": _LAPACK,
    "aten.linalg_lstsq.default": _LAPACK,
    "aten.linalg_lu.default": _LAPACK,
    "aten.linalg_lu_factor_ex.default": _LAPACK,
    "aten.linalg_lu_solve.default": _LAPACK,
    "aten.linalg_householder_product.default": _LAPACK,
    "aten.ormqr.default": _LAPACK,
    "aten.cholesky.default": _LAPACK,
    "aten.linalg_matrix_exp.default": _LAPACK,
    "aten.linalg_matrix_norm.str_ord": _LAPACK,
    "aten.linalg_matrix_rank.atol_rtol_float": _LAPACK,
    "aten.linalg_pinv.atol_rtol_float": _LAPACK,
    "aten.linalg_qr.default": _LAPACK,
    "aten.linalg_slogdet.default": _LAPACK,
    "aten.linalg_solve_ex.default": _LAPACK,
    "aten.linalg_solve_triangular.default": _LAPACK,
    "aten.linalg_vector_norm.default": _LAPACK,
    "aten.log_sigmoid.default": _OTHER,
    "aten.logcumsumexp.default": _SCAN,
    "aten.logit.default": _OTHER,
    "aten.lu_unpack.default": _LAPACK,
    "aten.max_pool1d_with_indices.default": _WINDOW,
    "aten.max_pool3d_with_indices.default": _WINDOW,
    "aten.max_pool3d_with_indices_backward.default": _WINDOW,
    "aten.max_unpool2d.default": _WINDOW,
    "aten.median.dim": _SORTING,
    "aten.msort.default": _SORTING,
    "aten.multi_margin_loss.default": _LOSS,
    "aten.multi_margin_loss_backward.default": _LOSS,
    "aten.multilabel_margin_loss_backward.default": _LOSS,
    "aten.multilabel_margin_loss_forward.default": _LOSS,
    "aten.mvlgamma.default": _SPECIAL,
    "aten.nan_to_num.default": _OTHER,
    "aten.nanmedian.dim": _SORTING,
    "aten.narrow_copy.default": _INDEXING,
    "aten.native_batch_norm.default": 'updates running statistics in place (a mutation inside the op)',
    "aten.native_batch_norm_backward.default": 'follows native_batch_norm',
    "aten.new_empty_strided.default": _INDEXING,
    "aten.norm.Scalar": _OTHER,
    "aten.norm.ScalarOpt_dim": _OTHER,
    "aten.polygamma.default": _SPECIAL,
    "aten.put.default": _INDEXING,
    "aten.reflection_pad1d.default": _WINDOW,
    "aten.reflection_pad3d.default": _WINDOW,
    "aten.repeat.default": _INDEXING,
    "aten.replication_pad1d.default": _WINDOW,
    "aten.replication_pad3d.default": _WINDOW,
    "aten.roll.default": _INDEXING,
    "aten.round.decimals": _OTHER,
    "aten.scatter.reduce": "scatter with reduce='add'/'multiply' (the src/value overloads are lowered)",
    "aten.scatter.value_reduce": "scatter with reduce='add'/'multiply' (the src/value overloads are lowered)",
    "aten.scatter_reduce.two": "scatter_reduce (sum/prod/mean/amax/amin with include_self): not lowered yet",
    "aten.searchsorted.Tensor": _SORTING,
    "aten.sinc.default": _OTHER,
    "aten.sort.default": _SORTING,
    "aten.sort.stable": _SORTING,
    "aten.special_erfcx.default": _SPECIAL,
    "aten.special_i0e.default": _SPECIAL,
    "aten.special_i1.default": _SPECIAL,
    "aten.special_i1e.default": _SPECIAL,
    "aten.special_log_ndtr.default": _SPECIAL,
    "aten.special_ndtri.default": _SPECIAL,
    "aten.special_airy_ai.default": _SPECIAL,
    "aten.special_bessel_j0.default": _SPECIAL,
    "aten.special_bessel_j1.default": _SPECIAL,
    "aten.special_bessel_y0.default": _SPECIAL,
    "aten.special_bessel_y1.default": _SPECIAL,
    "aten.special_modified_bessel_i0.default": _SPECIAL,
    "aten.special_modified_bessel_i1.default": _SPECIAL,
    "aten.special_modified_bessel_k0.default": _SPECIAL,
    "aten.special_modified_bessel_k1.default": _SPECIAL,
    "aten.special_scaled_modified_bessel_k0.default": _SPECIAL,
    "aten.special_scaled_modified_bessel_k1.default": _SPECIAL,
    "aten.special_spherical_bessel_j0.default": _SPECIAL,
    "aten.std_mean.correction": _OTHER,
    "aten.take.default": _INDEXING,
    "aten.topk.default": _SORTING,
    "aten.trace.default": _MATMUL,
    "aten.unfold.default": _INDEXING,
    "aten.upsample_linear1d.vec": _WINDOW,
    "aten.vdot.default": _MATMUL,
    # Random numbers: extern calls to eager's kernels, by decision. They draw from ember's global generator in
    # the order eager does, so a compiled function gives eager's numbers for a seed (dropout masks included) and
    # ember.manual_seed / get_rng_state keep working; generated Philox code would need its own stream.
    "aten.bernoulli.default": _RANDOM,
    "aten.bernoulli.p": _RANDOM,
    "aten.native_dropout.default": _RANDOM,
    "aten.rand.default": _RANDOM,
    "aten.randn.default": _RANDOM,
    "aten.rand_like.default": _RANDOM,
    "aten.randn_like.default": _RANDOM,
    "aten.randint.low": _RANDOM,
    "aten.normal.Tensor_float": _RANDOM,
}


def register_lowering(*ops_):
    def deco(fn):
        for op in ops_:
            lowerings[op] = fn
        return fn
    return deco


# ---------------------------------------------------------------------------- helpers
def _val(node):
    return node.meta["val"]


def _is_ir(x):
    return isinstance(x, (Pointwise, BufferView))


def _meta_of(a):
    """What type promotion sees for an argument: its fake value, or the Python scalar."""
    from ember.fx import Node
    if isinstance(a, Node):
        return a.meta.get("val")
    return a


def promoted(node, args):
    metas = [_meta_of(a) for a in args if a is not None]
    return result_type(*metas)


def loader(x, size, dtype):
    """A function index -> value of x broadcast to `size`, converted to `dtype`'s compute dtype."""
    if not _is_ir(x):
        value = x
        return lambda index: ops.constant(value, dtype)
    ld = x.make_loader()
    xs = x.get_size()
    lead = len(size) - len(xs)
    bcast = [xs[i] == 1 and size[i + lead] != 1 for i in range(len(xs))]
    same = compute_dtype(x.get_dtype()) is compute_dtype(dtype) and x.get_dtype().name not in ("float16",
                                                                                                  "bfloat16")

    def load(index):
        sub = [Index() if bcast[i] else index[i + lead] for i in range(len(xs))]
        v = ld(sub)
        return v if same or x.get_dtype() is dtype else ops.to_dtype(v, dtype)
    return load


def make_pointwise(node, fn, inputs, compute=None, out_dtype=None):
    out = _val(node)
    size = tuple(out.shape)
    out_dtype = out_dtype or out.dtype
    compute = compute or out_dtype
    loaders = [loader(x, size, compute) for x in inputs]

    def inner(index):
        v = fn(*[ld(index) for ld in loaders])
        return ops.to_dtype(v, out_dtype)
    return Pointwise(size, out_dtype, inner)


def _args_nodes(node):
    return list(node.args) + list(node.kwargs.values())


# ---------------------------------------------------------------------------- pointwise math
_UNARY_SAME = {  # op -> handler name, computed in the result dtype
    "abs": "abs", "neg": "neg", "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log", "log2": "log2",
    "log10": "log10", "log1p": "log1p", "sqrt": "sqrt", "rsqrt": "rsqrt", "reciprocal": "reciprocal",
    "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh",
    "cosh": "cosh", "tanh": "tanh", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "erf": "erf",
    "erfc": "erfc", "sigmoid": "sigmoid", "relu": "relu", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
    "round": "round", "sign": "sign", "bitwise_not": "bitwise_not", "lgamma": "lgamma",
}
_UNARY_BOOL = {"logical_not": "logical_not", "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite",
               "signbit": "signbit"}


def _register_unary():
    for name, h in _UNARY_SAME.items():
        packet = getattr(aten, name, None)
        if packet is None or not hasattr(packet, "default"):
            continue

        def lower(node, x, _h=h):
            return make_pointwise(node, lambda v: getattr(ops, _h)(v), [x])
        lowerings[packet.default] = lower
    for name, h in _UNARY_BOOL.items():
        packet = getattr(aten, name, None)
        if packet is None or not hasattr(packet, "default"):
            continue

        def lower(node, x, _h=h):
            return make_pointwise(node, lambda v: getattr(ops, _h)(v), [x], compute=x.get_dtype())
        lowerings[packet.default] = lower


_register_unary()


def _overloads(name, *overloads):
    packet = getattr(aten, name, None)
    return [getattr(packet, o) for o in overloads if packet is not None and hasattr(packet, o)]


def _register_binary(name, handler, overloads=("Tensor", "Scalar"), compare=False):
    def lower(node, a, b):
        compute = promoted(node, node.args[:2]) if compare else None
        return make_pointwise(node, lambda x, y: getattr(ops, handler)(x, y), [a, b], compute=compute)
    for ov in _overloads(name, *overloads):
        lowerings[ov] = lower


for _name, _h in [("mul", "mul"), ("remainder", "remainder"), ("fmod", "fmod"), ("maximum", "maximum"),
                  ("minimum", "minimum"), ("atan2", "atan2"), ("bitwise_and", "bitwise_and"),
                  ("bitwise_or", "bitwise_or"), ("bitwise_xor", "bitwise_xor"), ("copysign", "copysign"),
                  ("floor_divide", "floordiv"), ("logical_and", "logical_and"), ("logical_or", "logical_or"),
                  ("logical_xor", "logical_xor")]:
    _register_binary(_name, _h, ("Tensor", "Scalar", "default"),
                     compare=_name.startswith("logical_"))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    _register_binary(_name, _name, compare=True)


@register_lowering(*_overloads("add", "Tensor", "Scalar"))
def _add(node, a, b, alpha=1):
    if alpha != 1:
        return make_pointwise(node, lambda x, y, k: ops.add(x, ops.mul(y, k)), [a, b, alpha])
    return make_pointwise(node, ops.add, [a, b])


@register_lowering(*_overloads("sub", "Tensor", "Scalar"))
def _sub(node, a, b, alpha=1):
    if alpha != 1:
        return make_pointwise(node, lambda x, y, k: ops.sub(x, ops.mul(y, k)), [a, b, alpha])
    return make_pointwise(node, ops.sub, [a, b])


@register_lowering(*_overloads("rsub", "Tensor", "Scalar"))
def _rsub(node, a, b, alpha=1):
    return make_pointwise(node, lambda x, y, k: ops.sub(y, ops.mul(x, k)), [a, b, alpha])


@register_lowering(*_overloads("div", "Tensor", "Scalar", "Tensor_mode", "Scalar_mode"))
def _div(node, a, b, rounding_mode=None):
    if rounding_mode is None:
        return make_pointwise(node, ops.truediv, [a, b])
    h = {"floor": ops.floordiv, "trunc": ops.truncdiv}[rounding_mode]
    return make_pointwise(node, h, [a, b])


@register_lowering(*_overloads("pow", "Tensor_Tensor", "Tensor_Scalar", "Scalar"))
def _pow(node, a, b):
    if not _is_ir(b) and not isinstance(b, bool) and _val(node).dtype.is_floating_point:
        if b == 2:
            return make_pointwise(node, lambda x: ops.mul(x, x), [a])
        if b == 0.5:
            return make_pointwise(node, ops.sqrt, [a])
        if b == 1:
            return make_pointwise(node, lambda x: x, [a])
    return make_pointwise(node, ops.pow, [a, b])


@register_lowering(aten.where.self, *_overloads("where", "ScalarSelf", "ScalarOther", "Scalar"))
def _where(node, c, a, b):
    out = _val(node)
    size = tuple(out.shape)
    lc = loader(c, size, _dt.bool_)
    la, lb = loader(a, size, out.dtype), loader(b, size, out.dtype)
    return Pointwise(size, out.dtype, lambda index: ops.where(lc(index), la(index), lb(index)))


@register_lowering(*_overloads("masked_fill", "Scalar", "Tensor"))
def _masked_fill(node, x, mask, value):
    out = _val(node)
    size = tuple(out.shape)
    lm = loader(mask, size, _dt.bool_)
    lx, lv = loader(x, size, out.dtype), loader(value, size, out.dtype)
    return Pointwise(size, out.dtype, lambda index: ops.where(lm(index), lv(index), lx(index)))


@register_lowering(*_overloads("clamp", "default", "Tensor"))
def _clamp(node, x, min=None, max=None):
    def fn(v, *bounds):
        it = iter(bounds)
        if min is not None:
            v = ops.maximum(v, next(it))
        if max is not None:
            v = ops.minimum(v, next(it))
        return v
    return make_pointwise(node, fn, [x] + [b for b in (min, max) if b is not None])


@register_lowering(*_overloads("clamp_min", "default", "Tensor"))
def _clamp_min(node, x, min):
    return make_pointwise(node, ops.maximum, [x, min])


@register_lowering(*_overloads("clamp_max", "default", "Tensor"))
def _clamp_max(node, x, max):
    return make_pointwise(node, ops.minimum, [x, max])


@register_lowering(*_overloads("lerp", "Scalar", "Tensor"))
def _lerp(node, a, b, w):
    return make_pointwise(node, lambda x, y, t: ops.add(x, ops.mul(t, ops.sub(y, x))), [a, b, w])


@register_lowering(*_overloads("threshold_backward", "default"))
def _threshold_backward(node, grad, x, threshold):
    out = _val(node)
    size = tuple(out.shape)
    lg = loader(grad, size, out.dtype)
    lx = loader(x, size, x.get_dtype())
    t = threshold

    def inner(index):
        return ops.where(ops.le(lx(index), ops.constant(t, x.get_dtype())), ops.constant(0, out.dtype), lg(index))
    return Pointwise(size, out.dtype, inner)


@register_lowering(*_overloads("sigmoid_backward", "default"))
def _sigmoid_backward(node, g, y):
    return make_pointwise(node, lambda gg, yy: ops.mul(gg, ops.mul(yy, ops.sub(ops.constant(1, _val(node).dtype),
                                                                                  yy))), [g, y])


@register_lowering(*_overloads("tanh_backward", "default"))
def _tanh_backward(node, g, y):
    return make_pointwise(node, lambda gg, yy: ops.mul(gg, ops.sub(ops.constant(1, _val(node).dtype),
                                                                    ops.mul(yy, yy))), [g, y])


# Bits against eager (checked on benchmarks/train_step.py's GPT, plain attention, one compiled step from the same
# weights): the loss, the logits' gradient, the linears (the same cblas calls), embeddings, residual adds and the
# plain attention (bmm, scale, masked_fill, softmax.c, bmm) give eager's bits; every parameter's gradient still
# differs in its last bits because two ops of every block do not run eager's kernels:
# - gelu and gelu_backward (below): the generated x * Phi(x) rounds differently from eager's gelu.c (its own
#   vector CDF and order of operations): 68% of a (16, 64, 512) float32 gelu's values differ, by 1-2 ulp where
#   the value is not tiny;
# - layer_norm: decomposed (ember/_decomp native_layer_norm: mean and variance as generated reductions) where
#   eager's norm.c sums rows in its 16-lane order (csrc/fold16.h): ~20% of a (16, 64, 128) output and most of
#   its gradients differ in the last bits.
# Calling gelu.c and norm.c from the C entry, as softmax_calls.py does softmax.c, would close both.
@register_lowering(*_overloads("gelu", "default"))
def _gelu(node, x, approximate="none"):
    """x Phi(x) with ember's vectorised normal CDF (the eager kernel's formula); the tanh form as
    x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3), which has no cancellation near 0."""
    dt = _val(node).dtype

    def fn(v):
        c = lambda k: ops.constant(k, dt)  # noqa: E731
        if approximate == "tanh":
            u = ops.mul(c(math.sqrt(2 / math.pi)), ops.add(v, ops.mul(c(0.044715), ops.mul(v, ops.mul(v, v)))))
            return ops.mul(v, ops.sigmoid(ops.mul(c(2.0), u)))
        return ops.mul(v, ops.phi(v))
    return make_pointwise(node, fn, [x])


@register_lowering(*_overloads("gelu_backward", "default"))
def _gelu_backward(node, g, x, approximate="none"):
    dt = _val(node).dtype

    def fn(gg, v):
        c = lambda k: ops.constant(k, dt)  # noqa: E731
        if approximate == "tanh":
            k0, k1 = math.sqrt(2 / math.pi), 0.044715
            u = ops.mul(c(k0), ops.add(v, ops.mul(c(k1), ops.mul(v, ops.mul(v, v)))))
            s = ops.sigmoid(ops.mul(c(2.0), u))
            sm = ops.sub(c(1.0), s)
            du = ops.mul(c(2 * k0), ops.add(c(1.0), ops.mul(c(3 * k1), ops.mul(v, v))))
            return ops.mul(gg, ops.add(s, ops.mul(ops.mul(ops.mul(v, s), sm), du)))
        pdf = ops.mul(ops.gauss(v), c(1 / math.sqrt(2 * math.pi)))
        return ops.mul(gg, ops.add(ops.phi(v), ops.mul(v, pdf)))
    return make_pointwise(node, fn, [g, x])


@register_lowering(*_overloads("silu", "default"))
def _silu(node, x):
    return make_pointwise(node, lambda v: ops.mul(v, ops.sigmoid(v)), [x])


@register_lowering(*_overloads("silu_backward", "default"))
def _silu_backward(node, g, x):
    dt = _val(node).dtype

    def fn(gg, v):
        s = ops.sigmoid(v)
        one = ops.constant(1, dt)
        return ops.mul(gg, ops.mul(s, ops.add(one, ops.mul(v, ops.sub(one, s)))))
    return make_pointwise(node, fn, [g, x])


# ---------------------------------------------------------------------------- casts and copies
@register_lowering(*_overloads("_to_copy", "default"), *_overloads("clone", "default"),
                   *_overloads("lift_fresh_copy", "default"), *_overloads("contiguous", "default"))
def _copy(node, x, **kwargs):
    out = _val(node)
    ld = loader(x, tuple(out.shape), out.dtype)
    return Pointwise(tuple(out.shape), out.dtype, lambda index: ops.to_dtype(ld(index), out.dtype))


@register_lowering(*_overloads("_to_copy", "default"))
def _to_copy(node, x, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    if device is not None and str(device) not in ("cpu",):
        raise NotImplementedError(f"ember._inductor: _to_copy to device {device}")
    return _copy(node, x)


@register_lowering(*_overloads("copy", "default"))
def _copy_op(node, dst, src, non_blocking=False):
    return _copy(node, src)


# ---------------------------------------------------------------------------- constants
def _full(node, value):
    out = _val(node)
    size = tuple(out.shape)
    return Pointwise(size, out.dtype, lambda index: ops.constant(value, out.dtype))


@register_lowering(*_overloads("full", "default"))
def _lower_full(node, size, fill_value, **kwargs):
    return _full(node, fill_value)


@register_lowering(*_overloads("full_like", "default"))
def _lower_full_like(node, x, fill_value, **kwargs):
    return _full(node, fill_value)


@register_lowering(*_overloads("zeros", "default"), *_overloads("zeros_like", "default"),
                   *_overloads("new_zeros", "default"), *_overloads("empty", "memory_format"),
                   *_overloads("empty_like", "default"), *_overloads("new_empty", "default"),
                   *_overloads("empty_strided", "default"))
def _lower_zeros(node, *args, **kwargs):
    return _full(node, 0)


@register_lowering(*_overloads("ones", "default"), *_overloads("ones_like", "default"),
                   *_overloads("new_ones", "default"))
def _lower_ones(node, *args, **kwargs):
    return _full(node, 1)


@register_lowering(*_overloads("scalar_tensor", "default"))
def _lower_scalar_tensor(node, value, **kwargs):
    return _full(node, value)


@register_lowering(*_overloads("arange", "default", "start", "start_step"))
def _lower_arange(node, *args, **kwargs):
    out = _val(node)
    nums = [a for a in args]
    if len(nums) == 1:
        start, step = 0, 1
    elif len(nums) == 2:
        start, step = nums[0], 1
    else:
        start, step = nums[0], nums[2]
    dt = out.dtype

    def inner(index):
        i = ops.index_expr(index[0], _dt.int64 if not dt.is_floating_point else _dt.float64)
        cdt = _dt.int64 if not dt.is_floating_point else _dt.float64
        v = ops.add(ops.constant(start, cdt), ops.mul(i, ops.constant(step, cdt)))
        return ops.to_dtype(v, dt)
    return Pointwise(tuple(out.shape), dt, inner)


# ---------------------------------------------------------------------------- views
def _graph():
    from .virtualized import current_graph
    return current_graph()


def permute(x, dims):
    size = x.get_size()
    dims = [d % len(size) for d in dims]
    new = tuple(size[d] for d in dims)
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    out = remap(x, new, lambda index: [index[inv[j]] for j in range(len(dims))])
    if isinstance(out, Pointwise):
        out.permuted = (x, dims)     # an extern call realizes x once and reads this as a strided view of it
    return out


def reshape(x, new_size):
    size = tuple(x.get_size())
    new_size = list(new_size)
    if -1 in new_size:
        k = new_size.index(-1)
        rest = prod(s for i, s in enumerate(new_size) if i != k)
        new_size[k] = prod(size) // rest if rest else 0
    new_size = tuple(new_size)
    if new_size == size:
        return x
    if _nonone(size) == _nonone(new_size):     # only size-1 dims come or go: an index map
        src = [i for i, s in enumerate(size) if s != 1]
        dst = [i for i, s in enumerate(new_size) if s != 1]

        def reindex(index):
            out = [Index()] * len(size)
            for si, di in zip(src, dst):
                out[si] = index[di]
            return out
        return remap(x, new_size, reindex)
    if isinstance(x, BufferView):
        st = view_strides(size, x.layout.stride, new_size)
        if st is not None:
            return BufferView(x.buffer, Layout(new_size, st, x.layout.offset, x.dtype))
    else:
        split = _split_map(size, new_size)
        if split is not None:          # every old dim splits into new dims: old index = affine in new
            def reindex(index):
                return [sum((index[j] * m for j, m in terms), Index()) for terms in split]
            return remap(x, new_size, reindex)
    x = _graph().realize(x)
    st = view_strides(size, x.layout.stride, new_size)
    return BufferView(x.buffer, Layout(new_size, st, x.layout.offset, x.dtype))


def _split_map(old, new):
    """For a reshape in which each old dim is a run of consecutive new dims (a split, no merge): per old dim,
    the (new dim, multiplier) terms of its index. None if some new dim merges old dims."""
    out, j = [], 0
    for s in old:
        terms, p = [], 1
        group = []
        while j < len(new) and p < s:
            group.append(j)
            p *= new[j]
            j += 1
        if s == 1:
            out.append([])
            continue
        if p != s:
            return None
        m = 1
        for d in reversed(group):
            terms.append((d, m))
            m *= new[d]
        out.append(terms)
    while j < len(new):
        if new[j] != 1:
            return None
        j += 1
    return out


def _nonone(s):
    return tuple(v for v in s if v != 1)


def expand(x, size):
    xs = x.get_size()
    size = [xs[i - (len(size) - len(xs))] if s == -1 else s for i, s in enumerate(size)]
    lead = len(size) - len(xs)

    def reindex(index):
        return [Index() if xs[i] == 1 and size[i + lead] != 1 else index[i + lead] for i in range(len(xs))]
    return remap(x, size, reindex)


def slice_(x, dim=0, start=None, end=None, step=1):
    size = list(x.get_size())
    dim %= len(size)
    n = size[dim]
    start = 0 if start is None else start
    end = n if end is None else end
    start = start + n if start < 0 else start
    end = end + n if end < 0 else end
    start, end = max(0, min(start, n)), max(0, min(end, n))
    length = max(0, (end - start + step - 1) // step)
    size[dim] = length

    def reindex(index):
        out = list(index)
        out[dim] = index[dim] * step + start
        return out
    return remap(x, size, reindex)


def select(x, dim, i):
    size = list(x.get_size())
    dim %= len(size)
    i = i + size[dim] if i < 0 else i
    new = size[:dim] + size[dim + 1:]

    def reindex(index):
        return list(index[:dim]) + [Index(None, i)] + list(index[dim:])
    return remap(x, new, reindex)


@register_lowering(*_overloads("view", "default"), *_overloads("_unsafe_view", "default"),
                   *_overloads("reshape", "default"))
def _view(node, x, size):
    return reshape(x, tuple(_val(node).shape))


@register_lowering(*_overloads("permute", "default"))
def _permute(node, x, dims):
    return permute(x, dims)


@register_lowering(*_overloads("t", "default"))
def _t(node, x):
    return permute(x, [1, 0]) if len(x.get_size()) == 2 else x


@register_lowering(*_overloads("transpose", "int"))
def _transpose(node, x, d0, d1):
    n = len(x.get_size())
    if n == 0:
        return x
    dims = list(range(n))
    d0, d1 = d0 % n, d1 % n
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return permute(x, dims)


@register_lowering(*_overloads("expand", "default"))
def _expand(node, x, size, implicit=False):
    return expand(x, tuple(_val(node).shape))


@register_lowering(*_overloads("slice", "Tensor"))
def _slice(node, x, dim=0, start=None, end=None, step=1):
    return slice_(x, dim, start, end, step)


@register_lowering(*_overloads("select", "int"))
def _select(node, x, dim, index):
    return select(x, dim, index)


@register_lowering(*_overloads("unsqueeze", "default"), *_overloads("squeeze", "default", "dim", "dims"),
                   *_overloads("alias", "default"), *_overloads("detach", "default"),
                   *_overloads("_reshape_alias", "default"))
def _reshape_like(node, x, *args):
    return reshape(x, tuple(_val(node).shape))


@register_lowering(*_overloads("as_strided", "default"))
def _as_strided(node, x, size, stride, storage_offset=None):
    x = _graph().realize(x)
    if not x.is_whole_buffer() and storage_offset is None:
        storage_offset = x.layout.offset
    return BufferView(x.buffer, Layout(size, stride, storage_offset or 0, x.dtype))


@register_lowering(*_overloads("split", "Tensor"), *_overloads("split_with_sizes", "default"))
def _split(node, x, split, dim=0):
    n = x.get_size()[dim % len(x.get_size())]
    sizes = split if isinstance(split, (list, tuple)) else [min(split, n - i) for i in range(0, n, split)]
    out, start = [], 0
    for s in sizes:
        out.append(slice_(x, dim, start, start + s))
        start += s
    return tuple(out)


@register_lowering(*_overloads("unbind", "int"))
def _unbind(node, x, dim=0):
    return tuple(select(x, dim, i) for i in range(x.get_size()[dim % len(x.get_size())]))


@register_lowering(operator.getitem)
def _getitem(node, seq, i):
    return seq[i]


@register_lowering(*_overloads("cat", "default"))
def _cat(node, tensors, dim=0):
    out = _val(node)
    size = tuple(out.shape)
    dim %= len(size)
    parts = [t for t in tensors if _is_ir(t) and not (len(t.get_size()) == 1 and t.get_size()[0] == 0)]
    offsets, acc = [], 0
    for t in parts:
        offsets.append(acc)
        acc += t.get_size()[dim]
    loaders = [loader(t, t.get_size(), out.dtype) for t in parts]

    def inner(index):
        i = ops.index_expr(index[dim], _dt.int64)

        def piece(k):
            sub = list(index)
            sub[dim] = index[dim] - offsets[k]
            return loaders[k](sub)
        result = piece(len(parts) - 1)
        for k in range(len(parts) - 2, -1, -1):
            end = offsets[k] + parts[k].get_size()[dim]
            mask = ops.lt(i, ops.constant(end, _dt.int64))
            result = _select_masked(mask, k, piece, result)
        return result
    return Pointwise(size, out.dtype, inner)


def _select_masked(mask, k, piece, other_value):
    """mask ? piece(k) : other_value, loading piece(k) only where mask holds."""
    v = ops.masked(mask, lambda: piece(k), 0)
    return ops.where(mask, v, other_value)


# ---------------------------------------------------------------------------- reductions
def _dims(x, dim):
    n = len(x.get_size())
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return list(range(n))
    if isinstance(dim, int):
        dim = [dim]
    return sorted({d % n if n else 0 for d in dim})


def make_reduction(node, x, dims, rtype, src_dtype, keepdim, post=None, out_dtype=None):
    """Reduce x over dims. The result buffer has the fake result's size; `post` maps the reduced value."""
    graph = _graph()
    size = tuple(x.get_size())
    dims = [d for d in dims if d < len(size)]
    keep = [i for i in range(len(size)) if i not in dims]
    rsize = tuple(size[d] for d in dims)
    out_size = tuple(size[i] if i not in dims else 1 for i in range(len(size))) if keepdim else \
        tuple(size[i] for i in keep)
    ld = loader(x, size, src_dtype) if src_dtype is not None else x.make_loader()
    dt = out_dtype or _val(node).dtype if not isinstance(_val(node), tuple) else out_dtype

    def inner(index, rindex):
        full = [None] * len(size)
        it = iter(index) if not keepdim else None
        if keepdim:
            for i in range(len(size)):
                if i not in dims:
                    full[i] = index[i]
        else:
            for i in keep:
                full[i] = next(it)
        for d, r in zip(dims, rindex):
            full[d] = r
        v = ld(full)
        return v
    red = Reduction(out_size, rsize, rtype, inner, src_dtype or x.get_dtype())
    if rtype == "sum" and dims == sorted(dims):
        k = 0                  # trailing dims of x all reduced: the run numpy's add.reduce sums pairwise
        while k < len(dims) and dims[-1 - k] == len(size) - 1 - k:
            k += 1
        red.run_dims = k
    buf = graph.add_reduction(red, dt)
    if post is None:
        return buf
    return post(buf)


def _sum_src_dtype(node, x, dtype):
    return _val(node).dtype if dtype is None else dtype


@register_lowering(*_overloads("sum", "dim_IntList", "default"))
def _sum(node, x, dim=None, keepdim=False, dtype=None):
    return make_reduction(node, x, _dims(x, dim), "sum", _val(node).dtype, keepdim)


@register_lowering(*_overloads("prod", "dim_int", "default"))
def _prod(node, x, dim=None, keepdim=False, dtype=None):
    return make_reduction(node, x, _dims(x, dim), "prod", _val(node).dtype, keepdim)


@register_lowering(*_overloads("mean", "dim", "default"))
def _mean(node, x, dim=None, keepdim=False, dtype=None):
    dims = _dims(x, dim)
    n = prod(x.get_size()[d] for d in dims)
    out = _val(node)
    s = make_reduction(node, x, dims, "sum", out.dtype, keepdim)
    ld = s.make_loader()
    return Pointwise(s.get_size(), out.dtype,
                     lambda index: ops.to_dtype(ops.truediv(ld(index), ops.constant(n, compute_dtype(out.dtype))),
                                                out.dtype))


@register_lowering(*_overloads("amax", "default"), *_overloads("amin", "default"))
def _amax(node, x, dim=(), keepdim=False):
    rtype = "max" if node.target.__name__.startswith("amax") or "amax" in str(node.target) else "min"
    return make_reduction(node, x, _dims(x, dim), rtype, x.get_dtype(), keepdim)


@register_lowering(*_overloads("max", "default"), *_overloads("min", "default"))
def _max_all(node, x):
    rtype = "max" if "max" in str(node.target) else "min"
    return make_reduction(node, x, _dims(x, None), rtype, x.get_dtype(), False)


@register_lowering(*_overloads("argmax", "default"), *_overloads("argmin", "default"))
def _argmax(node, x, dim=None, keepdim=False):
    rtype = "argmax" if "argmax" in str(node.target) else "argmin"
    if dim is None:
        x = reshape(x, (prod(x.get_size()),))
        dim = 0
        if keepdim:
            raise NotImplementedError("ember._inductor: argmax(dim=None, keepdim=True)")
    return make_reduction(node, x, _dims(x, dim), rtype, x.get_dtype(), keepdim)


@register_lowering(*_overloads("max", "dim"), *_overloads("min", "dim"))
def _max_dim(node, x, dim, keepdim=False):
    kind = "max" if "max" in str(node.target) else "min"
    values = make_reduction(node, x, _dims(x, dim), kind, x.get_dtype(), keepdim, out_dtype=x.get_dtype())
    indices = make_reduction(node, x, _dims(x, dim), "arg" + kind, x.get_dtype(), keepdim, out_dtype=_dt.int64)
    return values, indices


@register_lowering(*_overloads("any", "default", "dim", "dims"), *_overloads("all", "default", "dim", "dims"))
def _any(node, x, dim=None, keepdim=False):
    rtype = "any" if "any" in str(node.target) else "all"
    return make_reduction(node, x, _dims(x, dim), rtype, _dt.bool_, keepdim, out_dtype=_dt.bool_)


def _var_parts(node, x, dim, correction, keepdim, out_dtype):
    dims = _dims(x, dim)
    n = prod(x.get_size()[d] for d in dims)
    cdt = compute_dtype(out_dtype)
    mean = make_reduction(node, x, dims, "sum", out_dtype, True, out_dtype=out_dtype)
    ml = mean.make_loader()
    xl = loader(x, x.get_size(), out_dtype)
    mean_pw = Pointwise(mean.get_size(), out_dtype,
                        lambda index: ops.truediv(ml(index), ops.constant(n, cdt)))
    mpl = loader(mean_pw, x.get_size(), out_dtype)

    def sq(index):
        d = ops.sub(xl(index), mpl(index))
        return ops.mul(d, d)
    sqr = Pointwise(x.get_size(), out_dtype, sq)
    ss = make_reduction(node, sqr, dims, "sum", out_dtype, keepdim, out_dtype=out_dtype)
    sl = ss.make_loader()
    denom = max(n - (1 if correction is None else correction), 0)
    var = Pointwise(ss.get_size(), out_dtype,
                    lambda index: ops.truediv(sl(index), ops.constant(denom, cdt)))
    mean_out = mean_pw if keepdim else reshape(mean_pw, ss.get_size())
    return var, mean_out


@register_lowering(*_overloads("var", "correction"))
def _var(node, x, dim=None, *, correction=None, keepdim=False):
    return _var_parts(node, x, dim, correction, keepdim, _val(node).dtype)[0]


@register_lowering(*_overloads("var_mean", "correction"))
def _var_mean(node, x, dim=None, *, correction=None, keepdim=False):
    return _var_parts(node, x, dim, correction, keepdim, _val(node)[0].dtype)


# ---------------------------------------------------------------------------- softmax family
def _row_softmax(node, x, dim, log):
    out = _val(node)
    dt = out.dtype
    dim %= max(len(x.get_size()), 1)
    mx = make_reduction(node, x, [dim], "max", dt, True, out_dtype=dt)
    xl, ml = loader(x, x.get_size(), dt), loader(mx, x.get_size(), dt)

    def shifted(index):
        return ops.sub(xl(index), ml(index))
    e = Pointwise(x.get_size(), dt, lambda index: ops.exp(shifted(index)))
    s = make_reduction(node, e, [dim], "sum", dt, True, out_dtype=dt)
    sl = loader(s, x.get_size(), dt)
    if log:
        return Pointwise(x.get_size(), dt, lambda index: ops.sub(shifted(index), ops.log(sl(index))))
    return Pointwise(x.get_size(), dt, lambda index: ops.truediv(ops.exp(shifted(index)), sl(index)))


def _softmax_in_c(node, x, dim):
    """Whether this softmax-family op is an extern call to eager's softmax.c (codegen/softmax_calls.py: eager's
    bits, which the generated row kernel does not give)."""
    from .codegen import softmax_calls, wrapper
    return wrapper.EXTERN_SOFTMAX_IN_C and softmax_calls.softmax_in_c(x, dim, _val(node).dtype)


@register_lowering(*_overloads("_softmax", "default"))
def _softmax(node, x, dim, half_to_float=False):
    if not half_to_float and _softmax_in_c(node, x, dim):
        return _graph()._extern(node, node.target, (x, dim, False), {}, "extern")
    return _row_softmax(node, x, dim, False)


@register_lowering(*_overloads("_log_softmax", "default"))
def _log_softmax(node, x, dim, half_to_float=False):
    if not half_to_float and _softmax_in_c(node, x, dim):
        return _graph()._extern(node, node.target, (x, dim, False), {}, "extern")
    return _row_softmax(node, x, dim, True)


@register_lowering(*_overloads("_softmax_backward_data", "default"))
def _softmax_backward(node, grad, y, dim, input_dtype):
    dt = _val(node).dtype
    if _softmax_in_c(node, grad, dim) and y.get_dtype() is dt:
        return _graph()._extern(node, node.target, (grad, y, dim, input_dtype), {}, "extern")
    size = grad.get_size()
    gl, yl = loader(grad, size, dt), loader(y, size, dt)
    gy = Pointwise(size, dt, lambda index: ops.mul(gl(index), yl(index)))
    s = make_reduction(node, gy, [dim % len(size)], "sum", dt, True, out_dtype=dt)
    sl = loader(s, size, dt)
    return Pointwise(size, dt, lambda index: ops.mul(yl(index), ops.sub(gl(index), sl(index))))


@register_lowering(*_overloads("_log_softmax_backward_data", "default"))
def _log_softmax_backward(node, grad, y, dim, input_dtype):
    dt = _val(node).dtype
    if _softmax_in_c(node, grad, dim) and y.get_dtype() is dt:
        return _graph()._extern(node, node.target, (grad, y, dim, input_dtype), {}, "extern")
    size = grad.get_size()
    gl, yl = loader(grad, size, dt), loader(y, size, dt)
    s = make_reduction(node, grad, [dim % len(size)], "sum", dt, True, out_dtype=dt)
    sl = loader(s, size, dt)
    return Pointwise(size, dt, lambda index: ops.sub(gl(index), ops.mul(ops.exp(yl(index)), sl(index))))


# ---------------------------------------------------------------------------- gathers
@register_lowering(*_overloads("embedding", "default"))
def _embedding(node, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    out = _val(node)
    isz = indices.get_size()
    il = indices.make_loader()
    wl = weight.make_loader()
    nrows = weight.get_size()[0]

    def inner(index):
        row = ops.indirect_indexing(il(index[:len(isz)]), nrows)
        return wl([row] + list(index[len(isz):]))
    return Pointwise(tuple(out.shape), out.dtype, inner)


@register_lowering(*_overloads("nll_loss_forward", "default"))
def _nll_loss_forward(node, x, target, weight, reduction, ignore_index):
    from .codegen import loss_calls, wrapper
    if wrapper.EXTERN_LOSS_IN_C and loss_calls.nll_in_c(x, weight) and reduction in (0, 1, 2):
        # eager's nll.c from the C entry (codegen/loss_calls.py): eager's sum in double, so eager's bits
        return _graph()._extern(node, node.target, (x, target, weight, reduction, ignore_index), {}, "extern")
    if weight is not None:
        raise NotImplementedError("ember._inductor: nll_loss with class weights (falls back)")
    out, total = _val(node)
    dt = out.dtype
    xs = x.get_size()
    xl, tl = x.make_loader(), target.make_loader()
    ncls = xs[-1]
    if len(xs) == 1:
        xs2 = (1, ncls)
        xl0 = xl
        xl = lambda idx: xl0([idx[1]])  # noqa: E731
        tl0 = tl
        tl = lambda idx: tl0([])  # noqa: E731
        xs = xs2
    if len(xs) != 2:
        raise NotImplementedError("ember._inductor: nll_loss_forward beyond (N, C) inputs")

    def picked(i):
        t = tl([i])
        valid = ops.ne(t, ops.constant(ignore_index, _dt.int64))
        safe = ops.where(valid, t, ops.constant(0, _dt.int64))
        col = ops.indirect_indexing(safe, ncls)
        v = ops.neg(xl([i, col]))
        return valid, v

    def per_row(index):
        valid, v = picked(index[0])
        return ops.where(valid, v, ops.constant(0, dt))

    def count_row(index):
        valid, _ = picked(index[0])
        return ops.to_dtype(valid, dt)
    rows = Pointwise((xs[0],), dt, per_row)
    counts = Pointwise((xs[0],), dt, count_row)
    if reduction == 0:
        return rows, _full_value((), dt, 0.0)
    total_b = make_reduction(node, counts, [0], "sum", dt, False, out_dtype=dt)
    loss = make_reduction(node, rows, [0], "sum", dt, False, out_dtype=dt)
    if reduction == 2:
        return loss, total_b
    ll, tl2 = loss.make_loader(), total_b.make_loader()
    return Pointwise((), dt, lambda index: ops.truediv(ll([]), tl2([]))), total_b


def _full_value(size, dt, value):
    return Pointwise(size, dt, lambda index: ops.constant(value, dt))


@register_lowering(*_overloads("nll_loss_backward", "default"))
def _nll_loss_backward(node, grad_out, x, target, weight, reduction, ignore_index, total_weight):
    """-(weight[t] * g) at each row's target column (g the output's gradient, divided by the total weight for
    'mean'), 0 elsewhere: eager's nll_bwd (csrc/nll.c) rounds the same way, so eager's bits."""
    out = _val(node)
    dt = out.dtype
    size = tuple(out.shape)
    gl, tl, twl = grad_out.make_loader(), target.make_loader(), total_weight.make_loader()
    one_d = len(size) == 1
    if weight is not None:
        if weight.get_dtype() is not dt:
            raise NotImplementedError("ember._inductor: nll_loss with class weights of another dtype (falls back)")
        wl = weight.make_loader()

    def inner(index):
        t = tl([] if one_d else [index[0]])
        c = index[-1]
        hit = ops.logical_and(ops.eq(ops.index_expr(c, _dt.int64), t),
                              ops.ne(t, ops.constant(ignore_index, _dt.int64)))
        g = gl([] if reduction != 0 or one_d else [index[0]])
        if reduction == 1:
            g = ops.truediv(g, twl([]))
        if weight is None:
            g = ops.neg(g)
        else:
            safe = ops.where(hit, t, ops.constant(0, _dt.int64))
            g = ops.mul(ops.neg(wl([ops.indirect_indexing(safe, size[-1])])), g)
        return ops.where(hit, g, ops.constant(0, dt))
    return Pointwise(size, dt, inner)


# ---------------------------------------------------------------------------- pooling (windowed reductions)
def _pair(v, default=None):
    if v is None or (isinstance(v, (list, tuple)) and len(v) == 0):
        v = default
    if isinstance(v, int):
        return (v, v)
    return (int(v[0]), int(v[-1]) if len(v) > 1 else int(v[0]))


def _window(x, out_size, kernel, stride, padding, dilation, fill):
    """(loader of the window element (index, rindex) -> value, with `fill` outside the input; the input's H, W).
    The input element of output (..., oh, ow) and window position (i, j) is (..., oh*sh - ph + i*dh,
    ow*sw - pw + j*dw): an affine index; rows and columns outside the input are masked."""
    size = tuple(x.get_size())
    H, W = size[-2], size[-1]
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    ld = x.make_loader()
    dt = x.get_dtype()
    padded = ph or pw or (out_size[-2] - 1) * sh - ph + (kh - 1) * dh >= H or \
        (out_size[-1] - 1) * sw - pw + (kw - 1) * dw >= W

    def load(index, rindex):
        h = index[-2] * sh + rindex[0] * dh - ph
        w = index[-1] * sw + rindex[1] * dw - pw
        full = list(index[:-2]) + [h, w]
        if not padded:
            return ld(full)
        hv, wv = ops.index_expr(h, _dt.int64), ops.index_expr(w, _dt.int64)
        zero = ops.constant(0, _dt.int64)
        inside = ops.logical_and(
            ops.logical_and(ops.ge(hv, zero), ops.lt(hv, ops.constant(H, _dt.int64))),
            ops.logical_and(ops.ge(wv, zero), ops.lt(wv, ops.constant(W, _dt.int64))))
        v = ops.masked(inside, lambda: ld(full), fill)
        return ops.where(inside, v, ops.constant(fill, dt))
    return load, H, W


@register_lowering(*_overloads("max_pool2d_with_indices", "default"))
def _max_pool2d_with_indices(node, x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """max_pool2d as a max and an argmax reduction over each window (one kernel after fusion); the index of
    the argmax's window position is turned into the flat index h * W + w of the input plane, as eager's."""
    out = _val(node)[0]
    if not x.get_dtype().is_floating_point:
        raise NotImplementedError("ember._inductor: max_pool2d of integers")
    if _pool_in_c(x):
        return _graph()._extern(node, node.target, (x, kernel_size, stride, padding, dilation, ceil_mode), {},
                                "extern")
    out_size = tuple(out.shape)
    kernel = _pair(kernel_size)
    stride = _pair(stride, kernel)
    padding, dilation = _pair(padding), _pair(dilation)
    load, H, W = _window(x, out_size, kernel, stride, padding, dilation, float("-inf"))
    if kernel[0] * kernel[1] <= _UNROLL_WINDOW:
        return _max_pool2d_unrolled(out_size, x.get_dtype(), load, W, kernel, stride, padding, dilation)
    graph = _graph()
    rsize = kernel
    dt = x.get_dtype()
    values = graph.add_reduction(Reduction(out_size, rsize, "max", load, dt), dt)
    pos = graph.add_reduction(Reduction(out_size, rsize, "argmax", load, dt), _dt.int64)
    ld_pos = pos.make_loader()
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation

    def index_of(index):
        r = ld_pos(index)
        i = ops.floordiv(r, ops.constant(kw, _dt.int64))
        j = ops.sub(r, ops.mul(i, ops.constant(kw, _dt.int64)))
        h = ops.add(ops.index_expr(index[-2] * sh - ph, _dt.int64), ops.mul(i, ops.constant(dh, _dt.int64)))
        w = ops.add(ops.index_expr(index[-1] * sw - pw, _dt.int64), ops.mul(j, ops.constant(dw, _dt.int64)))
        return ops.add(ops.mul(h, ops.constant(W, _dt.int64)), w)
    return values, Pointwise(out_size, _dt.int64, index_of)


# max pools eager runs in C (csrc/pool.c, float32/float64) are extern calls to those kernels from the C entry
# (codegen/pool_calls.py) rather than generated loops: pool.c's 2x2 vector blocks beat the generated select chain
# (LeNet's first pool and the relu feeding it: 0.55 -> 0.23 ms a step), and the results are eager's bits. False:
# always generated loops (the lowering below).
MAX_POOL_IN_C = True


def _pool_in_c(x):
    from .codegen import pool_calls, wrapper
    return MAX_POOL_IN_C and wrapper.EXTERN_POOL_IN_C and pool_calls.available(x.get_dtype()) and \
        all(type(v) is int for v in x.get_size())


# windows of at most this many elements are unrolled into pointwise code (torch's inductor unrolls up to 25 too):
# the loop over output columns then vectorises, where a per-output reduction loop of 4 elements does not
_UNROLL_WINDOW = 25


def _max_pool2d_unrolled(out_size, dt, load, W, kernel, stride, padding, dilation):
    """max_pool2d_with_indices of a small window as pointwise code: one select chain over its elements in
    row-major order, eager's rule (csrc/pool.c, torch's cpu kernel): an element replaces the running maximum when
    it is greater or NaN, so ties keep the first and the last NaN wins. Two pointwise values read the chain: the
    maximum, and the flat input index of that element. No loop per output: the column loop vectorises."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    taps = [(i, j) for i in range(kh) for j in range(kw)]

    def flat(index, r):
        i, j = r
        return ops.index_expr((index[-2] * sh + (i * dh - ph)) * W + index[-1] * sw + (j * dw - pw), _dt.int64)

    def chain(index, want_pos):
        acc = load(index, (0, 0))
        pos = flat(index, (0, 0)) if want_pos else None
        for r in taps[1:]:
            v = load(index, r)
            take = ops.logical_or(ops.gt(v, acc), ops.isnan(v))
            acc = ops.where(take, v, acc)
            if want_pos:
                pos = ops.where(take, flat(index, r), pos)
        return pos if want_pos else acc
    return (Pointwise(out_size, dt, lambda index: chain(index, False)),
            Pointwise(out_size, _dt.int64, lambda index: chain(index, True)))


@register_lowering(*_overloads("avg_pool2d", "default"))
def _avg_pool2d(node, x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
                divisor_override=None):
    """avg_pool2d as a sum over each window divided by torch's divisor: the window clipped to the padded input
    (count_include_pad) or to the input itself, or divisor_override."""
    out = _val(node)
    if not x.get_dtype().is_floating_point:
        raise NotImplementedError("ember._inductor: avg_pool2d of integers")
    out_size = tuple(out.shape)
    kernel = _pair(kernel_size)
    stride = _pair(stride, kernel)
    padding = _pair(padding)
    load, H, W = _window(x, out_size, kernel, stride, padding, (1, 1), 0.0)
    dt = x.get_dtype()
    cdt = compute_dtype(dt)
    sums = _graph().add_reduction(Reduction(out_size, kernel, "sum", lambda i, r: ops.to_dtype(load(i, r), cdt),
                                            cdt), cdt)
    ld = sums.make_loader()
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, padding

    def c(v):
        return ops.constant(v, _dt.int64)

    def extent(o, s, p, k, n):
        start = ops.index_expr(o * s - p, _dt.int64)
        end = ops.minimum(ops.add(start, c(k)), c(n + p))
        full = ops.sub(end, start)
        clipped = ops.sub(ops.minimum(end, c(n)), ops.maximum(start, c(0)))
        return full, clipped

    def inner(index):
        if divisor_override:
            div = ops.constant(divisor_override, cdt)
        else:
            fh, ch = extent(index[-2], sh, ph, kh, H)
            fw, cw = extent(index[-1], sw, pw, kw, W)
            div = ops.to_dtype(ops.mul(fh, fw) if count_include_pad else ops.mul(ch, cw), cdt)
        return ops.to_dtype(ops.truediv(ld(index), div), dt)
    return Pointwise(out_size, dt, inner)


# ---------------------------------------------------------------------------- gathers, scatters and scans
def _contig_flat(size, index):
    """The Index of `index` in a contiguous buffer of `size`."""
    flat = Index()
    for i, n, st in zip(index, size, contiguous_strides(size)):
        if n != 1:
            flat = flat + Index.wrap(i) * st
    return flat


def _need_dims(x, what):
    if not x.get_size():
        raise NotImplementedError(f"ember._inductor: {what} of a 0-dim tensor (falls back)")


@register_lowering(*_overloads("gather", "default"))
def _gather(node, x, dim, index, sparse_grad=False):
    """out[.., i, ..] = x[.., index[.., i, ..], ..]: a load at an indirect index (checked like eager's)."""
    _need_dims(x, "gather")
    out = _val(node)
    dim %= len(x.get_size())
    xl, il, n = x.make_loader(), index.make_loader(), x.get_size()[dim]

    def inner(idx):
        sub = list(idx)
        sub[dim] = ops.indirect_indexing(il(idx), n)
        return xl(sub)
    return Pointwise(tuple(out.shape), out.dtype, inner)


@register_lowering(*_overloads("index_select", "default"))
def _index_select(node, x, dim, index):
    _need_dims(x, "index_select")
    if len(index.get_size()) > 1:
        raise NotImplementedError("ember._inductor: index_select with a multi-dim index (falls back)")
    out = _val(node)
    dim %= len(x.get_size())
    xl, il, n = x.make_loader(), index.make_loader(), x.get_size()[dim]
    one = len(index.get_size()) == 1

    def inner(idx):
        sub = list(idx)
        sub[dim] = ops.indirect_indexing(il([idx[dim]] if one else []), n)
        return xl(sub)
    return Pointwise(tuple(out.shape), out.dtype, inner)


def _scatter_into(node, x, index_space, inner, accumulate, direct=()):
    """A Scatter buffer of the node's result: x (broadcast, cast) first, then inner's stores (`direct`: see
    ir.Scatter)."""
    out = _val(node)
    size = tuple(out.shape)
    init = Pointwise(size, out.dtype, loader(x, size, out.dtype))
    return _graph().add_serial(Scatter(index_space, init, inner, accumulate, direct), out.dtype)


def _scatter_lowering(node, x, dim, index, src, accumulate):
    _need_dims(x, "scatter")
    out = _val(node)
    size = tuple(out.shape)
    dim %= len(size)
    il = index.make_loader()
    sl = loader(src, src.get_size(), out.dtype) if _is_ir(src) else (lambda idx: ops.constant(src, out.dtype))

    def inner(idx):
        full = list(idx)
        full[dim] = ops.indirect_indexing(il(idx), size[dim])
        return _contig_flat(size, full), sl(idx), None
    direct = [(d, d) for d in range(len(size)) if d != dim]
    return _scatter_into(node, x, index.get_size(), inner, accumulate, direct)


@register_lowering(*_overloads("scatter", "src", "value"))
def _scatter(node, x, dim, index, src):
    return _scatter_lowering(node, x, dim, index, src, False)


@register_lowering(*_overloads("scatter_add", "default"))
def _scatter_add(node, x, dim, index, src):
    return _scatter_lowering(node, x, dim, index, src, True)


@register_lowering(*_overloads("index_add", "default"))
def _index_add(node, x, dim, index, source, alpha=1):
    _need_dims(x, "index_add")
    out = _val(node)
    size = tuple(out.shape)
    dim %= len(size)
    il = index.make_loader()
    one = len(index.get_size()) == 1
    sl = loader(source, source.get_size(), out.dtype)

    def inner(idx):
        full = list(idx)
        full[dim] = ops.indirect_indexing(il([idx[dim]] if one else []), size[dim])
        v = sl(idx)
        if alpha != 1:
            v = ops.mul(v, ops.constant(alpha, out.dtype))
        return _contig_flat(size, full), v, None
    if not source.get_size():
        return _scatter_into(node, x, (1,), inner, True)
    return _scatter_into(node, x, source.get_size(), inner, True, [(d, d) for d in range(len(size)) if d != dim])


def _leading_indices(indices):
    """(the index tensors, their broadcast size B) of integer index tensors on the leading dims (trailing Nones
    dropped); NotImplementedError otherwise (a None between them, boolean masks: those fall back)."""
    indices = list(indices)
    while indices and indices[-1] is None:
        indices.pop()
    if not indices or any(not _is_ir(i) for i in indices):
        raise NotImplementedError("ember._inductor: advanced indexing with None between index tensors (falls back)")
    if any(i.get_dtype().name not in ("int64", "int32") for i in indices):
        raise NotImplementedError("ember._inductor: advanced indexing with boolean indices (falls back)")
    b = ()
    for i in indices:
        s = tuple(i.get_size())
        b = (1,) * (len(s) - len(b)) + b if len(s) > len(b) else b
        s = (1,) * (len(b) - len(s)) + s
        b = tuple(max(p, q) for p, q in zip(b, s))
    return indices, b


@register_lowering(*_overloads("index", "Tensor"))
def _index(node, x, indices):
    """x[i0, i1, ..] with integer index tensors on the leading dims: a gather over B + the remaining dims."""
    out = _val(node)
    size = tuple(x.get_size())
    indices, b = _leading_indices(indices)
    loaders = [loader(i, b, _dt.int64) for i in indices]
    xl = x.make_loader()

    def inner(idx):
        bidx = idx[:len(b)]
        full = [ops.indirect_indexing(ld(bidx), size[d]) for d, ld in enumerate(loaders)] + list(idx[len(b):])
        return xl(full)
    return Pointwise(tuple(out.shape), out.dtype, inner)


@register_lowering(*_overloads("index_put", "default"))
def _index_put(node, x, indices, values, accumulate=False):
    """x[i0, i1, ..] = values (or +=): integer index tensors on the leading dims, broadcast together to B; the
    stores run over B + the remaining dims in order (the last of duplicate positions wins, as eager's)."""
    out = _val(node)
    size = tuple(out.shape)
    indices, b = _leading_indices(indices)
    k = len(indices)
    space = b + size[k:]
    loaders = [loader(i, b, _dt.int64) for i in indices]
    vl = loader(values, space, out.dtype)

    def inner(idx):
        bidx = idx[:len(b)]
        full = [ops.indirect_indexing(ld(bidx), size[d]) for d, ld in enumerate(loaders)] + list(idx[len(b):])
        return _contig_flat(size, full), vl(idx), None
    direct = [(len(b) + m, k + m) for m in range(len(size) - k)]
    return _scatter_into(node, x, space if space else (1,), inner, accumulate, direct)


@register_lowering(*_overloads("slice_scatter", "default"))
def _slice_scatter(node, x, src, dim=0, start=None, end=None, step=1):
    out = _val(node)
    size = tuple(out.shape)
    dim %= len(size)
    n = size[dim]
    start = 0 if start is None else start
    end = n if end is None else min(end, n)
    start, end = start + n if start < 0 else start, end + n if end < 0 else end
    start, end = max(0, min(start, n)), max(0, min(end, n))
    if step != 1:
        raise NotImplementedError("ember._inductor: slice_scatter with a step (falls back)")
    xl, sl = loader(x, size, out.dtype), loader(src, src.get_size(), out.dtype)

    def inner(idx):
        i = ops.index_expr(idx[dim], _dt.int64)
        inside = ops.logical_and(ops.ge(i, ops.constant(start, _dt.int64)), ops.lt(i, ops.constant(end, _dt.int64)))
        sub = list(idx)
        sub[dim] = idx[dim] - start
        v = ops.masked(inside, lambda: sl(sub), 0)
        return ops.where(inside, v, xl(idx))
    return Pointwise(size, out.dtype, inner)


@register_lowering(*_overloads("select_scatter", "default"))
def _select_scatter(node, x, src, dim, index):
    out = _val(node)
    size = tuple(out.shape)
    dim %= len(size)
    index = index + size[dim] if index < 0 else index
    xl, sl = loader(x, size, out.dtype), loader(src, src.get_size(), out.dtype)

    def inner(idx):
        hit = ops.eq(ops.index_expr(idx[dim], _dt.int64), ops.constant(index, _dt.int64))
        v = ops.masked(hit, lambda: sl(list(idx[:dim]) + list(idx[dim + 1:])), 0)
        return ops.where(hit, v, xl(idx))
    return Pointwise(size, out.dtype, inner)


@register_lowering(*_overloads("max_pool2d_with_indices_backward", "default"))
def _max_pool2d_backward(node, grad, x, kernel_size, stride, padding, dilation, ceil_mode, indices):
    """grad_input = 0, then grad_input[n, c, indices[n, c, oh, ow]] += grad[n, c, oh, ow] (the flat index of the
    argmax in the input plane, as the forward stored it). Where eager has the C kernel: a call to it (_pool_in_c)."""
    out = _val(node)
    if _pool_in_c(grad) and out.dtype is grad.get_dtype():
        return _graph()._extern(node, node.target, (grad, x, kernel_size, stride, padding, dilation, ceil_mode,
                                                    indices), {}, "extern")
    size = tuple(out.shape)
    plane = size[-2] * size[-1]
    gl = loader(grad, grad.get_size(), out.dtype)
    il = indices.make_loader()

    def inner(idx):
        pos = ops.indirect_indexing(il(idx), plane)
        lead = _contig_flat(size[:-2], idx[:-2]) * plane if len(size) > 2 else Index()
        return lead + pos, gl(idx), None
    return _scatter_into(node, _full_value(size, out.dtype, 0), grad.get_size(), inner, True,
                         [(d, d) for d in range(len(size) - 2)])


@register_lowering(*_overloads("avg_pool2d_backward", "default"))
def _avg_pool2d_backward(node, grad, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                         divisor_override):
    """Each output's gradient / its divisor added to every input element of its window (inside the input)."""
    out = _val(node)
    size = tuple(out.shape)
    kernel = _pair(kernel_size)
    stride = _pair(stride, kernel)
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, _pair(padding)
    H, W = size[-2], size[-1]
    dt = out.dtype
    cdt = compute_dtype(dt)
    gl = loader(grad, grad.get_size(), dt)
    nlead = len(size) - 2

    def c(v):
        return ops.constant(v, _dt.int64)

    def extent(o, s, p, k, n):
        start = ops.index_expr(o * s - p, _dt.int64)
        end = ops.minimum(ops.add(start, c(k)), c(n + p))
        return ops.sub(end, start), ops.sub(ops.minimum(end, c(n)), ops.maximum(start, c(0)))

    def inner(idx):
        oh, ow, i, j = idx[nlead], idx[nlead + 1], idx[nlead + 2], idx[nlead + 3]
        h, w = oh * sh - ph + i, ow * sw - pw + j
        hv, wv = ops.index_expr(h, _dt.int64), ops.index_expr(w, _dt.int64)
        inside = ops.logical_and(ops.logical_and(ops.ge(hv, c(0)), ops.lt(hv, c(H))),
                                 ops.logical_and(ops.ge(wv, c(0)), ops.lt(wv, c(W))))
        if divisor_override:
            div = ops.constant(divisor_override, cdt)
        else:
            fh, ch = extent(oh, sh, ph, kh, H)
            fw, cw = extent(ow, sw, pw, kw, W)
            div = ops.to_dtype(ops.mul(fh, fw) if count_include_pad else ops.mul(ch, cw), cdt)
        v = ops.to_dtype(ops.truediv(gl(idx[:nlead + 2]), div), dt)
        flat = _contig_flat(size, list(idx[:nlead]) + [h, w])
        return flat, v, inside
    space = tuple(grad.get_size()) + (kh, kw)
    return _scatter_into(node, _full_value(size, dt, 0), space, inner, True, [(d, d) for d in range(nlead)])


def _scan_lowering(node, x, dim, scan_type):
    out = _val(node)
    size = tuple(out.shape)
    if not size:
        return _copy(node, x)
    dim %= len(size)
    return _graph().add_serial(Scan(size, dim, scan_type, loader(x, size, out.dtype)), out.dtype)


@register_lowering(*_overloads("cumsum", "default"))
def _cumsum(node, x, dim, dtype=None):
    return _scan_lowering(node, x, dim, "sum")


@register_lowering(*_overloads("cumprod", "default"))
def _cumprod(node, x, dim, dtype=None):
    return _scan_lowering(node, x, dim, "prod")


# ---------------------------------------------------------------------------- more views and pointwise ops
@register_lowering(*_overloads("flip", "default"))
def _flip(node, x, dims):
    size = tuple(x.get_size())
    dims = {d % len(size) for d in dims} if size else set()

    def reindex(index):
        return [size[d] - 1 - index[d] if d in dims else index[d] for d in range(len(size))]
    return remap(x, size, reindex)


@register_lowering(*_overloads("diagonal", "default"))
def _diagonal(node, x, offset=0, dim1=0, dim2=1):
    """A view: the diagonal's index i reads (i, i + offset) of dims dim1, dim2 (an affine map)."""
    size = tuple(x.get_size())
    n = len(size)
    d1, d2 = dim1 % n, dim2 % n
    rest = [d for d in range(n) if d not in (d1, d2)]

    def reindex(index):
        full = [None] * n
        for j, d in enumerate(rest):
            full[d] = index[j]
        i = index[-1]
        full[d1], full[d2] = (i, i + offset) if offset >= 0 else (i - offset, i)
        return full
    return remap(x, tuple(_val(node).shape), reindex)


def _tri(node, x, diagonal, lower):
    out = _val(node)
    size = tuple(out.shape)
    ld = loader(x, size, out.dtype)

    def inner(index):
        r, c = ops.index_expr(index[-2], _dt.int64), ops.index_expr(index[-1], _dt.int64)
        d = ops.sub(c, r)
        keep = ops.le(d, ops.constant(diagonal, _dt.int64)) if lower else ops.ge(d, ops.constant(diagonal, _dt.int64))
        return ops.where(keep, ld(index), ops.constant(0, out.dtype))
    return Pointwise(size, out.dtype, inner)


@register_lowering(*_overloads("tril", "default"))
def _tril(node, x, diagonal=0):
    return _tri(node, x, diagonal, True)


@register_lowering(*_overloads("triu", "default"))
def _triu(node, x, diagonal=0):
    return _tri(node, x, diagonal, False)


@register_lowering(*_overloads("fill", "Scalar"))
def _fill(node, x, value):
    return _full(node, value)


@register_lowering(*_overloads("new_full", "default"))
def _new_full(node, x, size, fill_value, **kwargs):
    return _full(node, fill_value)


@register_lowering(*_overloads("fmax", "default"), *_overloads("fmin", "default"))
def _fmax(node, a, b):
    """fmax/fmin: the non-NaN operand wins (NaN only when both are)."""
    pick = ops.gt if "fmax" in str(node.target) else ops.lt

    def fn(x, y):
        if not _val(node).dtype.is_floating_point:
            return ops.where(pick(x, y), x, y)
        return ops.where(ops.isnan(y), x, ops.where(ops.isnan(x), y, ops.where(pick(y, x), y, x)))
    return make_pointwise(node, fn, [a, b])


@register_lowering(*_overloads("frac", "default"))
def _frac(node, x):
    return make_pointwise(node, lambda v: ops.sub(v, ops.trunc(v)), [x])


@register_lowering(*_overloads("threshold", "default"))
def _threshold(node, x, threshold, value):
    dt = _val(node).dtype
    return make_pointwise(node, lambda v: ops.where(ops.le(v, ops.constant(threshold, dt)), ops.constant(value, dt),
                                                    v), [x])


@register_lowering(*_overloads("xlogy", "Tensor", "Scalar_Other", "Scalar_Self"))
def _xlogy(node, a, b):
    """x * log(y), 0 where x == 0 (unless y is NaN), NaN where y is NaN."""
    dt = _val(node).dtype

    def fn(x, y):
        zero = ops.constant(0, dt)
        v = ops.mul(x, ops.log(y))
        return ops.where(ops.isnan(y), y, ops.where(ops.eq(x, zero), zero, v))
    return make_pointwise(node, fn, [a, b])


@register_lowering(*_overloads("std", "correction"))
def _std(node, x, dim=None, *, correction=None, keepdim=False):
    var = _var_parts(node, x, dim, correction, keepdim, _val(node).dtype)[0]
    ld = var.make_loader()
    return Pointwise(var.get_size(), var.get_dtype(), lambda index: ops.sqrt(ld(index)))


@register_lowering(*_overloads("constant_pad_nd", "default"))
def _constant_pad_nd(node, x, pad, value=0):
    """The padded tensor: x where the index falls inside it (negative pads crop), `value` elsewhere."""
    out = _val(node)
    size = tuple(out.shape)
    xs = tuple(x.get_size())
    n = len(size)
    ld = loader(x, xs, out.dtype)
    before = [0] * n
    for k in range(len(pad) // 2):
        before[n - 1 - k] = pad[2 * k]

    def inner(index):
        sub = [index[d] - before[d] for d in range(n)]
        inside = None
        for d in range(n):
            if before[d] == 0 and size[d] <= xs[d]:
                continue
            i = ops.index_expr(sub[d], _dt.int64)
            ok = ops.logical_and(ops.ge(i, ops.constant(0, _dt.int64)), ops.lt(i, ops.constant(xs[d], _dt.int64)))
            inside = ok if inside is None else ops.logical_and(inside, ok)
        if inside is None:
            return ld(sub)
        v = ops.masked(inside, lambda: ld(sub), 0)
        return ops.where(inside, v, ops.constant(value, out.dtype))
    return Pointwise(size, out.dtype, inner)


@register_lowering(*_overloads("diagonal_scatter", "default"))
def _diagonal_scatter(node, x, src, offset=0, dim1=0, dim2=1):
    out = _val(node)
    size = tuple(out.shape)
    n = len(size)
    d1, d2 = dim1 % n, dim2 % n
    rest = [d for d in range(n) if d not in (d1, d2)]
    xl, sl = loader(x, size, out.dtype), loader(src, src.get_size(), out.dtype)
    length = src.get_size()[-1] if src.get_size() else 0

    def inner(index):
        r, c = ops.index_expr(index[d1], _dt.int64), ops.index_expr(index[d2], _dt.int64)
        on = ops.eq(ops.sub(c, r), ops.constant(offset, _dt.int64))
        i = index[d1] if offset >= 0 else index[d2]
        iv = ops.index_expr(i, _dt.int64)
        on = ops.logical_and(on, ops.lt(iv, ops.constant(length, _dt.int64)))
        v = ops.masked(on, lambda: sl([index[d] for d in rest] + [i]), 0)
        return ops.where(on, v, xl(index))
    return Pointwise(size, out.dtype, inner)


@register_lowering(*_overloads("sgn", "default"))
def _sgn(node, x):
    if getattr(x.get_dtype(), "is_complex", False):
        raise NotImplementedError("ember._inductor: sgn of complex values (falls back)")
    return make_pointwise(node, ops.sign, [x])


@register_lowering(*_overloads("deg2rad", "default"), *_overloads("rad2deg", "default"))
def _deg2rad(node, x):
    k = math.pi / 180 if "deg2rad" in str(node.target) else 180 / math.pi
    dt = _val(node).dtype
    return make_pointwise(node, lambda v: ops.mul(v, ops.constant(k, dt)), [x])


# ---------------------------------------------------------------------------- view_copy ops
def _register_view_copies():
    """`<view>_copy` (functionalization's view_copy family): the view's lowering, its elements copied into a fresh
    buffer (a Pointwise, so a consumer inlines it and no copy happens at all)."""
    pairs = [("alias_copy", "default", "alias", "default"), ("detach_copy", "default", "detach", "default"),
             ("diagonal_copy", "default", "diagonal", "default"), ("expand_copy", "default", "expand", "default"),
             ("permute_copy", "default", "permute", "default"), ("select_copy", "int", "select", "int"),
             ("slice_copy", "Tensor", "slice", "Tensor"), ("squeeze_copy", "default", "squeeze", "default"),
             ("squeeze_copy", "dim", "squeeze", "dim"), ("squeeze_copy", "dims", "squeeze", "dims"),
             ("t_copy", "default", "t", "default"), ("transpose_copy", "int", "transpose", "int"),
             ("unsqueeze_copy", "default", "unsqueeze", "default"), ("view_copy", "default", "view", "default"),
             ("split_copy", "Tensor", "split", "Tensor"), ("unbind_copy", "int", "unbind", "int"),
             ("split_with_sizes_copy", "default", "split_with_sizes", "default")]
    for name, ov, view, vov in pairs:
        src = _overloads(view, vov)
        dst = _overloads(name, ov)
        if not src or not dst or src[0] not in lowerings:
            continue

        def lower(node, x, *args, _view=lowerings[src[0]], **kwargs):
            v = _view(node, x, *args, **kwargs)
            if isinstance(v, tuple):
                return tuple(Pointwise(p.get_size(), p.get_dtype(), p.make_loader()) for p in v)
            return Pointwise(v.get_size(), v.get_dtype(), v.make_loader())
        lowerings[dst[0]] = lower


_register_view_copies()
