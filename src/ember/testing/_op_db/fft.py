"""OpInfo entries of torch.fft (torch's common_methods_invocations.py spectral_funcs, this family's part):
real inputs of several shapes, lengths and norms, numpy.fft as the reference."""
import numpy as np

from .._opinfo import OpInfo, SampleInput
from .._samples import make
from ._common import _aten

FFT_DTYPES = ("float32", "float64", "int64")

# (input shape, kwargs) per kind of transform; kwargs are torch's names
_ONE_DIM = [((5,), {}), ((3, 4), {"n": 6, "norm": "ortho"}), ((2, 3, 4), {"dim": 1, "norm": "forward"}),
            ((3, 4), {"n": 3, "dim": 0})]
_N_DIM = [((3, 4), {}), ((2, 3, 4), {"dim": (0, 2), "norm": "ortho"}), ((3, 4), {"s": (4, 5), "norm": "forward"}),
          ((2, 3, 4), {"s": (2, -1)})]
_TWO_DIM = [((3, 4), {}), ((2, 3, 4), {"norm": "ortho"}), ((3, 4), {"s": (2, 6), "norm": "forward"})]
_SHIFT = [((5,), {}), ((3, 4), {}), ((3, 5), {"dim": 1}), ((2, 3, 4), {"dim": (0, 2)})]


def _samples(cases):
    def f(op, dt):
        return [SampleInput(make(shape, dt, seed=i), (), dict(kw), f"{shape}-{kw}") for i, (shape, kw) in enumerate(cases)]
    return f


def _np_args(kw, one_dim):
    """torch's keyword names as numpy.fft's."""
    out = {"norm": kw.get("norm")}
    if one_dim:
        out["n"], out["axis"] = kw.get("n"), kw.get("dim", -1)
    else:
        if "s" in kw:
            out["s"] = kw["s"]
        if "dim" in kw:
            out["axes"] = kw["dim"]
    return out


def _ref(np_fn, one_dim, default_axes=None):
    def ref(a, **kw):
        a = a.astype(np.float32) if a.dtype.kind in "iub" else a
        args = _np_args(kw, one_dim)
        if default_axes is not None and "axes" not in args:
            args["axes"] = default_axes
        if "s" in args:                                  # torch's -1: the default length of that dim
            axes = args.setdefault("axes", tuple(range(a.ndim - len(args["s"]), a.ndim)))
            args["s"] = [a.shape[d] if n == -1 else n for d, n in zip(axes, args["s"])]
            if np_fn in (np.fft.irfftn, np.fft.irfft2) and kw["s"][-1] == -1:
                args["s"][-1] = 2 * (a.shape[axes[-1]] - 1)
        r = np_fn(a, **args)
        return r.astype(np.complex64 if a.dtype == np.float32 and r.dtype.kind == "c" else
                        np.float32 if a.dtype == np.float32 else r.dtype)
    return ref



def _complex(shape, dt, seed=0):
    c = make(shape, dt, seed=seed) + 1j * make(shape, dt, seed=seed + 1)
    return c.astype(np.complex64 if dt == "float32" else np.complex128)


def _raw(kind):
    """Samples of the internal transforms (_fft_r2c / _fft_c2c / _fft_c2r) behind torch.fft: their out= forms
    are reached only through ops.aten (torch.fft.*(out=) copies the functional result). Strides are not compared:
    torch's follow its FFT backend (MKL or pocketfft), as for the public transforms."""
    def f(op, dt):
        if kind == "r2c":
            return [SampleInput(make((3, 4), dt), ([1], 0, True), {}, "onesided"),
                    SampleInput(make((2, 3, 4), dt, seed=1), ([0, 2], 2, False), {}, "twosided")]
        if kind == "c2c":
            return [SampleInput(_complex((3, 4), dt), ([1], 0, True), {}, "forward"),
                    SampleInput(_complex((2, 3, 4), dt, 2), ([0, 1], 1, False), {}, "inverse")]
        return [SampleInput(_complex((3, 4), dt), ([1], 2, 6), {}, "n=6"),
                SampleInput(_complex((2, 3, 3), dt, 4), ([1, 2], 0, 4), {}, "n=4")]
    return f


def _hann(n, dt):
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)).astype(dt)


def _stft(op, dt):
    """torch.stft: centred (reflect, constant) and not, a window shorter than n_fft, batched, real and complex
    input, the deprecated real output (the one whose gradient the float tests check)."""
    c = _complex((30,), dt, 5)
    return [SampleInput(make((24,), dt), (8,), {"return_complex": True}, "centred"),
            SampleInput(make((2, 20), dt, seed=1), (8, 3, 6), {"window": _hann(6, dt), "return_complex": False,
                                                                "normalized": True}, "short-window"),
            SampleInput(make((20,), dt, seed=2), (6,), {"hop_length": 2, "center": False, "window": _hann(6, dt),
                                                        "return_complex": False}, "uncentred"),
            SampleInput(make((2, 16), dt, seed=3), (5,), {"pad_mode": "constant", "onesided": False,
                                                          "return_complex": False}, "twosided"),
            SampleInput(make((22,), dt, seed=4), (8, 3, 6), {"window": _hann(6, dt), "center": False,
                                                             "align_to_window": True, "return_complex": True},
                        "aligned"),
            SampleInput(c, (8,), {"window": _hann(8, dt)}, "complex"),
            SampleInput(make((12,), dt), (8,), {}, "error-no-return-complex")]


