"""The LU / LDL family, geqrf, vdot, isclose/allclose, tensorinv/tensorsolve: factor values and pivots equal to
torch's (LAPACK's conventions), the numpy loops against scipy's LAPACK path, errors like torch's, gradients
against torch's, and the algebraic identities (P L U = A, L D L^T = A, solves) without torch."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck
from ember.kernels.cpu import linalg_lu as K


def E(a):
    return ember.from_numpy(np.array(a, copy=True))


def _torch():
    return pytest.importorskip("torch")


def T(a):
    return _torch().from_numpy(np.array(a, copy=True))


def rnd(shape, seed=0, dtype="float64", complex_=False):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if complex_:
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype if not complex_ else ("complex128" if dtype == "float64" else "complex64"))


def sym(shape, seed=0, herm=False, complex_=False):
    a = rnd(shape, seed, complex_=complex_)
    at = np.swapaxes(a, -1, -2)
    return a + (at.conj() if herm else at)


@pytest.fixture(params=[False, True], ids=["numpy", "scipy"])
def lapack_path(request):
    """Run with the numpy loops, or with scipy's LAPACK for every size (skipped when scipy is missing)."""
    if request.param:
        pytest.importorskip("scipy")
    prev, prev_min = K.use_scipy(request.param), K.SCIPY_MIN_N
    K.SCIPY_MIN_N = 0
    yield request.param
    K.use_scipy(prev)
    K.SCIPY_MIN_N = prev_min


def assert_same(got, want, atol=1e-10, rtol=1e-7):
    """ember vs torch tensors: shape, dtype, strides (when > 1 element) and values."""
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape)
        assert g.dtype.name == str(w.dtype)[6:]
        if g.numel() > 1:
            assert g.stride() == w.stride()
        np.testing.assert_allclose(g.numpy(), w.resolve_conj().numpy(), atol=atol, rtol=rtol)


# ---------------------------------------------------------------- LU factorization
LU_SHAPES = [(3, 3), (2, 4, 4), (5, 3), (2, 3, 6), (1, 1), (0, 3, 3), (2, 0, 3), (3, 40, 40)]


@pytest.mark.parity
@pytest.mark.parametrize("shape", LU_SHAPES, ids=str)
@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
def test_lu_factor_ex_matches_torch(shape, complex_, lapack_path):
    torch = _torch()
    a = rnd(shape, 1, complex_=complex_)
    assert_same(ember.linalg.lu_factor_ex(E(a)), torch.linalg.lu_factor_ex(T(a)), atol=1e-9)
    assert_same(ember.linalg.lu(E(a)), torch.linalg.lu(T(a)), atol=1e-9)


@pytest.mark.parity
def test_lu_float32_matches_torch():
    torch = _torch()
    a = rnd((2, 5, 5), 2, "float32")
    assert_same(ember.linalg.lu_factor(E(a)), torch.linalg.lu_factor(T(a)), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (6, 3), (2, 3, 7)], ids=str)
def test_plu_reconstructs_a(shape, lapack_path):
    a = rnd(shape, 3)
    P, L, U = ember.linalg.lu(E(a))
    np.testing.assert_allclose((P.numpy() @ L.numpy()) @ U.numpy(), a, atol=1e-12)
    k = min(shape[-2:])
    assert np.all(np.abs(np.diagonal(L.numpy(), 0, -2, -1)) == 1) and np.allclose(np.triu(L.numpy(), 1), 0)
    assert np.allclose(np.tril(U.numpy(), -1), 0) and L.shape[-1] == k == U.shape[-2]
    # partial pivoting: every multiplier is at most 1 in magnitude
    assert np.abs(L.numpy()).max() <= 1 + 1e-12


def test_numpy_and_scipy_paths_agree():
    pytest.importorskip("scipy")
    a = rnd((3, 50, 50), 4)
    prev = K.use_scipy(False)
    try:
        slow = ember.linalg.lu_factor_ex(E(a))
    finally:
        K.use_scipy(prev)
    fast = ember.linalg.lu_factor_ex(E(a))
    np.testing.assert_array_equal(slow.pivots.numpy(), fast.pivots.numpy())
    np.testing.assert_allclose(slow.LU.numpy(), fast.LU.numpy(), atol=1e-10)


