"""interpolate (nearest/linear/bilinear/bicubic, antialiased), grid_sample: values, grads and meta against torch."""
import numpy as np
import pytest
import ember
import ember.nn.functional as EF
from ._nn_util import DTYPES, arr, close, meta_matches, pair


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample(dtype, mode, padding_mode, align):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 5, 6, dtype=dtype))
    g, tg = pair(torch, arr(2, 4, 3, 2, dtype=dtype, low=-1.3, high=1.3))
    close(EF.grid_sample(x, g, mode, padding_mode, align),
          torch.nn.functional.grid_sample(tx, tg, mode, padding_mode, align))
    meta_matches(lambda a, b: EF.grid_sample(a, b, mode, padding_mode, align), x, g)


def both(torch, name, e_args, t_args, **kw):
    tf = getattr(torch.nn.functional, name, None) or getattr(torch, name)
    return getattr(EF, name)(*e_args, **kw), tf(*t_args, **kw)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode,align", [("nearest", None), ("nearest-exact", None), ("bilinear", False),
                                        ("bilinear", True), ("bicubic", False), ("bicubic", True), ("area", None)])
@pytest.mark.parametrize("kw", [dict(size=(7, 5)), dict(scale_factor=2), dict(scale_factor=(1.5, 0.7)),
                                dict(size=(3, 2))])
def test_interpolate2d(dtype, mode, align, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 4, 6, dtype=dtype))
    close(*both(torch, "interpolate", (x,), (tx,), mode=mode, align_corners=align, **kw))


@pytest.mark.parity
@pytest.mark.parametrize("mode,align", [("nearest", None), ("linear", False), ("linear", True)])
@pytest.mark.parametrize("kw", [dict(size=9), dict(scale_factor=2.5), dict(scale_factor=0.5, recompute_scale_factor=True)])
def test_interpolate1d(mode, align, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 6))
    close(*both(torch, "interpolate", (x,), (tx,), mode=mode, align_corners=align, **kw))


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


@pytest.mark.parity
@pytest.mark.parametrize("shape,groups", [((2, 6, 3), 3), ((1, 4, 2, 3), 2), ((2, 8, 1, 2, 2), 4), ((1, 3, 2), 1)])
def test_channel_shuffle_matches_torch_with_gradients(shape, groups):
    torch = pytest.importorskip("torch")
    import numpy as np
    data = np.random.default_rng(0).standard_normal(shape)
    res = []
    for lib in (ember, torch):
        x = lib.tensor(data, requires_grad=True)
        outs = [lib.channel_shuffle(x, groups), lib.nn.functional.channel_shuffle(x, groups),
                lib.nn.functional.native_channel_shuffle(x, groups), lib.nn.ChannelShuffle(groups)(x)]
        (outs[0] * lib.arange(1.0, x.numel() + 1, dtype=x.dtype).reshape(shape)).sum().backward()
        res.append(([o.detach().numpy() for o in outs], x.grad.numpy(), outs[0].is_contiguous(),
                    repr(lib.nn.ChannelShuffle(groups))))
    for a, b in zip(res[0][0], res[1][0]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(res[0][1], res[1][1])
    assert res[0][2:] == res[1][2:]


@pytest.mark.parity
@pytest.mark.parametrize("shape,groups", [((2, 4), 2), ((2, 4, 3), 0), ((2, 4, 3), 3)])
def test_channel_shuffle_errors_match_torch(shape, groups):
    torch = pytest.importorskip("torch")
    msgs = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as e:
            lib.channel_shuffle(lib.ones(*shape), groups)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parity
@pytest.mark.parametrize("size,align", [([2, 3, 4, 5], False), ([2, 1, 4, 5], True), ([2, 1, 1, 3], False),
                                        ([2, 1, 3, 4, 5], False), ([2, 2, 2, 1, 3], True)])
def test_affine_grid_matches_torch_with_gradients(size, align):
    torch = pytest.importorskip("torch")
    import warnings
    nd = len(size) - 2
    theta = np.random.default_rng(0).standard_normal((size[0], nd, nd + 1))
    res = []
    for lib in (ember, torch):
        t = lib.tensor(theta, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g = lib.nn.functional.affine_grid(t, size, align_corners=align)
        (g * lib.arange(1.0, g.numel() + 1, dtype=g.dtype).reshape(g.shape)).sum().backward()
        res.append((tuple(g.shape), g.detach().numpy(), t.grad.numpy()))
    assert res[0][0] == res[1][0]
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-10)


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3, dtype=lib.long), [1, 1, 2, 2], False),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 3, 3), [1, 1, 2, 2], False),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), [1, 1, 2, 2, 2], False),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), [1, 1, 0, 2], False),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), [1, 2, 2], False),
])
def test_affine_grid_errors_match_torch(call):
    torch = pytest.importorskip("torch")
    res = []
    for lib in (ember, torch):
        with pytest.raises((ValueError, NotImplementedError)) as e:
            call(lib)
        res.append((type(e.value).__name__, str(e.value).replace("ember.", "torch.").replace("torch.Size", "Size")))
    assert res[0] == res[1]


@pytest.mark.parity
def test_affine_grid_warnings_match_torch():
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), [1, 1, 2, 2])
        with pytest.warns(UserWarning, match="changed for unit-size grids when align_corners=True"):
            lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), [1, 1, 1, 2], True)


@pytest.mark.parity
@pytest.mark.parametrize("name,args,kwargs", [
    ("upsample", (), dict(scale_factor=2)), ("upsample", ((3, 5),), dict(mode="bilinear", align_corners=False)),
    ("upsample", (None, 1.5, "bicubic"), {}), ("upsample_nearest", (), dict(scale_factor=2)),
    ("upsample_nearest", ((3, 7),), {}), ("upsample_bilinear", (), dict(scale_factor=2)),
    ("upsample_bilinear", ((3, 5),), {}), ("upsample_nearest", (None, 3), {}),
])
def test_deprecated_upsample_functions_warn_and_match_torch(name, args, kwargs):
    import warnings
    torch = pytest.importorskip("torch")
    res, data = [], arr(1, 2, 2, 4, dtype="float64")
    for lib in (torch, ember):
        x = lib.tensor(data, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = getattr(lib.nn.functional, name)(x, *args, **kwargs)
        (y * lib.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
        res.append((y.detach().numpy(), x.grad.numpy(), [(c.category, str(c.message)) for c in w]))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-12)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-12)
    assert res[1][2] == res[0][2] and len(res[0][2]) == 1
