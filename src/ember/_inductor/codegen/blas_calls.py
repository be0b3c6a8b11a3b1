"""torch/_inductor/codegen/cpp_wrapper_cpu.py's extern matmuls: mm and bmm called from the generated C entry.

An `aten.mm`/`aten.bmm` extern (or an `aten.matmul` of those shapes, or of (..., m, k) by (k, n)) of
float32/float64 matrices whose strides BLAS can read (one stride 1 in each matrix, the other at least the row
length: a transposed view is a transpose flag) becomes a call of numpy's own OpenBLAS
`cblas_sgemm`/`cblas_dgemm` inside the C entry of its graph (`gemm_plan` decides, `gemm_c` writes the call).
With dynamic shapes the sizes and leading dimensions are C expressions of the entry's size symbols, decided on
the layout's structure only (`_operand_symbolic`). The entry then runs kernels and matmuls with no return to Python in between: a graph
of linear layers is one ctypes call. The product is what eager's np.matmul computes (the same BLAS routine; an
m==1 or n==1 product may round differently from numpy's gemv). The result is a buffer of the graph's memory
plan like a kernel's output.

An operand whose matrices BLAS cannot describe (a 0 stride: the expanded scalar gradient of `(q @ k.mT).sum()`
or of attention followed by `.sum()`; no unit stride; leading dimensions of a matmul's (..., m, k) operand that
do not merge into rows) is first copied, in the C entry, into contiguous scratch memory (malloc'ed for the call,
as conv_calls.py copies a convolution's operands), and the gemm reads the copy. A batch stride of 0 copies one
matrix, which every batch reads. That is what eager's numpy does (np.matmul and ndarray.dot copy an operand BLAS
cannot take, as np.ascontiguousarray would, and call the same gemm), so the values are eager's bit for bit. A
failed allocation sets the entry's error flag 3 (the wrapper raises MemoryError). Layouts with symbolic sizes or
strides are only called when BLAS reads them in place; the others stay Python extern calls.

The library's address comes from ember.kernels.cpu.runtime.blas.cblas_gemm() when the module is loaded
(`ember_set_blas`, below); without numpy's OpenBLAS (`blas_int_bits()` is None) every matmul stays a Python
extern call. The integer width of the found library (ILP64 or not) is written into the C, so a module is only
ever loaded by a process with the same library (a mismatch raises RuntimeError, the wrapper's fallback).
"""
import math

from ember._core import dtype as _dt

from ..ir import ExternKernel
from ..sizevars import SymSize

ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112
GEMM_OPS = ("aten.mm.default", "aten.bmm.default", "aten.matmul.default")


def blas_int_bits():
    """The integer width of numpy's cblas (64 or 32), or None when none was found."""
    from ember.kernels.cpu.runtime import blas
    found = blas.cblas_gemm()
    return None if found is None else found[2]


def _operand(size, stride):
    """(transpose flag, leading dimension) for a rows x cols matrix with these element strides, or None when
    BLAS cannot read it in place (no unit stride, an expanded dimension, overlapping rows)."""
    rows, cols = size
    rs, cs = stride
    if (cols <= 1 or cs == 1) and (rows <= 1 or rs >= max(1, cols)):
        return NO_TRANS, rs if rows > 1 else max(1, cols)
    if (rows <= 1 or rs == 1) and (cols <= 1 or cs >= max(1, rows)):
        return TRANS, cs if cols > 1 else max(1, rows)
    return None


def _operand_symbolic(size, stride):
    """_operand for sizes or strides that are symbolic (sizevars.SymSize): decided on the layout's structure
    only (a unit stride and a row stride equal to the row length, as polynomials), never on example values,
    so the size-parameterised C is the same at every size."""
    rows, cols = size
    rs, cs = stride
    if cs == 1 and rs == cols:
        return NO_TRANS, cols
    if rs == 1 and cs == rows:
        return TRANS, rows
    return None


class GemmPlan:
    """One matmul the C entry calls: C[b] = A[b] @ B[b] for b < batch, all offsets and strides in elements."""

    def __init__(self, buf, a, b, batch, m, n, k, ops, batch_strides, copies=(None, None)):
        self.buf = buf                   # the ExternKernel (its result is a buffer of the memory plan)
        self.a, self.b = a, b            # the operand BufferViews
        self.copies = copies             # per operand: None (read in place) or the (size, stride) of the strided
        #                                  view that is first copied into contiguous scratch (copy_c)
        self.batch, self.m, self.n, self.k = batch, m, n, k
        self.ops = ops                   # ((transA, lda), (transB, ldb))
        self.batch_strides = batch_strides   # (A's, B's) batch strides
        self.symbolic = any(type(x) is not int for x in (batch, m, n, k, ops[0][1], ops[1][1]) + batch_strides)


