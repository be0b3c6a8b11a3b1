"""The view ops' Autograd kernels (issue 18: a view with grad at torch's cost), checked against torch: a leaf's
edge made when first read (graph.leaf_edges), the inline key computation of the int-list views (view, permute,
expand) and the view semantics every path keeps (_base, version counter, in-place rebasing, no_grad views)."""
import numpy as np
import pytest

import ember

RNG = np.random.default_rng(1818)

VIEWS = {
    "t": lambda x: x.t(),
    "view": lambda x: x.view(2, 12),
    "view_infer": lambda x: x.view(-1),
    "permute": lambda x: x.permute(1, 0),
    "expand": lambda x: x[:1].expand(3, 8),
    "select": lambda x: x[2],
    "slice": lambda x: x[1:3],
    "transpose": lambda x: x.transpose(0, 1),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "narrow": lambda x: x.narrow(1, 2, 3),
    "diagonal": lambda x: x.diagonal(),
}


def _pair(shape=(3, 8)):
    torch = pytest.importorskip("torch")
    a = RNG.standard_normal(shape).astype(np.float32)
    return torch, ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_of_leaf_edge_and_grad(name):
    torch, xe, xt = _pair()
    f = VIEWS[name]
    ve, vt = f(xe), f(xt)
    assert type(ve.grad_fn).__name__ == type(vt.grad_fn).__name__
    assert ve._base is xe and vt._base is xt and ve._version == vt._version
    (fe, nr_e), = ve.grad_fn.next_functions
    (ft, nr_t), = vt.grad_fn.next_functions
    assert type(fe).__name__ == type(ft).__name__ and nr_e == nr_t
    if type(ft).__name__ == "AccumulateGrad":
        assert fe.variable is xe
    w = RNG.standard_normal(tuple(vt.shape)).astype(np.float32)
    (ve * ember.tensor(w)).sum().backward()
    (vt * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(xe.grad.numpy(), xt.grad.numpy())


@pytest.mark.parity
def test_leaf_edge_is_the_accumulator_other_nodes_hold():
    torch, xe, xt = _pair()
    for x in (xe, xt):
        a = x * 2                   # holds the leaf's AccumulateGrad
        v = x.t()                   # a view node: its edge to that same AccumulateGrad
        assert a.grad_fn.next_functions[0][0] is v.grad_fn.next_functions[0][0]
        assert v.grad_fn.next_functions[0][0] is v.grad_fn.next_functions[0][0]


@pytest.mark.parity
def test_leaf_edge_made_after_forward_accumulates_once():
    torch, xe, xt = _pair()
    for x in (xe, xt):
        ys = [x.t(), x[1], x.view(-1), x[0:2]]
        sum(y.sum() for y in ys).backward()
    np.testing.assert_array_equal(xe.grad.numpy(), xt.grad.numpy())


@pytest.mark.parity
def test_leaf_view_backward_through_autograd_grad_and_retain_graph():
    torch, xe, xt = _pair()
    ge = ember.autograd.grad((xe.t() * 3).sum(), [xe])[0]
    gt = torch.autograd.grad((xt.t() * 3).sum(), [xt])[0]
    np.testing.assert_array_equal(ge.numpy(), gt.numpy())
    le, lt = (xe[1] ** 2).sum(), (xt[1] ** 2).sum()
    for _ in range(2):
        le.backward(retain_graph=True)
        lt.backward(retain_graph=True)
    np.testing.assert_array_equal(xe.grad.numpy(), xt.grad.numpy())


@pytest.mark.parity
def test_leaf_view_in_anomaly_mode():
    torch, xe, xt = _pair()
    with ember.autograd.detect_anomaly(), torch.autograd.detect_anomaly():
        (xe.t() * 2).sum().backward()
        (xt.t() * 2).sum().backward()
    np.testing.assert_array_equal(xe.grad.numpy(), xt.grad.numpy())


@pytest.mark.parity
def test_inplace_on_view_of_non_leaf_rebases_base():
    torch, xe, xt = _pair()
    for x in (xe, xt):
        b = x * 1
        v = b.view(24)
        v.mul_(3)
        assert type(b.grad_fn).__name__ == "CopySlices"
        b.sum().backward()
    np.testing.assert_array_equal(xe.grad.numpy(), xt.grad.numpy())


@pytest.mark.parity
@pytest.mark.parametrize("name", ["view", "permute", "expand"])
def test_int_list_views_without_grad_and_in_no_grad(name):
    torch, xe, xt = _pair()
    f = VIEWS[name]
    for x in (xe.detach(), xt.detach()):
        v = f(x)
        assert v._base is x and not v.requires_grad
    with ember.no_grad():
        ve = f(xe)
    with torch.no_grad():
        vt = f(xt)
    assert ve._base is xe and vt._base is xt and ve.grad_fn is None and vt.grad_fn is None
    with pytest.raises(RuntimeError, match="no_grad mode"):
        with ember.enable_grad():
            ve.mul_(2)
    with pytest.raises(RuntimeError, match="no_grad mode"):
        vt.mul_(2)


@pytest.mark.parity
def test_view_bad_shape_errors_match_torch():
    torch, xe, xt = _pair()
    for shape in [(5, 5), (-1, -1)]:
        with pytest.raises(RuntimeError) as ee:
            xe.view(*shape)
        with pytest.raises(RuntimeError) as et:
            xt.view(*shape)
        assert str(ee.value) == str(et.value)
    with pytest.raises(RuntimeError) as ee:
        xe.t().view(24)
    with pytest.raises(RuntimeError) as et:
        xt.t().view(24)
    assert str(ee.value) == str(et.value)


@pytest.mark.parity
@pytest.mark.parametrize("name", ["t", "view", "select", "slice"])
def test_view_of_no_grad_view_keeps_its_flag(name):
    torch, xe, xt = _pair()
    f = VIEWS[name]
    msgs = []
    for mod, x in ((ember, xe), (torch, xt)):
        with mod.no_grad():
            v = x[0:3]
        w = f(v)                  # made with grad mode on, of a view made in no_grad mode
        with pytest.raises(RuntimeError) as err:
            w.mul_(2)
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parity
def test_view_of_multi_output_view_refuses_inplace():
    torch, xe, xt = _pair()
    msgs = []
    for x in (xe, xt):
        a = (x * 1).unbind(0)[1]
        w = a.view(2, 4)
        with pytest.raises(RuntimeError) as err:
            w.mul_(2)
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parity
@pytest.mark.parametrize("make", [
    lambda m: m.zeros(3, 4),
    lambda m: m.zeros(5, 3, 4)[2],                 # an offset into the storage
    lambda m: m.zeros(3, 4).unsqueeze(1),          # a size-1 dim
    lambda m: m.zeros(4, 3).t().t(),
    lambda m: m.zeros(1, 6).expand(1, 6),
], ids=["plain", "offset", "unsqueezed", "tt", "size1_expand"])
def test_flattening_view_shares_storage(make):
    torch = pytest.importorskip("torch")
    xe, xt = make(ember), make(torch)
    ve, vt = xe.view(-1), xt.view(-1)
    assert ve.stride() == vt.stride() and ve.storage_offset() == vt.storage_offset() and ve._base is not None
    ve[1] = 7.0
    vt[1] = 7.0
    np.testing.assert_array_equal(xe.numpy(), xt.numpy())
    xe.fill_(2.0)
    assert ve.numpy().tolist() == [2.0] * ve.numel()


STRIDED_VIEWS = [
    ((8, 32, 192), lambda x: x[:, :, 64:128], (8, 32, 4, 16)),            # a split chunk as heads
    ((8, 32, 192), lambda x: x[:, :, 64:128], (8, 32, -1, 16)),
    ((6, 4, 10), lambda x: x[:, :, 2:8], (24, 6)),                         # leading dims merged
    ((6, 4, 10), lambda x: x[::2], (3, 2, 2, 10)),                         # a stepped dim split
    ((5, 1, 7), lambda x: x[:, :, 1:6], (5, 5, 1)),                        # size-1 dims moved
    ((4, 6), lambda x: x.t(), (6, 2, 2)),
]


@pytest.mark.parity
@pytest.mark.parametrize("case", range(len(STRIDED_VIEWS)))
def test_view_of_strided_input_geometry_values_and_grad(case):
    """view of a non-contiguous input (the strided fast path of kernels/meta/view.py `view`): torch's strides and
    offset, the right elements (read and written through the view), the base's version shared, torch's grad."""
    shape, make, new = STRIDED_VIEWS[case]
    torch, xe, xt = _pair(shape)
    ve, vt = make(xe).view(*new), make(xt).view(*new)
    assert ve.shape == vt.shape and ve.stride() == vt.stride() and ve.storage_offset() == vt.storage_offset()
    assert not ve.is_contiguous() or vt.is_contiguous()
    np.testing.assert_array_equal(ve.detach().numpy(), vt.detach().numpy())
    g = RNG.standard_normal(tuple(vt.shape)).astype(np.float32)
    ve.backward(ember.tensor(g))
    vt.backward(torch.tensor(g))
    np.testing.assert_array_equal(xe.grad.numpy(), xt.grad.numpy())
    with ember.no_grad():
        be = xe.detach().clone()
    w = make(be).view(*new)
    w.mul_(0)
    assert be._version == w._version == 1
    with torch.no_grad():
        bt = xt.detach().clone()
        make(bt).view(*new).mul_(0)
    np.testing.assert_array_equal(be.numpy(), bt.numpy())


def test_view_of_strided_input_that_cannot_view_raises_torchs_error():
    x = ember.randn(4, 6).t()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.view(24)


@pytest.mark.parity
@pytest.mark.parametrize("make,size", [(lambda x: x.t(), [8, 3]), (lambda x: x[:, 1:5], (3, 4)),
                                       (lambda x: x, [3, 8]), (lambda x: x[1:2], [1, 8])])
def test_expand_to_own_sizes_is_a_view_as_in_torch(make, size):
    """expand to the tensor's own sizes (kernels/meta/view.py `expand`'s fast path; matmul's composite does it on
    every batched product): torch's geometry, a view sharing the version, ExpandBackward0 and its grad."""
    torch, xe, xt = _pair()
    ve, vt = make(xe).expand(size), make(xt).expand(size)
    assert ve.shape == vt.shape and ve.stride() == vt.stride() and ve.storage_offset() == vt.storage_offset()
    assert type(ve.grad_fn).__name__ == type(vt.grad_fn).__name__ == "ExpandBackward0"
    assert ve._base is xe and vt._base is xt
    g = RNG.standard_normal(tuple(vt.shape)).astype(np.float32)
    (ve * ember.tensor(g)).sum().backward()
    (vt * torch.tensor(g)).sum().backward()
    np.testing.assert_array_equal(xe.grad.numpy(), xt.grad.numpy())
    with ember.no_grad():
        be = xe.detach().clone()
        w = make(be).expand(size)
    assert w._version == be._version
    np.testing.assert_array_equal(w.numpy(), make(xt.detach()).expand(size).numpy())
