"""Tensor printing in torch's format: `tensor([[1., 2.]], dtype=ember.float64)` (torch/_tensor_str.py)."""
import numpy as np

from ._core import dtype as D
from ._core.promotion import get_default_dtype


def _fmt_float(vals):
    finite = vals[np.isfinite(vals)]
    if finite.size == 0:
        return lambda v: _special(v), 0
    ints = np.all(finite == np.round(finite))
    amax = np.max(np.abs(finite)) if finite.size else 0
    amin = np.min(np.abs(finite[finite != 0])) if np.any(finite != 0) else 0
    sci = amax >= 1e8 or (amin != 0 and amin < 1e-4) or (amin != 0 and amax / amin > 1e3 and not ints)
    if ints and not sci:
        return (lambda v: _special(v) if not np.isfinite(v) else f"{v:.0f}."), 0
    if sci:
        return (lambda v: _special(v) if not np.isfinite(v) else f"{v:.4e}"), 0
    return (lambda v: _special(v) if not np.isfinite(v) else f"{v:.4f}"), 0


def _special(v):
    if np.isnan(v):
        return "nan"
    return "inf" if v > 0 else "-inf"


def _formatter(t, arr):
    d = t.dtype
    if d is D.bool_:
        return lambda v: "True" if v else "False"
    if d.is_floating_point:
        f, _ = _fmt_float(arr.astype(np.float64).reshape(-1))
        return lambda v: f(float(v))
    if d.is_complex:
        re = _fmt_float(arr.real.astype(np.float64).reshape(-1))[0]
        im = _fmt_float(arr.imag.astype(np.float64).reshape(-1))[0]
        return lambda v: f"{re(float(v.real))}{'+' if v.imag >= 0 or np.isnan(v.imag) else '-'}{im(abs(float(v.imag)))}j"
    return lambda v: str(int(v))


def _summarize(arr, edge=3, threshold=1000):
    return arr.size > threshold


def _format(arr, fmt, indent, summarize, width):
    if arr.ndim == 0:
        return fmt(arr[()]).rjust(width)
    if arr.ndim == 1:
        items = [fmt(v).rjust(width) for v in arr] if not (summarize and arr.shape[0] > 6) else \
            [fmt(v).rjust(width) for v in arr[:3]] + ["..."] + [fmt(v).rjust(width) for v in arr[-3:]]
        return "[" + ", ".join(items) + "]"
    rows = list(range(arr.shape[0]))
    if summarize and arr.shape[0] > 6:
        rows = rows[:3] + [None] + rows[-3:]
    sep = "," + "\n" * (arr.ndim - 1) + " " * (indent + 1)
    parts = ["..." if r is None else _format(arr[r], fmt, indent + 1, summarize, width) for r in rows]
    return "[" + sep.join(parts) + "]"


def tensor_repr(t):
    suffix = []
    if t.is_meta:
        suffix.append(f"size={tuple(t.shape)}")
        if t.dtype is not get_default_dtype():
            suffix.append(f"dtype={t.dtype}")
        body = "..."
        suffix.insert(0, "device='meta'")
        return "tensor(" + body + ", " + ", ".join(suffix) + ")"
    arr = t._np
    if arr.dtype.kind not in "biufc" or t.dtype.name in ("bfloat16",) or t.dtype.name.startswith("float8"):
        arr = arr.astype(np.float32)
    if arr.size == 0:
        body = "[]"
        if t.dim() != 1:
            suffix.append(f"size={tuple(t.shape)}")
    else:
        summarize = _summarize(arr)
        fmt = _formatter(t, arr)
        flat = arr.reshape(-1)
        sample = flat if not summarize else np.concatenate([flat[:3], flat[-3:]])
        width = max(len(fmt(v)) for v in sample)
        body = _format(arr, fmt, len("tensor("), summarize, width)
    implicit = {get_default_dtype(), D.int64, D.bool_}
    if t.dtype not in implicit or (t.numel() == 0 and t.dtype is not get_default_dtype()):
        suffix.append(f"dtype={t.dtype}")
    if t.grad_fn is not None:
        suffix.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + s for s in suffix) + ")"
