"""ember.linalg beyond the op database: factorizations checked by reconstruction (signs are not unique),
torch's LinAlgError for singular / non-positive-definite input, error messages, and column-major strides."""
import warnings
import numpy as np
import pytest
import ember
from ember import linalg as L


def _rand(*shape, seed=0):
    return ember.from_numpy(np.random.default_rng(seed).standard_normal(shape))


def _close(a, b, tol=1e-8):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


ERRORS = {
    "inv_sing": lambda m: m.linalg.inv(m.tensor([[1., 2.], [2., 4.]])),
    "inv_batch_sing": lambda m: m.linalg.inv(m.stack([m.eye(2), m.tensor([[1., 2.], [2., 4.]])])),
    "inv_nonsquare": lambda m: m.linalg.inv(m.ones(2, 3)),
    "inv_1d": lambda m: m.linalg.inv(m.ones(3)),
    "inv_int": lambda m: m.linalg.inv(m.ones(2, 2, dtype=m.int64)),
    "det_int": lambda m: m.linalg.det(m.ones(2, 2, dtype=m.int64)),
    "det_nonsquare": lambda m: m.det(m.ones(2, 3)),
    "solve_sing": lambda m: m.linalg.solve(m.tensor([[1., 2.], [2., 4.]]), m.ones(2)),
    "solve_shape": lambda m: m.linalg.solve(m.eye(2), m.ones(3)),
    "chol_npd": lambda m: m.linalg.cholesky(m.tensor([[0., 2.], [2., 3.]])),
    "chol_batch": lambda m: m.linalg.cholesky(m.stack([m.eye(2), -m.eye(2)])),
    "old_chol": lambda m: m.cholesky(-m.eye(2)),
    "qr_mode": lambda m: m.linalg.qr(m.eye(2), mode="foo"),
    "eigh_uplo": lambda m: m.linalg.eigh(m.eye(2), UPLO="X"),
    "svd_driver": lambda m: m.linalg.svd(m.eye(2), driver="gesvd"),
    "lstsq_rows": lambda m: m.linalg.lstsq(m.ones(4, 2), m.ones(3, 3)),
    "lstsq_driver": lambda m: m.linalg.lstsq(m.ones(4, 2), m.ones(4, 3), driver="foo"),
    "mpow_nonsquare": lambda m: m.linalg.matrix_power(m.ones(2, 3), 2),
    "mpow_neg_int": lambda m: m.linalg.matrix_power(m.ones(2, 2, dtype=m.int64), -1),
    "mpow_neg_sing": lambda m: m.linalg.matrix_power(m.tensor([[1., 2.], [2., 4.]]), -1),
    "solve_tri_1d": lambda m: m.linalg.solve_triangular(m.eye(3), m.ones(3), upper=True),
    "solve_tri_shape": lambda m: m.linalg.solve_triangular(m.eye(3), m.ones(4, 4), upper=True),
}


def test_svd_reconstructs():
    a = _rand(2, 5, 3)
    for full in (True, False):
        u, s, vh = L.svd(a, full_matrices=full)
        k = 3
        _close((u[..., :, :k] * s.unsqueeze(-2)).matmul(vh[..., :k, :]).numpy(), a.numpy())
        assert u.stride() == ((25, 1, 5) if full else (15, 1, 5))
    u, s, v = ember.svd(a)
    _close((u * s.unsqueeze(-2)).matmul(v.transpose(-2, -1)).numpy(), a.numpy())


def test_eigh_and_qr_reconstruct():
    x = _rand(3, 4, 4)
    a = x.matmul(x.transpose(-2, -1))
    w, v = L.eigh(a)
    _close((v * w.unsqueeze(-2)).matmul(v.transpose(-2, -1)).numpy(), a.numpy())
    q, r = L.qr(_rand(2, 5, 3))
    _close(q.matmul(r).numpy(), _rand(2, 5, 3).numpy())
    q, r = ember.qr(_rand(5, 3), some=False)
    assert q.shape == (5, 5) and r.shape == (5, 3)


