"""Signed zeros and special values of fmax/fmin and remainder against torch: fmax/fmin return the first operand of
a tie (fmax(0., -0.) is 0.), remainder keeps fmod's zero (a's sign: remainder(3e38, -3e38) is 0.) where numpy's
signs it like b. Every pair of special values (NaN, +-inf, +-0, +-huge, +-tiny, small integers), tensor and number
forms, in place and out=. float32 pairs whose quotient overflows are left out of remainder: torch's vectorised
fmod gives NaN where a / b overflows float32 and its scalar loop the exact result (it depends on the path)."""
import numpy as np
import pytest

import ember

S = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 3e38, -3e38, 1e-45, -1e-45, 1.0, -1.0, 0.5, 2.0, -2.0,
     1e-38, 100.0, -100.0, 7.0, -7.0, 3.0]


def _pairs(dtype, op):
    a, b = (x.ravel() for x in np.meshgrid(S, S))
    if op == "remainder" and dtype == "float32":
        with np.errstate(all="ignore"):
            keep = ~(np.isfinite(a) & (np.abs(a / b) > np.finfo(np.float32).max)) | ~np.isfinite(b) | (b == 0)
        a, b = a[keep], b[keep]
    return a, b


def _run(L, op, dtype, form):
    a, b = _pairs(dtype, op)
    d = getattr(L, dtype)
    x, y = L.tensor(a, dtype=d), L.tensor(b, dtype=d)
    f = getattr(L, op)
    if form == "functional":
        r = f(x, y)
    elif form == "inplace":
        r = x.clone()
        getattr(r, op + "_")(y)
    elif form == "out":
        r = L.empty(len(a), dtype=d)
        f(x, y, out=r)
    else:       # a number second operand, one per value (no quotient overflows float32)
        a_num = L.tensor([v for v in S if not 1e-45 < abs(v) < 1e-30 and abs(v) < 1e30], dtype=d)
        r = L.stack([f(a_num, float(v)) for v in S if not 0 < abs(v) < 1e-30])
    return r.numpy().view(np.uint32 if dtype == "float32" else np.uint64)


@pytest.mark.parity
@pytest.mark.parametrize("form", ["functional", "inplace", "out", "number"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["fmax", "fmin", "remainder"])
def test_signed_zero_results_like_torch(op, dtype, form):
    torch = pytest.importorskip("torch")
    if form in ("inplace", "number") and op in ("fmax", "fmin"):
        pytest.skip("torch has no fmax_/fmin_ nor a number form")
    e, t = _run(ember, op, dtype, form), _run(torch, op, dtype, form)
    nan_e = np.isnan(e.view(np.float32 if dtype == "float32" else np.float64))
    nan_t = np.isnan(t.view(np.float32 if dtype == "float32" else np.float64))
    np.testing.assert_array_equal(nan_e, nan_t)
    np.testing.assert_array_equal(e[~nan_e], t[~nan_t])     # (NaN payloads aside)


@pytest.mark.parity
@pytest.mark.parametrize("n", [1, 4, 17, 400, 5000, 100000])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "bool"])
def test_fmax_fmin_ties_are_the_first_operand_like_torch(dtype, n):
    """torch's fmax/fmin return the first operand of a tie at every size and dtype (numpy's choice depends on the
    dtype and the element's place in its SIMD loop); NaNs are ignored."""
    torch = pytest.importorskip("torch")
    got = []
    for L in (ember, torch):
        d = getattr(L, dtype)
        if dtype in ("int32", "bool"):
            a, b = L.arange(n).remainder(3).to(d), L.arange(n).remainder(2).to(d)
        else:
            a = L.tensor(np.resize([-0.0, 0.0, np.nan, 1.0, np.nan], n)).to(d)
            b = L.tensor(np.resize([0.0, -0.0, 2.0, np.nan, np.nan], n)).to(d)
        got.append([np.signbit(f(x, y).double().numpy()).tolist() + np.isnan(f(x, y).double().numpy()).tolist()
                    + f(x, y).double().nan_to_num(7.0).numpy().tolist()
                    for f in (L.fmax, L.fmin) for x, y in ((a, b), (b, a))])
    assert got[0] == got[1]


@pytest.mark.parity
@pytest.mark.parametrize("n", [1, 4, 17, 400, 5000, 100000])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_clamp_keeps_x_on_a_tie_with_a_number_bound_like_torch(dtype, n):
    """clamp(-0., min=0.) is -0. and clamp(0., max=-0.) 0. in torch (std::max(x, min)) at every size, functional
    and in place, on the numpy and C paths. (With tensor bounds torch's vectorised loop returns the bound of a
    tie and its scalar loop x: not compared.)"""
    torch = pytest.importorskip("torch")
    got = []
    for L in (ember, torch):
        x = L.tensor(np.resize([-0.0, 0.0, -1.0, 2.0, np.nan], n)).to(getattr(L, dtype))
        rs = [L.clamp(x, min=0.0), L.clamp(x, max=-0.0), L.clamp(x, 0.0, 1.0), L.clamp(x, -0.0, 0.0),
              x.clone().clamp_(min=0.0), x.clone().clamp_(max=-0.0)]
        got.append([np.signbit(r.double().numpy()).tolist() + r.double().nan_to_num(7.0).numpy().tolist() for r in rs])
    assert got[0] == got[1]
