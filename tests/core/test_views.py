"""View ops: geometry and values vs torch, storage sharing, writes through views, meta parity."""
import numpy as np
import pytest

import ember
from _view_helpers import base, parity, to_list

VIEW_CASES = {
    "view": ((2, 3, 4), lambda m, x: x.view(6, 4)),
    "view_infer": ((2, 3, 4), lambda m, x: x.view(-1, 2)),
    "view_tuple": ((2, 3, 4), lambda m, x: x.view((4, -1))),
    "view_transposed_ok": ((2, 3, 4), lambda m, x: x.transpose(0, 1).view(3, 2, 2, 2)),
    "view_scalar": ((), lambda m, x: x.view(1, 1)),
    "view_to_scalar": ((1,), lambda m, x: x.view([])),
    "view_empty": ((0, 3), lambda m, x: x.view(3, 0)),
    "view_dtype_same": ((2, 3), lambda m, x: x.view(m.int32)),
    "view_dtype_smaller": ((2, 3), lambda m, x: x.view(m.int16)),
    "view_dtype_bigger": ((2, 4), lambda m, x: x.view(m.float64)),
    "as_strided": ((4, 4), lambda m, x: x.as_strided((2, 2), (1, 2), 1)),
    "as_strided_fn": ((4, 4), lambda m, x: m.as_strided(x, (3,), (5,))),
    "expand": ((3, 1), lambda m, x: x.expand(2, 3, 4)),
    "expand_keep": ((3, 1), lambda m, x: x.expand(-1, 5)),
    "expand_as": ((3, 1), lambda m, x: x.expand_as(m.tensor([[0.0] * 2] * 3))),
    "transpose": ((2, 3, 4), lambda m, x: x.transpose(0, 2)),
    "transpose_neg": ((2, 3, 4), lambda m, x: m.transpose(x, -1, -2)),
    "permute": ((2, 3, 4), lambda m, x: x.permute(2, 0, 1)),
    "permute_list": ((2, 3, 4), lambda m, x: m.permute(x, [1, -1, 0])),
    "t": ((2, 3), lambda m, x: x.t()),
    "t_1d": ((3,), lambda m, x: m.t(x)),
    "mT": ((2, 3, 4), lambda m, x: x.mT),
    "T": ((2, 3, 4), lambda m, x: x.T if False else x.permute(2, 1, 0)),
    "adjoint": ((2, 3, 4), lambda m, x: x.adjoint()),
    "narrow": ((4, 5), lambda m, x: x.narrow(1, 1, 3)),
    "narrow_neg": ((4, 5), lambda m, x: m.narrow(x, 0, -2, 2)),
    "select": ((3, 4), lambda m, x: x.select(1, -1)),
    "slice": ((6, 4), lambda m, x: m.ops.aten.slice.Tensor(x, 0, 1, 5, 2)),
    "slice_clamp": ((6, 4), lambda m, x: m.ops.aten.slice.Tensor(x, 1, -100, 100)),
    "unsqueeze": ((2, 3), lambda m, x: x.unsqueeze(1)),
    "unsqueeze_end": ((2, 3), lambda m, x: m.unsqueeze(x, -1)),
    "squeeze": ((1, 3, 1), lambda m, x: x.squeeze()),
    "squeeze_dim": ((1, 3, 1), lambda m, x: x.squeeze(-1)),
    "squeeze_dim_noop": ((1, 3, 1), lambda m, x: x.squeeze(1)),
    "squeeze_dims": ((1, 3, 1), lambda m, x: x.squeeze((0, 2))),
    "flatten": ((2, 3, 4), lambda m, x: x.flatten()),
    "flatten_range": ((2, 3, 4, 5), lambda m, x: m.flatten(x, 1, 2)),
    "flatten_0d": ((), lambda m, x: x.flatten()),
    "unflatten": ((2, 12), lambda m, x: x.unflatten(1, (3, -1))),
    "diagonal": ((3, 4), lambda m, x: x.diagonal()),
    "diagonal_off": ((3, 4), lambda m, x: m.diagonal(x, 1)),
    "diagonal_neg": ((3, 4), lambda m, x: m.diagonal(x, -1)),
    "diagonal_dims": ((2, 3, 4), lambda m, x: x.diagonal(0, 2, 1)),
    "diagonal_far": ((3, 4), lambda m, x: x.diagonal(10)),
    "unbind": ((3, 2), lambda m, x: x.unbind(1)),
    "split": ((5, 2), lambda m, x: x.split(2)),
    "split_dim": ((2, 5), lambda m, x: m.split(x, 3, 1)),
    "split_sizes": ((5, 2), lambda m, x: x.split_with_sizes([1, 4])),
    "split_list": ((5, 2), lambda m, x: x.split([2, 3])),
    "chunk": ((5, 2), lambda m, x: x.chunk(3)),
    "chunk_more": ((2, 2), lambda m, x: m.chunk(x, 5)),
    "movedim": ((2, 3, 4), lambda m, x: x.movedim(0, -1)),
    "movedim_list": ((2, 3, 4, 5), lambda m, x: m.movedim(x, (0, 1), (3, 0))),
    "alias": ((2, 3), lambda m, x: m.ops.aten.alias.default(x)),
    "detach": ((2, 3), lambda m, x: x.detach()),
    "view_as": ((2, 3), lambda m, x: x.view_as(m.tensor([[0.0] * 2] * 3))),
    "reshape_view": ((2, 3, 4), lambda m, x: x.reshape(4, 6)),
    "reshape_as": ((2, 3), lambda m, x: x.reshape_as(m.tensor([0.0] * 6))),
    "contiguous_self": ((2, 3), lambda m, x: x.contiguous()),
    # the int fast paths of kernels/meta/view.py and decompositions/view.py (negative dims, other dims, strided
    # inputs, size-0 and 0-d edges)
    "split_neg_dim": ((3, 5), lambda m, x: x.split(2, -1)),
    "split_big": ((3, 5), lambda m, x: x.split(7, 1)),
    "split_strided": ((4, 6), lambda m, x: x.t().split(3, 1)),
    "split_empty_dim": ((0, 3), lambda m, x: x.split(2)),
    "chunk_neg_dim": ((3, 5), lambda m, x: x.chunk(2, -1)),
    "unbind_neg": ((2, 3, 4), lambda m, x: x.unbind(-1)),
    "unbind_1d": ((3,), lambda m, x: m.unbind(x)),
    "select_mid": ((2, 3, 4), lambda m, x: x.select(1, -2)),
    "select_last_1d": ((4,), lambda m, x: x.select(-1, 3)),
    "narrow_mid": ((2, 3, 4), lambda m, x: x.narrow(-1, 1, 2)),
    "narrow_end": ((2, 3, 4), lambda m, x: m.narrow(x, 1, 3, 0)),
    "squeeze_mid": ((2, 1, 3), lambda m, x: x.squeeze(1)),
    "squeeze_noop_neg": ((2, 3), lambda m, x: x.squeeze(-1)),
    "squeeze_0d": ((), lambda m, x: x.squeeze(0)),
    "unsqueeze_neg": ((2, 3), lambda m, x: x.unsqueeze(-2)),
    "unsqueeze_0d": ((), lambda m, x: x.unsqueeze(-1)),
    "unsqueeze_strided": ((4, 6), lambda m, x: x.t().unsqueeze(1)),
    "permute_neg": ((2, 3, 4), lambda m, x: x.permute(-1, 0, 1)),
    "permute_strided": ((4, 6), lambda m, x: x[:, ::2].permute([1, 0])),
    "expand_lead_infer": ((3, 1), lambda m, x: x.expand(2, -1, 4)),
    "expand_zero": ((3, 1), lambda m, x: x.expand(3, 0)),
    "expand_strided": ((4, 6), lambda m, x: x[:, :1].expand(2, 4, 3)),
    "expand_lead_ones": ((3,), lambda m, x: x.expand(1, 1, 3)),
    "expand_list": ((2, 1, 3), lambda m, x: x.expand([4, 2, 5, 3])),
    "flatten_mid": ((2, 3, 4, 5), lambda m, x: x.flatten(-3, -2)),
    "flatten_strided": ((2, 3, 4), lambda m, x: x[:, 1:].flatten(1)),
    "reshape_split_piece": ((2, 3, 8), lambda m, x: x.split(4, 2)[1].reshape(6, 4)),
    "reshape_list_infer": ((2, 3, 4), lambda m, x: x.transpose(0, 1)[:, :1].reshape([-1, 4])),
}


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(VIEW_CASES))
def test_view_parity(name):
    pytest.importorskip("torch")
    shape, fn = VIEW_CASES[name]
    parity(fn, base(shape), view=True)


