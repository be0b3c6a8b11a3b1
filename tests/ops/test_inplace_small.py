"""The small in-place paths (kernels/cpu/elementwise.py: make_binary's `inplace`, `_small_clamp`; _fallbacks.py's
`_inplace_kernel`) against torch: values, dtypes, version counters, errors and the cases left to the general path
(overlapping views, broadcasting, dtype casts, inference tensors, integer true division)."""
import re

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.parity

_OPS = ["add_", "sub_", "mul_", "div_"]
_DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]


def _pair(mod, dt, shape):
    n = int(np.prod(shape))
    x = (np.arange(1, 1 + n).reshape(shape) % 5).tolist()
    y = ((np.arange(n).reshape(shape) * 3) % 7 + 1).tolist()
    return mod.tensor(x, dtype=getattr(mod, dt)), mod.tensor(y, dtype=getattr(mod, dt))


def _same(e, t):
    assert str(e.dtype) == str(t.dtype).replace("torch.", "ember.")
    assert tuple(e.shape) == tuple(t.shape) and e.stride() == t.stride()
    if str(t.dtype) == "torch.bfloat16":
        e, t = e.float(), t.float()
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def _both(fe, ft):
    """fe() on ember and ft() on torch: the same result or the same exception type and message start."""
    try:
        t = ft()
    except (RuntimeError, TypeError, IndexError) as err:
        with pytest.raises(type(err), match=re.escape(str(err)[:30])):
            fe()
        return None, None
    return fe(), t


@pytest.mark.parametrize("op", _OPS)
@pytest.mark.parametrize("dt", _DTYPES)
@pytest.mark.parametrize("shape", [(4,), (), (2, 3)])
def test_two_tensors_in_place_match_torch(op, dt, shape):
    (ea, eb), (ta, tb) = _pair(ember, dt, shape), _pair(torch, dt, shape)
    v0 = ea._version
    e, t = _both(lambda: getattr(ea, op)(eb), lambda: getattr(ta, op)(tb))
    if t is None:
        assert ea._version == v0             # refused: no bump, nothing written
        return
    assert e is ea
    _same(ea, ta)
    assert ea._version == v0 + 1 == ta._version


@pytest.mark.parametrize("op", _OPS)
@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "int64", "bool"])
@pytest.mark.parametrize("number", [2, 0.5, -3, 1e30, float("nan")])
def test_tensor_and_number_in_place_match_torch(op, dt, number):
    (ea, _), (ta, _) = _pair(ember, dt, (2, 2)), _pair(torch, dt, (2, 2))
    with np.errstate(all="ignore"):
        e, t = _both(lambda: getattr(ea, op)(number), lambda: getattr(ta, op)(number))
    if t is not None:
        _same(ea, ta)
        assert ea._version == ta._version


def test_self_alias_and_overlapping_views_match_torch():
    for mod in (ember, torch):
        a = mod.tensor([1.0, 2.0, 3.0, 4.0])
        a.add_(a)
        a.mul_(a)
        assert a.tolist() == [4.0, 16.0, 36.0, 64.0]
    (ea, _), (ta, _) = _pair(ember, "float32", (6,)), _pair(torch, "float32", (6,))
    # partially overlapping views of one storage: torch's error, nothing written
    with pytest.raises(RuntimeError) as te:
        ta[0:3].add_(ta[1:4])
    with pytest.raises(RuntimeError, match=str(te.value)[:40]):
        ea[0:3].add_(ea[1:4])
    _same(ea, ta)
    # disjoint views of one storage are fine
    ea[0:3].mul_(ea[3:6])
    ta[0:3].mul_(ta[3:6])
    _same(ea, ta)


def test_broadcast_cast_and_strided_in_place_match_torch():
    (ea, eb), (ta, tb) = _pair(ember, "float32", (2, 3)), _pair(torch, "float32", (2, 3))
    ea.add_(eb[0])                  # broadcast other
    ta.add_(tb[0])
    _same(ea, ta)
    ea.t().mul_(eb.t())             # strided self and other
    ta.t().mul_(tb.t())
    _same(ea, ta)
    ea.add_(eb.double())            # other of another dtype
    ta.add_(tb.double())
    _same(ea, ta)
    _both(lambda: ea[0].add_(eb), lambda: ta[0].add_(tb))       # broadcast into self: refused
    ei, _ = _pair(ember, "int64", (3,))
    ti, _ = _pair(torch, "int64", (3,))
    _both(lambda: ei.div_(ei), lambda: ti.div_(ti))             # integer true division: refused
    _both(lambda: ei.mul_(0.5), lambda: ti.mul_(0.5))           # float result into int: refused
    _same(ei, ti)


