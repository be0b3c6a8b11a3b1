"""Tensor printing in torch's format: `tensor([[1., 2.]], dtype=ember.float64)` (torch/_tensor_str.py)."""
import numpy as np

from ._core import dtype as D
from ._core.promotion import get_default_dtype


LINEWIDTH = 80
EDGEITEMS = 3
THRESHOLD = 1000


class _Formatter:
    """torch's _Formatter: int mode / fixed 4 decimals / scientific, chosen from the nonzero finite values.
    A complex tensor gets one formatter for the real parts and one for the imaginary parts, as in torch."""

    def __init__(self, t, arr):
        self.kind = "bool" if t.dtype is D.bool_ else "float" if t.dtype.is_floating_point else \
            "complex" if t.dtype.is_complex else "int"
        self.sci = self.int_mode = False
        self.width = 1
        vals = arr.reshape(-1)
        if self.kind == "int":
            self.width = max((len(str(int(v))) for v in vals), default=1)
        elif self.kind == "bool":
            self.width = max((len(str(bool(v))) for v in vals), default=1)
        elif self.kind == "float":
            self._init_float(vals)
        else:
            self.re, self.im = _Formatter._real(vals.real), _Formatter._real(vals.imag)
            self.width = self.re.width + self.im.width + 1      # the element length torch counts ("j")

    @staticmethod
    def _real(vals):
        f = object.__new__(_Formatter)
        f.kind, f.sci, f.int_mode, f.width = "float", False, False, 1
        f._init_float(vals)
        return f

    def _init_float(self, vals):
        v = vals.astype(np.float64)
        fin = v[np.isfinite(v) & (v != 0)]
        self.int_mode = bool(np.all(np.ceil(fin) == fin))
        if fin.size:
            mx, mn = np.abs(fin).max(), np.abs(fin).min()
            if self.int_mode:
                self.sci = mx / mn > 1000.0 or mx > 1.0e8
            else:
                self.sci = mx / mn > 1000.0 or mx > 1.0e8 or mn < 1.0e-4
            self.width = max(len(self._fmt(float(x))) for x in fin)

    def _fmt(self, x):
        if self.sci:
            return f"{x:.4e}"
        if self.int_mode:
            r = f"{x:.0f}"
            return r + "." if np.isfinite(x) else r
        return f"{x:.4f}"

    def __call__(self, v):
        if self.kind == "bool":
            r = "True" if v else "False"
        elif self.kind == "int":
            r = str(int(v))
        elif self.kind == "float":
            r = self._fmt(float(v))
        else:
            real = self.re(v.real)
            imag = (self.im(v.imag) + "j").lstrip()
            return real + imag if imag[0] in "+-" else real + "+" + imag
        return " " * (self.width - len(r)) + r


def _summary_values(arr, summarize):
    if not summarize or arr.ndim == 0:
        return arr
    idx = [np.r_[0:min(EDGEITEMS, n), max(n - EDGEITEMS, EDGEITEMS):n] if n > 2 * EDGEITEMS else np.arange(n)
           for n in arr.shape]
    return arr[np.ix_(*idx)]


def _format(arr, fmt, indent, summarize):
    if arr.ndim == 0:
        return fmt(arr[()])
    if arr.ndim == 1:
        n = arr.shape[0]
        if summarize and n > 2 * EDGEITEMS:
            items = [fmt(v) for v in arr[:EDGEITEMS]] + [" ..."] + [fmt(v) for v in arr[-EDGEITEMS:]]
        else:
            items = [fmt(v) for v in arr]
        per_line = max(1, (LINEWIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = list(range(arr.shape[0]))
    if summarize and arr.shape[0] > 2 * EDGEITEMS:
        rows = rows[:EDGEITEMS] + [None] + rows[-EDGEITEMS:]
    sep = "," + "\n" * (arr.ndim - 1) + " " * (indent + 1)
    parts = ["..." if r is None else _format(arr[r], fmt, indent + 1, summarize) for r in rows]
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
        summarize = arr.size > THRESHOLD
        fmt = _Formatter(t, _summary_values(arr, summarize))
        body = _format(arr, fmt, len("tensor("), summarize)
    default_complex = D.complex128 if get_default_dtype() is D.float64 else D.complex64
    implicit = {get_default_dtype(), default_complex, D.int64, D.bool_}
    if t.dtype not in implicit or (t.numel() == 0 and t.dtype is not get_default_dtype()):
        suffix.append(f"dtype={t.dtype}")
    if t.grad_fn is not None:
        suffix.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    return _add_suffixes("tensor(" + body, suffix, len("tensor("))


def _add_suffixes(text, suffixes, indent):
    """Append `, dtype=...` etc., wrapping to a new line past the line width like torch."""
    parts = [text]
    last = len(text) - text.rfind("\n") + 1
    for sfx in suffixes:
        if last + len(sfx) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + sfx)
            last = indent + len(sfx)
        else:
            parts.append(", " + sfx)
            last += len(sfx) + 2
    return "".join(parts) + ")"
