"""torch/_inductor's extern fused attention (aten._scaled_dot_product_flash_attention_for_cpu and its backward)
called from the generated C entry: ember's fused attention kernels (kernels/cpu/csrc/attention.c's
attn_flash_fwd / attn_flash_bwd), with no return to Python in between.

The entry fills the descriptor eager's kernels/cpu/attention._flash fills (sizes, causal flag, each operand's
address and batch/head/row strides) and runs the kernel over the (batch, head) pairs, shared out over ember's C
pool (ember_parallel) at more than one thread from eager's _MIN_SPLIT_MACS multiply-adds. A pair's results depend
on that pair alone, so the bits are eager's at any thread count.
q, k, v, dO and O are read in place through their strides (each (L, E) matrix needs a unit stride along E, as
eager's (B, T, H, E)-ordered views have; other operands, such as the 0-stride expanded gradient of
`attention(...).sum()`, are copied first); the results are written with the strides of the graph's buffers. It
applies without attn_mask and dropout (what the graph has when scaled_dot_product_attention takes the fused op),
for float32/float64 with static sizes; everything else stays a Python extern call. With an attn_mask
scaled_dot_product_attention takes the math path instead (kernels/decompositions/attention.py: matmul, the mask
added, torch's safe softmax that gives a fully masked row zeros, matmul), whose gemms (blas_calls.py) and
generated kernels run in the entry too: a masked attention has no Python call either.
"""
from ember._core import dtype as _dt

from ..ir import BufferView, ExternKernel, MultiOutput
from .extern_plan import CTYPE as _CTYPE, SUFFIX as _SUFFIX, ExternPlan, bind_pointers, library, pointer_preamble
from .extern_plan import static as _static
from ..index import contiguous_strides
from .conv_calls import _copy_c

ATTENTION_OPS = ("aten._scaled_dot_product_flash_attention_for_cpu.default",
                 "aten._scaled_dot_product_flash_attention_for_cpu_backward.default")


def _library():
    return library("attention")


def _matrix_ok(lay, rows, cols):
    """A (B, H, rows, cols) layout whose (rows, cols) matrices BLAS reads row by row: unit column stride."""
    return (_static(lay) and len(lay.size) == 4 and tuple(lay.size[2:]) == (rows, cols) and
            (cols <= 1 or lay.stride[3] == 1) and (rows <= 1 or lay.stride[2] >= max(1, cols)))


class AttentionPlan(ExternPlan):
    """The attention extern `buf` as C statements of the entry (see the module docstring)."""

    def __init__(self, buf, dtype, views, writes, dims, scale, causal, backward):
        self.buf = buf
        self.dtype = dtype
        self.views = views            # operand name -> BufferView
        self.writes = writes          # result name -> the MultiOutput it writes
        self.B, self.H, self.L, self.S, self.E = dims
        self.scale, self.causal, self.backward = scale, causal, backward

    def c(self, uid, ptr, base_offset, threads):
        """(helper C, the entry's statements); ptr(buffer name) is the C expression of a buffer's first element,
        base_offset(view) the element offset of a view from it."""
        t = _CTYPE[self.dtype]
        sfx = _SUFFIX[self.dtype]
        B, H, L, S, E = self.B, self.H, self.L, self.S, self.E
        mats = {}
        copies, frees = [], []
        for name, v in self.views.items():
            st = v.layout.stride
            src = f"(({t}*){ptr(v.buffer.name)} + {base_offset(v)})"
            if name != "lse" and not _matrix_ok(v.layout, *v.layout.size[2:]):
                # (the 0-stride expanded gradient of `attention(...).sum()`): a contiguous copy the kernel reads
                copies.append(_copy_c(f"{name}_c", src, v.layout, t))
                frees.append(f"    free({name}_c);")
                src, st = f"{name}_c", contiguous_strides(v.layout.size)
            mats[name] = (src, st)
        for name, b in self.writes.items():
            mats[name] = (f"(({t}*){ptr(b.name)})", b.layout.stride)      # (ptr: at its first element)
        names = _BWD_SLOTS if self.backward else _FWD_SLOTS
        desc = [str(H), str(L), str(S), str(E), "1" if self.causal else "0"]
        for slot in names:
            if slot is None:
                desc += ["0"] * 4
            else:
                src, st = mats[slot]
                desc += [f"(int64_t)(intptr_t){src}", str(st[0]), str(st[1]), str(st[2])]
        desc += ["(int64_t)(intptr_t)&fail"] + ["0"] * 4          # (the failure flag; no additive mask)
        kernel = f"ember_attn_flash_{'bwd' if self.backward else 'fwd'}_{sfx}"
        fn = f"ember_attn{uid}_task"
        # the (batch, head) pairs [lo, hi): a pair's results depend on that pair alone, so any split over the pool
        # gives the bits of one loop (and eager's)
        helper = (f"static void {fn}(void** p, int64_t lo, int64_t hi)\n{{\n"
                  f"    {kernel}((void* const*)p, (const double*)p[1], lo, hi);\n}}\n")
        from ember.kernels.cpu.attention import _MIN_SPLIT_MACS    # (eager's threshold for sharing pairs out)
        split = threads > 1 and B * H > 1 and B * H * L * S * E >= _MIN_SPLIT_MACS
        head = (f"    /* {self.buf.name} = {self.buf.op}: ember's fused attention kernel (attention.c), {B * H} "
                f"(batch, head) pairs{' over the pool' if split else ''} */\n")
        if copies:
            head += "\n".join(copies) + "\n    if (!ember_index_error) "
        body = (f"    {{\n        int64_t fail = 0;\n        double sc[2] = {{{self.scale!r}, 0.0}};\n"
                f"        int64_t desc[{len(desc)}] = {{{', '.join(desc)}}};\n"
                "        void* ap[2] = {(void*)desc, (void*)sc};\n"
                + (f"        ember_parallel({fn}, ap, {B * H}, {threads});\n" if split else
                   f"        {fn}(ap, 0, {B * H});\n")
                + "        if (fail) ember_index_error = 3;\n    }")
        return helper, head + body + "".join("\n" + f for f in frees)


