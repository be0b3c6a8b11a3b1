"""torch/_inductor's extern fused attention (aten._scaled_dot_product_flash_attention_for_cpu and its backward)
called from the generated C entry: cblas gemms and the row kernels of ember's fused attention
(kernels/cpu/csrc/attention.c), with no return to Python in between.

The C follows eager's kernels/cpu/attention.py per (batch, head) pair, whose scores (L x S) stay in the cache:
- forward: s = q k^T (a gemm, k read transposed in place), then `attn_softmax_fwd` turns the rows into the scaled,
  causal-masked softmax and their log-sum-exp, then out = p v;
- backward: d = rowsum(dO * O) (numpy's cblas_sdot/cblas_ddot, what eager's np.vecdot calls), p = exp(scale q k^T
  - lse) (`attn_probs`), dv = p^T dO, dp = dO v^T, ds = scale p (dp - d) (`attn_softmax_bwd`), dq = ds k,
  dk = ds^T q.
The (batch, head) pairs are a task over ember's C pool (ember_parallel, about four chunks a thread, each chunk
with its own scratch) at more than one thread from kernels/cpu/attention._MIN_PARTS multiply-adds, as eager
shares them (attention.c's parts); a pair's results depend on that pair alone, so the bits are eager's at any
thread count. GPT step (benchmarks/compile_train.py --threads 2, 16 x 4 pairs of 64 x 64 x 32) in the commit
that split them.
q, k, v, dO and O are read in place through their strides (each (L, E) matrix needs a unit stride along E, as
eager's (B, T, H, E)-ordered views have); the results are written with the strides of the graph's buffers. It
applies without attn_mask and dropout (what the graph has when scaled_dot_product_attention takes the fused op),
for float32/float64 with static sizes; everything else stays a Python extern call. With an attn_mask
scaled_dot_product_attention takes the math path instead (kernels/decompositions/attention.py: matmul, the mask
added, torch's safe softmax that gives a fully masked row zeros, matmul), whose gemms (blas_calls.py) and
generated kernels run in the entry too: a masked attention has no Python call either. The gemms are numpy's OpenBLAS
(blas_calls.py binds them); the row kernels' addresses come from ember's attention library (`bind`).
"""
from ember._core import dtype as _dt