def _spectrum(x, n_fft, hop=None, win=None, window=None, center=True, onesided=True):
    """torch.stft's result for the sample array x (numpy), the input of istft's samples."""
    x = np.atleast_2d(x)
    hop = hop or n_fft // 4
    win = win or n_fft
    w = np.ones(win) if window is None else window
    left = (n_fft - win) // 2
    w = np.pad(w, (left, n_fft - win - left))
    if center:
        x = np.pad(x, ((0, 0), (n_fft // 2, n_fft // 2)), mode="reflect")
    n = 1 + (x.shape[1] - n_fft) // hop
    frames = np.stack([x[:, i * hop:i * hop + n_fft] * w for i in range(n)], 1)
    spec = np.fft.rfft(frames, axis=-1) if onesided else np.fft.fft(frames, axis=-1)
    return np.ascontiguousarray(spec.transpose(0, 2, 1))


def _istft(op, dt):
    cdt = np.complex64 if dt == "float32" else np.complex128
    x1, x2 = make((30,), dt), make((2, 24), dt, seed=1)
    w8, w6 = _hann(8, dt), (_hann(6, dt) + 0.5).astype(dt)        # (w6: no zero at the edges, uncentred)
    return [SampleInput(_spectrum(x1, 8, window=w8)[0].astype(cdt), (8,), {"window": w8}, "centred"),
            SampleInput(_spectrum(x2, 8, 3, 6, w6, center=False).astype(cdt), (8, 3, 6),
                        {"window": w6, "center": False, "normalized": True}, "short-window"),
            SampleInput(_spectrum(x2, 8, window=w8, onesided=False).astype(cdt), (8,),
                        {"window": w8, "onesided": False, "length": 20}, "twosided-length"),
            SampleInput(_spectrum(x1, 8, window=w8, onesided=False)[0].astype(cdt), (8,),
                        {"window": w8, "return_complex": True, "length": 40}, "complex-padded"),
            SampleInput(_spectrum(x1, 8, window=w8)[0].astype(cdt), (10,), {}, "error-n-fft")]


def _info(name, cases, ref):
    return OpInfo(f"fft.{name}", _samples(cases), ref=ref, dtypes=FFT_DTYPES, method_variant=False,
                  check_strides=False, aten_name=f"fft_{name}", rtol=1e-4, atol=1e-4)


op_db = [
    OpInfo("stft", _stft, dtypes=("float32", "float64"), check_strides=False, rtol=1e-4, atol=1e-4),
    OpInfo("istft", _istft, dtypes=("float32", "float64"), check_strides=False, rtol=1e-4, atol=1e-4,
           supports_meta=False),    # (its window-envelope check reads values: torch's has no meta either)
    _info("fft", _ONE_DIM, _ref(np.fft.fft, True)),
    _info("ifft", _ONE_DIM, _ref(np.fft.ifft, True)),
    _info("rfft", _ONE_DIM, _ref(np.fft.rfft, True)),
    _info("irfft", _ONE_DIM, _ref(np.fft.irfft, True)),
    _info("hfft", _ONE_DIM, _ref(np.fft.hfft, True)),
    _info("fftn", _N_DIM, _ref(np.fft.fftn, False)),
    _info("ifftn", _N_DIM, _ref(np.fft.ifftn, False)),
    _info("rfftn", _N_DIM, _ref(np.fft.rfftn, False)),
    _info("irfftn", _N_DIM, _ref(np.fft.irfftn, False)),
    _info("fft2", _TWO_DIM, _ref(np.fft.fft2, False, (-2, -1))),
    _info("ifft2", _TWO_DIM, _ref(np.fft.ifft2, False, (-2, -1))),
    _info("rfft2", _TWO_DIM, _ref(np.fft.rfft2, False, (-2, -1))),
    _info("irfft2", _TWO_DIM, _ref(np.fft.irfft2, False, (-2, -1))),
    _info("hfft2", _TWO_DIM, None),
    _info("hfftn", _N_DIM, None),
    _info("ihfft2", _TWO_DIM, None),
    _info("ihfftn", _N_DIM, None),
    _info("ihfft", _ONE_DIM, None),
    _aten("_fft_r2c", _raw("r2c"), ("float32", "float64"), supports_out=True, rtol=1e-4, atol=1e-4,
          check_strides=False),
    _aten("_fft_c2c", _raw("c2c"), ("float32", "float64"), supports_out=True, rtol=1e-4, atol=1e-4,
          check_strides=False),
    _aten("_fft_c2r", _raw("c2r"), ("float32", "float64"), supports_out=True, rtol=1e-4, atol=1e-4,
          check_strides=False),
    OpInfo("fft.fftshift", _samples(_SHIFT), ref=lambda a, dim=None: np.fft.fftshift(a, dim), dtypes=FFT_DTYPES,
           method_variant=False, aten_name="fft_fftshift"),
    OpInfo("fft.ifftshift", _samples(_SHIFT), ref=lambda a, dim=None: np.fft.ifftshift(a, dim), dtypes=FFT_DTYPES,
           method_variant=False, aten_name="fft_ifftshift"),
]