@pytest.mark.parity
def test_singular_info_and_errors_match_torch():
    torch = _torch()
    s = np.array([[1.0, 2, 3], [2, 4, 6], [1, 1, 1]])
    assert_same(ember.linalg.lu_factor_ex(E(s)), torch.linalg.lu_factor_ex(T(s)))
    batch = np.stack([np.eye(3) * 2, s])
    got = ember.linalg.lu_factor_ex(E(batch))
    assert got.info.tolist() == torch.linalg.lu_factor_ex(T(batch)).info.tolist() == [0, 3]
    for fn, name in ((lambda x: ember.linalg.lu_factor(x), "lu_factor"),
                     (lambda x: ember.linalg.lu_factor_ex(x, check_errors=True), "lu_factor_ex")):
        with pytest.raises(RuntimeError) as e:
            fn(E(batch))
        with pytest.raises(RuntimeError) as t:
            getattr(torch.linalg, name)(T(batch), **({"check_errors": True} if name.endswith("ex") else {}))
        assert str(e.value) == str(t.value)
        assert "(Batch element 1): U[3,3] is zero" in str(e.value)
    P, L, U = ember.linalg.lu(E(s))                    # linalg.lu never raises
    np.testing.assert_allclose(P.numpy() @ L.numpy() @ U.numpy(), s, atol=1e-12)


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda m, x: m.linalg.lu_factor(x, pivot=False),
    lambda m, x: m.linalg.lu(x, pivot=False),
    lambda m, x: m.linalg.lu_factor(x[0, 0]),
    lambda m, x: m.linalg.lu(x[0, 0]),
    lambda m, x: m.linalg.lu_factor(x.to(m.int64)),
])
def test_lu_errors_match_torch(call):
    torch = _torch()
    a = rnd((2, 3, 3), 5)
    with pytest.raises(Exception) as t:
        call(torch, T(a))
    with pytest.raises(Exception) as e:
        call(ember, E(a))
    assert type(e.value) is type(t.value)
    assert str(e.value) == str(t.value)


def test_pivot_false_raises_on_meta_too():
    with pytest.raises(RuntimeError, match="without pivoting"):
        ember.linalg.lu_factor_ex(ember.empty(3, 3, device="meta"), pivot=False)


@pytest.mark.parametrize("shape", [(3, 3), (2, 5, 4), (0, 2, 2)], ids=str)
def test_meta_matches_cpu(shape):
    a = rnd(shape, 6)
    for fn in (ember.linalg.lu_factor_ex, ember.linalg.lu, ember.linalg.ldl_factor_ex if shape[-1] == shape[-2]
               else ember.geqrf):
        cpu = fn(E(a))
        meta = fn(ember.empty_strided(shape, E(a).stride(), dtype=ember.float64, device="meta"))
        for c, m in zip(cpu, meta):
            assert (tuple(c.shape), c.dtype) == (tuple(m.shape), m.dtype) and m.device.type == "meta"
            if c.numel() > 1:
                assert c.stride() == m.stride()


# ---------------------------------------------------------------- lu_unpack
@pytest.mark.parity
@pytest.mark.parametrize("shape", [(3, 3), (2, 5, 3), (3, 6)], ids=str)
def test_lu_unpack_matches_torch(shape):
    torch = _torch()
    LU, piv = torch.linalg.lu_factor(T(rnd(shape, 7)))
    for ud in (True, False):
        for up in (True, False):
            assert_same(ember.lu_unpack(E(LU.numpy()), E(piv.numpy()), ud, up), torch.lu_unpack(LU, piv, ud, up))


@pytest.mark.parity
def test_lu_unpack_errors_match_torch():
    torch = _torch()
    LU, piv = torch.linalg.lu_factor(T(rnd((2, 3, 3), 8)))
    for p in (piv.long(), piv * 0, piv * 0 + 7):
        with pytest.raises(RuntimeError) as t:
            torch.lu_unpack(LU, p)
        with pytest.raises(RuntimeError) as e:
            ember.lu_unpack(E(LU.numpy()), E(p.numpy()))
        assert str(e.value) == str(t.value)
    with pytest.raises(RuntimeError, match="LU_pivots.shape"):       # torch reads out of bounds; ember refuses
        ember.lu_unpack(E(LU.numpy()), E(piv.numpy()[:, :2]))


# ---------------------------------------------------------------- lu_solve
def _op(a, adjoint):
    return np.swapaxes(a, -1, -2).conj() if adjoint else a


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
def test_lu_solve_solves(left, adjoint, complex_):
    a = rnd((2, 4, 4), 9, complex_=complex_) + 3 * np.eye(4)
    b = rnd((3, 1, 4, 2) if left else (3, 1, 2, 4), 10, complex_=complex_)
    LU, piv = ember.linalg.lu_factor(E(a))
    x = ember.linalg.lu_solve(LU, piv, E(b), left=left, adjoint=adjoint).numpy()
    assert x.shape == b.shape[:1] + (2,) + b.shape[2:]
    got = _op(a, adjoint) @ x if left else x @ _op(a, adjoint)
    np.testing.assert_allclose(got, np.broadcast_to(b, got.shape), atol=1e-10)