@pytest.mark.parity
@pytest.mark.parametrize("name,shape,fn", [
    ("reshape_copy", (2, 3, 4), lambda m, x: x.transpose(0, 1).reshape(-1)),
    ("contiguous_copy", (2, 3), lambda m, x: x.t().contiguous()),
    ("flatten_copy", (2, 3), lambda m, x: x.t().flatten()),
])
def test_copying_parity(name, shape, fn):
    pytest.importorskip("torch")
    parity(fn, base(shape), view=False)


def test_views_share_storage_and_writes_are_visible():
    x = ember.from_numpy(base((3, 4)))
    v = x.t()[1]
    assert v.untyped_storage() is x.untyped_storage()
    v.fill_(-1.0)
    assert x.numpy()[:, 1].tolist() == [-1.0] * 3
    d = x.diagonal()
    d.zero_()
    assert x.numpy()[1, 1] == 0 and x.numpy()[2, 2] == 0
    parts = x.split(1)
    parts[2].fill_(7.0)
    assert x.numpy()[2].tolist() == [7.0] * 4
    assert x.view(-1).data_ptr() == x.data_ptr()
    assert x[1].data_ptr() == x.data_ptr() + 4 * 4


def test_view_incompatible_strides_suggests_reshape():
    x = ember.from_numpy(base((2, 3))).t()
    with pytest.raises(RuntimeError, match=r"view size is not compatible .*Use \.reshape\(\.\.\.\) instead"):
        x.view(6)


