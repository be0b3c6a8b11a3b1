"""Reductions beyond the OpInfo test: bincount weights and histc, sum's dtype=, vector_norm's orders and empty inputs
against torch (tools/mutate.py found the gaps: a mutant of sum's no-dtype fast path and one of vector_norm's
ord=0 count survived every op-db test); torch.hash_tensor's values, dtypes and errors."""
import numpy as np
import pytest
import ember


@pytest.mark.parity
def test_bincount_weights_and_histc_parity():
    torch = pytest.importorskip("torch")
    i, w = np.array([0, 2, 2, 5]), np.array([0.5, 1.0, 2.0, 3.0], np.float32)
    r = ember.bincount(ember.from_numpy(i), ember.from_numpy(w), minlength=8)
    t = torch.bincount(torch.from_numpy(i), torch.from_numpy(w), minlength=8)
    assert r.dtype.name == str(t.dtype)[6:]
    np.testing.assert_array_equal(r.numpy(), t.numpy())
    x = np.array([0.0, 1.0, 1.0, 2.0, 3.0, 10.0], np.float32)
    np.testing.assert_array_equal(ember.histc(ember.from_numpy(x), 4, 0, 3).numpy(), torch.histc(torch.from_numpy(x), 4, 0, 3).numpy())


@pytest.mark.parity
@pytest.mark.parametrize("src,dst", [("float32", "float64"), ("float64", "float32"), ("int64", "float32"),
                                     ("float32", "int64")])
def test_sum_dtype_matches_torch(src, dst):
    """sum(x, dtype=...) of a whole float tensor must not take the no-dtype fast path."""
    torch = pytest.importorskip("torch")
    x = (np.arange(12).reshape(3, 4) * 0.37 - 1.5).astype(src)
    for dim in (None, 1):
        r = ember.sum(ember.from_numpy(x.copy()), dim=dim, dtype=getattr(ember, dst))
        t = torch.sum(torch.from_numpy(x.copy()), dim=dim, dtype=getattr(torch, dst))
        assert r.dtype.name == dst == str(t.dtype)[6:]
        np.testing.assert_allclose(r.numpy(), t.numpy(), rtol=1e-6)


@pytest.mark.parity
@pytest.mark.parametrize("ord", [float("inf"), float("-inf"), 2.0])
@pytest.mark.parametrize("shape,dim", [((0, 3), 1), ((0, 3), 0), ((0, 3), None), ((2, 0), 0), ((2, 0), 1)])
def test_vector_norm_of_empty_matches_torch(shape, dim, ord):
    """An infinity norm over an empty dimension has no identity (RuntimeError); over a non-empty one it is an
    empty result."""
    torch = pytest.importorskip("torch")
    x = np.zeros(shape, np.float32)
    try:
        want = torch.linalg.vector_norm(torch.from_numpy(x), ord, dim)
    except RuntimeError:
        with pytest.raises(RuntimeError, match="does not have an identity"):
            ember.linalg.vector_norm(ember.from_numpy(x), ord, dim)
        return
    got = ember.linalg.vector_norm(ember.from_numpy(x), ord, dim)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parity
@pytest.mark.parametrize("ord", [0, 0.5, 1, 2, 3.5, float("inf"), float("-inf")])
def test_vector_norm_orders_match_torch(ord):
    """Every order, with zeros in the input (ord=0 counts the nonzeros)."""
    torch = pytest.importorskip("torch")
    x = np.where(np.arange(20).reshape(4, 5) % 3 == 0, 0.0, np.linspace(-2.0, 3.0, 20).reshape(4, 5)).astype(np.float64)
    for dim in (None, 0, 1, (0, 1)):
        got = ember.linalg.vector_norm(ember.from_numpy(x.copy()), ord, dim)
        want = torch.linalg.vector_norm(torch.from_numpy(x.copy()), ord, dim)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, err_msg=f"ord={ord} dim={dim}")