def test_in_place_on_inference_tensor_and_grad_leaf_match_torch():
    for mod in (ember, torch):
        with mod.inference_mode():
            x = mod.ones(3)
            x.mul_(2.0)               # fine inside
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
            x.mul_(2.0)
        # (torch writes, then refuses the version bump; ember refuses before writing: not compared here)
        w = mod.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            w.add_(1.0)
        with mod.no_grad():
            w.mul_(3.0)
        assert w._version == 1 and w.tolist() == [3.0, 3.0, 3.0]


def test_in_place_records_autograd_as_torch():
    for mod in (ember, torch):
        w = mod.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = w * 1.0
        y.mul_(2.0)
        y.add_(w)
        assert type(y.grad_fn).__name__ == "AddBackward0"
        assert y._version == 2
        y.sum().backward()
        assert w.grad.tolist() == [3.0, 3.0, 3.0]


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16", "int64", "uint8"])
@pytest.mark.parametrize("bounds", [(0, 2), (0.5, 2.5), (None, 2.0), (1, None), (3.0, 1.0), (float("nan"), 2.0),
                                    (1.0, float("nan"))])
@pytest.mark.parametrize("shape", [(5,), (), (2, 3)])
def test_clamp_with_numbers_matches_torch(dt, bounds, shape):
    n = int(np.prod(shape))
    vals = np.array([-1.0, 0.5, 2.0, 3.0, float("nan"), 1.5][:max(n, 1)] * 2)[:n].reshape(shape)
    if dt in ("int64", "uint8"):
        vals = np.nan_to_num(vals).astype(np.int64) % 4
    ea, ta = ember.tensor(vals.tolist(), dtype=getattr(ember, dt)), torch.tensor(vals.tolist(), dtype=getattr(torch, dt))
    lo, hi = bounds
    e, t = _both(lambda: ea.clamp(lo, hi), lambda: ta.clamp(lo, hi))
    if t is None:
        return
    _same(e.float() if dt == "bfloat16" else e, t.float() if dt == "bfloat16" else t)
    v0 = ea._version
    e, t = _both(lambda: ea.clamp_(lo, hi), lambda: ta.clamp_(lo, hi))
    if t is not None:
        assert e is ea and ea._version == v0 + 1
        _same(ea.float() if dt == "bfloat16" else ea, ta.float() if dt == "bfloat16" else ta)


