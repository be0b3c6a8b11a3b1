"""ember.autograd.gradcheck with complex inputs and outputs against torch.autograd.gradcheck: complex outputs checked
as their imaginary and real parts, complex inputs through Wirtinger derivatives, complex128 counted as double
precision; a wrong backward is caught with torch's message."""
import warnings

import pytest

import ember

torch = pytest.importorskip("torch")


def _bad_conj(L):
    class BadConj(L.autograd.Function):       # backward conjugates where it must not
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g.conj() * 2
    return BadConj.apply


def _bad_real(L):
    class BadReal(L.autograd.Function):       # a real -> complex function whose backward drops the imaginary part
        @staticmethod
        def forward(ctx, t):
            return L.polar(t.abs() + 1, t)

        @staticmethod
        def backward(ctx, g):
            return g.real
    return BadReal.apply


def _z(L, dtype="complex128"):
    return L.tensor([0.3 + 1j, -1.2 - 0.5j], dtype=getattr(L, dtype), requires_grad=True)


def _x(L, dtype="float64"):
    return L.tensor([0.3, -1.2, 2.0], dtype=getattr(L, dtype), requires_grad=True)


CASES = {
    "cholesky": (lambda L: lambda a: L.linalg.cholesky(a @ a.mH),
                 lambda L: (L.tensor([[2.0, 0.5j], [-0.5j, 3.0]], dtype=L.complex128, requires_grad=True),), {}),
    "real_to_complex_polar": (lambda L: lambda t: L.polar(t.abs() + 1, t), lambda L: (_x(L),), {}),
    "real_to_complex_fft": (lambda L: lambda t: L.fft.fft(t), lambda L: (_x(L),), {}),
    "complex_mul": (lambda L: lambda t: t * t, lambda L: (_z(L),), {}),
    "complex_to_real_abs": (lambda L: lambda t: t.abs(), lambda L: (_z(L),), {}),
    "complex_conj": (lambda L: lambda t: t.conj() * 2, lambda L: (_z(L),), {}),
    "complex_and_real_outputs": (lambda L: lambda t: (t.real * 1j, t.abs()), lambda L: (_z(L),), {}),
    "wrong_conj": (_bad_conj, lambda L: (_z(L),), {}),
    "wrong_conj_no_raise": (_bad_conj, lambda L: (_z(L),), {"raise_exception": False}),
    "wrong_real_to_complex": (_bad_real, lambda L: (_x(L),), {}),
    "complex64_warns": (lambda L: lambda t: t * 2, lambda L: (_z(L, "complex64"),),
                        {"atol": 1e-2, "rtol": 1e-2, "eps": 1e-3}),
    "float32_warns": (lambda L: lambda t: t * 2, lambda L: (_x(L, "float32"),), {"atol": 1e-2, "rtol": 1e-2, "eps": 1e-3}),
}


def _run(L, case):
    make_fn, make_inputs, kw = CASES[case]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = L.autograd.gradcheck(make_fn(L), make_inputs(L), **kw)
        except Exception as e:      # noqa: BLE001  (the type and first line are compared)
            r = (type(e).__name__, str(e).split("\n")[0])
    return r, sorted({str(x.message) for x in w})


@pytest.mark.parity
@pytest.mark.parametrize("case", sorted(CASES))
def test_gradcheck_complex_matches_torch(case):
    assert _run(ember, case) == _run(torch, case)


@pytest.mark.parity
def test_gradgradcheck_complex_matches_torch():
    for L in (torch, ember):
        assert L.autograd.gradgradcheck(lambda t: t * t.conj() * t, (_z(L),))