def test_linalg_error_is_runtime_error_with_torch_message():
    assert issubclass(L.LinAlgError, RuntimeError)
    sing = ember.tensor([[1., 2.], [2., 4.]])
    with pytest.raises(L.LinAlgError, match="The diagonal element 2 is zero"):
        L.inv(sing)
    with pytest.raises(L.LinAlgError, match=r"\(Batch element 1\)"):
        ember.inverse(ember.stack([ember.eye(2), sing]))
    with pytest.raises(L.LinAlgError, match="singular"):
        L.solve(sing, ember.ones(2))
    with pytest.raises(L.LinAlgError, match="leading minor of order 1"):
        L.cholesky(-ember.eye(2))
    inv, info = L.inv_ex(sing)
    assert info.item() == 2
    lmat, info = L.cholesky_ex(ember.stack([ember.eye(2), -ember.eye(2)]))
    assert info.tolist() == [0, 1]


@pytest.mark.parity
@pytest.mark.parametrize("name", list(ERRORS))
def test_error_matches_torch(name):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as te:
            ERRORS[name](torch)
        with pytest.raises(Exception) as ee:
            ERRORS[name](ember)
    t_linalg = type(te.value).__name__ == "_LinAlgError"
    assert isinstance(ee.value, L.LinAlgError) == t_linalg, (ee.value, te.value)
    assert isinstance(ee.value, RuntimeError) == isinstance(te.value, RuntimeError)
    assert str(ee.value).splitlines()[0] == str(te.value).splitlines()[0]


@pytest.mark.parity
def test_strides_and_meta_match_torch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(1).standard_normal((2, 4, 3))
    s = a[:, :3, :] @ np.swapaxes(a[:, :3, :], -1, -2) + 3 * np.eye(3)
    cases = [("linalg.qr", a, ()), ("linalg.svd", a, (False,)), ("linalg.eigh", s, ()), ("linalg.inv", s, ()),
             ("linalg.cholesky", s, ()), ("linalg.lstsq", a, (a[..., :2],)), ("linalg.pinv", a, ()),
             ("linalg.matrix_power", s, (3,)), ("linalg.solve", s, (a[:, :3, :2].copy(),))]
    for name, x, args in cases:
        fn_t, fn_e = torch, ember
        for p in name.split("."):
            fn_t, fn_e = getattr(fn_t, p), getattr(fn_e, p)
        conv = lambda m, v: (m.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v)  # noqa: E731
        want = fn_t(conv(torch, x), *[conv(torch, v) for v in args])
        got = fn_e(conv(ember, x), *[conv(ember, v) for v in args])
        meta = fn_e(ember.empty(x.shape, dtype=ember.float64, device="meta"),
                    *[ember.empty(v.shape, dtype=ember.float64, device="meta") if isinstance(v, np.ndarray) else v for v in args])
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        meta = meta if isinstance(meta, tuple) else (meta,)
        for w, g, mm in zip(want, got, meta):
            assert tuple(g.shape) == tuple(w.shape) == tuple(mm.shape), name
            assert str(g.dtype)[6:] == str(w.dtype)[6:], name
            if g.numel() > 1:
                assert g.stride() == w.stride() == mm.stride(), (name, g.stride(), w.stride(), mm.stride())


def test_aliases_and_methods():
    a = _rand(3, 3) + 3 * ember.eye(3, dtype=ember.float64)
    _close(ember.inverse(a).numpy(), np.linalg.inv(a.numpy()))
    _close(a.inverse().numpy(), np.linalg.inv(a.numpy()))
    _close(a.det().item(), np.linalg.det(a.numpy()))
    _close(a.matrix_power(2).numpy(), a.numpy() @ a.numpy())
    sign, logabs = ember.slogdet(a)
    _close(sign.item() * np.exp(logabs.item()), np.linalg.det(a.numpy()))
    assert L.matrix_rank(ember.ones(3, 3), tol=0.5).item() == 1
    _close(L.pinv(a, hermitian=False).numpy(), np.linalg.pinv(a.numpy()))