def gemm_plan(buf):
    """A GemmPlan when the extern `buf` can be called from C, else None."""
    if not isinstance(buf, ExternKernel) or not buf.has_tensor_result or buf.kwargs:
        return None
    op = str(buf.op)
    if op not in GEMM_OPS or len(buf.args) != 2 or blas_int_bits() is None:
        return None
    a, b = buf.args
    views = buf.input_views()
    if len(views) != 2 or views[0] is not a or views[1] is not b:
        return None
    dtype = buf.layout.dtype
    if dtype not in (_dt.float32, _dt.float64) or a.buffer.dtype is not dtype or b.buffer.dtype is not dtype:
        return None
    symbolic = False
    for lay in (a.layout, b.layout, buf.layout):
        for x in lay.size + lay.stride + (lay.offset,):
            if type(x) is not int:
                if not isinstance(x, SymSize):
                    return None
                symbolic = True          # dynamic shapes: sizes are C expressions of the entry's size symbols
    if symbolic and blas_int_bits() != 64:
        return None
    operand = _operand_symbolic if symbolic else _operand
    if not buf.layout.is_contiguous():
        return None
    plan = _shape_plan(op, a.layout, b.layout, operand, (False, False))
    if plan is None and not symbolic:    # an operand BLAS cannot read in place: read a contiguous copy of it
        plan = (_shape_plan(op, a.layout, b.layout, operand, (True, False)) or
                _shape_plan(op, a.layout, b.layout, operand, (False, True)) or
                _shape_plan(op, a.layout, b.layout, operand, (True, True)))
    if not plan:
        return None
    batch, m, n, k, oa, ob, bs, copies = plan
    if not symbolic and blas_int_bits() == 32 and max(m, n, k, oa[1], ob[1]) >= 2 ** 31:
        return None                      # beyond a 32-bit BLAS's sizes
    return GemmPlan(buf, a, b, batch, m, n, k, (oa, ob), bs, copies)


def _contiguous(size):
    stride, acc = [], 1
    for x in reversed(size):
        stride.append(acc)
        acc *= x
    return tuple(reversed(stride))


def _shape_plan(op, alay, blay, operand, copy):
    """(batch, m, n, k, (transA, lda), (transB, ldb), batch strides, copies) of a gemm of these operand layouts,
    None when an operand's layout is one BLAS cannot read, False when the shapes are not a gemm's. copy[i]: the
    i-th operand is read from a contiguous copy (of one matrix when its batch stride is 0)."""
    asz, ast, bsz, bst = alay.size, alay.stride, blay.size, blay.stride
    copies = [None, None]
    if len(asz) == len(bsz) == 3 and op != "aten.mm.default":          # bmm, or a batched matmul
        if asz[0] != bsz[0]:
            return False
        if copy[0]:
            copies[0] = (asz[1:], ast[1:]) if ast[0] == 0 else (asz, ast)
            ast = (0 if ast[0] == 0 else asz[1] * asz[2],) + _contiguous(asz[1:])
        if copy[1]:
            copies[1] = (bsz[1:], bst[1:]) if bst[0] == 0 else (bsz, bst)
            bst = (0 if bst[0] == 0 else bsz[1] * bsz[2],) + _contiguous(bsz[1:])
        batch, bs = asz[0], (ast[0], bst[0])
        (m, k), (k2, n) = asz[1:], bsz[1:]
        sa = ast[1:]
    elif len(bsz) == 2 and len(asz) >= 2 and op != "aten.bmm.default" and (len(asz) == 2 or op != "aten.mm.default"):
        # mm, or matmul of (..., m, k) by (k, n): the leading dimensions of a merge into its rows when they
        # are laid out one after the other (a Linear on a 3-d activation is one gemm, as eager's matmul)
        if copy[0]:
            copies[0] = (asz, ast)
            ast = _contiguous(asz)
        if copy[1]:
            copies[1] = (bsz, bst)
            bst = _contiguous(bsz)
        batch, bs = 1, (0, 0)
        m, k = 1, asz[-1]
        for x in asz[:-1]:
            m *= x
        k2, n = bsz
        sa = (ast[-2], ast[-1])
        for i in range(len(asz) - 2):
            if asz[i] != 1 and ast[i] != asz[i + 1] * ast[i + 1]:
                return None
    else:
        return False
    if k != k2 or any(type(x) is int and x <= 0 for x in (batch, m, n, k)):
        return False
    oa = operand((m, k), sa)
    ob = operand((k, n), bst[-2:])
    if oa is None or ob is None:
        return None
    if len(asz) > 2 and batch == 1 and oa[0] != NO_TRANS:
        return None                      # merged rows need a's rows in order (no transposed a)
    return batch, m, n, k, oa, ob, bs, tuple(copies)
    return GemmPlan(buf, a, b, batch, m, n, k, (oa, ob), bs)


