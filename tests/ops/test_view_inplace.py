"""In-place view ops (squeeze_, unsqueeze_, transpose_, t_, swapdims_, swapaxes_: torch's inplace_view tag) and reshape's _reshape_alias,
against torch: geometry, aliasing, versions, the history autograd records and the gradients through it."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

CALLS = [
    "t.squeeze_()", "t.squeeze_(1)", "t.squeeze_(-3)", "t.squeeze_((0, 1))", "t.squeeze_([])",
    "t.unsqueeze_(0)", "t.unsqueeze_(-1)", "t.unsqueeze_(2)", "t.transpose_(0, 2)", "t.transpose_(1, 1)",
    "t.transpose_(-1, 0).squeeze_(2)", "t.squeeze_(1).t_()", "t.swapdims_(0, 1)", "t.swapaxes_(2, 0)",
]


def _run(L, call, through_view):
    a = L.tensor(np.arange(12.0).reshape(2, 1, 6), requires_grad=True)
    base = a * 1
    t = base[:, :, 1:4] if through_view else base
    r = eval(call, {"t": t})
    out = (r is t, tuple(r.shape), r.stride(), r.storage_offset(), t._version, base._version,
           r._base is base if through_view else r._base is None, type(r.grad_fn).__name__,
           r.detach().numpy().tolist())
    (r * L.arange(1.0, r.numel() + 1).reshape(r.shape)).sum().backward()
    return out + (a.grad.numpy().tolist(),)


@pytest.mark.parity
@pytest.mark.parametrize("through_view", [False, True])
@pytest.mark.parametrize("call", CALLS)
def test_inplace_view_matches_torch(call, through_view):
    assert _run(ember, call, through_view) == _run(torch, call, through_view)


@pytest.mark.parity
@pytest.mark.parametrize("call", ["t.squeeze_(3)", "t.unsqueeze_(4)", "t.transpose_(0, 3)", "t.squeeze_((0, 5))", "t.t_()",
                                  "t.swapdims_(0, 3)", "t.swapaxes_(-4, 0)", "t.squeeze_((1, 1))",
                                  "t.squeeze((0, -3))", "t.squeeze_((0, 2, 0))"])
def test_inplace_view_errors_match_torch(call):
    got = []
    for L in (torch, ember):
        t = L.zeros(2, 1, 3)
        with pytest.raises(Exception) as e:
            eval(call, {"t": t})
        got.append((type(e.value), str(e.value).split("\n")[0], tuple(t.shape)))
    assert got[0][0] is got[1][0] and got[0][1:] == got[1][1:]


@pytest.mark.parity
def test_inplace_view_autograd_rules_match_torch():
    """A leaf, a view of a leaf: torch's refusals; detach() and no_grad: the geometry changes, no history."""
    for L in (torch, ember):
        a = L.randn(1, 3, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            a.squeeze_(0)
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
            a[0:1].squeeze_(0)
        d = a.detach()
        d.squeeze_(0)
        assert tuple(d.shape) == (3,) and tuple(a.shape) == (1, 3)
        with L.no_grad():
            e = a * 2
            e.unsqueeze_(0)
        assert e.grad_fn is None and tuple(e.shape) == (1, 1, 3)


@pytest.mark.parity
def test_write_through_view_after_inplace_view_matches_torch():
    """After squeeze_ on a view, an in-place write through it reaches the base (CopySlices), and the view's
    history is regenerated from the base as torch's is."""
    got = []
    for L in (torch, ember):
        a = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        b = a * 1
        v = b[1:]
        v.squeeze_(0)
        v.mul_(3)
        (b * L.tensor([1.0, 2.0, 3.0])).sum().backward()
        got.append((type(b.grad_fn).__name__, b.detach().numpy().tolist(), a.grad.numpy().tolist()))
    assert got[0] == got[1]


@pytest.mark.parity
def test_inplace_view_on_meta():
    for L in (torch, ember):
        t = L.empty(2, 1, 3, device="meta")
        t.transpose_(0, 2).squeeze_(1).unsqueeze_(0)
        assert (tuple(t.shape), t.stride()) == ((1, 3, 2), (3, 1, 3))


@pytest.mark.parity
@pytest.mark.parametrize("size,stride", [((6, 2, 2), (1, 12, 6)), ((24,), (1,)), ((3, 8), (8, 1))])
def test_reshape_alias_matches_torch(size, stride):
    got = []
    for L in (torch, ember):
        x = L.tensor(np.arange(24.0).reshape(4, 6), requires_grad=True)
        src = x.t() if len(size) == 3 else x * 1
        r = L.ops.aten._reshape_alias(src, size, stride)
        (r * L.arange(24.0).reshape(size)).sum().backward()
        got.append((tuple(r.shape), r.stride(), r._base is not None, type(r.grad_fn).__name__,
                    r.detach().numpy().tolist(), x.grad.numpy().tolist()))
    assert got[0] == got[1]


@pytest.mark.parity
def test_reshape_under_a_dispatch_mode_is_a_view():
    """torch's reshape skips _reshape_alias for tensor subclasses and under a dispatch mode (isTensorSubclassLike):
    make_fx records aten.view."""
    names = []
    for L, mod in ((torch, "torch.fx.experimental.proxy_tensor"), (ember, "ember.fx.experimental.proxy_tensor")):
        make_fx = __import__(mod, fromlist=["make_fx"]).make_fx
        g = make_fx(lambda a: a.t().reshape(6, 2, 2))(L.randn(4, 6))
        names.append([str(n.target).split(".")[-2] for n in g.graph.nodes if n.op == "call_function"])
    assert names[0] == names[1] == ["t", "view"]


def test_compiled_inplace_views_match_eager():
    """ember.compile functionalizes squeeze_/transpose_ of intermediates (matmul's 1-D @ 2-D, quantile)."""
    def f(a, b, x):
        y = x * 1
        y.transpose_(0, 1).unsqueeze_(0)
        return (a @ b).sin(), ember.quantile(b, ember.tensor([0.5, 0.25]), dim=0), y + 1

    a, b, x = ember.randn(3), ember.randn(3, 4), ember.randn(2, 5)
    for got, want in zip(ember.compile(f)(a, b, x), f(a, b, x)):
        assert got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_compiled_write_through_inplace_view_matches_eager():
    """A write into a view reshaped in place scatters back to the base in the compiled graph too (the traced
    values keep the geometry each node produced)."""
    def f(x):
        y = x * 1
        y[0:1].squeeze_(0).mul_(2)
        v = y[:, 1:]
        v.transpose_(0, 1).unsqueeze_(0)[0, 1].add_(10)
        return y, v

    x = ember.arange(6.0).reshape(2, 3)
    for got, want in zip(ember.compile(f)(x), f(x)):
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parity
def test_inplace_view_forward_ad_matches_torch():
    """A dual tensor's tangent takes the in-place view's geometry (on a view of a dual too)."""
    got = []
    for L, fw in ((torch, torch.autograd.forward_ad), (ember, ember.autograd.forward_ad)):
        out = []
        with fw.dual_level():
            d = fw.make_dual(L.tensor([[1.0, 2.0, 3.0]]), L.tensor([[0.1, 0.2, 0.3]]))
            y = d * 2
            y.squeeze_(0)
            out.append(fw.unpack_dual(y).tangent.numpy().tolist())
            y.unsqueeze_(1).transpose_(0, 1)
            out.append(fw.unpack_dual(y).tangent.numpy().tolist())
            b = d * 1
            z = b[:, 1:]
            z.squeeze_()
            z.mul_(3)
            out += [fw.unpack_dual(z).tangent.numpy().tolist(), fw.unpack_dual(b).tangent.numpy().tolist()]
        got.append(np.round(np.array(out[0] + out[1][0] + out[2] + out[3][0]), 6).tolist())
    assert got[0] == got[1]


RESHAPES = [
    # (input maker, target shape): a split piece (viewable, not contiguous), a transposed pair of dims merged or not,
    # a sliced column, contiguous ones with -1 and lists, an expanded (stride 0) dim, size-1 dims
    (lambda x: x.split(4, dim=2)[0], (6, 4)),
    (lambda x: x.split(4, dim=2)[1], [2, 12]),
    (lambda x: x.split(4, dim=2)[0], (-1, 2)),
    (lambda x: x.transpose(0, 1), (6, 8)),
    (lambda x: x.transpose(1, 2), (2, 24)),
    (lambda x: x[:, :, 2], (6,)),
    (lambda x: x[:, 1:, ::2], (2, 8)),
    (lambda x: x, (4, -1)),
    (lambda x: x, [48]),
    (lambda x: x[:1].expand(3, 3, 8), (9, 8)),
    (lambda x: x[:, :1], (2, 8)),
    (lambda x: x.unsqueeze(1)[:, :, :, :4], (2, 1, 12)),
]


@pytest.mark.parity
@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("case", range(len(RESHAPES)))
def test_reshape_of_strided_inputs_matches_torch(case, grad):
    """reshape's cpu fast path (decompositions/view.py: view, _reshape_alias by numpy's view, or a copy) against
    torch: sizes, strides, storage offset, view/base relation, shared version counter, grad_fn, values, grads."""
    make, shape = RESHAPES[case]
    got = []
    for L in (torch, ember):
        x = L.tensor(np.arange(48.0).reshape(2, 3, 8), requires_grad=grad)
        src = make(x * 1 if grad else x)
        r = src.reshape(shape)
        rec = [tuple(r.shape), r.stride(), r.storage_offset(), r._is_view(), r._base is (src if src._base is None else src._base),
               type(r.grad_fn).__name__, r.detach().numpy().tolist()]
        if r._is_view() and not grad:           # (with grad an in-place write would fail the backward)
            v = r._version
            with L.no_grad():
                src.mul_(1)
            rec.append(r._version - v)
        if grad:
            (r * L.arange(float(r.numel())).reshape(r.shape)).sum().backward()
            rec.append(x.grad.numpy().tolist())
        got.append(rec)
    assert got[0] == got[1]


@pytest.mark.parity
def test_reshape_under_no_grad_of_a_tensor_needing_grad_matches_torch():
    got = []
    for L in (torch, ember):
        x = L.tensor(np.arange(48.0).reshape(2, 3, 8), requires_grad=True)
        with L.no_grad():
            rs = [x.reshape(6, 8), x.split(4, dim=2)[0].reshape(6, 4), x.transpose(0, 1).reshape(6, 8)]
        got.append([(r.requires_grad, r.grad_fn is None, r._is_view(), r.stride()) for r in rs])
    assert got[0] == got[1]


@pytest.mark.parity
@pytest.mark.parametrize("call", ["x.view(2, -2)", "x.reshape(2, -2, 3)", "x.view(-3)", "x.reshape([-1, -3])",
                                  "x.t().reshape(-1, -2)", "x.reshape(-1, -1)", "x.reshape(5, -1)"])
def test_reshape_and_view_bad_sizes_raise_torchs_message(call):
    msgs = []
    for L in (torch, ember):
        x = L.zeros(4, 6)
        with pytest.raises(RuntimeError) as info:
            eval(call, {"x": x})
        msgs.append(str(info.value).split("\n")[0])
    assert msgs[0] == msgs[1]


@pytest.mark.parity
@pytest.mark.parametrize("shape,size", [((1,), (-5,)), ((1, 2), (-3, 2)), ((2, 1), (2, -7)), ((3, 1), (2, -1, -1)),
                                        ((3, 1), (-1, 3, 1)), ((3, 1), (2, 2)), ((1,), (0,)), ((3, 1), (0, 3, 4))])
def test_expand_sizes_match_torch(shape, size):
    """expand's cpu fast path (new leading dims, size-1 dims broadcast) and its errors against torch: a negative
    size other than -1 on a size-1 dim is torch's numel overflow error (ember raised numpy's ValueError)."""
    got = []
    for L in (torch, ember):
        x = L.zeros(shape)
        try:
            r = x.expand(*size)
            got.append((tuple(r.shape), r.stride(), r._base is x))
        except RuntimeError as e:
            got.append(str(e))
    assert got[0] == got[1]