def test_eig_reconstructs_and_multi_dot():
    a = _rand(2, 4, 4)
    w, v = L.eig(a)
    assert w.dtype == ember.complex128 and v.stride() == (16, 1, 4)
    an = a.numpy()
    np.testing.assert_allclose(v.numpy() @ (w.numpy()[..., None] * np.linalg.inv(v.numpy())), an, atol=1e-8)
    xs = [_rand(3, seed=1), _rand(3, 4, seed=2), _rand(4, 2, seed=3), _rand(2, seed=4)]
    want = xs[0].numpy() @ xs[1].numpy() @ xs[2].numpy() @ xs[3].numpy()
    _close(L.multi_dot(xs).numpy(), want)
    assert L.multi_dot([_rand(2, 3), _rand(3, 5)]).shape == (2, 5)
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        L.multi_dot([_rand(2, 3), _rand(4, 5)])
    with pytest.raises(RuntimeError, match="expected at least 2 tensors"):
        L.multi_dot([_rand(2, 3)])


@pytest.mark.parity
def test_pinv_and_rank_with_per_batch_tolerances_match_torch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((2, 3, 4))
    for f in (lambda m, x: m.linalg.pinv(x, atol=m.tensor([0.5, 2.0], dtype=m.float64)),
              lambda m, x: m.linalg.matrix_rank(x, atol=m.tensor([0.5, 2.0], dtype=m.float64)),
              lambda m, x: m.linalg.matrix_rank(x, rtol=m.tensor(0.5, dtype=m.float64)),
              lambda m, x: m.linalg.pinv(x, rtol=0.3), lambda m, x: m.linalg.matrix_rank(x, hermitian=False, atol=1.0)):
        e, t = f(ember, ember.from_numpy(a.copy())), f(torch, torch.from_numpy(a.copy()))
        assert tuple(e.shape) == tuple(t.shape) and str(e.dtype)[6:] == str(t.dtype)[6:]
        np.testing.assert_allclose(e.numpy(), t.numpy(), atol=1e-10)


@pytest.mark.parity
def test_solve_triangular_and_triangular_solve_match_torch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b = np.random.default_rng(1).standard_normal((2, 3, 4))
    cases = (lambda m, A, B: m.linalg.solve_triangular(A, B, upper=True),
             lambda m, A, B: m.linalg.solve_triangular(A, B.mT, upper=False, left=False),
             lambda m, A, B: m.linalg.solve_triangular(A, B, upper=True, unitriangular=True),
             lambda m, A, B: m.linalg.solve_triangular(A[0], B, upper=False),
             lambda m, A, B: m.triangular_solve(B, A), lambda m, A, B: m.triangular_solve(B, A, upper=False, transpose=True),
             lambda m, A, B: B.triangular_solve(A[0], unitriangular=True))
    for f in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e = f(ember, ember.from_numpy(a.copy()), ember.from_numpy(b.copy()))
            t = f(torch, torch.from_numpy(a.copy()), torch.from_numpy(b.copy()))
        for x, y in zip(e if isinstance(e, tuple) else (e,), t if isinstance(t, tuple) else (t,)):
            assert tuple(x.shape) == tuple(y.shape) and x.stride() == y.stride()
            np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-10, atol=1e-10)
    m = ember.empty(2, 3, 3, device="meta")
    assert ember.linalg.solve_triangular(m, ember.empty(3, 5, device="meta"), upper=True).stride() == (15, 1, 3)


@pytest.mark.parity
def test_linalg_norms_parity():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(0).standard_normal((2, 3, 4))
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    for args in ((), (1,), (float("inf"), (1, 2)), (3, -1, True)):
        np.testing.assert_allclose(ember.linalg.vector_norm(e, *args).numpy(), torch.linalg.vector_norm(t, *args).numpy())
    for o in ("fro", "nuc", 2, -2, 1, -1, float("inf")):
        np.testing.assert_allclose(ember.linalg.matrix_norm(e, o).numpy(), torch.linalg.matrix_norm(t, o).numpy(),
                                   rtol=1e-12)
    np.testing.assert_allclose(ember.linalg.norm(e[0]).numpy(), torch.linalg.norm(t[0]).numpy())


def _outcome(f, m):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = f(m)
            got = ("ok", tuple(r.shape))
        except Exception as e:  # noqa: BLE001  (the exception is the compared outcome)
            got = ("raise", type(e).__name__, str(e))
    return got, sorted({str(x.message).split(" (Triggered internally")[0] for x in w})