@pytest.mark.parity
@pytest.mark.parametrize("args", [(0, 0, 1.0), (-1, 0, 1.0), (2, 0, -1), (2, 2, 1.0)])
def test_renorm_refuses_like_torch(args):
    torch = pytest.importorskip("torch")
    for x in (lambda m: m.ones(3, 4), lambda m: m.ones(3), lambda m: m.ones(3, 4, dtype=m.int64)):
        got = []
        for m in (ember, torch):
            try:
                m.renorm(x(m), *args)
                got.append(None)
            except Exception as e:  # noqa: BLE001  (the exception is what is compared)
                got.append((type(e).__name__, str(e)))
        assert got[0] == got[1], (args, got)


_HASH_CASES = [
    lambda L: L.hash_tensor(L.tensor([[1.5, -2.0, 3.0], [0.0, -0.0, float("nan")]])),
    lambda L: L.hash_tensor(L.tensor([[1.5, -2.0, 3.0], [0.0, -0.0, float("inf")]]), 0),
    lambda L: L.hash_tensor(L.tensor([[1.5, -2.0, 3.0], [0.0, -0.0, 4.0]]), [0, 1], keepdim=True),
    lambda L: L.tensor([[1.5, -2.0, 3.0], [0.0, -0.0, 4.0]]).hash_tensor(1, keepdim=True),
    lambda L: L.hash_tensor(L.tensor([[1.5, -2.0, 3.0], [0.1, -0.0, 4.0]]).half(), 1),
    lambda L: L.hash_tensor(L.tensor([[1.5, -2.0, 3.0], [0.1, -0.0, 4.0]]).bfloat16(), -1),
    lambda L: L.hash_tensor(L.tensor([[1.5, -2.0, 3.0], [0.1, -0.0, 4.0]], dtype=L.float32), -1),
    lambda L: L.hash_tensor(L.tensor([-1, 2, -7], dtype=L.int8)),
    lambda L: L.hash_tensor(L.tensor([-1, 2, 1 << 40], dtype=L.int64)),
    lambda L: L.hash_tensor(L.tensor([255, 2], dtype=L.uint8)),
    lambda L: L.hash_tensor(L.tensor([True, False, True])),
    lambda L: L.hash_tensor(L.tensor(3.0)),
    lambda L: L.hash_tensor(L.tensor(3.0), 0),
    lambda L: L.hash_tensor(L.empty(2, 0), 0),
    lambda L: L.hash_tensor(L.arange(24.0).reshape(2, 3, 4).transpose(0, 2), [0, 2]),
    lambda L: L.hash_tensor(L.ones(2, 3), out=L.empty(0, dtype=L.uint64)),
    lambda L: L.hash_tensor(L.tensor([1.5], requires_grad=True)).requires_grad,
    # errors
    lambda L: L.hash_tensor(L.tensor([1 + 2j])),
    lambda L: L.hash_tensor(L.tensor([5], dtype=L.uint64)),
    lambda L: L.hash_tensor(L.tensor([1.0]), mode=1),
    lambda L: L.hash_tensor(L.empty(0)),
    lambda L: L.hash_tensor(L.empty(2, 0), 1),
    lambda L: L.hash_tensor(L.ones(2, 3), 2),
    lambda L: L.hash_tensor(L.ones(2, 3), out=L.empty(0, dtype=L.int64)),
]


@pytest.mark.parity
@pytest.mark.parametrize("case", range(len(_HASH_CASES)))
def test_hash_tensor_matches_torch(case):
    """torch.hash_tensor (mode 0): the XOR of the 64-bit patterns (floats widened to float64, integers and bool
    to int64) over the reduced dims, as uint64; its dtype coverage and errors."""
    torch = pytest.importorskip("torch")

    def run(L):
        try:
            r = _HASH_CASES[case](L)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
        if isinstance(r, bool):
            return r
        return r.numpy().tolist(), str(r.dtype).split(".")[-1], tuple(r.shape)

    assert run(ember) == run(torch)


TRAPEZOID = [
    lambda t, y: t.trapezoid(y),
    lambda t, y: t.trapezoid(y, dx=0.25, dim=0),
    lambda t, y: t.trapz(y, dx=2),
    lambda t, y: t.trapz(y, t.tensor([0.0, 0.5, 2.0, 2.5])),
    lambda t, y: t.trapezoid(y, t.tensor([0.0, 0.5, 2.0, 2.5]), dim=-1),
    lambda t, y: t.trapezoid(y, t.tensor([[0.0, 1.0, 1.5, 4.0], [0.0, 2.0, 2.5, 3.0], [1.0, 1.5, 2.0, 2.5]])),
    lambda t, y: t.trapezoid(y, t.tensor([0.0, 1.0, 3.0]), dim=0),
    lambda t, y: t.trapezoid(y[:, :1]),
    lambda t, y: t.trapezoid(y[:, :0]),
    lambda t, y: t.trapezoid(y[:, :0], t.ones(0)),
]


