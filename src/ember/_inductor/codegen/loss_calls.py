"""torch/_inductor's nll_loss_forward (the loss of cross_entropy) as an extern call: eager's kernel
(kernels/cpu/csrc/nll.c `nll_fwd_<sfx>`) called from the generated C entry, with no return to Python in between.

Why not generated loops: eager adds the picked losses one after another in double and rounds the sum once
(kernels/cpu/loss.py `_nll_c`), then divides in the input's dtype; the generated reduction added them in float32
in numpy's pairwise order, so a compiled cross-entropy's loss missed eager's bits. The call runs the same C over
the same targets, then rounds and divides as eager does: eager's bits (one pass over the targets: never split).
nll_loss_backward stays a generated kernel: -(grad / total) at the target's column and 0 elsewhere is what eager's
nll_bwd writes, bit for bit.

Applies to float32/float64 log-probabilities of static size, (N, C) or (C,), with or without class weights of
their dtype; a target out of range sets the entry's error flag 1 (IndexError, as eager raises). Everything else
stays the generated loops (lowering.py decides, `nll_in_c`).
"""
import math

from ember._core import dtype as _dt

from ..ir import BufferView, ExternKernel
from .extern_plan import CTYPE as _CTYPE, SUFFIX as _SUFFIX, ExternPlan, bind_pointers, library, pointer_preamble
from .extern_plan import static as _static, two_outputs

NLL_OPS = ("aten.nll_loss_forward.default",)
_BIND_NAMES = ("nll_fwd_f32", "nll_fwd_f64")

# nll_loss_forward lowered as a call to eager's nll.c (eager's bits); False: always the generated loops
NLL_IN_C = True


def _library():
    """ember's loaded nll library, or None (no C compiler, C kernels off)."""
    return library("nll")


def nll_in_c(x, weight):
    """Whether lowering.py makes nll_loss_forward of log-probabilities `x` (an IR value) an extern call (lowering.py
    also checks wrapper.EXTERN_LOSS_IN_C)."""
    size = x.get_size()
    return (NLL_IN_C and x.get_dtype() in _SUFFIX and
            (weight is None or weight.get_dtype() is x.get_dtype()) and
            len(size) in (1, 2) and all(type(s) is int for s in size) and math.prod(size) > 0 and
            _library() is not None)


class NllPlan(ExternPlan):
    """The nll_loss_forward extern `buf` as C statements of the entry (see the module docstring)."""

    def __init__(self, buf, dtype, views, writes, n, c, reduction, ignore_index):
        self.buf = buf
        self.dtype = dtype
        self.views = views            # "x", "t" (and "w") -> BufferView
        self.writes = writes          # "loss", "total" -> MultiOutput
        self.n, self.ncls, self.reduction, self.ignore_index = n, c, reduction, ignore_index

    def c(self, uid, ptr, base_offset, threads):
        """(helper C, the entry's statements); ptr(buffer name) is the C expression of a buffer's first element,
        base_offset(view) the element offset of a view from it."""
        t = _CTYPE[self.dtype]
        sfx = _SUFFIX[self.dtype]
        addr, copies, frees = self.operands(ptr, base_offset, lambda name: "int64_t" if name == "t" else t)
        loss, total = (f"(({t}*){ptr(self.writes[n].name)})" for n in ("loss", "total"))
        body = [f"    /* {self.buf.name} = {self.buf.op}: eager's nll.c over {self.n} targets */"]
        body += copies
        body.append("    if (!ember_index_error) {" if copies else "    {")
        body.append("        double sums[2] = {0.0, 0.0};")
        w = addr.get("w", "NULL")
        body.append(f"        if (ember_nll_fwd_{sfx}({addr['x']}, {addr['t']}, {self.n}, {self.ncls}, 1, {w}, "
                    f"{self.ignore_index}LL, {loss if self.reduction == 0 else 'NULL'}, sums) >= 0)")
        body.append("            ember_index_error = 1;")
        if self.reduction == 0:
            body.append(f"        {total}[0] = 0;")
        else:
            # eager: the double sums rounded to the dtype, then (mean) divided in the dtype
            body.append(f"        const {t} s = ({t})sums[0], tw = ({t})sums[1];")
            body.append(f"        {loss}[0] = {'s / tw' if self.reduction == 1 else 's'};")
            body.append(f"        {total}[0] = tw;")
        body.append("    }")
        body += frees
        return "", "\n".join(body)


def nll_plan(buf, multi_outputs=()):
    """An NllPlan when the extern `buf` can run from C, else None (it stays a Python call). `multi_outputs`: the
    graph's MultiOutput buffers of `buf` (the loss and the total weight)."""
    if not isinstance(buf, ExternKernel) or buf.kwargs or str(buf.op) not in NLL_OPS or buf.has_tensor_result or \
            _library() is None:
        return None
    args = list(buf.args)
    if len(args) != 5:
        return None
    x, target, weight, reduction, ignore_index = args
    if reduction not in (0, 1, 2) or type(ignore_index) is not int:
        return None
    views = {"x": x, "t": target}
    if weight is not None:
        views["w"] = weight
    if any(not isinstance(v, BufferView) or not _static(v.layout) for v in views.values()):
        return None
    dtype = x.buffer.dtype
    size = tuple(x.layout.size)
    if dtype not in _SUFFIX or x.layout.dtype is not dtype or len(size) not in (1, 2) or math.prod(size) == 0:
        return None
    n, c = (size[0], size[1]) if len(size) == 2 else (1, size[0])
    if weight is not None and (weight.buffer.dtype is not dtype or tuple(weight.layout.size) != (c,)):
        return None
    if target.buffer.dtype is not _dt.int64 or target.layout.dtype is not _dt.int64 or \
            math.prod(target.layout.size) != n or len(target.layout.size) != len(size) - 1:
        return None
    outs = two_outputs(buf, multi_outputs)
    if outs is None:
        return None
    loss, total = outs
    want = (n,) if reduction == 0 and len(size) == 2 else ()
    for b, shape in ((loss, want), (total, ())):
        lay = b.layout
        if tuple(lay.size) != shape or lay.dtype is not dtype or not lay.is_contiguous() or lay.offset or \
                not _static(lay):
            return None
    return NllPlan(buf, dtype, views, {"loss": loss, "total": total}, n, c, reduction, ignore_index)


def preamble():
    """C declarations of nll.c's forward pointers and `ember_set_nll`, which the loader calls."""
    return pointer_preamble("ember_set_nll", "eager's nll_loss (kernels/cpu/csrc/nll.c)",
                            [(f"nll_fwd_{sfx}", f"int64_t (*)(const {t}*, const int64_t*, int64_t, int64_t, int64_t, "
                              f"const {t}*, int64_t, {t}*, double*)")
                             for sfx, t in (("f32", "float"), ("f64", "double"))])


def bind(lib):
    """Give a loaded library the addresses of nll.c's forward kernels (RuntimeError when they are missing)."""
    bind_pointers(lib, "ember_set_nll", _library(), _BIND_NAMES, "ember's nll_loss (nll.c)")