def test_clamp_left_to_the_general_path_matches_torch():
    (ea, _), (ta, _) = _pair(ember, "float32", (3, 4)), _pair(torch, "float32", (3, 4))
    _same(ea.t().clamp(1.0, 3.0), ta.t().clamp(1.0, 3.0))               # strided: torch's strides
    _same(ea.clamp(ember.tensor(1.0), 3.0), ta.clamp(torch.tensor(1.0), 3.0))
    _same(ea.clamp(1, 3), ta.clamp(1, 3))
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        ea.clamp()
    _same(ember.empty(0, 3).clamp(0.0, 1.0), torch.empty(0, 3).clamp(0.0, 1.0))
    w = ember.tensor([0.5, 2.0, 4.0], requires_grad=True)
    y = w.clamp(1.0, 3.0)
    assert type(y.grad_fn).__name__ == "ClampBackward1"
    y.sum().backward()
    assert w.grad.tolist() == [0.0, 1.0, 0.0]


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16", "int64", "uint8", "bool", "complex64"])
@pytest.mark.parametrize("shape", [(4,), (), (2, 3), (1, 3), (0, 2)])
def test_where_same_shape_tensors_matches_torch(dt, shape):
    """where's small path (three contiguous same-shape tensors, one dtype) and its neighbours on the general
    path: strided operands, broadcasting, mixed dtypes."""
    n = int(np.prod(shape))
    cond = (np.arange(n) % 3 == 1).reshape(shape).tolist()
    (ea, eb), (ta, tb) = _pair(ember, dt, shape), _pair(torch, dt, shape)
    ec, tc = ember.tensor(cond, dtype=ember.bool), torch.tensor(cond, dtype=torch.bool)
    _same(ember.where(ec, ea, eb), torch.where(tc, ta, tb))
    if len(shape) == 2:
        _same(ember.where(ec.t(), ea.t(), eb.t()), torch.where(tc.t(), ta.t(), tb.t()))
        _same(ember.where(ec[:1], ea, eb), torch.where(tc[:1], ta, tb))
    if dt != "complex64":       # (torch warns of a complex-to-real cast there)
        _same(ember.where(ec, ea, eb.double()), torch.where(tc, ta, tb.double()))
    w = ember.tensor([1.0, 2.0], requires_grad=True)
    y = ember.where(ember.tensor([True, False]), w, ember.tensor([5.0, 6.0]))
    assert type(y.grad_fn).__name__ == "WhereBackward0" and y.tolist() == [1.0, 6.0]


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "int64", "uint8"])
@pytest.mark.parametrize("value", [0.0, -2.5, 3, -1, float("inf"), float("nan")])
@pytest.mark.parametrize("shape", [(4,), (), (2, 3)])
def test_masked_fill_same_shape_mask_matches_torch(dt, value, shape):
    n = int(np.prod(shape))
    mask = (np.arange(n) % 2 == 0).reshape(shape).tolist()
    (ea, _), (ta, _) = _pair(ember, dt, shape), _pair(torch, dt, shape)
    em, tm = ember.tensor(mask, dtype=ember.bool), torch.tensor(mask, dtype=torch.bool)
    e, t = _both(lambda: ea.masked_fill(em, value), lambda: ta.masked_fill(tm, value))
    if t is not None:
        _same(e, t)
    if len(shape) == 2:
        _same(ea.t().masked_fill(em.t(), 7), ta.t().masked_fill(tm.t(), 7))


def _index_cases(mod):
    m = mod.arange(24.0).reshape(4, 6)
    return [
        lambda: m.gather(1, mod.tensor([[0, 5, 1, 1, 2, 0]] * 4)),
        lambda: m.gather(0, mod.tensor([[3, 0, 1, 2, 3, 0]] * 4)),
        lambda: m.gather(-1, mod.tensor([[0, 5]] * 4)),                     # narrower along dim
        lambda: m.gather(1, mod.tensor([[0, 5, 1]] * 2)),                   # smaller block: general path
        lambda: m.t().gather(1, mod.tensor([[0, 3, 1, 1]] * 6)),             # strided input
        lambda: m.gather(1, mod.tensor([[0, 1, 2, 3, 4, 5]] * 4, dtype=mod.int32)),
        lambda: m.gather(1, mod.tensor([[0, -1, 1, 1, 2, 0]] * 4)),          # negative: torch's error
        lambda: m.gather(1, mod.tensor([[0, 6, 1, 1, 2, 0]] * 4)),           # beyond: torch's error
        lambda: m.gather(2, mod.tensor([[0, 1, 1, 1, 2, 0]] * 4)),
        lambda: mod.arange(5).gather(0, mod.tensor([4, 0, 4])),
        lambda: mod.tensor(3.0).gather(0, mod.tensor(0)),
        lambda: m.gather(1, mod.zeros(4, 0, dtype=mod.int64)),
        lambda: m.index_select(0, mod.tensor([3, 0, 3])),
        lambda: m.index_select(-1, mod.tensor([5, 0])),
        lambda: m.t().index_select(1, mod.tensor([1, 2])),
        lambda: m.index_select(0, mod.tensor([1, 2], dtype=mod.int32)),
        lambda: m.index_select(0, mod.tensor([-1])),                        # torch's IndexError
        lambda: m.index_select(0, mod.tensor([4])),
        lambda: m.index_select(2, mod.tensor([0])),
        lambda: m.index_select(0, mod.tensor([], dtype=mod.int64)),
        lambda: mod.tensor([True, False]).index_select(0, mod.tensor([1, 1, 0])),
    ]


