"""torch/_inductor's extern convolutions by im2col + gemm, called from the generated C entry: the convolutions
ember's direct kernel does not take (stride > 1, many channels) run eager's kernels/cpu/conv_im2col.py path in C.

conv_calls.conv_plan chooses, per result, the path eager's kernels/cpu/conv.py takes (dconv.c when
conv_direct.usable says so, else im2col); this module writes the im2col runs. Per chunk of `conv_im2col.chunk`
images (eager's chunks), with the same calls eager makes:
- forward: `im2col_batch` (csrc/im2col.c) builds the chunk's (G, Cg*K, m*O) columns, one gemm per group
  multiplies the (Og, Cg*K) weight rows by them, and the (G*Og, m*O) result is regrouped by image (+ bias);
- grad_input: the chunk's output gradient packed as (G, Og, m*O), a gemm per group by the transposed weight
  (G, Cg*K, Og) gives every window's gradient, `col2im_batch` adds them back into the zeroed grad_input;
- grad_weight: per chunk, packed output gradient times the columns transposed, added into the weight gradient;
- both (eager's conv_im2col.backward, taken when both are wanted and dconv does not take the weight gradient):
  one pass per chunk doing the two above with the columns built once.
Eager shares the images out over its pool in `parts` ranges (conv_im2col.over_images; for a weight gradient the
fixed ranges of conv_im2col.wgrad_bounds, shared out by over_ranges) and sums per-part weight gradients; the
entry runs the same ranges (over `config.threads()` threads, ember's thread count unless
cpp.threads says otherwise, with OpenBLAS held at one thread meanwhile as eager's single_blas holds it) and sums
the parts in eager's order, so the values are eager's bit for bit with the same gemm calls. (OpenBLAS's count is
process-wide: a BLAS call of another thread during those parts runs on one thread, as under eager's.) Where numpy's matmul takes gemv or a dot instead (a size-1 matrix side: one output channel per group,
one output position, one column) the rounding may differ by float32 ulps.
"""
import math

from ember.kernels.cpu import conv_im2col

_IM2COL_SIG = "void (*{name})(const {t}*, {t}*, const int64_t*, int64_t, int64_t)"
_BIND_NAMES = ("im2col_batch_f32", "col2im_batch_f32", "im2col_batch_f64", "col2im_batch_f64")