@pytest.mark.parity
@pytest.mark.parametrize("case", range(9))
def test_deprecated_matrix_functions_warn_and_refuse_like_torch(case):
    """inner / chain_matmul / frobenius_norm / nuclear_norm: their errors and deprecation warnings are torch's."""
    torch = pytest.importorskip("torch")
    f = [lambda m: m.inner(m.ones(2, 3), m.ones(4)),
         lambda m: m.chain_matmul(),
         lambda m: m.chain_matmul(m.ones(2)),
         lambda m: m.chain_matmul(m.ones(2, 2), m.ones(3, 2)),
         lambda m: m.chain_matmul(m.ones(2, 2), m.ones(2, 3)),
         lambda m: m.frobenius_norm(m.ones(2, 2, 2), [0, 1, 2]),
         lambda m: m.nuclear_norm(m.ones(2)),
         lambda m: m.nuclear_norm(m.ones(2, 3, 3), [0]),
         lambda m: m.nuclear_norm(m.ones(2, 3, 3), [0, 2], True)][case]
    e, t = _outcome(f, ember), _outcome(f, torch)
    assert e[0][:2] == t[0][:2]
    if e[0][0] == "raise" and "multi_dot" not in t[0][2]:
        assert e[0] == t[0]
    assert not (e[1] and t[1]) or e[1] == t[1]     # torch warns once per process (TORCH_WARN_ONCE), as ember


@pytest.mark.parity
@pytest.mark.parametrize("compute", [True, False])
def test_internal_eigh_and_svd_out_forms_match_torch(compute):
    """_linalg_eigh.eigenvalues and _linalg_svd.U (the out= forms behind linalg.eigh / svd, which ember's public
    out= reaches through a copy): called through ops.aten with out tensors in ember and torch, as torch's own
    linalg.eigh(out=) does. Signs of the vectors are canonicalised (they are not unique)."""
    torch = pytest.importorskip("torch")
    from ember.testing._op_db.linalg import _eigh_canonical, _svd_canonical
    a = np.random.default_rng(5).standard_normal((2, 4, 4))
    sym = a + np.swapaxes(a, -1, -2)
    rect = a[:, :, :3].copy()

    def eigh(T):
        w, v = T.empty(0, dtype=T.float64), T.empty(0, dtype=T.float64)
        r = T.ops.aten._linalg_eigh.eigenvalues(T.tensor(sym), "U", compute, eigenvalues=w, eigenvectors=v)
        assert r[0] is w and r[1] is v
        return [w.numpy(), v.numpy()]

    def svd(T):
        u, s, vh = (T.empty(0, dtype=T.float64) for _ in range(3))
        r = T.ops.aten._linalg_svd.U(T.tensor(rect), False, compute, U=u, S=s, Vh=vh)
        assert r[0] is u and r[1] is s and r[2] is vh
        return [u.numpy(), s.numpy(), vh.numpy()]

    for fn, canonical in ((eigh, _eigh_canonical), (svd, _svd_canonical)):
        got, want = fn(ember), fn(torch)
        assert [g.shape for g in got] == [w.shape for w in want]
        if compute:
            got, want = canonical(got), canonical(want)
        for g, w in zip(got, want):
            _close(g, w, 1e-10)


@pytest.mark.parity
@pytest.mark.parametrize("cplx", [False, True], ids=["real", "complex"])
@pytest.mark.parametrize("upper,left,unit", [(u, lf, un) for u in (False, True) for lf in (False, True)
                                             for un in (False, True)])
