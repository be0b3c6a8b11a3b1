"""Tensor printing in torch's format: `tensor([[1., 2.]], dtype=ember.float64)` (torch/_tensor_str.py)."""
import numpy as np

from ._core import dtype as D
from ._core.promotion import get_default_dtype


class _PrintOptions:
    """torch's PRINT_OPTS, set by `set_printoptions`."""
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


PRINT_OPTS = _PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """torch.set_printoptions: digits, summarization threshold and edge items, line width, and a forced
    (True/False) or automatic (None) scientific notation; `profile` is "default", "short" or "full"."""
    profiles = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, float("inf"), 3, 80)}
    if profile is not None:
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = profiles[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    return {"precision": PRINT_OPTS.precision, "threshold": PRINT_OPTS.threshold, "edgeitems": PRINT_OPTS.edgeitems,
            "linewidth": PRINT_OPTS.linewidth, "sci_mode": PRINT_OPTS.sci_mode}


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
            if PRINT_OPTS.sci_mode is not None:
                self.sci = PRINT_OPTS.sci_mode
            self.width = max(len(self._fmt(float(x))) for x in fin)

    def _fmt(self, x):
        if self.sci:
            return f"{x:.{PRINT_OPTS.precision}e}"
        if self.int_mode:
            r = f"{x:.0f}"
            return r + "." if np.isfinite(x) else r
        return f"{x:.{PRINT_OPTS.precision}f}"

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
    idx = [np.r_[0:min(PRINT_OPTS.edgeitems, n), max(n - PRINT_OPTS.edgeitems, PRINT_OPTS.edgeitems):n] if n > 2 * PRINT_OPTS.edgeitems else np.arange(n)
           for n in arr.shape]
    return arr[np.ix_(*idx)]


def _format(arr, fmt, indent, summarize):
    if arr.ndim == 0:
        return fmt(arr[()])
    if arr.ndim == 1:
        n = arr.shape[0]
        if summarize and n > 2 * PRINT_OPTS.edgeitems:
            items = [fmt(v) for v in arr[:PRINT_OPTS.edgeitems]] + [" ..."] + [fmt(v) for v in arr[-PRINT_OPTS.edgeitems:]]
        else:
            items = [fmt(v) for v in arr]
        per_line = max(1, (PRINT_OPTS.linewidth - indent) // (fmt.width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = list(range(arr.shape[0]))
    if summarize and arr.shape[0] > 2 * PRINT_OPTS.edgeitems:
        rows = rows[:PRINT_OPTS.edgeitems] + [None] + rows[-PRINT_OPTS.edgeitems:]
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
    arr = t._logical_np()      # a conj or neg view prints its logical values
    if arr.dtype.kind not in "biufc" or t.dtype.name in ("bfloat16",) or t.dtype.name.startswith("float8"):
        arr = arr.astype(np.float32)
    if arr.size == 0:
        body = "[]"
        if t.dim() != 1:
            suffix.append(f"size={tuple(t.shape)}")
    else:
        summarize = arr.size > PRINT_OPTS.threshold
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
        if last + len(sfx) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + sfx)
            last = indent + len(sfx)
        else:
            parts.append(", " + sfx)
            last += len(sfx) + 2
    return "".join(parts) + ")"