class GemmConv:
    """One im2col run: kind "fwd" (y = conv(x, w) + b), "gi", "gw" or "both" (gi and gw of go)."""

    def __init__(self, kind, n, c, groups, og, kern, in_sp, out, st, pd, dl, itemsize, threads, names):
        self.kind = kind
        self.n, self.c, self.groups, self.og = n, c, groups, og
        self.cout = groups * og
        self.ck = c // groups * math.prod(kern)              # rows of one group's columns
        self.o = math.prod(out)
        self.geo = [int(v) for v in conv_im2col.geometry(in_sp, kern, out, st, pd, dl)]
        self.xs = c * math.prod(in_sp)                        # elements of one image of x (or grad_input)
        self.ys = self.cout * self.o                          # of one image of y (or grad_output)
        self.bsz = conv_im2col.chunk(n, self.o, groups * self.ck, itemsize)
        work = n * self.o * self.cout * self.ck * (2 if kind == "both" else 1)
        from ember.kernels.cpu.runtime import blas
        if kind in ("gw", "both"):       # eager's fixed ranges of partial sums (conv_im2col.wgrad_bounds)
            self.bounds = conv_im2col.wgrad_bounds(n, self.bsz)
            parts = len(self.bounds) - 1
        else:
            parts = min(threads, n)
            self.bounds = [n * i // parts for i in range(parts + 1)]
        # threads the ranges are shared over (eager's over_images / over_ranges)
        self.workers = min(threads, parts) if threads > 1 and work >= conv_im2col._MIN_WORK and \
            blas.available() else 1
        if kind not in ("gw", "both") and self.workers == 1:
            self.bounds = [0, n]
        self.names = names                                    # role -> operand name: x, w, b, y, go, gi, gw


def runs_ok():
    """Whether the entry can call im2col.c and a cblas gemm (else the convolution stays a Python call)."""
    from ember.kernels.cpu.runtime import clib
    from . import blas_calls
    return blas_calls.blas_int_bits() is not None and clib.enabled() and clib.library("im2col") is not None


_ROLES = ("x", "w", "b", "y", "go", "gi", "acc", "wt")


def c(run, fn, t, sfx, addr):
    """(a task function `fn`_task over parts, the entry's statements) of one run; addr(role) is the C
    expression of that operand's first element (contiguous)."""
    gemm = "ember_sgemm" if t == "float" else "ember_dgemm"
    G, og, ck, o, cout, c_ = run.groups, run.og, run.ck, run.o, run.cout, run.c
    bsz, k, nm = run.bsz, run.kind, run.names
    parts = len(run.bounds) - 1
    T = []
    add = T.append

    def mm(tb, m, n_, kk, a, lda, b, ldb, out, ldc):
        return (f"{gemm}(101, 111, {112 if tb else 111}, {m}, {n_}, {kk}, 1.0, {a}, {lda}, {b}, {ldb}, 0.0, "
                f"{out}, {ldc});")
    # the task: images of parts [lo, hi), chunk by chunk, with its own scratch (eager's run() of over_images)
    add(f"static void {fn}_task(void** p, int64_t lo, int64_t hi)\n{{")
    for i, r in enumerate(_ROLES):
        q = "const " if r in ("x", "w", "b", "go", "wt") else ""
        add(f"    {q}{t}* {r} = ({q}{t}*)p[{i}];")
    add("    const int64_t* geo = (const int64_t*)p[8];")
    add(f"    static const int64_t lo_of[{parts + 1}] = {{{', '.join(map(str, run.bounds))}}};")
    bufs = {"cols": G * ck * bsz * o, **({"res": cout * bsz * o} if k == "fwd" else {"pk": cout * bsz * o})}
    if k in ("gw", "both"):
        bufs["tmp"] = G * og * ck
    for b_, size in bufs.items():
        add(f"    {t}* {b_} = ({t}*)malloc({size} * sizeof({t}));")
    add(f"    if (!({' && '.join(bufs)})) ember_index_error = 3;")
    add("    else for (int64_t part = lo; part < hi; part++)")
    add(f"    for (int64_t s = lo_of[part]; s < lo_of[part + 1]; s += {bsz}) {{")
    add(f"        const int64_t m = lo_of[part + 1] - s < {bsz} ? lo_of[part + 1] - s : {bsz};")
    add(f"        const int64_t mo = m * {o};")
    if k in ("fwd", "gw", "both"):
        add(f"        ember_im2col_batch_{sfx}(x + s * {run.xs}, cols, geo, {c_}, m);")
    if k != "fwd":
        # eager's _packed: one image's gradient is already (G, Og, O); more are placed side by side
        add(f"        const {t}* g_ = pk;")
        add(f"        if (m == 1) g_ = go + s * {run.ys};")
        add("        else for (int64_t i = 0; i < m; i++)")
        add(f"            for (int64_t r = 0; r < {cout}; r++) memcpy(pk + r * mo + i * {o}, "
            f"go + (s + i) * {run.ys} + r * {o}, {o} * sizeof({t}));")
    if k == "fwd":
        add(f"        {t}* dst = {'m == 1' if 'b' not in nm else '0'} ? y + s * {run.ys} : res;")
        add(f"        for (int64_t g = 0; g < {G}; g++)")
        add("            " + mm(False, og, "mo", ck, f"w + g * {og * ck}", ck, f"cols + g * {ck} * mo", "mo",
                                f"dst + g * {og} * mo", "mo"))
        add("        if (dst == res)")
        add(f"            for (int64_t i = 0; i < m; i++) for (int64_t r = 0; r < {cout}; r++) {{")
        add(f"                const {t}* src = res + r * mo + i * {o};")
        add(f"                {t}* d = y + (s + i) * {run.ys} + r * {o};")
        if "b" not in nm:
            add(f"                memcpy(d, src, {o} * sizeof({t}));")
        else:
            add(f"                const {t} v = b[r];")
            add(f"                for (int64_t q = 0; q < {o}; q++) d[q] = src[q] + v;")
        add("            }")
    if k in ("gw", "both"):
        add(f"        for (int64_t g = 0; g < {G}; g++)")
        add("            " + mm(True, og, ck, "mo", f"g_ + g * {og} * mo", "mo", f"cols + g * {ck} * mo", "mo",
                                f"tmp + g * {og * ck}", ck))
        add(f"        {t}* a_ = acc + part * {G * og * ck};")
        add(f"        for (int64_t q = 0; q < {G * og * ck}; q++) a_[q] += tmp[q];")
    if k in ("gi", "both"):
        add(f"        for (int64_t g = 0; g < {G}; g++)")
        add("            " + mm(False, ck, "mo", og, f"wt + g * {ck * og}", og, f"g_ + g * {og} * mo", "mo",
                                f"cols + g * {ck} * mo", "mo"))
        add(f"        ember_col2im_batch_{sfx}(cols, gi + s * {run.xs}, geo, {c_}, m);")
    add("    }")
    for b_ in bufs:
        add(f"    free({b_});")
    add("}")

    # the entry: the transposed weight, the zeroed results, the parts (on one BLAS thread each when eager
    # shares them out over its pool), the weight gradient summed over the parts in eager's order
    L = []
    add = L.append
    add(f"        /* {', '.join(nm[r] for r in ('y', 'gi', 'gw') if r in nm)}: im2col + gemm ({k}), "
        f"{run.n} images in chunks of {bsz}, {parts} part(s) */")
    add(f"        static const int64_t geo[18] = {{{', '.join(str(v) for v in run.geo)}}};")
    own = {}
    if k in ("gi", "both"):
        own["wt"] = f"({t}*)malloc({G * ck * og} * sizeof({t}))"
    if k in ("gw", "both"):
        own["acc"] = f"({t}*)calloc({G * og * ck * parts}, sizeof({t}))"
    for b_, e in own.items():
        add(f"        {t}* {b_} = {e};")
    if own:
        add(f"        if (!({' && '.join(own)})) ember_index_error = 3;")
    add("        else {" if own else "        {")
    if "wt" in own:
        w = addr("w")
        add(f"            for (int64_t g = 0; g < {G}; g++) for (int64_t kk = 0; kk < {ck}; kk++)")
        add(f"                for (int64_t j = 0; j < {og}; j++) wt[(g * {ck} + kk) * {og} + j] = "
            f"{w}[(g * {og} + j) * {ck} + kk];")
    if "gi" in nm:
        add(f"            memset({addr('gi')}, 0, {run.n * run.xs} * sizeof({t}));")
    ptrs = [f"(void*){addr(r)}" if r in nm else (r if r in own else "NULL") for r in _ROLES]
    add(f"            void* cp[9] = {{{', '.join(ptrs)}, (void*)geo}};")
    if run.workers > 1:
        add("            const int nb = ember_blas_get_threads ? ember_blas_get_threads() : 1;")
        add("            if (nb != 1) ember_blas_set_threads(1);")
        add(f"            ember_parallel({fn}_task, cp, {parts}, {run.workers});")
        add("            if (nb != 1) ember_blas_set_threads(nb);")
    else:
        add(f"            {fn}_task(cp, 0, {parts});")
    if k in ("gw", "both"):
        gw = addr("gw")
        add(f"            for (int64_t q = 0; q < {G * og * ck}; q++) {{")
        add(f"                {t} v = acc[q];")
        if parts > 1:
            add(f"                for (int64_t j = 1; j < {parts}; j++) v += acc[j * {G * og * ck} + q];")
        add(f"                {gw}[q] = v;")
        add("            }")
    add("        }")
    for b_ in own:
        add(f"        free({b_});")
    return "\n".join(T) + "\n", "\n".join(L)


def preamble():
    """C declarations of im2col.c's function pointers and `ember_set_im2col`, which the loader calls."""
    lines = ["/* ember's im2col / col2im (kernels/cpu/csrc/im2col.c): set by the loader (codegen/conv_gemm_calls.py) */",
             "#include <string.h>"]
    names = []
    for sfx, t in (("f32", "float"), ("f64", "double")):
        for fn in ("im2col_batch", "col2im_batch"):
            nm = f"ember_{fn}_{sfx}"
            lines.append("static " + _IM2COL_SIG.format(name=nm, t=t) + ";")
            names.append(nm)
    lines.append("static void (*ember_blas_set_threads)(int);")
    lines.append("static int (*ember_blas_get_threads)(void);")
    names += ["ember_blas_set_threads", "ember_blas_get_threads"]
    body = "".join(f"    *(void**)&{nm} = f[{i}];\n" for i, nm in enumerate(names))
    lines.append(f"void ember_set_im2col(void** f)\n{{\n{body}}}")
    return "\n".join(lines) + "\n"


def bind(lib):
    """Give a loaded library the addresses of im2col.c's functions (RuntimeError when they are missing)."""
    import ctypes
    from ember.kernels.cpu.runtime import clib
    im = clib.library("im2col") if clib.enabled() else None
    if im is None:
        raise RuntimeError("ember._inductor: the generated C calls ember's im2col (im2col.c), which is not "
                           "available in this process")
    from ember.kernels.cpu.runtime import blas
    fns = [ctypes.cast(getattr(im, nm), ctypes.c_void_p).value for nm in _BIND_NAMES]
    found = blas._fns()                    # OpenBLAS's (set, get) thread count, or None
    fns += [None, None] if found is None else [ctypes.cast(f, ctypes.c_void_p).value for f in found]
    addrs = (ctypes.c_void_p * 6)(*fns)
    fn = lib["ember_set_im2col"]
    fn.argtypes = [ctypes.c_void_p]
    fn.restype = None
    fn(ctypes.cast(addrs, ctypes.c_void_p))
