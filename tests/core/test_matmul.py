"""mm, bmm, mv, dot, matmul, addmm vs torch: values, dtypes, shapes, strides, errors; meta agrees with cpu."""
import numpy as np
import pytest

import ember

CASES = [
    ("mm", (2, 3), (3, 4)), ("mm", (2, 3), (4, 5)), ("mm", (2, 3), (3,)), ("mm", (3,), (3, 2)), ("mm", (0, 3), (3, 2)),
    ("mm", (2, 0), (0, 3)),
    ("bmm", (2, 3, 4), (2, 4, 5)), ("bmm", (2, 3, 4), (2, 5, 6)), ("bmm", (2, 3, 4), (3, 4, 6)), ("bmm", (3, 4), (3, 4, 6)),
    ("mv", (2, 3), (3,)), ("mv", (2, 3), (4,)), ("mv", (2, 3), (3, 1)),
    ("dot", (3,), (3,)), ("dot", (3,), (4,)), ("dot", (3, 1), (3,)), ("dot", (0,), (0,)),
    ("matmul", (3,), (3,)), ("matmul", (2, 3), (3,)), ("matmul", (3,), (3, 2)), ("matmul", (2, 3), (3, 4)),
    ("matmul", (5, 2, 3), (3, 4)), ("matmul", (3,), (5, 3, 4)), ("matmul", (5, 2, 3), (3,)),
    ("matmul", (5, 1, 2, 3), (4, 3, 2)), ("matmul", (5, 2, 3), (4, 3, 2)), ("matmul", (), (2,)), ("matmul", (3,), (4,)),
    ("matmul", (2, 3), (4,)), ("matmul", (3,), (4, 2)), ("matmul", (2, 3), (4, 5)), ("matmul", (2, 2, 3), (2, 4, 5)),
    ("matmul", (1, 2, 3), (7, 3, 1)), ("matmul", (0, 2, 3), (3, 4)),
]
DTYPES = ["float32", "float64", "int64", "int32", "float16", "bool"]


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return np.asarray(rng.integers(-3, 4, shape), dtype=dtype)


def _run(fn):
    try:
        return fn(), None
    except Exception as e:   # noqa: BLE001
        return None, type(e)


def check(torch, name, a, b, *rest):
    t_res, t_err = _run(lambda: getattr(torch, name)(*[torch.from_numpy(x.copy()) for x in (a, b)], *rest))
    e_res, e_err = _run(lambda: getattr(ember, name)(ember.from_numpy(a.copy()), ember.from_numpy(b.copy()), *rest))
    m_res, m_err = _run(lambda: getattr(ember, name)(*[ember.empty(x.shape, dtype=ember.from_numpy(x).dtype,
                                                                   device="meta") for x in (a, b)], *rest))
    if t_err is not None:
        assert e_err is t_err and m_err is t_err, (t_err, e_err, m_err)
        return
    assert e_err is None and m_err is None, (e_err, m_err)
    assert e_res.shape == tuple(t_res.shape) == m_res.shape
    assert e_res.dtype.name == str(t_res.dtype)[6:] == m_res.dtype.name
    assert e_res.stride() == t_res.stride() == m_res.stride()
    np.testing.assert_allclose(e_res.numpy().astype(np.float64), t_res.numpy().astype(np.float64), rtol=1e-3)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}{c[1]}{c[2]}")
def test_parity(torch, case, dtype):
    name, sa, sb = case
    check(torch, name, _data(sa, dtype, 0), _data(sb, dtype, 1))


@pytest.mark.parity
@pytest.mark.parametrize("name", ["mm", "matmul"])
def test_parity_mixed_dtypes(torch, name):
    check(torch, name, _data((2, 3), "float32", 0), _data((3, 2), "float64", 1))
    check(torch, name, _data((2, 3), "float32", 0), _data((3, 2), "int64", 1))


@pytest.mark.parity
@pytest.mark.parametrize("shape", [(4,), (1, 4), (2, 4), (3,), (2, 1)])
@pytest.mark.parametrize("ba", [(1, 1), (0.5, 2), (0, 1)])
def test_parity_addmm(torch, shape, ba):
    beta, alpha = ba
    s, m1, m2 = (_data(x, "float32", i) for i, x in enumerate([shape, (2, 3), (3, 4)]))
    t_res, t_err = _run(lambda: torch.addmm(*(torch.from_numpy(x) for x in (s, m1, m2)), beta=beta, alpha=alpha))
    e_res, e_err = _run(lambda: ember.addmm(*(ember.from_numpy(x) for x in (s, m1, m2)), beta=beta, alpha=alpha))
    assert t_err is e_err
    if t_err is None:
        assert e_res.shape == tuple(t_res.shape) and e_res.stride() == t_res.stride()
        np.testing.assert_allclose(e_res.numpy(), t_res.numpy(), rtol=1e-5)


@pytest.mark.parity
def test_parity_noncontiguous(torch):
    a = _data((4, 3), "float32", 0)
    b = _data((4, 5), "float32", 1)
    check(torch, "mm", a.T, b)
    check(torch, "matmul", a.T, b[:, ::2])


def test_error_messages():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        ember.mm(ember.ones(2, 3), ember.ones(4, 5))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        ember.matmul(ember.ones(2, 3), ember.ones(4, 5))
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D"):
        ember.matmul(ember.ones(()), ember.ones(2))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: float != double"):
        ember.ones(2, 2).mm(ember.ones(2, 2, dtype=ember.float64))


def test_methods():
    a = ember.ones(2, 3)
    assert a.mm(ember.ones(3, 1)).shape == (2, 1)
    assert a.matmul(ember.ones(3)).shape == (2,)
    assert a.mv(ember.ones(3)).numpy().tolist() == [3, 3]
    assert ember.ones(3).dot(ember.ones(3)).item() == 3


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_small_mm_is_matmul_bit_for_bit_on_every_layout(dtype):
    # the 2-D fast path calls ndarray.dot: for operands BLAS takes as they are (C or Fortran order) the same BLAS
    # calls as np.matmul, so the same bits, x @ x.T included. An operand with a non-unit inner stride is copied by
    # one and looped over by the other, whose summation order depends on the CPU's vector width (an AVX-only
    # machine differs in the last bit for a one-row product): there the result agrees to a few ulps.
    rng = np.random.default_rng(0)
    strided = lambda x: np.repeat(x, 2, 1)[:, ::2]  # noqa: E731
    layouts = [lambda x: x, np.asfortranarray, strided]
    for m, k, n in [(8, 8, 8), (1, 5, 3), (17, 33, 9), (3, 0, 4)]:
        a, b = rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)
        for la in layouts:
            for lb in layouts:
                x, y = la(a), lb(b)
                want = np.matmul(x, y)
                for got in (ember.from_numpy(x) @ ember.from_numpy(y), ember.mm(ember.from_numpy(x), ember.from_numpy(y))):
                    if la is strided or lb is strided:
                        np.testing.assert_allclose(got.numpy(), want, rtol=8 * np.finfo(dtype).eps, atol=8 * np.finfo(dtype).eps)
                    else:
                        assert got.numpy().tobytes() == want.tobytes()
        x = ember.from_numpy(a)
        assert (x @ x.t()).numpy().tobytes() == np.matmul(a, a.T).tobytes()
