"""assert_close with torch.testing's defaults: per-dtype rtol/atol, equal_nan, dtype/shape checks, and a
message naming the greatest mismatch."""
import numpy as np

# torch.testing._comparison default_tolerances: dtype -> (rtol, atol)
_TOL = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
        "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def default_tolerances(dtype):
    return _TOL.get(getattr(dtype, "name", str(dtype)), (0.0, 0.0))


def _as_np(x):
    from .._tensor import Tensor
    if isinstance(x, Tensor):
        # the logical values: a conjugate or negative view is resolved first (torch's assert_close too)
        return x.detach().resolve_conj().resolve_neg().numpy(), x.dtype, tuple(x.shape)
    a = np.asarray(x)
    return a, None, a.shape


def assert_close(actual, expected, *, rtol=None, atol=None, equal_nan=False, check_dtype=True, check_device=True,
                 msg=None):
    if isinstance(actual, (tuple, list)) and isinstance(expected, (tuple, list)):
        if len(actual) != len(expected):
            raise AssertionError(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            try:
                assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=check_dtype, msg=msg)
            except AssertionError as err:
                raise AssertionError(f"{err}\n\nThe failure occurred for item [{i}]") from None
        return
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {'rtol' if rtol is None else 'atol'}.")
    a, adt, ashape = _as_np(actual)
    e, edt, eshape = _as_np(expected)
    if ashape != eshape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: {ashape} != {eshape}.")
    if check_dtype and adt is not None and edt is not None and adt != edt:
        raise AssertionError(msg or f"The values for attribute 'dtype' do not match: {adt} != {edt}.")
    if rtol is None:
        rtol, atol = map(max, zip(default_tolerances(adt or a.dtype), default_tolerances(edt or e.dtype)))
    if a.dtype.kind == "b" or e.dtype.kind == "b":
        a, e = a.astype(np.int64), e.astype(np.int64)
    kind = np.complex128 if (a.dtype.kind == "c" or e.dtype.kind == "c") else np.float64
    a64, e64 = a.astype(kind), e.astype(kind)
    with np.errstate(invalid="ignore", over="ignore"):
        ok = np.isclose(a64, e64, rtol=rtol, atol=atol, equal_nan=equal_nan) | (a64 == e64)
    if equal_nan:
        ok |= np.isnan(a64) & np.isnan(e64)
    if ok.all():
        return
    n_bad, total = int((~ok).sum()), ok.size
    with np.errstate(invalid="ignore", over="ignore"):
        absdiff = np.abs(a64 - e64)
        absdiff = np.where(np.isnan(absdiff), np.inf, absdiff)
        reldiff = absdiff / np.abs(e64)
    i_abs = np.unravel_index(np.argmax(np.where(ok, -1, absdiff)), ok.shape) if ok.ndim else ()
    i_rel = np.unravel_index(np.argmax(np.where(ok, -1, np.nan_to_num(reldiff, nan=np.inf))), ok.shape) if ok.ndim else ()
    kindname = "Scalars" if ok.ndim == 0 else "Tensor-likes"
    text = (f"{kindname} are not close!\n\nMismatched elements: {n_bad} / {total} ({100.0 * n_bad / total:.1f}%)\n"
            f"Greatest absolute difference: {absdiff[i_abs]} at index {tuple(int(i) for i in i_abs)} "
            f"(up to {atol} allowed)\nGreatest relative difference: {reldiff[i_rel]} at index "
            f"{tuple(int(i) for i in i_rel)} (up to {rtol} allowed)")
    raise AssertionError(msg or text)


_ALLCLOSE_TOL = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """The deprecated torch.testing.assert_allclose: assert_close without the dtype check, NaNs equal by default and
    its own looser default tolerances (the larger of the two inputs' dtypes')."""
    import warnings
    from .. import tensor
    from .._tensor import Tensor
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        tols = [_ALLCLOSE_TOL.get(t.dtype.name, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(t[0] for t in tols), max(t[1] for t in tols)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 msg=msg or None)