@pytest.mark.parity
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_matches_torch(left, adjoint):
    torch = _torch()
    LU, piv = torch.linalg.lu_factor(T(rnd((2, 3, 3), 11)))
    b = rnd((4, 1, 3, 2) if left else (4, 1, 2, 3), 12)
    assert_same(ember.linalg.lu_solve(E(LU.numpy()), E(piv.numpy()), E(b), left=left, adjoint=adjoint),
                torch.linalg.lu_solve(LU, piv, T(b), left=left, adjoint=adjoint))


@pytest.mark.parity
def test_lu_solve_errors_match_torch():
    torch = _torch()
    LU, piv = torch.linalg.lu_factor(T(rnd((2, 3, 3), 13)))
    B = T(rnd((2, 3, 2), 14))
    cases = [(LU, piv.long(), B, {}), (LU, piv, B.float(), {}), (LU, piv, T(rnd((2, 4, 2))), {}),
             (LU, piv, T(rnd((2, 4, 2))), {"left": False}), (T(rnd((4, 3))), piv[0], B[0], {}),
             (LU, piv[:, :2], B, {}), (LU, piv[:1], B, {}), (LU, piv, T(rnd((2, 3))), {}),
             (LU, piv[0, 0], B, {}), (LU[0, 0], piv, B, {}), (LU, piv, B[0, 0], {})]
    for lu, p, b, kw in cases:
        with pytest.raises(Exception) as t:
            torch.linalg.lu_solve(lu, p, b, **kw)
        with pytest.raises(Exception) as e:
            ember.linalg.lu_solve(E(lu.numpy()), E(p.numpy()), E(b.numpy()), **kw)
        assert type(e.value) is type(t.value)
        assert str(e.value) == str(t.value)


def test_lu_solve_singular_gives_inf_not_error():
    s = np.array([[1.0, 2], [2, 4]])
    LU, piv, info = ember.linalg.lu_factor_ex(E(s))
    assert info.item() == 2
    x = ember.linalg.lu_solve(LU, piv, E(np.ones((2, 1)))).numpy()
    assert not np.isfinite(x).all()


@pytest.mark.parity
def test_legacy_lu_and_lu_solve_match_torch():
    torch = _torch()
    a, b = rnd((2, 3, 3), 15), rnd((2, 3, 2), 16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(ember.lu(E(a)), torch.lu(T(a)))
        assert_same(ember.lu(E(a), get_infos=True), torch.lu(T(a), get_infos=True))
        s = np.array([[1.0, 2], [2, 4]])
        assert_same(ember.lu(E(s), get_infos=True), torch.lu(T(s), get_infos=True))   # no error on singular
        LU, piv = torch.lu(T(a))
        assert_same(ember.lu_solve(E(b), E(LU.numpy()), E(piv.numpy())), torch.lu_solve(T(b), LU, piv))
        assert_same(E(b).lu_solve(E(LU.numpy()), E(piv.numpy())), torch.lu_solve(T(b), LU, piv))
        assert_same(E(a).lu(), T(a).lu())                                              # Tensor.lu
        assert_same(E(s).lu(pivot=True, get_infos=True), T(s).lu(pivot=True, get_infos=True))
    with pytest.warns(UserWarning, match="torch.lu is deprecated"):
        ember.lu(E(a))
    with pytest.warns(UserWarning, match="torch.lu_solve is deprecated"):
        ember.lu_solve(E(b), *ember.linalg.lu_factor(E(a)))


# ---------------------------------------------------------------- gradients
def _req(a):
    return ember.tensor(a.tolist(), dtype=ember.float64, requires_grad=True)


def _grads_both(f_e, f_t, arrays, seed=0):
    """ember's and torch's grads of sum(<out_i, v_i>) for fixed random cotangents v_i."""
    torch = _torch()
    te = [_req(a) for a in arrays]
    tt = [torch.tensor(a, requires_grad=True) for a in arrays]
    oe, ot = f_e(*te), f_t(*tt)
    oe = oe if isinstance(oe, tuple) else (oe,)
    ot = ot if isinstance(ot, tuple) else (ot,)
    rng = np.random.default_rng(seed)
    vs = [rng.standard_normal(tuple(o.shape)) for o in ot]
    sum((o * ember.from_numpy(v)).sum() for o, v in zip(oe, vs)).backward()
    sum((o * torch.from_numpy(v)).sum() for o, v in zip(ot, vs)).backward()
    return [t.grad.numpy() for t in te], [t.grad.numpy() for t in tt]


@pytest.mark.parity
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (5, 3), (3, 5), (2, 2, 4)], ids=str)
def test_lu_grads_match_torch(shape):
    torch = _torch()
    a = rnd(shape, 17)
    for fe, ft in ((lambda x: tuple(ember.linalg.lu(x)[1:]), lambda x: tuple(torch.linalg.lu(x)[1:])),
                   (lambda x: ember.linalg.lu(x)[1], lambda x: torch.linalg.lu(x)[1]),
                   (lambda x: ember.linalg.lu(x)[2], lambda x: torch.linalg.lu(x)[2]),
                   (lambda x: ember.linalg.lu_factor(x)[0], lambda x: torch.linalg.lu_factor(x)[0]),
                   (lambda x: tuple(ember.lu_unpack(*ember.linalg.lu_factor(x))[1:]),
                    lambda x: tuple(torch.lu_unpack(*torch.linalg.lu_factor(x))[1:]))):
        ge, gt = _grads_both(fe, ft, [a])
        np.testing.assert_allclose(ge[0], gt[0], atol=1e-9, rtol=1e-7)