def test_solve_triangular_gradients_match_torch(cplx, upper, left, unit):
    """LinalgSolveTriangularBackward0: gB = A^{-H} G, gA = -gB X^H cut to A's triangle; batch broadcast."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    n = 3
    A = rng.standard_normal((2, n, n)) + 3 * np.eye(n)
    B = rng.standard_normal((1, n, 4) if left else (1, 4, n))
    G = rng.standard_normal((2,) + B.shape[1:])
    if cplx:
        A, B, G = (x + 1j * rng.standard_normal(x.shape) for x in (A, B, G))
    res = []
    for lib in (torch, ember):
        a, b = lib.from_numpy(A.copy()).requires_grad_(), lib.from_numpy(B.copy()).requires_grad_()
        r = lib.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit)
        res.append((r.detach().numpy(), *[g.numpy() for g in lib.autograd.grad(r, (a, b), lib.from_numpy(G.copy()))],
                    type(r.grad_fn).__name__))
    for want, got in zip(res[0][:3], res[1][:3]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    assert res[1][3] == res[0][3] == "LinalgSolveTriangularBackward0"


@pytest.mark.parity
@pytest.mark.parametrize("cplx", [False, True], ids=["real", "complex128"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_eig_gradients_match_torch(cplx, shape):
    """LinalgEigBackward0 for a phase-invariant loss of eigenvalues and eigenvectors, and torch's refusal of a
    loss that depends on the eigenvectors' arbitrary phase."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    A = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if cplx else 0)
    W = rng.standard_normal(shape)
    res = []
    for lib in (torch, ember):
        a = lib.from_numpy(A.copy()).requires_grad_()
        lam, V = lib.linalg.eig(a)
        loss = (V.abs() ** 2 * lib.from_numpy(W)).sum() + (lam * lib.from_numpy(W[..., 0].copy())).real.sum()
        (g,) = lib.autograd.grad(loss + 0.3 * lam.imag.sum(), a)
        (g_only_values,) = lib.autograd.grad((lib.linalg.eig(a)[0].real ** 2).sum(), a)
        if cplx:        # (a real input may have only real eigenvectors, whose phase is fixed)
            with pytest.raises(RuntimeError, match="specified up to multiplication by"):
                lib.linalg.eig(a)[1].real.sum().backward()
        res.append((g.numpy(), g_only_values.numpy(), type(lam.grad_fn).__name__))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-9, atol=1e-12)
    assert res[1][2] == res[0][2] == "LinalgEigBackward0"


def test_eig_gradcheck():
    a = ember.tensor(np.random.default_rng(2).standard_normal((3, 3)), requires_grad=True)
    f = lambda x: tuple(t.abs() for t in ember.linalg.eig(x))  # noqa: E731  (phase-invariant outputs)
    assert ember.autograd.gradcheck(f, (a,))


@pytest.mark.parametrize("dt", [ember.float32, ember.float64])
@pytest.mark.parametrize("sa,sb,transpose_b", [((1, 4, 5, 8), (1, 4, 8, 5), False), ((1, 4, 5, 8), (1, 4, 5, 8), True),
                                                ((3, 2, 7), (3, 7, 1), False), ((2, 0, 3), (2, 3, 4), False)])
def test_batched_matmul_without_broadcast_matches_the_general_path(monkeypatch, dt, sa, sb, transpose_b):
    # linalg_matmul.matmul returns np.matmul's fresh result for same-batch float operands; the general path
    # (forced here through an int check it fails) must give the same values, shape and layout
    from ember.kernels.cpu import linalg_matmul as LM
    a = ember.randn(*sa, dtype=dt)
    b = ember.randn(*sb, dtype=dt)
    if transpose_b:
        b = b.transpose(-2, -1)
    fast = LM.matmul(a, b)
    monkeypatch.setattr(LM, "_FAST", ())
    ref = LM.matmul(a, b)
    assert fast.shape == ref.shape and fast.dtype is ref.dtype and fast.is_contiguous()
    np.testing.assert_array_equal(fast.numpy(), ref.numpy())
    with pytest.raises(RuntimeError, match="Expected size for first two dimensions of batch2 tensor"):
        LM.matmul(a, ember.randn(*sa, dtype=dt))


# ---------------------------------------------------------------- orgqr / ormqr (geqrf's reflectors)
def _reflectors(torch, shape, cplx, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if cplx else 0)
    return torch.geqrf(torch.from_numpy(a))


def _mat(shape, cplx, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if cplx else 0)


def _values_and_grads(torch, fn, e_fn, arrays, grad):
    t_in = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays]
    e_in = [ember.from_numpy(a.copy()).requires_grad_() for a in arrays]
    t_out, e_out = fn(*t_in), e_fn(*e_in)
    assert type(e_out.grad_fn).__name__ == type(t_out.grad_fn).__name__
    assert e_out.stride() == t_out.stride()
    t_out.backward(torch.from_numpy(grad))
    e_out.backward(ember.from_numpy(grad))
    _close(e_out.detach().numpy(), t_out.detach().numpy(), 1e-10)
    for e, t in zip(e_in, t_in):
        _close(e.grad.numpy(), t.grad.numpy(), 1e-10)