@pytest.mark.parametrize("fn,exc,msg", [
    (lambda x: x.view(5), RuntimeError, r"shape '\[5\]' is invalid for input of size 6"),
    (lambda x: x.view(-1, -1), RuntimeError, "only one dimension can be inferred"),
    (lambda x: x.view(-2, 3), RuntimeError, "invalid shape dimension -2"),
    (lambda x: x.transpose(0, 2), IndexError, r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
    (lambda x: x.select(0, 2), IndexError, r"index 2 out of range"),
    (lambda x: x.expand(3, 3), RuntimeError, r"expanded size of the tensor \(3\) must match the existing size \(2\)"),
    (lambda x: x.expand(3), RuntimeError, "number of sizes provided"),
    (lambda x: x.permute(0, 0), RuntimeError, "duplicate dims"),
    (lambda x: x.narrow(1, 2, 2), RuntimeError, r"start \(2\) \+ length \(2\) exceeds dimension size \(3\)"),
    (lambda x: x.unflatten(1, (2, 2)), RuntimeError, "don't multiply up"),
    (lambda x: x.split_with_sizes([1, 2]), RuntimeError, "sum exactly to 2"),
    (lambda x: x.chunk(0), RuntimeError, "greater than 0"),
    (lambda x: x.diagonal(0, 1, 1), RuntimeError, "diagonal dimensions cannot be identical"),
    (lambda x: x.view(ember.float64), RuntimeError, r"self.size\(-1\) must be divisible by 2"),
    (lambda x: x.as_strided((3, 3), (3, 1)), RuntimeError, "out of bounds for storage"),
    (lambda x: x.unsqueeze(0).expand(2, 2, 3).t(), RuntimeError, "t\\(\\) expects a tensor with <= 2 dimensions"),
    (lambda x: x.flatten(1, 0), RuntimeError, "start_dim cannot come after end_dim"),
])
def test_view_errors(fn, exc, msg):
    x = ember.from_numpy(base((2, 3)))
    with pytest.raises(exc, match=msg):
        fn(x)


@pytest.mark.parity
@pytest.mark.parametrize("fn", [
    lambda m, x: x.view(5), lambda m, x: x.transpose(0, 2), lambda m, x: x.select(0, 2),
    lambda m, x: x.expand(3, 3), lambda m, x: x.narrow(1, 2, 2), lambda m, x: x.diagonal(0, 1, 1),
    lambda m, x: x.t().view(6), lambda m, x: x.unsqueeze(3), lambda m, x: x.squeeze(2),
])
def test_view_error_types_match_torch(fn):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as te:
        fn(torch, torch.from_numpy(base((2, 3))))
    with pytest.raises(type(te.value)):
        fn(ember, ember.from_numpy(base((2, 3))))


@pytest.mark.parity
def test_compute_stride_matches_torch_on_many_layouts():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    arr = base((2, 3, 4, 1))
    shapes = [(24,), (6, 4), (2, 12), (4, 6), (2, 3, 2, 2), (1, 24, 1), (3, 8), (12, 2), (2, 1, 3, 4)]
    perms = [(0, 1, 2, 3), (1, 0, 2, 3), (0, 2, 1, 3), (3, 2, 1, 0), (2, 0, 3, 1)]
    for p in perms:
        for s in shapes:
            e = ember.from_numpy(arr.copy()).permute(*p)
            t = torch.from_numpy(arr.copy()).permute(*p)
            try:
                rt = t.view(s)
            except RuntimeError:
                with pytest.raises(RuntimeError):
                    e.view(s)
                re = e.reshape(s)
                assert re.untyped_storage() is not e.untyped_storage()
                np.testing.assert_array_equal(re.numpy(), t.reshape(s).numpy())
                continue
            re = e.view(s)
            assert re.stride() == rt.stride() or re.numel() <= 1
            np.testing.assert_array_equal(re.numpy(), rt.numpy())
    del rng


def test_detach_has_no_history_and_shares_storage():
    x = ember.from_numpy(base((2,))).requires_grad_()
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    assert d.untyped_storage() is x.untyped_storage()


def test_meta_views_have_no_data():
    m = ember.from_numpy(base((4, 6))).to("meta")
    v = m.view(2, 12).t()[3:]
    assert v.is_meta and v.shape == (9, 2) and v.stride() == (1, 12) and v.storage_offset() == 3


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(VIEW_CASES))
def test_view_marks_match_torch(name):
    # the ADInplaceOrView step: _base (the root of the input's views) and the shared version counter, whether the
    # kernel below and that step run as two calls or as one (kernels/meta/view.py's `_as_view` twins)
    torch = pytest.importorskip("torch")
    shape, fn = VIEW_CASES[name]
    for through_view in (False, True):
        e, t = ember.from_numpy(base(shape)), torch.from_numpy(base(shape))
        if through_view:        # the input is a view already: results take its base
            e, t = e.view(shape), t.view(shape)
        for a, b in zip(to_list(fn(ember, e)), to_list(fn(torch, t))):
            assert a._is_view() == b._is_view()
            assert (a._base is e._base if through_view else a._base is e) == (
                b._base is t._base if through_view else b._base is t)
            if b._is_view():
                before = a._version
                e.add_(1)
                assert a._version == before + 1


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(set(VIEW_CASES) - {"view_dtype_same", "view_dtype_smaller",
                                                           "view_dtype_bigger"}))
