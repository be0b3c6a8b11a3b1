"""Op-specific checks the generic OpInfo test does not cover: erf accuracy, errors, unique/linalg wrappers,
assert_close, the coverage report."""
import io
import math

import numpy as np
import pytest

import ember
from ember.testing import assert_close
from ember.functional import unique, unique_consecutive


def test_erf_erfc_float64_accuracy():
    x = np.concatenate([np.linspace(-7, 7, 4001), [0.0, 1e-300, 26.0, -26.0]])
    want = np.array([math.erf(v) for v in x])
    wantc = np.array([math.erfc(v) for v in x])
    t = ember.from_numpy(x.copy())
    np.testing.assert_allclose(ember.erf(t).numpy(), want, rtol=4e-15, atol=1e-300)
    np.testing.assert_allclose(ember.erfc(t).numpy(), wantc, rtol=2e-14, atol=1e-300)


def test_erfinv_roundtrip_and_edges():
    y = np.linspace(-0.999999, 0.999999, 2001)
    x = ember.erfinv(ember.from_numpy(y.copy())).numpy()
    np.testing.assert_allclose(np.array([math.erf(v) for v in x]), y, rtol=1e-14, atol=1e-16)
    e = ember.erfinv(ember.tensor([1.0, -1.0, 1.5, 0.0])).numpy()
    assert e[0] == np.inf and e[1] == -np.inf and np.isnan(e[2]) and e[3] == 0


@pytest.mark.parametrize("fn", [lambda x: x.cumsum(3), lambda x: x.sort(3), lambda x: x.var(3),
                                lambda x: ember.logsumexp(x, 3), lambda x: x.topk(1, 3), lambda x: ember._nn.glu(x, 3)])
def test_dim_out_of_range(fn):
    x = ember.ones(2, 4)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 3\)"):
        fn(x)


def test_errors_match_torch_types():
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        ember.ones(3, dtype=ember.int64).var()
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        ember._nn.glu(ember.ones(3), 0)
    with pytest.raises(RuntimeError, match="kthvalue\\(\\): selected number k out of range"):
        ember.kthvalue(ember.ones(2), 3)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        ember.addcdiv(ember.ones(2, dtype=ember.int64), ember.ones(2, dtype=ember.int64), ember.ones(2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        ember._nn.gelu(ember.ones(2), approximate="x")
    x = ember.ones(2, dtype=ember.int64)
    with pytest.raises(RuntimeError):
        x.exp2_()
    assert x.tolist() == [1, 1]


@pytest.mark.parity
def test_unique_parity():
    torch = pytest.importorskip("torch")
    a = np.array([[3, 1, 3], [2, 1, 1]])
    for kw in ({}, {"return_inverse": True}, {"return_counts": True}, {"return_inverse": True, "return_counts": True},
               {"dim": 0}, {"dim": 1, "return_counts": True}):
        e, t = unique(ember.from_numpy(a.copy()), **kw), torch.unique(torch.from_numpy(a.copy()), **kw)
        for x, y in zip(e if isinstance(e, tuple) else [e], t if isinstance(t, tuple) else [t]):
            np.testing.assert_array_equal(x.numpy(), y.numpy())
    b = np.array([1, 1, 2, 2, 3, 1, 1])
    for kw in ({}, {"return_inverse": True, "return_counts": True}):
        e, t = unique_consecutive(ember.from_numpy(b.copy()), **kw), torch.unique_consecutive(torch.from_numpy(b.copy()), **kw)
        for x, y in zip(e if isinstance(e, tuple) else [e], t if isinstance(t, tuple) else [t]):
            np.testing.assert_array_equal(x.numpy(), y.numpy())


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


def test_assert_close_defaults_and_message():
    assert_close(ember.tensor([1.0, float("nan")]), ember.tensor([1.0 + 1e-7, float("nan")]), equal_nan=True)
    with pytest.raises(AssertionError, match="dtype"):
        assert_close(ember.tensor([1.0]), ember.tensor([1.0], dtype=ember.float64))
    assert_close(ember.tensor([1.0]), ember.tensor([1.0], dtype=ember.float64), check_dtype=False)
    with pytest.raises(AssertionError, match=r"Greatest absolute difference: 0.5 at index \(1,\)"):
        assert_close(ember.tensor([1.0, 2.0, 3.0]), ember.tensor([1.0, 2.5, 3.1]))


def test_coverage_report_runs():
    from ember.testing import coverage
    buf = io.StringIO()
    have, missing = coverage.report(out=buf)
    assert "erfinv" in have and "cumsum" in have and "ember has:" in buf.getvalue()
    assert "op_db has an OpInfo for" in buf.getvalue()
    tested = coverage.opinfo_names()
    assert {"conv3d", "ctc_loss", "linalg_svd", "bernoulli", "cumsum"} <= tested and "not_an_op" not in tested


def test_numpy_erf_fallback_accuracy():
    """The pure-numpy erf/erfc (used when scipy is absent) stay accurate to a few float64 ulps."""
    import math
    from ember.kernels.cpu import elementwise_special
    x = np.linspace(-6, 6, 4001)
    ref = np.array([math.erf(v) for v in x])
    refc = np.array([math.erfc(v) for v in x])
    assert np.max(np.abs(elementwise_special._erf_numpy(x) - ref)) < 4e-15
    assert np.max(np.abs(elementwise_special._erfc_numpy(x) - refc) / refc) < 1e-13
