"""Gaps closed together: rsub's positional alpha and torch's alpha checks for add/sub/rsub."""
import warnings

import numpy as np
import pytest

import ember


def _inputs(lib):
    return dict(f=lib.tensor([1.5, -2.0]), i=lib.tensor([3, 4]), b=lib.tensor([True, False]),
                c=lib.tensor([1 + 1j, 2j]), h=lib.tensor([1.0, 2.0], dtype=lib.float16))


ALPHA_CALLS = [
    "rsub(f, i, alpha=2)", "rsub(f, 2, 3)", "rsub(i, 2, 3)", "rsub(i, 2.5)", "rsub(f, i, alpha=0.5)",
    "add(f, i, alpha=0.5)", "sub(f, i, alpha=0.5)", "add(i, f, alpha=0.5)", "add(b, b, alpha=2)",
    "add(b, b, alpha=True)", "add(f, f, alpha=True)", "add(i, i, alpha=1.0)", "add(f, f, alpha=1j)",
    "add(c, f, alpha=1j)", "sub(c, f, alpha=2j)", "sub(i, i, alpha=True)", "rsub(f, f, True)",
    "rsub(f, f, alpha=1j)", "add(i, 2, alpha=2)", "sub(f, 2.5, alpha=2)", "rsub(f, i, 2)", "add(f, i, 2)",
    "sub(f, i, 2)", "rsub(h, f, alpha=3)", "add(h, 2, alpha=3)", "rsub(i, 1, alpha=1.5)",
    "add(i, i, alpha=np.int64(2))", "add(f, f, alpha=np.float32(2))", "rsub(f, 2, alpha=3)",
    "rsub(c, 1, 2j)", "rsub(2, f)", "add(f, i, alpha='x')",
    "subtract(f, 2, 3)", "subtract(f, i, alpha=0.5)", "subtract(f, i, 2)", "subtract(i, i, alpha=True)",
    "subtract(b, b)", "subtract(c, f, alpha=2j)",
]


def _run(lib, call):
    env = dict(_inputs(lib), np=np, lib=lib)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = eval("lib." + call, env)
        return "ok", str(r.dtype).split(".")[-1], r.tolist()
    except Exception as e:   # noqa: BLE001  (the exception type is what is compared)
        return (type(e).__name__,)


@pytest.mark.parity
@pytest.mark.parametrize("call", ALPHA_CALLS)
def test_alpha_handling_parity(call):
    torch = pytest.importorskip("torch")
    assert _run(ember, call) == _run(torch, call)


def test_rsub_positional_alpha_only_for_a_number_other():
    x = ember.tensor([1.0, 2.0])
    assert ember.rsub(x, 2, 3).tolist() == [-1.0, -4.0]
    with pytest.raises(TypeError, match="rsub"):
        ember.rsub(x, x, 2)
    with pytest.raises(TypeError):
        ember.add(x, x, 2)


def test_subtract_is_sub():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    assert x.subtract(2, 3).tolist() == [-5.0, -4.0]
    y = x.detach().clone()
    assert y.subtract_(ember.ones(2), alpha=2) is y and y.tolist() == [-1.0, 0.0]
    out = ember.zeros(2)
    assert ember.subtract(x.detach(), 1, out=out) is out and out.tolist() == [0.0, 1.0]
    ember.subtract(x, x.detach(), alpha=2).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_alpha_checks_leave_inplace_target_unchanged():
    x = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="alpha"):
        x.add_(ember.tensor([1, 1]), alpha=0.5)
    assert x.tolist() == [1, 2]
    out = ember.zeros(2)
    with pytest.raises(RuntimeError, match="Boolean alpha"):
        ember.sub(ember.ones(2), ember.ones(2), alpha=True, out=out)


@pytest.mark.parity
def test_rsub_scalar_alpha_grad_parity():
    torch = pytest.importorskip("torch")
    x = np.array([0.5, -1.0, 2.0])
    ex = ember.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    ember.rsub(ex, 2.0, 3.0).sum().backward()
    torch.rsub(tx, 2.0, 3.0).sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy())
    assert ember.autograd.gradcheck(lambda a: ember.rsub(a, 1.5, 0.5), (ember.tensor(x, requires_grad=True),))


# ---------------------------------------------------------------- _ctc_loss.Tensor and forward AD