from ..ir import BufferView, ExternKernel, MultiOutput
from .extern_plan import CTYPE as _CTYPE, SUFFIX as _SUFFIX, ExternPlan, bind_pointers, library, pointer_preamble
from .extern_plan import static as _static
from ..index import contiguous_strides
from . import blas_calls
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
        gemm = "ember_sgemm" if self.dtype is _dt.float32 else "ember_dgemm"
        B, H, L, S, E = self.B, self.H, self.L, self.S, self.E
        mats = {}
        copies, frees = [], []
        for name, v in self.views.items():
            st = v.layout.stride
            src = f"(({t}*){ptr(v.buffer.name)} + {base_offset(v)})"
            if name != "lse" and not _matrix_ok(v.layout, *v.layout.size[2:]):
                # (the 0-stride expanded gradient of `attention(...).sum()`): a contiguous copy BLAS can read
                copies.append(_copy_c(f"{name}_c", src, v.layout, t))
                frees.append(f"    free({name}_c);")
                src, st = f"{name}_c", contiguous_strides(v.layout.size)
            mats[name] = (src, st)
        for name, b in self.writes.items():
            mats[name] = (f"(({t}*){ptr(b.name)})", b.layout.stride)      # (ptr: at its first element)

        order = list(mats)
        entry_ptrs = [mats[n][0] for n in order]
        mats = {n: (f"(({t}*)p[{i}])", mats[n][1]) for i, n in enumerate(order)}   # (as the task reads them)

        def at(name, rest=""):
            base, st = mats[name]
            return f"{base} + b * {st[0]} + h * {st[1]}{rest}"

        def ld(name):
            return mats[name][1][2] if len(mats[name][1]) > 2 else 1

        def mm(ta, tb, m, n, k, a, lda, b_, ldb, c, ldc):
            ta = blas_calls.TRANS if ta else blas_calls.NO_TRANS
            tb = blas_calls.TRANS if tb else blas_calls.NO_TRANS
            return (f"        {gemm}({blas_calls.ROW_MAJOR}, {ta}, {tb}, {m}, {n}, {k}, 1.0, {a}, {lda}, {b_}, "
                    f"{ldb}, 0.0, {c}, {ldc});")
        causal = 1 if self.causal else 0
        fn = f"ember_attn{uid}_task"
        # the (batch, head) pairs [lo, hi), each with the task's own scratch: a pair's results depend on that pair
        # alone, so any split over the pool gives one loop's bits
        work = ["s"] + (["dp", "d", "lse_c"] if self.backward else ["lse_r"])
        sizes = {"s": L * S, "dp": L * S, "d": L, "lse_c": L, "lse_r": L}
        lines = [f"static void {fn}(void** p, int64_t lo, int64_t hi)", "{"]
        lines += [f"    {t}* {w} = ({t}*)malloc({sizes[w]} * sizeof({t}));" for w in work]
        lines.append(f"    if (!({' && '.join(work)})) ember_index_error = 3;")
        lines.append("    else for (int64_t bh = lo; bh < hi; bh++) {")
        lines.append(f"        const int64_t b = bh / {H}, h = bh % {H};")
        if not self.backward:
            lines += [mm(False, True, L, S, E, at("q"), ld("q"), at("k"), ld("k"), "s", S),
                      f"        ember_attn_softmax_fwd_{sfx}(s, lse_r, {L}, {S}, {L}, 0, {self.scale!r}, {causal});",
                      f"        for (int64_t i = 0; i < {L}; i++) ({at('lse')})[i * {mats['lse'][1][2]}] = lse_r[i];",
                      mm(False, False, L, E, S, "s", S, at("v"), ld("v"), at("out"), ld("out"))]
        else:
            go_st, o_st = mats["go"][1], mats["o"][1]
            lse_st = mats["lse"][1]
            lines += [f"        for (int64_t i = 0; i < {L}; i++) {{",
                      f"            const {t}* gr = {at('go')} + i * {go_st[2]};",
                      f"            const {t}* orow = {at('o')} + i * {o_st[2]};",
                      f"            d[i] = ember_{'s' if t == 'float' else 'd'}dot({E}, gr, 1, orow, 1);",
                      f"            lse_c[i] = ({at('lse')})[i * {lse_st[2]}];",
                      "        }",
                      mm(False, True, L, S, E, at("q"), ld("q"), at("k"), ld("k"), "s", S),
                      f"        ember_attn_probs_{sfx}(s, lse_c, {L}, {S}, {L}, 0, {self.scale!r}, {causal});",
                      mm(True, False, S, E, L, "s", S, at("go"), ld("go"), at("gv"), ld("gv")),
                      mm(False, True, L, S, E, at("go"), ld("go"), at("v"), ld("v"), "dp", S),
                      f"        ember_attn_softmax_bwd_{sfx}(s, dp, d, {L}, {S}, {L}, 0, {self.scale!r}, {causal});",
                      mm(False, False, L, E, S, "dp", S, at("k"), ld("k"), at("gq"), ld("gq")),
                      mm(True, False, S, E, L, "dp", S, at("q"), ld("q"), at("gk"), ld("gk"))]
        lines.append("    }")
        lines += [f"    free({w});" for w in work]
        lines.append("}\n")
        # eager's split (kernels/cpu/attention._parts): the pairs over the pool from _MIN_PARTS multiply-adds
        from ember.kernels.cpu.attention import _MIN_PARTS
        split = threads > 1 and B * H > 1 and min(L, S, E) >= 2 and B * H * L * S * E >= _MIN_PARTS
        head = (f"    /* {self.buf.name} = {self.buf.op}: gemms and ember's attention row kernels, {B * H} "
                f"(batch, head) pairs{' over the pool' if split else ''} */\n")
        if copies:
            head += "\n".join(copies) + "\n    if (!ember_index_error) "
        body = (f"    {{\n        void* ap[{len(order)}] = {{{', '.join(f'(void*){e}' for e in entry_ptrs)}}};\n"
                + (f"        ember_parallel({fn}, ap, {B * H}, {threads});\n" if split else
                   f"        {fn}(ap, 0, {B * H});\n") + "    }")
        return "\n".join(lines), head + body + "".join("\n" + f for f in frees)