def gemm_preamble(bits):
    """C declarations of the cblas function pointers and `ember_set_blas`, which the loader calls."""
    it = "int64_t" if bits == 64 else "int32_t"
    sig = "(int, int, int, {it}, {it}, {it}, {t}, const {t}*, {it}, const {t}*, {it}, {t}, {t}*, {it})"
    return (f"/* numpy's OpenBLAS, {bits}-bit sizes: set by the loader (codegen/blas_calls.py) */\n"
            "#include <stdlib.h>\n#include <string.h>\n"
            f"typedef void (*ember_sgemm_fn){sig.format(it=it, t='float')};\n"
            f"typedef void (*ember_dgemm_fn){sig.format(it=it, t='double')};\n"
            "static ember_sgemm_fn ember_sgemm;\nstatic ember_dgemm_fn ember_dgemm;\n"
            f"int ember_set_blas(void* s, void* d, int bits)\n{{\n"
            f"    if (bits != {bits}) return 1;\n"
            "    ember_sgemm = (ember_sgemm_fn)s;\n    ember_dgemm = (ember_dgemm_fn)d;\n    return 0;\n}\n")


def copy_c(name, src, size, stride, t, indent="        "):
    """C lines declaring `name`, a malloc'ed contiguous copy of the static strided view `src` (element sizes and
    strides); a failed allocation sets the entry's error flag and leaves `name` NULL. Shared by the gemm, convolution
    and attention calls, whose operands BLAS or the direct kernels cannot read in place."""
    lines = [f"{indent}{t}* {name} = ({t}*)malloc({max(math.prod(size), 1)} * sizeof({t}));",
             f"{indent}if (!{name}) ember_index_error = 3;",
             f"{indent}else {{",
             f"{indent}    {t}* d_ = {name};"]
    ind = indent + "    "
    for i, x in enumerate(size):
        lines.append(f"{ind}for (int64_t i{i} = 0; i{i} < {x}; i{i}++)")
        ind += "    "
    off = " + ".join(f"i{i} * {st}" for i, st in enumerate(stride) if st) or "0"
    lines.append(f"{ind}*d_++ = {src}[{off}];")
    lines.append(f"{indent}}}")
    return lines


def split_plan(plan, threads):
    """How eager's runtime/gemm.py would share this one 2-d product out over `threads` threads of its pool: its
    _plan (blocks of rows or columns at whole OpenBLAS tiles, above the small-matrix kernels), or None (one call:
    a batch, scratch copies, run-time sizes, one thread, too small, or a build whose blocks were not found to
    reproduce the single call). The blocks have the single call's bits (gemm.py's probes), so eager's bits."""
    if threads < 2 or plan.batch != 1 or plan.symbolic or any(c is not None for c in plan.copies):
        return None
    from ember.kernels.cpu.runtime import gemm
    import numpy as np
    m, n, k = plan.m, plan.n, plan.k
    if m < 2 or n < 2 or k < 2 or m * n * k <= gemm.OPENBLAS_SERIAL or not gemm.available():
        return None
    if plan.a.buffer is plan.b.buffer and m == n:
        return None                          # numpy may take syrk for x @ x.T (gemm._syrk): not split there
    dt = np.dtype(np.float32 if plan.buf.layout.dtype is _dt.float32 else np.float64)
    st = gemm._probe()
    (ta, _), (tb, _) = plan.ops
    nt = dt == np.float32 and ta == 111 and tb == 112 and gemm._exact_nt(st)
    sp = gemm._plan(m, n, k, 1, threads, dt, nt=nt)
    if sp is None or not gemm._exact(st, dt):
        return None
    return sp