@pytest.mark.parity
@pytest.mark.parametrize("cplx", [False, True], ids=["real", "complex128"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 5, 2)])
def test_orgqr_values_and_gradients_match_torch(cplx, shape):
    torch = pytest.importorskip("torch")
    a, tau = _reflectors(torch, shape, cplx, 0)
    grad = _mat(shape, cplx, 1)
    _values_and_grads(torch, torch.orgqr, ember.orgqr, [a.numpy(), tau.numpy()], grad)
    _values_and_grads(torch, lambda x, t: x.orgqr(t), lambda x, t: x.orgqr(t), [a.numpy(), tau.numpy()], grad)


@pytest.mark.parity
@pytest.mark.parametrize("cplx", [False, True], ids=["real", "complex128"])
@pytest.mark.parametrize("left", [True, False], ids=["left", "right"])
@pytest.mark.parametrize("transpose", [False, True], ids=["Q", "QH"])
@pytest.mark.parametrize("batch,m,k,n", [((), 4, 3, 2), ((), 3, 5, 4), ((2,), 4, 4, 3)])
def test_ormqr_values_and_gradients_match_torch(cplx, left, transpose, batch, m, k, n):
    """op(Q) C or C op(Q) for Q from geqrf of an m x k matrix (k may exceed m: min(m, k) reflectors)."""
    torch = pytest.importorskip("torch")
    a, tau = _reflectors(torch, batch + (m, k), cplx, 2)
    c_shape = batch + ((m, n) if left else (n, m))
    if tau.shape[-1] != min(c_shape[-2 if left else -1], k):
        pytest.skip("torch wants tau.shape[-1] == min(other.shape[side], input.shape[-1])")
    c, grad = _mat(c_shape, cplx, 3), _mat(c_shape, cplx, 4)
    _values_and_grads(torch, lambda *x: torch.ormqr(*x, left=left, transpose=transpose),
                      lambda *x: ember.ormqr(*x, left=left, transpose=transpose), [a.numpy(), tau.numpy(), c], grad)


def test_orgqr_ormqr_gradcheck_and_gradgradcheck():
    a, tau, c = _rand(4, 3), _rand(3, seed=1), _rand(4, 2, seed=2)
    ins = [x.requires_grad_() for x in (a, tau, c)]
    for f in (lambda x, t, o: ember.ormqr(x, t, o, transpose=True), lambda x, t, o: ember.ormqr(x, t, o.mT, False)):
        assert ember.autograd.gradcheck(f, ins)
        assert ember.autograd.gradgradcheck(f, ins)
    assert ember.autograd.gradcheck(ember.orgqr, ins[:2]) and ember.autograd.gradgradcheck(ember.orgqr, ins[:2])


_QR_ERRORS = {
    "ormqr_input_1d": lambda m, r: m.ormqr(r(3), r(2), r(3, 3)),
    "ormqr_other_1d": lambda m, r: m.ormqr(r(3, 3), r(2), r(3)),
    "ormqr_other_rows": lambda m, r: m.ormqr(r(4, 3), r(2), r(3, 2)),
    "ormqr_other_cols": lambda m, r: m.ormqr(r(4, 3), r(2), r(3, 3), left=False),
    "ormqr_tau_size": lambda m, r: m.ormqr(r(4, 2), r(3), r(4, 4)),
    "ormqr_tau_size_right": lambda m, r: m.ormqr(r(3, 3), r(2), r(2, 3), left=False),
    "ormqr_tau_ndim": lambda m, r: m.ormqr(r(2, 4, 3), r(3), r(2, 4, 4)),
    "ormqr_other_ndim": lambda m, r: m.ormqr(r(4, 3), r(3), r(1, 4, 4)),
    "ormqr_tau_batch": lambda m, r: m.ormqr(r(2, 4, 3), r(3, 3), r(2, 4, 4)),
    "ormqr_other_batch": lambda m, r: m.ormqr(r(2, 4, 3), r(2, 3), r(3, 4, 4)),
    "ormqr_tau_dtype": lambda m, r: m.ormqr(r(4, 3), r(3).float(), r(4, 4)),
    "ormqr_other_dtype": lambda m, r: m.ormqr(r(4, 3), r(3), r(4, 4).float()),
    "ormqr_int": lambda m, r: m.ormqr(r(4, 3).long(), r(3).long(), r(4, 4).long()),
    "ormqr_out_dtype": lambda m, r: m.ormqr(r(3, 3), r(3), r(3, 3), out=m.empty(0)),
    "orgqr_wide": lambda m, r: m.orgqr(r(2, 3), r(2)),
    "orgqr_tau_size": lambda m, r: m.orgqr(r(3, 2), r(3)),
    "orgqr_int": lambda m, r: m.orgqr(r(3, 3).long(), r(2).long()),
    "orgqr_out_int": lambda m, r: m.orgqr(r(3, 3), r(3), out=m.empty(0, dtype=m.int64)),
}


