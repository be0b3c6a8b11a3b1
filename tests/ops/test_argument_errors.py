"""Bad arguments across the op families raise torch's exception type and message."""
import warnings
import numpy as np
import pytest
import ember
import ember.nn.functional as EF


R = np.random.default_rng(0)


def f(*s):
    return R.standard_normal(s).astype(np.float32)


CASES = [
 ("conv2d", (f(1,4,5,5), f(8,3,3,3)), {}),
 ("conv2d", (f(2,3), f(8,3,3,3)), {}),
 ("conv1d", (f(2,3,5,5), f(8,3,3)), {}),
 ("conv2d", (f(1,3,5,5), f(8,3,3,3)), {"padding": "foo"}),
 ("conv2d", (f(1,3,5,5), f(8,3,3,3), f(4)), {}),
 ("conv2d", (f(1,3,5,5), f(8,3,3,3)), {"stride": -1}),
 ("conv2d", (f(1,3,5,5), f(8,3,3,3)), {"padding": -1}),
 ("conv2d", (f(1,3,5,5), f(8,3,3,3)), {"dilation": 0}),
 ("conv2d", (f(1,3,5,5), f(8,3,3,3)), {"groups": 0}),
 ("conv_transpose2d", (f(1,3,5,5), f(4,3,3,3)), {}),
 ("conv_transpose2d", (f(2,3), f(4,3,3,3)), {}),
 ("conv_transpose2d", (f(1,4,5,5), f(4,3,3,3)), {"output_padding": 2}),
 ("conv3d", (f(1,3,5,5), f(8,3,3,3,3)), {}),
 ("max_pool2d", (f(1,3,5,5),), {"kernel_size": 0}),
 ("max_pool2d", (f(1,3,5,5),), {"kernel_size": (2,2,2)}),
 ("max_pool1d", (f(1,3,5,5),), {"kernel_size": 2}),
 ("avg_pool1d", (f(5),), {"kernel_size": 2}),
 ("avg_pool2d", (f(1,3,5,5),), {"kernel_size": 2, "divisor_override": 0}),
 ("adaptive_avg_pool1d", (f(5),), {"output_size": 2}),
 ("adaptive_max_pool2d", (f(1,3,5,5),), {"output_size": -1}),
 ("layer_norm", (f(2,3,4), [4], f(3)), {}),
 ("group_norm", (f(2,6,4), 3, f(5)), {}),
 ("batch_norm", (f(2,3,4), f(4), f(3)), {}),
 ("batch_norm", (f(2,3,4), None, None), {}),
 ("instance_norm", (f(2,3,4), f(4), f(4)), {}),
 ("embedding", (np.array([[0, 1]]), f(3)), {}),
 ("one_hot", (np.array([1.5]),), {}),
 ("pad", (f(2,3),), {"pad": [1]}),
 ("pad", (f(2,3),), {"pad": [1,1,1,1,1,1]}),
 ("pad", (f(2,3),), {"pad": [3,3], "mode": "reflect"}),
 ("pad", (f(3,3),), {"pad": [1,1], "mode": "foo"}),
 ("interpolate", (f(1,3,4,4),), {"size": 3, "scale_factor": 2}),
 ("interpolate", (f(1,3,4,4),), {"scale_factor": 2, "mode": "linear"}),
 ("interpolate", (f(1,3,4,4),), {"scale_factor": 2, "align_corners": True}),
 ("interpolate", (f(1,3,4,4),), {}),
 ("scaled_dot_product_attention", (f(2,3,4), f(2,5,4), f(2,5,6)), {"attn_mask": np.ones((3,5), bool), "is_causal": True}),
 ("scaled_dot_product_attention", (f(2,3,4), f(2,5,3), f(2,5,6)), {}),
 ("pixel_shuffle", (f(3,4),), {"upscale_factor": 2}),
 ("pixel_unshuffle", (f(1,3,5,4),), {"downscale_factor": 2}),
 ("unfold", (f(1,3,2,2),), {"kernel_size": 3}),
 ("fold", (f(1,12,4),), {"output_size": 4, "kernel_size": 2}),
 ("dropout", (f(3),), {"p": -0.1}),
 ("dropout2d", (f(3),), {"p": 0.1}),
 ("softmax", (f(3,4),), {"dim": 2}),
 ("log_softmax", (np.arange(4),), {"dim": 0}),
 ("grid_sample", (f(1,3,4,4), f(1,2,2,3)), {}),
]