def test_gather_and_index_select_match_torch():
    for fe, ft in zip(_index_cases(ember), _index_cases(torch)):
        try:
            t = ft()
        except (RuntimeError, IndexError) as err:
            with pytest.raises(type(err), match=re.escape(str(err)[:25])):
                fe()
            continue
        _same(fe(), t)


def test_gather_and_index_select_record_torch_nodes():
    for mod in (ember, torch):
        m = mod.arange(12.0).reshape(3, 4).requires_grad_()
        g = m.gather(1, mod.tensor([[0, 0, 3, 1]] * 3))
        s = m.index_select(0, mod.tensor([2, 2]))
        assert type(g.grad_fn).__name__ == "GatherBackward0" and type(s.grad_fn).__name__ == "IndexSelectBackward0"
        (g.sum() + s.sum()).backward()
        assert m.grad.tolist() == [[2.0, 1.0, 0.0, 1.0], [2.0, 1.0, 0.0, 1.0], [4.0, 3.0, 2.0, 3.0]]


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5,), (3, 7), (2, 3, 4), (1, 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_mean_over_one_dim_matches_numpy_bits_and_torch(dt, shape, keepdim):
    """mean(dim) of a small float tensor: np.mean's bits (the general path's), torch's shape, dtype, strides."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dt) * 1e3
    x.reshape(-1)[0] = np.nan if x.size > 3 else x.reshape(-1)[0]
    for dim in range(-len(shape), len(shape)):
        e = ember.tensor(x).mean(dim, keepdim)
        t = torch.tensor(x).mean(dim, keepdim)
        assert str(e.dtype) == str(t.dtype).replace("torch.", "ember.") and e.shape == t.shape
        assert e.stride() == t.stride()
        np.testing.assert_array_equal(e.numpy(), np.mean(x, axis=dim, keepdims=keepdim, dtype=x.dtype))
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6)
    for bad in (len(shape), -len(shape) - 1):
        _both(lambda: ember.tensor(x).mean(bad), lambda: torch.tensor(x).mean(bad))


def test_mean_over_one_dim_neighbours_match_torch():
    _both(lambda: ember.arange(4).mean(0), lambda: torch.arange(4).mean(0))        # integer: torch's error
    _same(ember.ones(2, 3, dtype=ember.float16).mean(1), torch.ones(2, 3, dtype=torch.float16).mean(1))
    _same(ember.ones(0, 3).mean(1), torch.ones(0, 3).mean(1))
    _same(ember.ones(2, 0).mean(1), torch.ones(2, 0).mean(1))                      # nan: 0 / 0
    _same(ember.tensor(2.0).mean(0), torch.tensor(2.0).mean(0))
    _same(ember.ones(2, 3).mean([1]), torch.ones(2, 3).mean([1]))
    for mod in (ember, torch):
        w = mod.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
        y = w.mean(-1)
        assert type(y.grad_fn).__name__ == "MeanBackward1" and y.tolist() == [1.5, 4.0]
        y.sum().backward()
        assert w.grad.tolist() == [[0.5, 0.5], [0.5, 0.5]]


@pytest.mark.parametrize("shape", [(3, 4), (3, 1), (1, 4), (2, 3, 4)])
def test_where_of_contiguous_views_matches_torch(shape):
    """Rows of a bigger tensor (contiguous views, `_stride` set) take where's small path unless a dim has size 1."""
    (ea, eb), (ta, tb) = _pair(ember, "float32", (2,) + shape), _pair(torch, "float32", (2,) + shape)
    for i in range(2):
        _same(ember.where(ea[i] > 2, ea[i], eb[i]), torch.where(ta[i] > 2, ta[i], tb[i]))
        if len(shape) == 2:         # a strided other: the general path's strides
            _same(ember.where(ea[i] > 2, ea[i], eb[1 - i].t().contiguous().t()),
                  torch.where(ta[i] > 2, ta[i], tb[1 - i].t().contiguous().t()))
    w = ember.tensor([[1.0, -2.0], [3.0, -4.0]], requires_grad=True)
    h = w * 1.0
    r = h[1]
    y = ember.where(r > 0, r, 0.1 * r)
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [[0.0, 0.0], [1.0, 0.1]], rtol=1e-6)