# csrc/attention.c's descriptor: H, L, S, E, causal, then (address, batch, head, row strides in elements) of
# q, k, v, o, lse, dO, dq, dk, dv in turn (kernels/cpu/attention._flash fills the same array from Python)
_FWD_SLOTS = ("q", "k", "v", "out", "lse", None, None, None, None)
_BWD_SLOTS = ("q", "k", "v", "o", "lse", "go", "gq", "gk", "gv")

def attention_plan(buf, multi_outputs=()):
    """An AttentionPlan when the extern `buf` can run from C, else None; `multi_outputs` are the graph's
    MultiOutput buffers that read it."""
    if not isinstance(buf, ExternKernel) or buf.has_tensor_result or str(buf.op) not in ATTENTION_OPS:
        return None
    if _library() is None:
        return None
    backward = str(buf.op) == ATTENTION_OPS[1]
    kwargs = dict(buf.kwargs)
    scale = kwargs.pop("scale", None)
    if kwargs.pop("attn_mask", None) is not None or kwargs:
        return None
    args = list(buf.args)
    if backward:
        if len(args) != 8:
            return None
        go, q, k, v, o, lse, dropout_p, causal = args
        views = {"go": go, "q": q, "k": k, "v": v, "o": o, "lse": lse}
        results = ("gq", "gk", "gv")
    else:
        if len(args) == 3:
            args += [0.0, False]
        elif len(args) == 4:
            args += [False]
        if len(args) != 5:
            return None
        q, k, v, dropout_p, causal = args
        views = {"q": q, "k": k, "v": v}
        results = ("out", "lse")
    if dropout_p != 0 or type(causal) is not bool or any(not isinstance(x, BufferView) for x in views.values()):
        return None
    dtype = q.buffer.dtype
    if dtype not in _CTYPE or any(x.buffer.dtype is not dtype or x.layout.dtype is not dtype for x in views.values()):
        return None
    if len(q.layout.size) != 4 or not _static(q.layout) or not _static(k.layout):
        return None
    B, H, L, E = q.layout.size
    S = k.layout.size[2]
    if min(B, H, L, S, E) < 1 or tuple(k.layout.size) != (B, H, S, E) or tuple(v.layout.size) != (B, H, S, E):
        return None
    # an operand BLAS cannot read in place (no unit stride along E, an expanded gradient) is copied first
    if not (_static(q.layout) and _static(k.layout) and _static(v.layout)):
        return None
    if backward:
        if not (_static(go.layout) and _static(o.layout)) or tuple(go.layout.size) != (B, H, L, E) or \
                tuple(o.layout.size) != (B, H, L, E):
            return None
        if not _static(lse.layout) or tuple(lse.layout.size) != (B, H, L):
            return None
    if scale is None:
        scale = 1.0 / E ** 0.5
    elif type(scale) not in (int, float):
        return None
    writes = dict.fromkeys(results)
    for mo in multi_outputs:
        if not isinstance(mo, MultiOutput) or mo.kernel is not buf or len(mo.path) != 1 or \
                not 0 <= mo.path[0] < len(results):
            return None
        name = results[mo.path[0]]
        if writes[name] is not None or mo.layout.dtype is not dtype:
            return None
        lay = mo.layout
        if name == "lse":
            if not _static(lay) or tuple(lay.size) != (B, H, L):
                return None
        elif not _matrix_ok(lay, S if name in ("gk", "gv") else L, E):
            return None
        writes[name] = mo
    if any(b is None for b in writes.values()):
        return None                      # (the graph makes a MultiOutput of every tensor result)
    return AttentionPlan(buf, dtype, views, writes, (B, H, L, S, E), float(scale), causal, backward)


def _decls():
    """(kernel, C pointer type) of the fused attention kernels, in `bind`'s order."""
    return [(f"attn_flash_{kind}_{sfx}", "void (*)(void* const*, const double*, int64_t, int64_t)")
            for sfx in ("f32", "f64") for kind in ("fwd", "bwd")]


def preamble():
    """C declarations of the fused attention kernels' pointers and `ember_set_attention`, which the loader calls."""
    return pointer_preamble("ember_set_attention", "ember's fused attention kernels (kernels/cpu/csrc/attention.c)",
                            _decls())


def bind(lib):
    """Give a loaded library the addresses of the fused attention kernels (RuntimeError when they are missing)."""
    bind_pointers(lib, "ember_set_attention", _library(), [n for n, _ in _decls()],
                  "ember's fused attention kernels (attention.c)")