def attention_plan(buf, multi_outputs=()):
    """An AttentionPlan when the extern `buf` can run from C, else None; `multi_outputs` are the graph's
    MultiOutput buffers that read it."""
    if not isinstance(buf, ExternKernel) or buf.has_tensor_result or str(buf.op) not in ATTENTION_OPS:
        return None
    bits = blas_calls.blas_int_bits()
    if bits is None or _library() is None or _dot_symbols(bits)[0] is None:
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
    """(kernel, C pointer type) of the attention row kernels, in `bind`'s order."""
    out = []
    for sfx, t in (("f32", "float"), ("f64", "double")):
        out += [(f"attn_softmax_fwd_{sfx}", f"void (*)({t}*, {t}*, int64_t, int64_t, int64_t, int64_t, double, int)"),
                (f"attn_probs_{sfx}", f"void (*)({t}*, const {t}*, int64_t, int64_t, int64_t, int64_t, double, int)"),
                (f"attn_softmax_bwd_{sfx}",
                 f"void (*)(const {t}*, {t}*, const {t}*, int64_t, int64_t, int64_t, int64_t, double, int)")]
    return out


def preamble():
    """C declarations of the attention row kernels' pointers and `ember_set_attention`, which the loader calls."""
    return pointer_preamble("ember_set_attention", "ember's attention row kernels (kernels/cpu/csrc/attention.c)",
                            _decls()) + _dot_preamble()


def _dot_symbols(bits):
    """(numpy's OpenBLAS as a ctypes library, the names of its cblas_sdot and cblas_ddot) for `bits`-bit sizes, or
    (None, None). np.vecdot of float rows is numpy's FLOAT_dot / DOUBLE_dot, which calls them: eager's rowsum(dO * O)
    (kernels/cpu/attention.py), so the C computes it with the same calls (a plain loop missed eager's bits and, on a
    causal first row, the exact zero of dq that dO.v - dO.O gives when both are BLAS dots)."""
    from ember.kernels.cpu.runtime import blas
    combos = (("scipy_", "64_"), ("", "64_")) if bits == 64 else (("", ""), ("scipy_", ""))
    for lib in blas._openblas_libs():
        for pre, suf in combos:
            names = (f"{pre}cblas_sdot{suf}", f"{pre}cblas_ddot{suf}")
            if all(hasattr(lib, n) for n in names):
                return lib, names
    return None, None


def _dot_preamble():
    it = "int64_t" if blas_calls.blas_int_bits() == 64 else "int32_t"
    return pointer_preamble("ember_set_attention_dot", "numpy's OpenBLAS cblas_sdot / cblas_ddot (np.vecdot's)",
                            [(f"{p}dot", f"{t} (*)({it}, const {t}*, {it}, const {t}*, {it})")
                             for p, t in (("s", "float"), ("d", "double"))])


def bind(lib):
    """Give a loaded library the addresses of the attention row kernels (RuntimeError when they are missing)."""
    bind_pointers(lib, "ember_set_attention", _library(), [n for n, _ in _decls()],
                  "ember's attention row kernels (attention.c)")
    blas_lib, names = _dot_symbols(blas_calls.blas_int_bits())
    bind_pointers(lib, "ember_set_attention_dot", blas_lib, names, "numpy's OpenBLAS cblas_sdot/cblas_ddot")