def test_norm_of_a_vector_and_int_dims_dispatch_as_torch():
    for mod in (ember, torch):
        x = mod.tensor([3.0, 4.0], requires_grad=True)
        n = x.norm()
        assert n.item() == 5.0 and type(n.grad_fn).__name__ == "LinalgVectorNormBackward0"
        n.backward()
        np.testing.assert_allclose(x.grad.numpy(), [0.6, 0.8], rtol=1e-6)
        m = mod.arange(6.0).reshape(2, 3)
        assert m.sum(0).tolist() == [3.0, 5.0, 7.0] and m.sum((0,)).tolist() == [3.0, 5.0, 7.0]
        assert m.amax(-1).tolist() == [2.0, 5.0] and m.norm(dim=1).shape == (2,)


@pytest.mark.parametrize("op", ["neg", "sin", "cos", "tanh"])
@pytest.mark.parametrize("dt", ["float32", "float64", "float16"])
def test_small_unary_paths_keep_numpys_bits_and_torchs_layout(op, dt):
    """neg/sin/cos/tanh of a small contiguous real floating tensor call the ufunc directly (make_unary's
    small_uf): numpy's bits as the general path gave them (signed zeros, NaN signs, infinities), torch's dtype,
    shape and strides; a bool negation keeps torch's error."""
    x = np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, -np.nan, 1e-30, 3e4], dtype=dt).reshape(2, 5)
    e = getattr(ember.tensor(x), op)()
    t = getattr(torch.tensor(x), op)()
    assert str(e.dtype) == str(t.dtype).replace("torch.", "ember.") and e.shape == t.shape and e.stride() == t.stride()
    with np.errstate(all="ignore"):
        ref = getattr(np, {"neg": "negative"}.get(op, op))(x)
    np.testing.assert_array_equal(e.numpy().view(f"u{x.itemsize}"), ref.view(f"u{x.itemsize}"))
    if op == "neg":
        np.testing.assert_array_equal(e.numpy().view(f"u{x.itemsize}"), t.numpy().view(f"u{x.itemsize}"))
        _both(lambda: -ember.tensor([True]), lambda: -torch.tensor([True]))
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=2e-3 if dt == "float16" else 1e-6, atol=1e-7)


def test_small_paths_after_a_view_was_taken_match_torch():
    """A tensor that had a view taken (`m.t()`) keeps explicit strides: the small paths read its layout from
    numpy's flags; transposed and expanded operands stay correct."""
    for mod in (ember, torch):
        m = mod.arange(12.0).reshape(3, 4)
        m.t()
        m.add_(mod.ones(4, 3).t())                     # a strided other
        m.mul_(2.0)
        c = m.clamp(4.0, 10.0)
        g = m.gather(1, mod.tensor([[3, 0, 1, 1]] * 3))
        e = mod.ones(3, 4)
        e.add_(mod.tensor([1.0, 2.0, 3.0, 4.0]).expand(3, 4))
        out = [m.tolist(), c.tolist(), c.stride(), g.tolist(), e.tolist()]
        if mod is ember:
            got = out
        else:
            assert got == out
    x = ember.ones(4)
    with pytest.raises(RuntimeError, match="unsupported operation"):
        x.expand(3, 4).add_(1.0)                     # internal overlap: torch's error


def test_tensor_list_and_int_dim_direct_calls_are_still_seen_by_modes():
    """cat/stack (a Tensor[] argument) and `x.mean(-1)` (an int dim) call their kernels from the dispatch cache in
    the bindings; a dispatch mode still sees each op, as in torch."""
    from ember.utils._python_dispatch import TorchDispatchMode
    from torch.utils._python_dispatch import TorchDispatchMode as TMode

    def run(mod, mode_cls):
        seen = []

        class Log(mode_cls):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.append(str(func))
                return func(*args, **(kwargs or {}))

        a, b = mod.ones(2, 3), mod.zeros(2, 3)
        with Log():
            mod.cat([a, b])
            mod.stack((a, b), 1)
            a.mean(-1)
            a.sum(0)
        return seen

    assert run(ember, TorchDispatchMode) == run(torch, TMode)