@pytest.mark.parity
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_grads_match_torch(left, adjoint):
    torch = _torch()
    lu = rnd((2, 3, 3), 18) + 3 * np.eye(3)
    piv = np.array([[2, 3, 3], [3, 2, 3]], np.int32)
    b = rnd((4, 1, 3, 2) if left else (4, 1, 2, 3), 19)
    ge, gt = _grads_both(
        lambda x, y: ember.linalg.lu_solve(x, E(piv), y, left=left, adjoint=adjoint),
        lambda x, y: torch.linalg.lu_solve(x, torch.from_numpy(piv), y, left=left, adjoint=adjoint), [lu, b])
    for g, w in zip(ge, gt):
        np.testing.assert_allclose(g, w, atol=1e-9, rtol=1e-7)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)], ids=str)
def test_lu_gradcheck_and_gradgradcheck(shape):
    a = _req(rnd(shape, 20))
    f = lambda x: tuple(ember.linalg.lu(x)[1:])  # noqa: E731
    assert gradcheck(f, [a], raise_exception=True)
    assert gradgradcheck(f, [a], raise_exception=True)


def test_lu_solve_gradgradcheck_all_forms():
    piv = E(np.array([3, 3, 3], np.int32))
    for left in (True, False):
        for adjoint in (False, True):
            f = lambda x, y: ember.linalg.lu_solve(x, piv, y, left=left, adjoint=adjoint)  # noqa: E731
            ins = [_req(rnd((3, 3), 21) + 3 * np.eye(3)), _req(rnd((3, 2) if left else (2, 3), 22))]
            assert gradcheck(f, ins, raise_exception=True)
            assert gradgradcheck(f, ins, raise_exception=True)


def test_pivots_and_info_carry_no_grad():
    LU, piv, info = ember.linalg.lu_factor_ex(_req(rnd((3, 3), 23)))
    assert LU.requires_grad and not piv.requires_grad and not info.requires_grad
    P, L, U = ember.linalg.lu(_req(rnd((3, 3), 23)))
    assert not P.requires_grad and L.requires_grad and U.requires_grad


# ---------------------------------------------------------------- LDL
def _ldl_cases():
    out = []
    for n in (3, 5, 8, 12, 40):
        for trial in range(3):
            a = sym((n, n), 100 * n + trial)
            a[0, 0] = 0.01 * trial             # small (1,1) entries force 2x2 pivots
            out.append(pytest.param(a, id=f"n{n}-{trial}"))
    return out


@pytest.mark.parity
@pytest.mark.parametrize("a", _ldl_cases())
def test_ldl_factor_matches_torch(a, lapack_path):
    torch = _torch()
    assert_same(ember.linalg.ldl_factor_ex(E(a)), torch.linalg.ldl_factor_ex(T(a)), atol=1e-9)


def test_ldl_cases_exercise_2x2_pivots_and_interchanges():
    pivs = [ember.linalg.ldl_factor(E(p.values[0]))[1].numpy() for p in _ldl_cases()]
    assert any((p < 0).any() for p in pivs)
    assert any((p != np.arange(1, p.size + 1)).any() for p in pivs)


@pytest.mark.parity
@pytest.mark.parametrize("herm", [True, False], ids=["hermitian", "symmetric"])
@pytest.mark.parametrize("n", [4, 7])
def test_ldl_complex_matches_torch(herm, n, lapack_path):
    torch = _torch()
    a = sym((2, n, n), n, herm=herm, complex_=True)
    assert_same(ember.linalg.ldl_factor_ex(E(a), hermitian=herm), torch.linalg.ldl_factor_ex(T(a), hermitian=herm),
                atol=1e-9)
    LD, piv = torch.linalg.ldl_factor(T(a), hermitian=herm)
    b = rnd((2, n, 3), 1, complex_=True)
    assert_same(ember.linalg.ldl_solve(E(LD.numpy()), E(piv.numpy()), E(b), hermitian=herm),
                torch.linalg.ldl_solve(LD, piv, T(b), hermitian=herm), atol=1e-9)