def gemm_c(plan, ptr_a, ptr_b, ptr_c, base_offset, threads=1, helpers=None, uid=""):
    """The C statement(s) of one planned matmul; ptr_* are C expressions of the three buffers' first elements
    and base_offset(view) the element offset of an operand view from its buffer's first element. With
    `threads` > 1 a product eager would split (split_plan) runs as blocks over the pool (ember_parallel), the
    block task appended to `helpers` (OpenBLAS is held at one thread, as eager holds it: blas.hold_single)."""
    sp = split_plan(plan, threads) if helpers is not None else None
    if sp is not None:
        return _split_gemm_c(plan, sp, ptr_a, ptr_b, ptr_c, base_offset, threads, helpers, uid)
    if helpers is not None and batch_split(plan, threads):
        return _batch_gemm_c(plan, ptr_a, ptr_b, ptr_c, base_offset, threads, helpers, uid)
    t = "float" if plan.buf.layout.dtype is _dt.float32 else "double"
    fn = "ember_sgemm" if t == "float" else "ember_dgemm"
    (ta, lda), (tb, ldb) = plan.ops
    a = f"(const {t}*){ptr_a} + {base_offset(plan.a)}"
    b = f"(const {t}*){ptr_b} + {base_offset(plan.b)}"
    c = f"({t}*){ptr_c}"
    copies = []
    for name, src, cp in (("ga_c", a, plan.copies[0]), ("gb_c", b, plan.copies[1])):
        if cp is not None:
            copies.append((name, f"({src})", cp))
    if copies:                           # operands BLAS cannot read in place: read contiguous copies
        a = "ga_c" if plan.copies[0] is not None else a
        b = "gb_c" if plan.copies[1] is not None else b
    head = f"    /* {plan.buf.name} = {plan.buf.op} */\n"
    args = f"{ROW_MAJOR}, {ta}, {tb}, {plan.m}, {plan.n}, {plan.k}, 1.0"
    if plan.batch == 1:
        call = f"{fn}({args}, {a}, {lda}, {b}, {ldb}, 0.0, {c}, {plan.n});"
    else:
        sa, sb = plan.batch_strides
        call = (f"for (int64_t bi = 0; bi < {plan.batch}; bi++)\n"
                f"            {fn}({args}, {a} + bi * {sa}, {lda}, {b} + bi * {sb}, {ldb}, 0.0, "
                f"{c} + bi * {plan.m * plan.n}, {plan.n});")
    if copies:
        lines = [head + "    {"]
        for name, src, (size, stride) in copies:
            lines.append(f"        /* {name}: a contiguous copy of the {tuple(size)} operand of strides "
                         f"{tuple(stride)} */")
            lines += copy_c(name, src, size, stride, t)
        names = [name for name, _, _ in copies]
        lines.append(f"        if ({' && '.join(names)})")
        lines.append("            " + call.replace("\n            ", "\n                "))
        lines += [f"        free({name});" for name in names]
        lines.append("    }")
        return "\n".join(lines)
    if not plan.symbolic:
        return head + "    " + call.replace("\n        ", "\n    ")
    # run-time sizes: an empty product is no call, a zero inner size a zero result (what eager gives)
    total = plan.batch * plan.m * plan.n
    return (head + f"    if ({total} > 0) {{\n"
            f"        if ({plan.k} > 0) {call}\n"
            f"        else memset({c}, 0, (size_t)({total}) * sizeof({t}));\n    }}")


def batch_split(plan, threads):
    """Whether the matrices of a batched product are shared out over `threads` threads of ember's pool, as eager's
    runtime/gemm.py shares a bmm's (its _plan: at least two matrices a thread and SPLIT_MACS multiply-adds in all).
    Each matrix is one gemm call on whichever thread takes it, so the bits are the loop's at any thread count.
    The plain-softmax GPT's q @ k^T and p @ v (64 matrices of 64x32x64, 8.4M multiply-adds each product) split."""
    if threads < 2 or plan.batch < 2 * threads or plan.symbolic or any(c is not None for c in plan.copies):
        return False
    from ember.kernels.cpu.runtime import gemm
    return plan.batch * plan.m * plan.n * plan.k >= gemm.SPLIT_MACS