def _ctc_case(lib, dtype_name="float64"):
    rng = np.random.default_rng(0)
    lp = rng.standard_normal((6, 3, 5))
    x = lib.tensor(lp, dtype=getattr(lib, dtype_name))
    tg = lib.tensor([[1, 2, 2], [3, 1, 0], [4, 4, 4]])
    return x, tg, lib.tensor([6, 5, 6]), lib.tensor([3, 2, 1])


@pytest.mark.parity
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_tensor_overload_parity(zero_infinity):
    torch = pytest.importorskip("torch")
    res = []
    for lib in (ember, torch):
        x, tg, il, tl = _ctc_case(lib)
        x.requires_grad_()
        nll, la = lib._ctc_loss(x.log_softmax(2), tg, il, tl, 0, zero_infinity)
        assert type(nll.grad_fn).__name__ == "CtcLossBackward1"
        (nll * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
        # log_alpha past each sample's lengths is scratch space in torch: compare its shape only
        res.append((nll.detach().numpy(), np.array(la.shape), x.grad.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_ctc_loss_tensor_overload_matches_int_list_overload():
    x, tg, il, tl = _ctc_case(ember)
    a = ember._ctc_loss(x, tg, il, tl)
    b = ember._ctc_loss(x, tg, il.tolist(), tl.tolist())
    assert type(a[0].grad_fn) is type(b[0].grad_fn)   # neither requires grad: no node
    np.testing.assert_array_equal(a[0].numpy(), b[0].numpy())
    np.testing.assert_array_equal(a[1].numpy(), b[1].numpy())
    # lengths tensors are read flat, as torch does
    c = ember._ctc_loss(x, tg, il.view(3, 1), tl.view(1, 3))
    np.testing.assert_array_equal(a[0].numpy(), c[0].numpy())


def test_ctc_loss_tensor_gradcheck():
    x, tg, il, tl = _ctc_case(ember)
    x.requires_grad_()
    assert ember.autograd.gradcheck(lambda v: ember._ctc_loss(v.log_softmax(2), tg, il, tl)[0], (x,))


@pytest.mark.parametrize("which", ["input_lengths", "target_lengths"])
def test_ctc_loss_tensor_lengths_must_be_integral(which):
    x, tg, il, tl = _ctc_case(ember)
    args = {"input_lengths": il, "target_lengths": tl}
    args[which] = args[which].double()
    with pytest.raises(RuntimeError, match=f"{which} must be integral"):
        ember.ops.aten._ctc_loss.Tensor(x, tg, args["input_lengths"], args["target_lengths"])


def test_ctc_loss_tensor_has_no_meta_kernel_like_torch():
    x, tg, il, tl = _ctc_case(ember)
    with pytest.raises(NotImplementedError):
        ember.ops.aten._ctc_loss.Tensor(x.to("meta"), tg.to("meta"), il.to("meta"), tl.to("meta"))


@pytest.mark.parametrize("call", ["F.ctc_loss(d, tg, il, tl)", "F.ctc_loss(d, tg, il.tolist(), tl.tolist())",
                                  "lib._ctc_loss(d, tg, il, tl)", "lib._ctc_loss(d, tg, [6, 5, 6], [3, 2, 1])"])
def test_ctc_forward_ad_not_implemented(call):
    import ember.autograd.forward_ad as fwAD
    import ember.nn.functional as F
    x, tg, il, tl = _ctc_case(ember)
    with fwAD.dual_level():
        d = fwAD.make_dual(x.log_softmax(2), ember.randn(x.shape, dtype=ember.float64))
        with pytest.raises(NotImplementedError, match="forward AD with _ctc_loss"):
            eval(call, dict(F=F, lib=ember, d=d, tg=tg, il=il, tl=tl))


@pytest.mark.parity
def test_ctc_forward_ad_error_parity():
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as tfw
    x, tg, il, tl = _ctc_case(torch)
    with tfw.dual_level():
        d = tfw.make_dual(x.log_softmax(2), torch.randn(x.shape, dtype=torch.float64))
        with pytest.raises(NotImplementedError, match="forward AD with _ctc_loss"):
            torch._ctc_loss(d, tg, il, tl)


# ---------------------------------------------------------------- F.interpolate(antialias=True)

AA_MODES = ["bilinear", "bicubic", "lanczos"]
AA_CASES = [((2, 3, 16, 12), dict(size=(5, 7))), ((1, 2, 8, 8), dict(size=(16, 3))),
            ((1, 2, 13, 11), dict(scale_factor=(0.37, 0.61))), ((2, 1, 7, 5), dict(scale_factor=(2.5, 0.5))),
            ((1, 1, 20, 9), dict(size=(7, 4))), ((1, 3, 9, 9), dict(scale_factor=0.3, recompute_scale_factor=True)),
            ((1, 1, 6, 5), dict(size=(6, 2)))]


def _aa_input(lib, shape, dt):
    x = np.random.default_rng(sum(shape)).standard_normal(shape)
    if dt == "uint8":
        x = np.clip(x * 60 + 120, 0, 255)
    return lib.tensor(x).to(getattr(lib, dt))


@pytest.mark.parity
@pytest.mark.parametrize("mode", AA_MODES)
@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("dt", ["float64", "float32", "uint8"])
def test_interpolate_antialias_parity(mode, align, dt):
    torch = pytest.importorskip("torch")
    if mode == "lanczos" and align:
        pytest.skip("lanczos has no align_corners")
    for shape, kw in AA_CASES:
        e = ember.nn.functional.interpolate(_aa_input(ember, shape, dt), mode=mode, align_corners=align,
                                            antialias=True, **kw)
        t = torch.nn.functional.interpolate(_aa_input(torch, shape, dt), mode=mode, align_corners=align,
                                            antialias=True, **kw)
        assert e.shape == t.shape and e.stride() == t.stride() and str(e.dtype)[6:] == str(t.dtype)[6:]
        tol = dict(float64=1e-12, float32=2e-5, uint8=0)[dt]
        np.testing.assert_allclose(e.numpy().astype(float), t.numpy().astype(float), rtol=tol, atol=tol)


@pytest.mark.parity
@pytest.mark.parametrize("mode", AA_MODES)
def test_interpolate_antialias_channels_last_and_meta(mode):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(3).standard_normal((2, 3, 9, 8))
    e = ember.tensor(x).contiguous(memory_format=ember.channels_last)
    t = torch.tensor(x).contiguous(memory_format=torch.channels_last)
    ey = ember.nn.functional.interpolate(e, size=(4, 3), mode=mode, antialias=True)
    ty = torch.nn.functional.interpolate(t, size=(4, 3), mode=mode, antialias=True)
    assert ey.stride() == ty.stride()
    np.testing.assert_allclose(ey.numpy(), ty.numpy(), rtol=1e-12, atol=1e-12)
    m = ember.nn.functional.interpolate(e.to("meta"), size=(4, 3), mode=mode, antialias=True)
    assert m.device.type == "meta" and m.shape == ey.shape and m.stride() == ey.stride() and m.dtype == ey.dtype


@pytest.mark.parity
@pytest.mark.parametrize("mode", AA_MODES)
def test_interpolate_antialias_grad_parity(mode):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(4).standard_normal((2, 3, 11, 9))
    for kw in (dict(size=(4, 5)), dict(size=(15, 3)), dict(scale_factor=0.45)):
        ex = ember.tensor(x, requires_grad=True)
        tx = torch.tensor(x, requires_grad=True)
        ey = ember.nn.functional.interpolate(ex, mode=mode, antialias=True, **kw)
        ty = torch.nn.functional.interpolate(tx, mode=mode, antialias=True, **kw)
        g = np.random.default_rng(5).standard_normal(ty.shape)
        ey.backward(ember.tensor(g))
        ty.backward(torch.tensor(g))
        np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)
        assert type(ey.grad_fn).__name__ == type(ty.grad_fn).__name__


@pytest.mark.parametrize("mode", AA_MODES)
def test_interpolate_antialias_gradcheck_and_gradgradcheck(mode):
    from ember.autograd import gradcheck, gradgradcheck
    x = ember.tensor(np.random.default_rng(6).standard_normal((1, 2, 6, 5)), requires_grad=True)
    for kw in (dict(size=(3, 2)), dict(size=(8, 3)), dict(scale_factor=(0.5, 1.3))):
        f = lambda t: ember.nn.functional.interpolate(t, mode=mode, antialias=True, **kw)  # noqa: E731
        assert gradcheck(f, (x,))
        assert gradgradcheck(f, (x,))


def test_interpolate_antialias_forward_ad_matches_linear_map():
    import ember.autograd.forward_ad as fwAD
    F = ember.nn.functional
    x = ember.randn(1, 2, 9, 7, dtype=ember.float64)
    t = ember.randn(1, 2, 9, 7, dtype=ember.float64)
    with fwAD.dual_level():
        out = F.interpolate(fwAD.make_dual(x, t), size=(4, 3), mode="bicubic", antialias=True)
        tangent = fwAD.unpack_dual(out).tangent
    np.testing.assert_allclose(tangent.numpy(), F.interpolate(t, size=(4, 3), mode="bicubic", antialias=True).numpy(),
                               rtol=1e-12, atol=1e-12)


def test_interpolate_antialias_suppresses_aliasing():
    # every 4th column lit, shrunk 4x: antialiasing averages to the image mean (1/4); plain bilinear
    # samples between the lit columns and sees none of them
    F = ember.nn.functional
    cols = (np.arange(32) % 4 == 0).astype(np.float64)
    img = ember.tensor(np.broadcast_to(cols, (32, 32)).copy()).view(1, 1, 32, 32)
    aa = F.interpolate(img, size=(8, 8), mode="bilinear", antialias=True)
    plain = F.interpolate(img, size=(8, 8), mode="bilinear", antialias=False)
    np.testing.assert_allclose(aa.numpy()[..., 1:-1], 0.25, atol=1e-12)
    np.testing.assert_allclose(plain.numpy(), 0.0, atol=1e-12)


def test_interpolate_antialias_same_size_axis_is_identity_and_grad_is_adjoint():
    # torch skips an axis whose size does not change (even with a scale factor != 1) in the forward;
    # ember does the same, and its backward is the exact transpose of that forward
    F = ember.nn.functional
    x = ember.randn(1, 1, 4, 5, dtype=ember.float64, requires_grad=True)
    y = F.interpolate(x, scale_factor=(0.5, 1.1), mode="bilinear", antialias=True)
    assert y.shape == (1, 1, 2, 5)
    np.testing.assert_allclose(y.detach().numpy(),
                               F.interpolate(x.detach(), size=(2, 5), mode="bilinear", antialias=True).numpy())
    assert ember.autograd.gradcheck(
        lambda t: F.interpolate(t, scale_factor=(0.5, 1.1), mode="bilinear", antialias=True), (x,))


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    "F.interpolate(x4, size=2, mode='nearest', antialias=True)",
    "F.interpolate(x5, size=2, mode='trilinear', antialias=True)",
    "F.interpolate(x3, size=2, mode='linear', antialias=True)",
    "F.interpolate(x4, size=2, mode='lanczos')",
    "F.interpolate(x4, size=2, mode='lanczos', antialias=True, align_corners=True)",
    "F.interpolate(x4, size=(0, 2), mode='bilinear', antialias=True)",
    "F.interpolate(x4.half(), size=2, mode='bilinear', antialias=True)",
    "F.interpolate(x4.long(), size=2, mode='bicubic', antialias=True)",
    "nn._upsample_bilinear2d_aa(x4, [2, 3], False, [0.5, 0.5])",
    "nn._upsample_bilinear2d_aa(x3, [2, 3], False)",
    "nn._upsample_bicubic2d_aa(x4, [2, 3], False, 0.5, 0.75)",
    "nn._upsample_lanczos2d_aa(x4, None, False, [0.5, 0.75])",
    "aten._upsample_bilinear2d_aa_backward(g, [2, 3], [1, 2, 4, 5], False)",
    "aten._upsample_bicubic2d_aa_backward(g[..., :2], [2, 3], [1, 2, 4, 5], False)",
    "aten._upsample_bicubic2d_aa_backward(g[0], [2, 3], [1, 2, 4, 5], False)",
    "aten._upsample_lanczos2d_aa_backward(g.int(), [2, 3], [1, 2, 4, 5], False)",
])
def test_interpolate_antialias_calls_parity(call):
    torch = pytest.importorskip("torch")
    res = []
    for lib in (ember, torch):
        rng = np.random.default_rng(7)
        env = dict(F=lib.nn.functional, aten=lib.ops.aten, nn=lib._nn if lib is ember else lib._C._nn,
                   x3=lib.tensor(rng.standard_normal((1, 2, 5))), x4=lib.tensor(rng.standard_normal((1, 2, 4, 5))),
                   x5=lib.tensor(rng.standard_normal((1, 1, 3, 3, 3))), g=lib.tensor(rng.standard_normal((1, 2, 2, 3))))
        try:
            r = eval(call, env)
            res.append(("ok", tuple(r.shape), np.round(r.numpy().astype(float), 10).tolist()))
        except Exception as e:   # noqa: BLE001  (the exception type is what is compared)
            res.append((type(e).__name__,))
    assert res[0] == res[1]


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