def _conv(m):
    return lambda a: m(a.copy()) if isinstance(a, np.ndarray) else a


@pytest.mark.parity
@pytest.mark.parametrize("name,args,kw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_error_parity(name, args, kw):
    torch = pytest.importorskip("torch")
    tf = getattr(torch.nn.functional, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as te:
            tf(*map(_conv(torch.from_numpy), args), **{k: _conv(torch.from_numpy)(v) for k, v in kw.items()})
        with pytest.raises(type(te.value)) as ee:
            getattr(EF, name)(*map(_conv(ember.from_numpy), args), **{k: _conv(ember.from_numpy)(v) for k, v in kw.items()})
    assert str(ee.value) == str(te.value)


@pytest.mark.parity
@pytest.mark.parametrize("a,b", [((3,), (3, 3)), ((3, 4), (3, 3))])
def test_cdist_errors(a, b):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as te:
        torch.cdist(torch.randn(*a), torch.randn(*b))
    with pytest.raises(RuntimeError) as ee:
        ember.cdist(ember.randn(*a), ember.randn(*b))
    assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("fn", [lambda x: x.cumsum(3), lambda x: x.sort(3), lambda x: x.var(3),
                                lambda x: ember.logsumexp(x, 3), lambda x: x.topk(1, 3), lambda x: ember._nn.glu(x, 3)])
def test_dim_out_of_range(fn):
    x = ember.ones(2, 4)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 3\)"):
        fn(x)


def test_errors_match_torch_types():
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        ember.ones(3, dtype=ember.int64).var()
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        ember._nn.glu(ember.ones(3), 0)
    with pytest.raises(RuntimeError, match="kthvalue\\(\\): selected number k out of range"):
        ember.kthvalue(ember.ones(2), 3)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        ember.addcdiv(ember.ones(2, dtype=ember.int64), ember.ones(2, dtype=ember.int64), ember.ones(2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        ember._nn.gelu(ember.ones(2), approximate="x")
    x = ember.ones(2, dtype=ember.int64)
    with pytest.raises(RuntimeError):
        x.exp2_()
    assert x.tolist() == [1, 1]


# ---------------------------------------------------------------- argument types of hand-written functions

# wrong argument types given to the hand-written public functions (ember/functional.py,
# nn.functional wrappers) and some generated neighbours; each
# must fail with torch's exception type
TYPE_CALLS = [
 # torch top-level (hand-written in ember)
 "lib.cat(x)", "lib.stack(1)", "lib.cat([x, 1])", "lib.stack([x, x], dim='a')",
 "lib.split(x, 'a')", "lib.split(x, 2, dim='a')", "lib.split(1, 2)", "lib.chunk(x, 'a')", "lib.chunk(x, 2, dim=1.5)",
 "lib.unbind(x, 'a')", "lib.unbind(3)",
 "lib.where(x)", "lib.where(1, x, x)", "lib.where(x > 0, 'a', x)", "lib.nonzero(3)", "lib.nonzero(x, as_tuple='a')",
 "lib.einsum(1, x)", "lib.einsum('ij,jk', x, 3)", "lib.einsum('ij')", "lib.tensordot(x, 3)", "lib.tensordot(x, x, dims='a')",
 "lib.meshgrid(x, 3)", "lib.meshgrid(x, x, indexing=3)", "lib.broadcast_tensors(x, 3)", "lib.block_diag(x, 3)", "lib.cartesian_prod(v, 3)",
 "lib.broadcast_shapes('a')", "lib.broadcast_shapes((2, 'a'))", "lib.norm(3)", "lib.norm(x, p=[1])", "lib.norm(x, dim='a')", "lib.norm(x, keepdim='a')",
 "lib.cdist(x, 3)", "lib.cdist(3, x)", "lib.cdist(x, x, p='a')",
 "lib.unique(3)", "lib.unique(x, sorted='a')", "lib.unique(x, dim='a')", "lib.unique_consecutive(3)",
 "lib.is_floating_point(3)", "lib.is_complex(3)", "lib.numel(3)", "lib.is_tensor(3)", "lib.result_type(x, 'a')", "lib.result_type('a', x)",
 "lib.promote_types(lib.float32, 3)", "lib.can_cast(lib.float32, 'a')", "lib.set_default_dtype(3)", "lib.set_default_dtype(lib.int32)",
 "lib.manual_seed('a')", "lib.manual_seed(1.5)", "lib.set_rng_state(3)",
 "lib.tensor(x, dtype=3)", "lib.tensor([1, 'a'])", "lib.as_tensor(x, dtype='a')", "lib.from_numpy([1, 2])",
 # nn.functional
 "F.linear(x, 3)", "F.linear(3, x)", "F.linear(x, x, 3)", "F.softmax(x, dim='a')", "F.softmax(3, dim=0)", "F.log_softmax(x, dim='a')",
 "F.softmin(x, dim='a')", "F.softmax(x, dim=0, dtype=3)", "F.relu(3)", "F.relu('a')", "F.gelu(x, approximate=3)", "F.gelu(3)",
 "F.leaky_relu(x, 'a')", "F.elu(x, alpha='a')", "F.hardtanh(x, 'a')", "F.threshold(x, 'a', 0.0)", "F.softplus(x, beta='a')",
 "F.sigmoid(3)", "F.tanh(3)", "F.silu(3)", "F.mish(3)", "F.glu(x, 'a')", "F.prelu(x, 3)", "F.celu(x, alpha='a')", "F.selu(3)",
 "F.dropout(x, p='a')", "F.dropout(3)", "F.dropout(x, training='a')", "F.layer_norm(x, 3)", "F.layer_norm(x, (3,), weight=3)",
 "F.layer_norm(3, (3,))", "F.group_norm(x4, 'a')", "F.batch_norm(x4, 3, 3)", "F.batch_norm(x4, None, None, weight=3)",
 "F.embedding(3, x)", "F.embedding(ix, 3)", "F.one_hot(3)", "F.one_hot(ix, 'a')", "F.pad(x, 3)", "F.pad(x, (1, 'a'))", "F.pad(3, (1, 1))",
 "F.conv2d(x4, 3)", "F.conv2d(3, w4)", "F.conv2d(x4, w4, stride='a')", "F.max_pool2d(x4, 'a')", "F.avg_pool2d(x4, 'a')", "F.max_pool2d(3, 2)",
 "F.adaptive_avg_pool2d(x4, 'a')", "F.interpolate(x4, size='a')", "F.interpolate(3, size=2)", "F.interpolate(x4, scale_factor='a')",
 "F.mse_loss(x, 3)", "F.mse_loss(3, x)", "F.l1_loss(x, 3)", "F.cross_entropy(x, 3)", "F.cross_entropy(3, ix)", "F.nll_loss(x, 3)",
 "F.binary_cross_entropy(x, 3)", "F.binary_cross_entropy_with_logits(x, 3)", "F.smooth_l1_loss(x, 3)", "F.huber_loss(x, 3)", "F.kl_div(x, 3)",
 "F.cosine_similarity(x, 3)", "F.pairwise_distance(x, 3)", "F.normalize(3)", "F.normalize(x, p='a')", "F.normalize(x, dim='a')",
 "F.scaled_dot_product_attention(x, x, 3)", "F.scaled_dot_product_attention(3, x, x)", "F.unfold(3, 2)", "F.pixel_shuffle(3, 2)",
 "F.pixel_shuffle(x4, 'a')", "F.embedding_bag(ix, 3)", "F.grid_sample(x4, 3)", "F.rms_norm(x, 3)", "F.rms_norm(3, (3,))",
 "F.triplet_margin_loss(x, x, 3)", "F.margin_ranking_loss(x, x, 3)", "F.hinge_embedding_loss(x, 3)",
 "F.softsign(3)", "F.logsigmoid(3)", "F.hardswish(3)", "F.hardsigmoid(3)", "F.relu6(3)", "F.tanhshrink(3)",
 "F.softshrink(x, 'a')", "F.hardshrink(x, 'a')", "F.rrelu(x, 'a')",
]


TYPE_CALLS += [
 "F.conv2d(x4, w4, padding=1.5)", "F.conv2d(x4, w4, bias=3)", "F.conv2d(x4, w4, groups='a')", "F.conv1d(x, w4, 3)",
 "F.max_pool2d(x4, 2, stride='a')", "F.max_pool2d(x4, 2, ceil_mode='a')", "F.avg_pool2d(x4, 2, ceil_mode='a')", "F.avg_pool2d(x4, 2, divisor_override='a')",
 "F.max_pool1d(x, 'a')", "F.avg_pool1d(x, 'a')", "F.adaptive_max_pool2d(x4, 'a')", "F.adaptive_avg_pool1d(x, 'a')",
 "F.cross_entropy(x, ix, reduction=3)", "F.cross_entropy(x, ix, weight=3)", "F.cross_entropy(x, ix, label_smoothing='a')", "F.cross_entropy(x, ix, ignore_index='a')",
 "F.nll_loss(x, ix, weight=3)", "F.nll_loss(x, ix, reduction=3)", "F.mse_loss(x, x, reduction=3)", "F.l1_loss(x, x, reduction='bad')",
 "F.pad(x, (1, 1), mode=3)", "F.pad(x, (1, 1), value='a')", "F.pad(x, 1.5)", "F.embedding(ix, x, padding_idx='a')", "F.embedding(ix, x, max_norm='a')",
 "F.one_hot(ix, num_classes=1.5)", "F.layer_norm(x, (3,), eps='a')", "F.layer_norm(x, 'a')", "F.group_norm(x4, 2, weight=3)", "F.group_norm(x4, 2, eps='a')",
 "F.batch_norm(x4, None, None, training='a')", "F.batch_norm(x4, None, None, momentum='a', training=True)", "F.instance_norm(x4, weight=3)",
 "F.softmax(x, 0, 3)", "F.log_softmax(x, dim=1.5)", "F.softmax(x)", "F.gelu(x, approximate='bad')", "F.leaky_relu(x, negative_slope=None)",
 "F.hardtanh(x, min_val=None)", "F.elu(x, inplace='a')", "F.relu(x, inplace='a')", "F.dropout(x, p=2.0)", "F.dropout(x, inplace='a')",
 "F.normalize(x, eps='a')", "F.cosine_similarity(x, x, dim='a')", "F.cosine_similarity(x, x, eps='a')", "F.pairwise_distance(x, x, p='a')",
 "F.linear(x, x, bias='a')", "F.bilinear(x, x, 3)", "F.bilinear(3, x, x)", "F.glu(x, dim=1.5)", "F.prelu(x, 'a')",
 "F.kl_div(x, x, reduction=3)", "F.kl_div(x, x, log_target='a')", "F.binary_cross_entropy(x, x, weight=3)", "F.binary_cross_entropy_with_logits(x, x, pos_weight=3)",
 "F.smooth_l1_loss(x, x, beta='a')", "F.huber_loss(x, x, delta='a')", "F.ctc_loss(x, ix, 3, 3)", "F.poisson_nll_loss(x, 3)", "F.gaussian_nll_loss(x, x, 3)",
 "F.scaled_dot_product_attention(x, x, x, is_causal='a')", "F.scaled_dot_product_attention(x, x, x, dropout_p='a')", "F.scaled_dot_product_attention(x, x, x, attn_mask=3)",
 "F.pixel_unshuffle(x4, 1.5)", "F.unfold(x4, 'a')", "F.fold(x, 'a', 2)", "F.grid_sample(x4, x4, mode=3)", "F.local_response_norm(x4, 'a')",
 "F.multi_margin_loss(x, 3)", "F.multilabel_margin_loss(x, 3)", "F.triplet_margin_loss(x, x, x, margin='a')", "F.cosine_embedding_loss(x, x, 3)",
 "lib.split(x, [1, 'a'])", "lib.split(x, 1.5)", "lib.chunk(x, 1.5)", "lib.unbind(x, 1.5)", "lib.broadcast_shapes(2.5)", "lib.meshgrid([x, 3])", "lib.block_diag(x, 'a')",
 "lib.where(x > 0, x, 'a')", "lib.unique(x, return_counts='a')", "lib.tensordot(x, x, dims=1.5)", "lib.einsum('ij', [x, 3])", "lib.nonzero(x, out=3)",
 "lib.norm(x, dtype=3)", "lib.norm(x, out=3)", "lib.tensor(x, device=3)", "lib.tensor(x, requires_grad='a')", "lib.cat([x, x], dim='a')", "lib.cat([x, x], out=3)",
 "x.split('a')", "x.chunk('a')", "x.unbind('a')", "x.norm(p='a')", "x.nonzero(as_tuple='a')", "x.view('a')", "x.reshape('a')", "x.permute('a')",
 "x.transpose('a', 0)", "x.sum(dim='a')", "x.to('a')", "x.to(3)", "x.type(3)", "x.expand('a')", "x.repeat('a')", "x.flatten('a')", "x.squeeze('a')",
]


# where torch's Python code calls a method on the bad value and so raises AttributeError, ember's
# checks raise the TypeError torch's own bindings would
ATTRIBUTE_IN_TORCH = {"lib.tensordot(x, 3)", "lib.norm(3)", "F.softmax(3, dim=0)", "F.sigmoid(3)", "F.tanh(3)",
                      "F.interpolate(3, size=2)", "F.normalize(3)", "F.embedding_bag(ix, 3)"}


# ember accepts these: a lone int as a lengths list (its int[] bindings take one int), an int var
TYPE_KNOWN_DIFFERENT = {"F.ctc_loss(x, ix, 3, 3)", "F.gaussian_nll_loss(x, x, 3)"}


def _type_env(lib):
    return dict(lib=lib, F=lib.nn.functional, x=lib.ones(2, 3), v=lib.ones(3), x4=lib.ones(1, 2, 4, 4),
                w4=lib.ones(3, 2, 2, 2), ix=lib.tensor([0, 1]))


def _exc_type(lib, call):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            eval(call, _type_env(lib))
        return "ok"
    except Exception as e:   # noqa: BLE001  (the exception type is what is compared)
        return type(e).__name__
    finally:
        lib.set_default_dtype(lib.float32)


@pytest.mark.parity
@pytest.mark.parametrize("call", [c for c in TYPE_CALLS if c not in TYPE_KNOWN_DIFFERENT])
def test_argument_type_errors_parity(call):
    torch = pytest.importorskip("torch")
    want = _exc_type(torch, call)
    if call in ATTRIBUTE_IN_TORCH:
        assert want == "AttributeError"
        want = "TypeError"
    assert _exc_type(ember, call) == want


@pytest.mark.parametrize("call, message", [
    ("lib.split(x, 'a')", "split_with_sizes\\(\\): argument 'split_sizes' \\(position 2\\) must be tuple of ints, not str"),
    ("lib.unbind(3)", "unbind\\(\\): argument 'input' \\(position 1\\) must be Tensor, not int"),
    ("lib.chunk(x, 1.5)", "chunk\\(\\): argument 'chunks' \\(position 2\\) must be int, not float"),
    ("lib.meshgrid(x, 3)", "expected Tensor as element 1 in argument 0, but got int"),
    ("lib.nonzero(x, as_tuple='a')", "argument 'as_tuple' must be bool, not str"),
    ("lib.is_floating_point(3)", "must be Tensor, not int"),
    ("lib.promote_types(lib.float32, 3)", "argument 'type2' \\(position 2\\) must be ember.dtype, not int"),
    ("lib.as_tensor(x, dtype='a')", "argument 'dtype' must be ember.dtype, not str"),
    ("F.interpolate(x4, size='a')", "argument 'size' \\(position 2\\) must be tuple of ints, not str"),
    ("F.unfold(3, 2)", "im2col\\(\\): argument 'input' \\(position 1\\) must be Tensor, not int"),
    ("lib.tensor(x, requires_grad='a')", "argument 'requires_grad' must be bool, not str"),
])
def test_argument_type_error_messages(call, message):
    with pytest.raises(TypeError, match=message):
        eval(call, _type_env(ember))


_MORE = [
    "L.zeros(3).scatter_add(0, L.tensor([0, 1]), L.tensor([1, 2]))",            # torch names scatter() for all
    "L.zeros(3).scatter_add_(0, L.tensor([0.0]), L.tensor([1.0]))",
    "L.zeros(3).scatter_reduce(0, L.tensor([0]), L.tensor([1]), 'sum')",
    "L.where(L.tensor([1, 0]), L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0]))",   # c10's dtype name: Long
    "L.where(L.tensor([1.0, 0.0]), L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0]))",
    "L.einsum('ij->ii', L.ones(2, 3))",                                         # a repeated output subscript
    "L.einsum('ij,jk->kk', L.ones(2, 3), L.ones(3, 3))",
]


@pytest.mark.parity
@pytest.mark.parametrize("code", _MORE)
def test_more_messages_match_torch(code):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as t:
        eval(code, {"L": torch})
    with pytest.raises(RuntimeError) as e:
        eval(code, {"L": ember})
    assert str(e.value) == str(t.value)


def test_where_with_a_uint8_condition_warns_once_as_torch():
    import ember.kernels.cpu.elementwise as E
    E._WHERE_UINT8.clear()
    cond = ember.tensor([1, 0], dtype=ember.uint8)
    with pytest.warns(UserWarning, match="where received a uint8 condition tensor. This behavior is deprecated"):
        r = ember.where(cond, ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0]))
    assert r.tolist() == [1.0, 4.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.where(cond, ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0]))


