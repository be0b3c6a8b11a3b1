"""torch/_inductor's softmax family as extern calls: aten._softmax, aten._log_softmax and their backwards over the
last dim, called from the generated C entry as eager's own row kernels (kernels/cpu/csrc/softmax.c
`softmax_fwd_<sfx>`, `softmax_bwd_<sfx>`), with no return to Python in between.

Why not generated loops: the generated row kernel (lowering.py `_row_softmax`: max, sum of exp, divide) rounds
differently from eager's (softmax.c's vector exp, the 16-lane sums of fold16.h, short rows held in registers), so a
compiled cross-entropy's loss and gradient missed eager's bits by an ulp or so. Calling eager's kernels on the
same rows gives eager's bits; each row is computed alone, so splitting the rows over ember's C pool (as eager
does from kernels/cpu/softmax._POOL_MIN elements at more than one thread) keeps them at any thread count.
Speed is unchanged: a compiled cross_entropy forward + backward, 1 thread, CPU-time minima of 30 x 20 calls
alternated in one process (load ~8): (1024, 65) 165.0 us generated / 160.6 us calling softmax.c and nll.c;
(128, 10) 57.3 / 58.9 us. The cost where it shows: an input computed by a fused pointwise (attention's scale and
masked_fill) is written to a buffer first, as eager writes it.

Applies to float32/float64 inputs of static size, softmax over the last dim, the result in the input's dtype
(no half_to_float); an operand that is not contiguous is copied to contiguous scratch first. Everything else
stays the generated loops (lowering.py decides, `softmax_in_c`).
"""
import math

from ..ir import BufferView, ExternKernel
from .extern_plan import CTYPE as _CTYPE, SUFFIX as _SUFFIX, ExternPlan, bind_pointers, library, pointer_preamble
from .extern_plan import static as _static

SOFTMAX_OPS = ("aten._softmax.default", "aten._log_softmax.default",
               "aten._softmax_backward_data.default", "aten._log_softmax_backward_data.default")


def _library():
    """ember's loaded softmax library, or None (no C compiler, C kernels off)."""
    return library("softmax")


def softmax_in_c(x, dim, out_dtype):
    """Whether lowering.py makes this (log_)softmax or its backward (input `x`, an IR value) an extern call to
    softmax.c: float32/float64 in and out, static sizes, `dim` the last one, at least one element (lowering.py
    also checks wrapper.EXTERN_SOFTMAX_IN_C)."""
    size = x.get_size()
    dt = x.get_dtype()
    if not SOFTMAX_IN_C or dt not in _SUFFIX or out_dtype is not dt:
        return False
    if not size or any(type(s) is not int for s in size) or math.prod(size) == 0:
        return False
    return dim % len(size) == len(size) - 1 and _library() is not None


# softmax family lowered as calls to eager's softmax.c (eager's bits); False: always the generated row kernels
SOFTMAX_IN_C = True