@pytest.mark.parity
@pytest.mark.parametrize("case", sorted(_QR_ERRORS))
def test_orgqr_ormqr_errors_match_torch(case):
    torch = pytest.importorskip("torch")
    got = []
    for mod in (ember, torch):
        with pytest.raises((RuntimeError, NotImplementedError)) as info:
            _QR_ERRORS[case](mod, lambda *s, m=mod: m.ones(*s, dtype=m.float64))
        got.append((info.type, str(info.value).split("\n")[0]))
    assert got[0] == got[1]


VANDER = [
    lambda t, x: t.vander(x),
    lambda t, x: t.vander(x, N=2),
    lambda t, x: t.vander(x, 5, True),
    lambda t, x: t.vander(x, N=1),
    lambda t, x: t.vander(x, N=0),
    lambda t, x: t.linalg.vander(x),
    lambda t, x: t.linalg.vander(x, N=4),
    lambda t, x: t.linalg.vander(x.reshape(2, 2), N=3),
    lambda t, x: t.linalg.vander(x[0], N=3),
]


@pytest.mark.parity
@pytest.mark.parametrize("i", range(len(VANDER)))
def test_vander_values_and_gradients_match_torch(i):
    torch = pytest.importorskip("torch")
    data = np.array([0.5, -1.5, 2.0, 3.0])
    res = []
    for lib in (ember, torch):
        x = lib.tensor(data, requires_grad=True)
        out = VANDER[i](lib, x)
        if i >= 5:      # torch.vander writes its powers in place: its backward raises (linalg.vander's does not)
            (out * lib.arange(1.0, out.numel() + 1, dtype=out.dtype).reshape(out.shape)).sum().backward()
        res.append((tuple(out.shape), str(out.dtype).split(".")[-1], out.detach().numpy(),
                    None if x.grad is None else x.grad.numpy()))
    assert res[0][:2] == res[1][:2]
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-12)
    if res[1][3] is not None:
        np.testing.assert_allclose(res[0][3], res[1][3], rtol=1e-12)


@pytest.mark.parity
@pytest.mark.parametrize("call", [
    lambda t: t.vander(t.tensor([1, 2, 3], dtype=t.int8)), lambda t: t.vander(t.tensor([True, False])),
    lambda t: t.vander(t.tensor([1 + 1j, 2])), lambda t: t.linalg.vander(t.tensor([1, 2], dtype=t.int32)),
    lambda t: t.vander(t.ones(2, 2)), lambda t: t.vander(t.ones(2), N=-1), lambda t: t.linalg.vander(t.ones(2), N=1),
    lambda t: t.linalg.vander(t.ones(2, dtype=t.half)), lambda t: t.linalg.vander(t.tensor([True])),
])
def test_vander_dtypes_and_errors_match_torch(call):
    torch = pytest.importorskip("torch")
    res = []
    for lib in (ember, torch):
        try:
            r = call(lib)
            res.append((str(r.dtype).split(".")[-1], r.numpy().tolist()))
        except RuntimeError as e:
            res.append(str(e))
    assert res[0] == res[1]


_OUT_DTYPE_CALLS = {   # op -> (input shapes, extra kwargs)
    "mm": (((3, 5), (5, 4)), {}), "bmm": (((2, 3, 5), (2, 5, 4)), {}),
    "addmm": (((3, 4), (3, 5), (5, 4)), {"beta": 0.5, "alpha": 2}),
    "baddbmm": (((2, 3, 4), (2, 3, 5), (2, 5, 4)), {"beta": 0.5, "alpha": 2}),
}