def _batch_gemm_c(plan, ptr_a, ptr_b, ptr_c, base_offset, threads, helpers, uid):
    """A batched product's matrices over the pool (batch_split): the task runs matrices [b, e)."""
    t = "float" if plan.buf.layout.dtype is _dt.float32 else "double"
    fn = "ember_sgemm" if t == "float" else "ember_dgemm"
    (ta, lda), (tb, ldb) = plan.ops
    sa, sb = plan.batch_strides
    mn = plan.m * plan.n
    task = f"ember_bgemm{uid}_task"
    helpers.append(f"static void {task}(void** p, int64_t b, int64_t e)\n{{\n"
                   f"    for (int64_t bi = b; bi < e; bi++)\n"
                   f"        {fn}({ROW_MAJOR}, {ta}, {tb}, {plan.m}, {plan.n}, {plan.k}, 1.0, "
                   f"(const {t}*)p[0] + bi * {sa}, {lda}, (const {t}*)p[1] + bi * {sb}, {ldb}, 0.0, "
                   f"({t}*)p[2] + bi * {mn}, {plan.n});\n}}\n")
    a = f"(const {t}*){ptr_a} + {base_offset(plan.a)}"
    b = f"(const {t}*){ptr_b} + {base_offset(plan.b)}"
    return (f"    /* {plan.buf.name} = {plan.buf.op}: {plan.batch} matrices over the pool, as eager's "
            f"runtime/gemm.py */\n"
            f"    {{\n        void* gp[3] = {{(void*)({a}), (void*)({b}), (void*){ptr_c}}};\n"
            f"        ember_parallel({task}, gp, {plan.batch}, {threads});\n    }}")


def _split_gemm_c(plan, sp, ptr_a, ptr_b, ptr_c, base_offset, threads, helpers, uid):
    """One product as `nblk` blocks of rows (or columns) over the pool: block q covers span * q / nblk rounded
    down to the unit up to where the next starts (the last: to the end), csrc/gemm.c's gemm_part blocks."""
    t = "float" if plan.buf.layout.dtype is _dt.float32 else "double"
    fn = "ember_sgemm" if t == "float" else "ember_dgemm"
    (ta, lda), (tb, ldb) = plan.ops
    cols, unit, nblk = sp[0], sp[1], sp[2]
    m, n, k = plan.m, plan.n, plan.k
    span = n if cols else m
    if cols:        # columns [lo, hi) of op(B) and of C
        boff = "lo" if tb == 111 else f"lo * {ldb}"
        args = (f"{m}, hi - lo, {k}, 1.0, (const {t}*)p[0], {lda}, (const {t}*)p[1] + {boff}, {ldb}, 0.0, "
                f"({t}*)p[2] + lo, {n}")
    else:           # rows [lo, hi) of op(A) and of C
        aoff = f"lo * {lda}" if ta == 111 else "lo"
        args = (f"hi - lo, {n}, {k}, 1.0, (const {t}*)p[0] + {aoff}, {lda}, (const {t}*)p[1], {ldb}, 0.0, "
                f"({t}*)p[2] + lo * {n}, {n}")
    task = f"ember_gemm{uid}_task"
    helpers.append(f"static void {task}(void** p, int64_t b, int64_t e)\n{{\n"
                   f"    for (int64_t q = b; q < e; q++) {{\n"
                   f"        const int64_t lo = {span} * q / {nblk} / {unit} * {unit};\n"
                   f"        const int64_t hi = q == {nblk - 1} ? {span} : {span} * (q + 1) / {nblk} / {unit} * {unit};\n"
                   f"        {fn}(101, {ta}, {tb}, {args});\n    }}\n}}\n")
    a = f"(const {t}*){ptr_a} + {base_offset(plan.a)}"
    b = f"(const {t}*){ptr_b} + {base_offset(plan.b)}"
    return (f"    /* {plan.buf.name} = {plan.buf.op}: {nblk} blocks of {'columns' if cols else 'rows'} over the pool, as "
            f"eager's runtime/gemm.py */\n"
            f"    {{\n        void* gp[3] = {{(void*)({a}), (void*)({b}), (void*){ptr_c}}};\n"
            f"        ember_parallel({task}, gp, {nblk}, {threads});\n    }}")


def bind(lib, bits):
    """Give a loaded library the addresses of numpy's cblas gemms (RuntimeError when they are not the ones its C
    was written for)."""
    import ctypes
    from ember.kernels.cpu.runtime import blas
    found = blas.cblas_gemm()
    if found is None or found[2] != bits:
        raise RuntimeError(f"ember._inductor: the generated C calls a {bits}-bit cblas_sgemm, but numpy's BLAS "
                           f"here is {'not OpenBLAS' if found is None else f'{found[2]}-bit'}")
    fn = lib["ember_set_blas"]
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    fn.restype = ctypes.c_int
    if fn(found[0], found[1], bits):
        raise RuntimeError("ember._inductor: ember_set_blas refused the BLAS integer width")