def test_view_in_no_grad_of_a_tensor_needing_grad_refuses_in_place(name):
    # (view.dtype is not a differentiable view: see test_view_dtype_is_a_non_differentiable_view_as_torch)
    torch = pytest.importorskip("torch")
    shape, fn = VIEW_CASES[name]
    raised = []
    for m in (ember, torch):
        x = m.from_numpy(base(shape)).requires_grad_()
        with m.no_grad():
            rs = to_list(fn(m, x))
        for r in rs:
            try:
                r.mul_(2)
                raised.append(None)
            except RuntimeError as e:
                raised.append("no_grad mode" in str(e))
    assert raised[:len(raised) // 2] == raised[len(raised) // 2:]


@pytest.mark.parity
@pytest.mark.parametrize("dtype", ["float32", "int32", "int16", "uint8", "float64", "complex64"])
@pytest.mark.parametrize("grad", [False, True])
def test_view_dtype_is_a_non_differentiable_view_as_torch(dtype, grad):
    # torch's view.dtype: storage and version counter shared, but `_base` None and `_is_view()` False (as detach);
    # a view of it has it as its base; writes through it reach the input and bump the shared version
    torch = pytest.importorskip("torch")
    out = []
    for m in (ember, torch):
        x = m.arange(8, dtype=m.float32).reshape(2, 4)
        if grad:
            x = x.requires_grad_().clone()
        y = x.view(getattr(m, dtype))
        z = y[:1]
        rec = [y.shape, y.stride(), y.storage_offset(), y._is_view(), y._base is None, y.requires_grad,
               y.grad_fn is None, z._base is y, z._is_view(), x._version, y._version]
        with m.no_grad():
            y.zero_()
        rec += [x.tolist(), x._version, y._version, z._version]
        s = x[:, 1:3].view(getattr(m, dtype)) if m.float32.itemsize >= getattr(m, dtype).itemsize else None
        rec += [] if s is None else [s._base is None, s.shape, s.storage_offset()]
        out.append([tuple(r) if r.__class__.__name__ == "Size" else r for r in rec])
    assert out[0] == out[1]


def test_fused_view_kernels_match_their_plain_kernels():
    # each `_as_view` twin is the kernel's own code: the same geometry and data, and only the twin marks its result
    from ember.kernels.meta import view as V
    x = ember.from_numpy(base((2, 3, 4)))
    calls = [(V.view, (x, (6, 4))), (V.view, (x, [4, -1])), (V.as_strided, (x, (2, 2), (1, 2), 1)),
             (V.reshape_alias, (x[:, :, :2], (6, 2), (4, 1))), (V.reshape_alias, (x, (4, 6), (1, 4))),
             (V.expand, (x[:, :1], (2, 3, 4))), (V.transpose, (x, 0, 2)), (V.permute, (x, (2, 0, 1))),
             (V.t, (x[0],)), (V.t, (x[0, 0],)), (V.select, (x, 0, 1)), (V.select, (x, 2, -1)),
             (V.slice, (x, 0, 1, None, 1)), (V.slice, (x, 2, -3, 100, 2)), (V.narrow, (x, 1, 1, 2)),
             (V.unsqueeze, (x, 1)), (V.squeeze, (x[:1],)), (V.squeeze_dim, (x[:1], 0)),
             (V.squeeze_dims, (x[:1], (0, 2))), (V.diagonal, (x, 0, 1, 2)), (V.unbind, (x, 1)),
             (V.split_with_sizes, (x, [1, 3], 2)), (V.split, (x, 2, 1)), (V.alias, (x,)), (V.unfold, (x, 2, 2, 1))]
    for fn, args in calls:
        plain, fused = to_list(fn(*args)), to_list(fn._as_view(*args))
        assert len(plain) == len(fused)
        for p, f in zip(plain, fused):
            assert (p.shape, p.stride(), p.storage_offset()) == (f.shape, f.stride(), f.storage_offset())
            np.testing.assert_array_equal(p.numpy(), f.numpy())
            assert p._base is None and f._base is x and f._version_counter is x._version_counter, fn.__name__