_INT_CASES = [
    "EF.mse_loss(L.tensor([1, 2]), L.tensor([1, 3]))", "EF.mse_loss(L.tensor([1, 2]), L.tensor([1, 3]), reduction='none')",
    "EF.mse_loss(L.tensor([True]), L.tensor([False]))", "EF.smooth_l1_loss(L.tensor([1, 2]), L.tensor([1, 3]))",
    "EF.huber_loss(L.tensor([1, 2], dtype=L.uint8), L.tensor([1, 3], dtype=L.uint8))",
    "EF.soft_margin_loss(L.tensor([1, 2]), L.tensor([1, 3]))",
    "L.lerp(L.tensor([1, 2]), L.tensor([3, 4]), 0.5)", "L.lerp(L.tensor([1, 2]), L.tensor([3, 4]), L.tensor([1, 1]))",
    "L.lerp(L.tensor([1, 2], dtype=L.int32), L.tensor([3, 4], dtype=L.int32), L.tensor([1, 1]))",
    "L.lerp(L.ones(2), L.ones(2, dtype=L.float64), 0.5)", "L.lerp(L.ones(2), L.ones(2), L.ones(2, dtype=L.float16))",
]


@pytest.mark.parity
@pytest.mark.parametrize("code", _INT_CASES)
def test_float_only_kernels_refuse_integers_as_torch(code):
    """Losses and lerp whose CPU kernels dispatch on floating types: torch's NotImplementedError naming the
    kernel and the c10 dtype (soft_margin_loss's composite: the cast error), lerp's dtype mismatches with
    C++ type names."""
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF
    with pytest.raises((RuntimeError, NotImplementedError)) as t:
        eval(code, {"L": torch, "EF": TF})
    with pytest.raises((RuntimeError, NotImplementedError)) as e:
        eval(code, {"L": ember, "EF": EF})
    assert (type(e.value), str(e.value)) == (type(t.value), str(t.value))