@pytest.mark.parametrize("a", _ldl_cases()[::2])
def test_ldl_solve_solves(a):
    LD, piv = ember.linalg.ldl_factor(E(a))
    b = rnd(a.shape[:-1] + (3,), 24)
    x = ember.linalg.ldl_solve(LD, piv, E(b)).numpy()
    np.testing.assert_allclose(a @ x, b, atol=1e-8)


def test_ldl_solve_broadcasts_batches():
    """torch 2.13 segfaults here; ember broadcasts LD's and B's batch dimensions like the other solves."""
    a = sym((2, 1, 4, 4), 25)
    LD, piv = ember.linalg.ldl_factor(E(a))
    b = rnd((3, 4, 2), 26)
    x = ember.linalg.ldl_solve(LD, piv, E(b)).numpy()
    assert x.shape == (2, 3, 4, 2)
    np.testing.assert_allclose(a @ x, np.broadcast_to(b, x.shape), atol=1e-8)


@pytest.mark.parity
def test_ldl_errors_match_torch():
    torch = _torch()
    LD, piv = torch.linalg.ldl_factor(T(sym((2, 5, 5), 27)).float())
    B = T(rnd((2, 5, 3), 28)).float()
    cases = [(lambda m, *a: m.linalg.ldl_factor_ex(*a), (T(rnd((3, 4))),)),
             (lambda m, *a: m.linalg.ldl_factor_ex(*a), (T(rnd((3,))),)),
             (lambda m, *a: m.linalg.ldl_factor_ex(*a), (T(np.ones((3, 3), np.int64)),)),
             (lambda m, *a: m.linalg.ldl_factor_ex(*a), (T(np.ones((3, 3), np.float16)),)),
             (lambda m, *a: m.linalg.ldl_solve(*a), (LD, piv, B.double())),
             (lambda m, *a: m.linalg.ldl_solve(*a), (LD, piv, T(rnd((2, 4, 3))).float())),
             (lambda m, *a: m.linalg.ldl_solve(*a), (LD, piv, T(rnd((5,))).float())),
             (lambda m, *a: m.linalg.ldl_solve(*a), (LD, piv[:, :3], B)),
             (lambda m, *a: m.linalg.ldl_solve(*a), (T(rnd((2, 5, 4))).float(), piv, B))]
    for call, args in cases:
        with pytest.raises(Exception) as t:
            call(torch, *args)
        with pytest.raises(Exception) as e:
            call(ember, *(E(x.numpy()) for x in args))
        assert type(e.value) is type(t.value)
        assert str(e.value) == str(t.value)


@pytest.mark.parity
def test_ldl_singular():
    """info like torch; ldl_factor raises a RuntimeError (torch's is an internal assert, 'Unknown error code')."""
    torch = _torch()
    z = np.zeros((2, 3, 3))
    z[0] = np.eye(3)
    assert_same(ember.linalg.ldl_factor_ex(E(z)), torch.linalg.ldl_factor_ex(T(z)))
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\).*D\[1,1\] is zero"):
        ember.linalg.ldl_factor(E(z))
    with pytest.raises(RuntimeError):
        torch.linalg.ldl_factor(T(z))


def test_ldl_has_no_derivative_like_torch():
    LD, _ = ember.linalg.ldl_factor(_req(sym((3, 3), 29)))
    with pytest.raises(RuntimeError, match="not implemented"):
        LD.sum().backward()


# ---------------------------------------------------------------- geqrf
@pytest.mark.parity
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4), (0, 3)], ids=str)
def test_geqrf_matches_torch(shape):
    torch = _torch()
    a = rnd(shape, 30)
    assert_same(ember.geqrf(E(a)), torch.geqrf(T(a)), atol=1e-10)
    assert_same(E(a).geqrf(), T(a).geqrf(), atol=1e-10)


def test_geqrf_pairs_with_householder_product():
    a = rnd((5, 3), 31)
    h, tau = ember.geqrf(E(a))
    Q = ember.linalg.householder_product(h, tau).numpy()
    np.testing.assert_allclose(Q @ np.triu(h.numpy()[:3]), a, atol=1e-12)


@pytest.mark.parity
def test_geqrf_errors_and_no_derivative():
    torch = _torch()
    for x in (rnd((3,)), np.ones((3, 3), np.int64)):
        with pytest.raises(Exception) as t:
            torch.geqrf(T(x))
        with pytest.raises(Exception) as e:
            ember.geqrf(E(x))
        assert type(e.value) is type(t.value) and str(e.value) == str(t.value)
    # torch raises NotImplementedError here; ember's not-implemented backward is a RuntimeError everywhere
    with pytest.raises(RuntimeError, match="not implemented"):
        ember.geqrf(_req(rnd((3, 3))))[0].sum().backward()