@pytest.mark.parity
@pytest.mark.parametrize("i", range(len(TRAPEZOID)))
def test_trapezoid_values_and_gradients_match_torch(i):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(0).standard_normal((3, 4))
    res = []
    for lib in (ember, torch):
        y = lib.tensor(data, requires_grad=True)
        out = TRAPEZOID[i](lib, y)
        if out.requires_grad:
            (out * lib.arange(1.0, out.numel() + 1, dtype=out.dtype).reshape(out.shape)).sum().backward()
        res.append((tuple(out.shape), str(out.dtype).split(".")[-1], out.detach().numpy(),
                    None if y.grad is None else y.grad.numpy()))
    assert res[0][:2] == res[1][:2]
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-12)
    assert (res[0][3] is None) == (res[1][3] is None)
    if res[1][3] is not None:
        np.testing.assert_allclose(res[0][3], res[1][3], rtol=1e-12)


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda t: t.trapezoid(t.tensor([1, 4, 9, 16])),
    lambda t: t.trapezoid(t.tensor([1, 4, 9]), t.tensor([0, 1, 3])),
    lambda t: t.trapezoid(t.tensor([True, False])),
    lambda t: t.trapezoid(t.ones(3), t.tensor([True, False, True])),
    lambda t: t.trapezoid(t.ones(3), t.ones(2)),
    lambda t: t.trapezoid(t.ones(3), dx=1j),
])
def test_trapezoid_dtypes_and_errors_match_torch(call):
    torch = pytest.importorskip("torch")
    res = []
    for lib in (ember, torch):
        try:
            r = call(lib)
            res.append((str(r.dtype).split(".")[-1], r.numpy().tolist()))
        except RuntimeError as e:
            res.append(str(e))
    assert res[0] == res[1]


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    "A.Scalar(x, 2)", "A.ScalarOpt_dim(x, 2., [0])", "A.ScalarOpt_dtype(x, 2., dtype=L.float32)",
    "A.ScalarOpt_dim_dtype(x, 2., [0], False, dtype=L.float32)", "A.out(x, 2., [0], out=L.empty(0))", "L.norm(x)",
    "x.norm(2, 0)", "L.frobenius_norm(x.reshape(2, 2), [0, 1])", "L.norm(x, 'fro')"])
def test_norm_of_integers_raises_torch_message(call):
    """The norm overloads without dtype= (frobenius_norm goes through one) say norm(); the others
    linalg.vector_norm."""
    import warnings
    torch = pytest.importorskip("torch")
    got = []
    for L in (torch, ember):
        with pytest.raises(RuntimeError) as e, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            eval(call, {"A": L.ops.aten.norm, "L": L, "x": L.arange(4)})
        got.append(str(e.value).split("\n")[0])
    assert got[0] == got[1]


@pytest.mark.parity
@pytest.mark.filterwarnings("ignore:at::frobenius_norm is deprecated")
@pytest.mark.parametrize("call", ["L.frobenius_norm(x, 0)", "L.frobenius_norm(x, dim=1, keepdim=True)",
                                  "L.frobenius_norm(x, (0,))", "L.frobenius_norm(x, [0, 1])",
                                  "L.frobenius_norm(x, 0, out=L.empty(3))"])
def test_frobenius_norm_takes_a_lone_int_dim_like_torch(call):
    """frobenius_norm's `int[1] dim` takes a lone int, as every sized int list does."""
    torch = pytest.importorskip("torch")
    got = []
    for L in (ember, torch):
        x = L.tensor([[3.0, 4.0, 0.0], [1.0, 2.0, 2.0]])
        r = eval(call)
        got.append((tuple(r.shape), r.tolist()))
    assert got[0] == got[1]