@pytest.mark.parity
@pytest.mark.parametrize("op", sorted(_OUT_DTYPE_CALLS))
def test_out_dtype_overloads_as_torch(op):
    """mm/bmm/addmm/baddbmm .dtype and .dtype_out exist with torch's schemas; torch has kernels for them on
    CUDA/XPU only, so a cpu call raises the dispatcher's NotImplementedError in both, and a bad out_dtype
    argument the TypeError naming it; on meta tensors both give out_dtype's result (float32 for half inputs)
    and refuse another out_dtype with torch's message."""
    torch = pytest.importorskip("torch")
    shapes, kw = _OUT_DTYPE_CALLS[op]
    assert sorted(getattr(ember.ops.aten, op).overloads()) == sorted(getattr(torch.ops.aten, op).overloads())
    got = []
    for lib in (torch, ember):
        fn = getattr(lib, op)
        cpu = [lib.ones(*s) for s in shapes]
        for extra, name in (({}, "dtype"), ({"out": lib.empty(0)}, "dtype_out")):
            with pytest.raises(NotImplementedError, match=f"Could not run 'aten::{op}.{name}' with arguments "
                                                          "from the 'CPU' backend"):
                fn(*cpu, lib.float32, **kw, **extra)
        with pytest.raises(TypeError) as bad:
            fn(*cpu, out_dtype="a", **kw)
        meta = [lib.empty(*s, dtype=lib.float16, device="meta") for s in shapes]
        if op == "baddbmm" and lib is torch:
            # torch's Python meta function of baddbmm.dtype is broken (it multiplies by out_dtype), so ember's
            # meta results are checked on their own below
            got.append(str(bad.value).split(" - got")[0])
            continue
        r = fn(*meta, lib.float32, **kw)
        with pytest.raises(RuntimeError) as e:
            fn(*meta, lib.float64, **kw)
        got.append(((tuple(r.shape), str(r.dtype).split(".")[-1], r.device.type), str(e.value),
                    str(bad.value).split(" - got")[0]))
    if op == "baddbmm":
        assert got[0] == got[1][2]
        assert got[1][:2] == (((2, 3, 4), "float32", "meta"),
                              "out_dtype must be the same as input dtype or fp32 for fp16/bf16 inputs")
    else:
        assert got[0] == got[1]


# ---------------------------------------------------------------- matmul's composite under autograd
_MATMUL_SHAPES = [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)), ((3, 4), (4, 2)), ((2, 3, 4), (4, 2)),
                  ((2, 3, 4), (4,)), ((4,), (2, 4, 3)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
                  ((2, 3, 4), (2, 4, 5)), ((0, 3, 4), (4, 2))]


@pytest.mark.parity
@pytest.mark.parametrize("sa,sb", _MATMUL_SHAPES, ids=[f"{a}@{b}" for a, b in _MATMUL_SHAPES])
@pytest.mark.parametrize("grad_b", [True, False], ids=["both-grad", "a-grad"])
def test_matmul_nodes_values_and_gradients_match_torch(sa, sb, grad_b):
    """With grad, matmul runs torch's composite (dot/mv/mm/folded mm/bmm): its last node, values and gradients
    are torch's; which operand requires grad decides the fold, as in torch's should_fold."""
    torch = pytest.importorskip("torch")
    a, b = _mat(sa, False, 5), _mat(sb, False, 6)
    ta, tb = torch.from_numpy(a).requires_grad_(), torch.from_numpy(b).requires_grad_(grad_b)
    ea, eb = ember.from_numpy(a.copy()).requires_grad_(), ember.from_numpy(b.copy()).requires_grad_(grad_b)
    t, e = ta @ tb, ea @ eb
    names = type(e.grad_fn).__name__, type(t.grad_fn).__name__
    assert names[0] == names[1]         # 1-D @ 2-D: mm's row squeezed in place, SqueezeBackward4 in both
    g = np.asarray(_mat(tuple(t.shape), False, 7))
    t.backward(torch.from_numpy(g))
    e.backward(ember.from_numpy(g))
    _close(e.detach().numpy(), t.detach().numpy(), 1e-12)
    _close(ea.grad.numpy(), ta.grad.numpy(), 1e-12)
    if grad_b:
        _close(eb.grad.numpy(), tb.grad.numpy(), 1e-12)
    with ember.no_grad():        # the one-call CPU kernel gives the same values
        _close((ea @ eb).numpy(), t.detach().numpy(), 1e-12)