# ---------------------------------------------------------------- vdot
@pytest.mark.parity
def test_vdot_matches_torch():
    torch = _torch()
    x, y = rnd((5,), 32, complex_=True), rnd((5,), 33, complex_=True)
    assert_same(ember.vdot(E(x), E(y)), torch.vdot(T(x), T(y)))
    assert_same(E(x.real).vdot(E(y.real)), T(x.real).vdot(T(y.real)))
    assert_same(ember.vdot(E(np.arange(3)), E(np.arange(3))), torch.vdot(T(np.arange(3)), T(np.arange(3))))
    ge, gt = _grads_both(lambda a, b: ember.vdot(a, b), lambda a, b: torch.vdot(a, b), [x.real, y.real])
    for g, w in zip(ge, gt):
        np.testing.assert_allclose(g, w)
    for a, b in ((rnd((3, 1)), rnd((3,))), (rnd((3,)), rnd((4,))), (rnd((3,)), rnd((3,), dtype="float32")),
                 (np.ones(3, bool), np.ones(3, bool))):
        with pytest.raises(Exception) as t:
            torch.vdot(T(a), T(b))
        with pytest.raises(Exception) as e:
            ember.vdot(E(a), E(b))
        assert type(e.value) is type(t.value) and str(e.value) == str(t.value)


# ---------------------------------------------------------------- isclose / allclose
SPECIAL = (np.array([np.inf, -np.inf, np.nan, 1.0, np.inf, 1.0, 0.0, 1e-9]),
           np.array([np.inf, np.inf, np.nan, 1.0 + 1e-6, 1e308, 1.1, 1e-9, 0.0]))


@pytest.mark.parity
@pytest.mark.parametrize("kw", [{}, {"equal_nan": True}, {"rtol": 0, "atol": 0}, {"rtol": 0.2}, {"rtol": 0, "atol": 1e-8}])
def test_isclose_allclose_match_torch(kw):
    torch = _torch()
    a, b = SPECIAL
    assert_same(ember.isclose(E(a), E(b), **kw), torch.isclose(T(a), T(b), **kw))
    for x, y in ((a, b), (a[3:4], b[3:4]), (np.ones((2, 1)), np.ones(3))):
        got = ember.allclose(E(x), E(y), **kw)
        assert type(got) is bool and got == torch.allclose(T(x), T(y), **kw)
        assert E(x).allclose(E(y), **kw) == got
    i, j = np.array([1, 5, 10]), np.array([1, 6, 11])
    assert_same(E(i).isclose(E(j), **kw), T(i).isclose(T(j), **kw))


@pytest.mark.parity
def test_isclose_errors_match_torch():
    torch = _torch()
    a = rnd((3,))
    cases = [(lambda m, x: m.isclose(x, x.float())), (lambda m, x: m.isclose(x, x, rtol=-1.0)),
             (lambda m, x: m.isclose(x, x, atol=-1.0)), (lambda m, x: m.allclose(x, x.float())),
             (lambda m, x: m.isclose(x, 1.0)), (lambda m, x: m.allclose(x[:2], x))]
    for call in cases:
        with pytest.raises(Exception) as t:
            call(torch, T(a))
        with pytest.raises(Exception) as e:
            call(ember, E(a))
        assert type(e.value) is type(t.value)
        assert str(e.value).split(":")[0] == str(t.value).split(":")[0]


# ---------------------------------------------------------------- tensorinv / tensorsolve
@pytest.mark.parity
def test_tensorinv_tensorsolve_errors_match_torch():
    torch = _torch()
    cases = [(lambda m, x: m.linalg.tensorinv(x, ind=2), rnd((4, 6, 8))),
             (lambda m, x: m.linalg.tensorinv(x, ind=0), rnd((4, 4))),
             (lambda m, x: m.linalg.tensorinv(x, ind=1), np.zeros((4, 2, 2))),
             (lambda m, x: m.linalg.tensorinv(x, ind=1), np.ones((4, 2, 2), np.int64)),
             (lambda m, x: m.linalg.tensorsolve(x, x[:, :, 0]), rnd((2, 3, 5))),
             (lambda m, x: m.linalg.tensorsolve(x, x.sum(-1)), np.zeros((2, 3, 6))),
             (lambda m, x: m.linalg.tensorsolve(x, x.sum(-1).double()), rnd((2, 3, 6), dtype="float32"))]
    for call, x in cases:
        with pytest.raises(Exception) as t:
            call(torch, T(x))
        with pytest.raises(Exception) as e:
            call(ember, E(x))
        assert type(e.value).__name__.lstrip("_") == type(t.value).__name__.lstrip("_")
        assert str(e.value) == str(t.value)