class SoftmaxPlan(ExternPlan):
    """The softmax extern `buf` as C statements of the entry (see the module docstring)."""

    def __init__(self, buf, dtype, views, rows, k, log, backward):
        self.buf = buf
        self.dtype = dtype
        self.views = views            # "x" (forward) or "g", "y" (backward) -> BufferView
        self.writes = {"out": buf}
        self.rows, self.k, self.log, self.backward = rows, k, log, backward

    def c(self, uid, ptr, base_offset, threads):
        """(helper C, the entry's statements); ptr(buffer name) is the C expression of a buffer's first element,
        base_offset(view) the element offset of a view from it."""
        from ember.kernels.cpu.softmax import _POOL_MIN
        t = _CTYPE[self.dtype]
        sfx = _SUFFIX[self.dtype]
        addr, copies, frees = self.operands(ptr, base_offset, lambda name: t)
        addr["out"] = f"(({t}*){ptr(self.buf.name)})"
        k, log = self.k, int(self.log)
        fn = f"ember_softmax{uid}"
        if self.backward:
            ptrs = [addr["g"], addr["y"], addr["out"]]
            call = (f"ember_softmax_bwd_{sfx}((const {t}*)p[0] + lo * {k}, (const {t}*)p[1] + lo * {k}, "
                    f"({t}*)p[2] + lo * {k}, hi - lo, {k}, {log})")
        else:
            ptrs = [addr["x"], addr["out"]]
            call = f"ember_softmax_fwd_{sfx}((const {t}*)p[0] + lo * {k}, ({t}*)p[1] + lo * {k}, hi - lo, {k}, {log})"
        task = f"static void {fn}_task(void** p, int64_t lo, int64_t hi)\n{{\n    {call};\n}}\n"
        # eager's split (kernels/cpu/softmax._pool_rows): rows over the pool from _POOL_MIN elements
        split = threads > 1 and self.rows > 1 and self.rows * k >= _POOL_MIN
        body = [f"    /* {self.buf.name} = {self.buf.op}: eager's softmax.c, {self.rows} rows of {k}"
                f"{', split' if split else ''} */"]
        body += copies
        body.append("    if (!ember_index_error) {" if copies else "    {")
        body.append(f"        void* cp[{len(ptrs)}] = {{{', '.join(f'(void*){q}' for q in ptrs)}}};")
        body.append(f"        ember_parallel({fn}_task, cp, {self.rows}, {threads});" if split else
                    f"        {fn}_task(cp, 0, {self.rows});")
        body.append("    }")
        body += frees
        return task, "\n".join(body)


def softmax_plan(buf, multi_outputs=()):
    """A SoftmaxPlan when the extern `buf` can run from C, else None (it stays a Python call)."""
    if not isinstance(buf, ExternKernel) or buf.kwargs or str(buf.op) not in SOFTMAX_OPS or \
            not buf.has_tensor_result or _library() is None:
        return None
    op = str(buf.op)
    backward = "backward" in op
    log = "_log_" in op
    args = list(buf.args)
    if backward:
        if len(args) != 4:
            return None
        g, y, dim = args[:3]
        views = {"g": g, "y": y}
    else:
        if len(args) != 3 or args[2]:
            return None
        x, dim = args[:2]
        views = {"x": x}
    if any(not isinstance(v, BufferView) or not _static(v.layout) for v in views.values()):
        return None
    first = next(iter(views.values()))
    dtype = first.buffer.dtype
    size = tuple(first.layout.size)
    if dtype not in _SUFFIX or not size or type(dim) is not int or dim % len(size) != len(size) - 1:
        return None
    if any(v.buffer.dtype is not dtype or v.layout.dtype is not dtype or tuple(v.layout.size) != size
           for v in views.values()):
        return None
    lay = buf.layout
    if tuple(lay.size) != size or lay.dtype is not dtype or not lay.is_contiguous() or lay.offset or \
            not _static(lay) or math.prod(size) == 0:
        return None
    k = size[-1]
    return SoftmaxPlan(buf, dtype, views, math.prod(size) // k, k, log, backward)


def _decls():
    """(kernel, C pointer type) of softmax.c's last-dim row kernels, in `bind`'s order."""
    out = []
    for sfx, t in (("f32", "float"), ("f64", "double")):
        out += [(f"softmax_fwd_{sfx}", f"void (*)(const {t}*, {t}*, int64_t, int64_t, int)"),
                (f"softmax_bwd_{sfx}", f"void (*)(const {t}*, const {t}*, {t}*, int64_t, int64_t, int)")]
    return out


def preamble():
    """C declarations of softmax.c's row kernel pointers and `ember_set_softmax`, which the loader calls."""
    return pointer_preamble("ember_set_softmax", "eager's softmax rows (kernels/cpu/csrc/softmax.c)", _decls())


def bind(lib):
    """Give a loaded library the addresses of softmax.c's row kernels (RuntimeError when they are missing)."""
    bind_pointers(lib, "ember_set_softmax", _library(), [n for n, _ in _decls()], "ember's softmax (softmax.c)")