def test_tensorinv_tensorsolve_identities():
    a = (rnd((6, 6), 34) + 4 * np.eye(6)).reshape(2, 3, 6)
    inv = ember.linalg.tensorinv(E(a), ind=2).numpy()
    assert inv.shape == (6, 2, 3)
    np.testing.assert_allclose(np.tensordot(a, inv, 1), np.eye(6).reshape(2, 3, 2, 3), atol=1e-12)
    b = rnd((2, 3), 35)
    x = ember.linalg.tensorsolve(E(a), E(b)).numpy()
    np.testing.assert_allclose(np.tensordot(a, x, 1), b, atol=1e-12)
    x2 = ember.linalg.tensorsolve(E(np.moveaxis(a, -1, 0)), E(b), dims=(0,)).numpy()
    np.testing.assert_allclose(x2, x, atol=1e-12)


# ---------------------------------------------------------------- packaging
def test_out_variants_fill_given_tensors():
    a = rnd((2, 3, 3), 36)
    LU, piv = ember.empty(0, dtype=ember.float64), ember.empty(0, dtype=ember.int32)
    r = ember.linalg.lu_factor(E(a), out=(LU, piv))
    assert r[0] is LU and r[1] is piv
    ref = ember.linalg.lu_factor(E(a))
    np.testing.assert_array_equal(LU.numpy(), ref.LU.numpy())


@pytest.mark.parity
def test_out_dtype_rules_match_torch():
    """linalg outs need the exact dtype (checked before anything is written); geqrf's and tensorinv's may cast."""
    torch = _torch()
    a = rnd((2, 3, 3), 37)
    s = a + np.swapaxes(a, -1, -2)
    LU, piv = torch.linalg.lu_factor(T(a))
    LD, lp = torch.linalg.ldl_factor(T(s))
    f32, i32, i64 = "float32", "int32", "int64"
    cases = [(lambda m, x, o: m.linalg.lu_factor(x, out=o), (a,), (f32, i32)),
             (lambda m, x, o: m.linalg.lu_factor_ex(x, out=o), (a,), ("float64", i64, i32)),
             (lambda m, x, o: m.linalg.lu(x, out=o), (a,), (f32, f32, f32)),
             (lambda m, x, p, o: m.lu_unpack(x, p, out=o), (LU.numpy(), piv.numpy()), (f32, f32, f32)),
             (lambda m, x, p, b, o: m.linalg.lu_solve(x, p, b, out=o[0]), (LU.numpy(), piv.numpy(), a), (f32,)),
             (lambda m, x, o: m.linalg.ldl_factor(x, out=o), (s,), (f32, i32)),
             (lambda m, x, p, b, o: m.linalg.ldl_solve(x, p, b, out=o[0]), (LD.numpy(), lp.numpy(), a), (f32,)),
             (lambda m, x, o: m.vdot(x, x, out=o[0]), (a[0, 0],), (f32,)),
             (lambda m, x, o: m.geqrf(x, out=o), (a,), (i64, f32))]
    for call, args, dts in cases:
        outs_t = tuple(torch.empty(0, dtype=getattr(torch, d)) for d in dts)
        outs_e = tuple(ember.empty(0, dtype=getattr(ember, d)) for d in dts)
        with pytest.raises(RuntimeError) as t:
            call(torch, *[T(x) for x in args], outs_t)
        with pytest.raises(RuntimeError) as e:
            call(ember, *[E(x) for x in args], outs_e)
        assert str(e.value) == str(t.value)
        assert all(o.numel() == 0 for o in outs_e)
    g = ember.empty(0, dtype=ember.float32), ember.empty(0, dtype=ember.float32)
    ember.geqrf(E(a), out=g)                                     # castable: accepted, like torch
    np.testing.assert_allclose(g[0].numpy(), torch.geqrf(T(a))[0].numpy(), rtol=1e-6)


def test_import_ember_does_not_import_scipy():
    code = "import sys, ember, ember.linalg; ember.linalg.lu_factor(ember.eye(3)); print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": ember.__path__[0].rsplit("/", 1)[0]})
    assert out.stdout.strip() == "False"


@pytest.mark.parity
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)], ids=str)
def test_forward_ad_matches_torch(shape):
    """Tangents of lu's / lu_unpack's L and U, lu_factor's LU and lu_solve's X equal torch's (jvp); ember gives
    P a zero tangent where torch leaves it without one."""
    torch = _torch()
    import ember.autograd.forward_ad as fe
    import torch.autograd.forward_ad as ft
    a, t = rnd(shape, 38), rnd(shape, 39)
    b = rnd((shape[-2], 2), 40)
    calls = [lambda m, x: tuple(m.linalg.lu(x)[1:]), lambda m, x: tuple(m.lu_unpack(*m.linalg.lu_factor(x))[1:]),
             lambda m, x: m.linalg.lu_factor(x)[0]]
    if shape[0] == shape[1]:
        calls.append(lambda m, x: m.linalg.lu_solve(*m.linalg.lu_factor(x), m.from_numpy(b.copy()), adjoint=True))
    for call in calls:
        with fe.dual_level():
            ge = call(ember, fe.make_dual(E(a), E(t)))
            ge = [fe.unpack_dual(o).tangent.numpy() for o in (ge if isinstance(ge, tuple) else (ge,))]
        with ft.dual_level():
            gt = call(torch, ft.make_dual(T(a), T(t)))
            gt = [ft.unpack_dual(o).tangent.numpy() for o in (gt if isinstance(gt, tuple) else (gt,))]
        for g, w in zip(ge, gt):
            np.testing.assert_allclose(g, w, atol=1e-12)
    with fe.dual_level():
        P = ember.linalg.lu(fe.make_dual(E(a), E(t)))[0]
        tp = fe.unpack_dual(P).tangent
        assert tp is None or not tp.numpy().any()


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_paths_agree(left, adjoint, lapack_path):
    """scipy's getrs (large matrices) and the numpy substitution give the same solutions, complex included."""
    a = rnd((2, 36, 36), 41, complex_=True) + 8 * np.eye(36)
    b = rnd((2, 36, 3) if left else (2, 3, 36), 42, complex_=True)
    LU, piv = ember.linalg.lu_factor(E(a))
    x = ember.linalg.lu_solve(LU, piv, E(b), left=left, adjoint=adjoint).numpy()
    got = _op(a, adjoint) @ x if left else x @ _op(a, adjoint)
    np.testing.assert_allclose(got, b, atol=1e-10)


def test_lu_solve_rejects_out_of_range_pivots():
    LU, piv = ember.linalg.lu_factor(E(rnd((3, 3), 43)))
    with pytest.raises(RuntimeError, match="pivots must be between 1 and"):
        ember.linalg.lu_solve(LU, piv * 0, E(rnd((3, 1))))


@pytest.mark.parity
def test_lu_nonfinite_inputs_pivot_like_torch():
    """LAPACK's i?amax: a nan below the diagonal is never the pivot unless it comes first; infs are ordinary."""
    torch = _torch()
    cases = [[[1.0, 2, 3], [np.nan, 1, 2], [5, 1, 1]], [[np.nan, 2, 3], [4, 1, 2], [5, 1, 1]],
             [[1.0, 2, 3], [4, np.inf, 2], [5, 1, 1]], [[np.inf, 2, 3], [4, 1, 2], [5, 1, 1]], np.full((3, 3), np.nan)]
    prev = K.use_scipy(False)
    try:
        for a in map(np.array, cases):
            e, t = ember.linalg.lu_factor_ex(E(a)), torch.linalg.lu_factor_ex(T(a))
            assert e.pivots.tolist() == t.pivots.tolist() and e.info.item() == t.info.item()
            np.testing.assert_allclose(e.LU.numpy(), t.LU.numpy(), equal_nan=True)
    finally:
        K.use_scipy(prev)


@pytest.mark.parametrize("complex_", [False, True], ids=["real", "complex"])
def test_ldl_solve_paths_agree(complex_, lapack_path):
    """scipy's sytrs/hetrs (large matrices) and the batched numpy substitution solve the same systems."""
    for herm in (False, True):
        a = sym((2, 40, 40), 44, herm=herm, complex_=complex_)
        a[:, 0, 0] = 1e-3                                     # 2x2 pivots
        LD, piv = ember.linalg.ldl_factor(E(a), hermitian=herm)
        b = rnd((2, 40, 3), 45, complex_=complex_)
        x = ember.linalg.ldl_solve(LD, piv, E(b), hermitian=herm).numpy()
        np.testing.assert_allclose(a @ x, b, atol=1e-8)


@pytest.mark.parametrize("bad", [[0, 2, 3], [4, 2, 3], [1, 2, -3], [-2, 2, 3], [1, -3, -2]])
def test_ldl_solve_rejects_invalid_pivots(bad):
    LD, _ = ember.linalg.ldl_factor(E(sym((3, 3), 46)))
    with pytest.raises(RuntimeError, match="not a valid output of linalg.ldl_factor"):
        ember.linalg.ldl_solve(LD, E(np.array(bad, np.int32)), E(rnd((3, 1))))
