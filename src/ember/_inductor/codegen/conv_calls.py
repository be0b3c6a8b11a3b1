"""torch/_inductor's extern convolutions (aten.convolution, aten.convolution_backward) called from the generated C
entry: ember's direct stride-1 convolution (kernels/cpu/csrc/dconv.c), or eager's im2col + gemm path
(conv_gemm_calls.py), with no return to Python in between.

Each result takes the path eager's kernels/cpu/conv.py takes: dconv where `conv_direct.usable` says so (float32/
float64, stride 1, few channels, with the limits eager uses), else im2col + cblas gemm (strided convolutions, a
ResNet's downsampling, many channels); `conv_plan` decides, `ConvPlan.c` writes the statements. The dconv runs:
- forward: the weight is rearranged into dconv's (groups, K, mpad) layout (and the bias padded) in scratch memory,
  then `dconv_fwd` (or the channel-vector `dconv_fwdc`, where eager's conv_direct._chan_wins picks it: LeNet's
  16-channel conv2) runs over the images, split over `config.threads()` threads as eager splits them over its pool;
- convolution_backward, grad_input: a forward convolution of the output gradient padded by dilation*(K-1) - pad
  with the kernel flipped and its channel axes swapped (eager's conv_direct.input_grad);
- convolution_backward, grad_weight: `dconv_wgrad` (or the channel-vector `dconv_wgradc`, by eager's
  conv_direct.wgrad_plan) into one zeroed block per chunk of conv_direct.wgrad_grain images, summed in order and
  cropped (eager's conv_direct.weight_grad). The grid kernel declines an input holding inf or NaN (its
  thrown-away grid positions would leak them into other taps); the entry then computes that gradient with a
  plain loop over the real positions, which forms the same products as eager's im2col fallback.
An operand that is not contiguous (the 0-stride expanded gradient of `conv(x).sum()`, a strided view) is first
copied into contiguous scratch memory, as eager's np.ascontiguousarray copies it. The results are eager's bit for
bit (the same C and gemms, the same split of the images). A bias gradient requested from convolution_backward
itself (inductor's decompositions give it as a separate sum), a transposed convolution and symbolic sizes stay
Python extern calls. The results are buffers of the memory plan; convolution_backward's MultiOutput buffers are
written by the call itself.

The library's functions are given to the loaded module by `bind` (`ember_set_dconv`, `ember_set_im2col`), as
blas_calls does for the gemms.
"""
import math
from types import SimpleNamespace

import numpy as np

from ember._core import dtype as _dt

from ..ir import BufferView, ExternKernel, MultiOutput
from .extern_plan import ExternPlan, bind_pointers, pointer_preamble
from . import blas_calls, conv_gemm_calls
from .conv_gemm_calls import GemmConv

CONV_OPS = ("aten.convolution.default", "aten.convolution_backward.default")
_SUFFIX = {_dt.float32: "f32", _dt.float64: "f64"}
_CTYPE = {_dt.float32: "float", _dt.float64: "double"}


def _library():
    """ember's loaded dconv library, or None (no C compiler, C kernels off)."""
    from ember.kernels.cpu.runtime import clib
    if not clib.enabled():
        return None
    return clib.library("dconv")


def _ints(xs, d):
    xs = tuple(xs)
    if len(xs) == 1 and d > 1:
        xs = xs * d
    if len(xs) != d or any(type(x) is not int for x in xs):
        return None
    return xs


def _static(view):
    lay = view.layout
    return all(type(x) is int for x in lay.size + lay.stride + (lay.offset,))


class _Fwd:
    """One dconv_fwd run: y (n, groups*m, *out) = x (n, c, *S) by the rearranged weight (see ConvPlan.c)."""

    def __init__(self, x, y, w, b, n, c, groups, m, kern, in_sp, out, pd, dl, flipped, dtype):
        from ember.kernels.cpu import conv_direct
        from ember.kernels.cpu.conv_im2col import geometry
        self.x, self.y, self.w, self.b = x, y, w, b          # names of the operands (b: None)
        self.n, self.c, self.groups, self.m = n, c, groups, m
        self.mb, self.mpad = conv_direct._block(m)
        self.taps = math.prod(kern)
        self.k = c // groups * self.taps                     # rows of the rearranged weight per group
        self.flipped = flipped                               # the input gradient's flipped, swapped kernel
        self.geo = [int(v) for v in geometry(in_sp, kern, out, (1,) * len(kern), pd, dl)]
        self.xs, self.ys = c * math.prod(in_sp), groups * m * math.prod(out)
        self.work = n * self.ys * self.k
        self.min_work = conv_direct._MIN_WORK
        # eager's choice of kernel (conv_direct.forward / input_grad: _chan_wins): the channel-vector dconv_fwdc
        # (output channels in the vector lanes, real positions only, mpad = two vectors of channels) when it
        # multiplies less than the grid kernel; the same bits either way, eager's speed
        padded = tuple(in_sp[i] + 2 * pd[i] for i in range(len(kern)))
        self.chan = conv_direct._chan_wins(m, self.mpad, conv_direct._grid_len(padded, out, 2 if self.mb == 6 else 3,
                                                                              dtype), math.prod(out), dtype)
        if self.chan:
            self.mpad = conv_direct._cpad(m, dtype)


class _WGrad:
    """One dconv_wgrad run: gw (groups*m, cg, *K) of x (n, c, *S) and the output gradient go (n, groups*m, *O)."""

    def __init__(self, x, go, gw, n, c, groups, m, kern, in_sp, out, pd, dl, dtype):
        from ember.kernels.cpu import conv_direct
        from ember.kernels.cpu.conv_im2col import geometry
        self.x, self.go, self.gw = x, go, gw
        self.n, self.c, self.groups, self.m = n, c, groups, m
        self.k = c // groups * math.prod(kern)
        padded = tuple(in_sp[i] + 2 * pd[i] for i in range(len(kern)))
        # eager's plan (conv_direct.wgrad_plan, wgrad_grain): the kernel (grid, or channel-vector `chan`), its
        # padded sizes, and the images per partial sum
        self.chan, self.mpad, self.kpad = conv_direct.wgrad_plan(m, self.k, padded, out, dtype)
        self.grain = conv_direct.wgrad_grain(n)
        self.geo = [int(v) for v in geometry(in_sp, kern, out, (1,) * len(kern), pd, dl)]
        self.xs, self.gs = c * math.prod(in_sp), groups * m * math.prod(out)
        self.work = n * math.prod(out) * m * groups * self.k
        self.min_work = conv_direct._MIN_WORK
        self.kern, self.in_sp, self.out, self.pd, self.dl = kern, in_sp, out, pd, dl


class ConvPlan(ExternPlan):
    """The convolution (or convolution_backward) extern `buf` as C statements of the entry."""

    def __init__(self, buf, dtype, views, writes, runs):
        self.buf = buf
        self.dtype = dtype
        self.views = views        # operand name -> BufferView it reads
        self.writes = writes      # result name -> the Buffer (the extern, or a MultiOutput) it writes
        self.runs = runs          # _Fwd / _WGrad, in order

    @property
    def needs_blas(self):
        """The entry calls cblas gemms for this plan (an im2col run)."""
        return any(isinstance(r, GemmConv) for r in self.runs)

    def c(self, uid, ptr, base_offset, threads):
        """(helper C functions, the entry's statements) for this call; ptr(buffer name) is the C expression of a
        buffer's first element, base_offset(view) the element offset of a view from it."""
        t = _CTYPE[self.dtype]
        sfx = _SUFFIX[self.dtype]
        addr = {}
        copies, frees = [], []
        for name, v in self.views.items():
            src = f"(({t}*){ptr(v.buffer.name)} + {base_offset(v)})"
            if v.layout.is_contiguous():
                addr[name] = src
            else:                # a strided or expanded operand (a sum's 0-stride gradient): a contiguous copy
                addr[name] = f"{name}_c"
                copies.append(_copy_c(f"{name}_c", src, v.layout, t))
                frees.append(f"    free({name}_c);")
        for name, b in self.writes.items():
            addr[name] = f"(({t}*){ptr(b.name)})"
        helpers, body = [], [f"    /* {self.buf.name} = {self.buf.op}: ember's direct convolution (dconv.c) "
                             "or im2col + gemm */"]
        body += copies
        if copies:
            body.append("    if (!ember_index_error) {")
        for i, run in enumerate(self.runs):
            fn = f"ember_conv{uid}_{i}"
            if isinstance(run, GemmConv):
                h, b = conv_gemm_calls.c(run, fn, t, sfx, addr.__getitem__)
            elif isinstance(run, _Fwd):
                h, b = _fwd_c(run, fn, t, sfx, addr, threads)
            else:
                h, b = _wgrad_c(run, fn, t, sfx, addr, threads)
            helpers.append(h)
            body += ["    {", b, "    }"]
        if copies:
            body.append("    }")
        body += frees
        return "".join(helpers), "\n".join(body)


def _copy_c(name, src, lay, t):
    """blas_calls.copy_c for the static layout `lay`, as one string at the entry's indentation."""
    return "\n".join(blas_calls.copy_c(name, src, lay.size, lay.stride, t, indent="    "))


def _parts(run, threads):
    """How many chunks of images the run is split into: eager's C-pool split (runtime/cparts.py grain: about four
    chunks a thread, taken by whichever thread is free, so a preempted worker's share moves to the caller); one
    below the work eager splits from. Each image is computed alone: the bits do not depend on the split."""
    if threads < 2 or run.work < run.min_work:
        return 1
    grain = max(1, run.n // (4 * threads))
    return -(-run.n // grain)


def _geo(run):
    return "{" + ", ".join(str(v) for v in run.geo) + "}"


def _fwd_c(run, fn, t, sfx, addr, threads):
    parts = _parts(run, threads)
    task = (f"static void {fn}_task(void** p, int64_t lo, int64_t hi)\n{{\n"
            f"    for (int64_t j = lo; j < hi; j++) {{\n"
            f"        const int64_t i0 = {run.n} * j / {parts}, i1 = {run.n} * (j + 1) / {parts};\n"
            f"        if (i1 > i0 && ember_dconv_fwd{'c' if run.chan else ''}_{sfx}((const {t}*)p[0] + i0 * "
            f"{run.xs}, ({t}*)p[1] + i0 * {run.ys}, (const {t}*)p[2], (const {t}*)p[3], (const int64_t*)p[4], "
            f"{run.c}, {run.groups}, {run.m}, {run.mpad}, i1 - i0{'' if run.chan else f', {run.mb}'}) < 0)\n"
            f"            ember_index_error = 3;\n    }}\n}}\n")
    g, m, k, mpad, taps = run.groups, run.m, run.k, run.mpad, run.taps
    w = addr[run.w]
    if run.flipped:       # w (groups*og, m, *K): tap (o, s) of row j is w[g*og + o, j, K-1-s]
        og = k // taps
        src = f"{w}[((g * {og} + kk / {taps}) * {m} + j) * {taps} + ({taps - 1} - kk % {taps})]"
    else:                 # w (groups*m, k): row j, tap kk
        src = f"{w}[(g * {m} + j) * {k} + kk]"
    lines = [f"        /* {run.y}: dconv_fwd{'c' if run.chan else ''} of {run.n} images, {parts} part(s) */",
             f"        static const int64_t geo[18] = {_geo(run)};",
             f"        {t}* wt = ({t}*)calloc({g * k * mpad}, sizeof({t}));",
             f"        {t}* bias = {f'({t}*)calloc({g * mpad}, sizeof({t}))' if run.b else 'NULL'};",
             f"        if (!wt{' || !bias' if run.b else ''}) ember_index_error = 3;",
             "        else {",
             f"            for (int64_t g = 0; g < {g}; g++)",
             f"                for (int64_t kk = 0; kk < {k}; kk++)",
             f"                    for (int64_t j = 0; j < {m}; j++)",
             f"                        wt[(g * {k} + kk) * {mpad} + j] = {src};"]
    if run.b:
        lines += [f"            for (int64_t g = 0; g < {g}; g++)",
                  f"                for (int64_t j = 0; j < {m}; j++) bias[g * {mpad} + j] = {addr[run.b]}[g * {m} + j];"]
    lines += [f"            void* cp[5] = {{(void*){addr[run.x]}, (void*){addr[run.y]}, wt, bias, (void*)geo}};",
              (f"            ember_parallel({fn}_task, cp, {parts}, {min(threads, parts)});" if parts > 1 else
               f"            {fn}_task(cp, 0, 1);"),
              "        }",
              "        free(wt);",
              "        free(bias);"]
    return task, "\n".join(lines)


def _wgrad_c(run, fn, t, sfx, addr, threads):
    parts = -(-run.n // run.grain)            # eager's chunks of wgrad_grain images, one partial sum each
    workers = min(threads, parts) if threads > 1 and run.work >= run.min_work else 1
    block = run.groups * run.mpad * run.kpad
    kern = "wgradc" if run.chan else "wgrad"
    task = (f"static void {fn}_task(void** p, int64_t lo, int64_t hi)\n{{\n"
            f"    for (int64_t j = lo; j < hi; j++) {{\n"
            f"        const int64_t i0 = {run.grain} * j, i1 = i0 + {run.grain} < {run.n} ? i0 + {run.grain} : "
            f"{run.n};\n"
            f"        if (i1 <= i0) continue;\n"
            f"        const int rc = ember_dconv_{kern}_{sfx}((const {t}*)p[0] + i0 * {run.xs}, (const {t}*)p[1] + "
            f"i0 * {run.gs}, ({t}*)p[2] + j * {block}, (const int64_t*)p[3], {run.c}, {run.groups}, {run.m}, "
            f"{run.mpad}, {run.kpad}, i1 - i0);\n"
            f"        if (rc < 0) ember_index_error = 3;\n"
            f"        else if (rc > 0) *(volatile int*)p[4] = 1;\n    }}\n}}\n")
    g, m, k, mpad, kpad = run.groups, run.m, run.k, run.mpad, run.kpad
    gw = addr[run.gw]
    total = g * m * k
    # entry (g, j, kk) of part q: the grid kernel's (groups, mpad, kpad) block, the channel-vector one's
    # (groups, kpad, mpad)
    at = f"(g * {kpad} + kk) * {mpad} + j" if run.chan else f"(g * {mpad} + j) * {kpad} + kk"
    lines = [f"        /* {run.gw}: dconv_{kern} of {run.n} images, {parts} part(s) */",
             f"        static const int64_t geo[18] = {_geo(run)};",
             f"        {t}* parts = ({t}*)calloc({parts * block}, sizeof({t}));",
             f"        {t}* gw = {gw};",
             "        int declined = 0;",
             "        if (!parts || !gw) ember_index_error = 3;",
             "        else {",
             f"            void* cp[5] = {{(void*){addr[run.x]}, (void*){addr[run.go]}, parts, (void*)geo, &declined}};",
             (f"            ember_parallel({fn}_task, cp, {parts}, {workers});" if workers > 1 else
              f"            {fn}_task(cp, 0, {parts});"),
             "            if (!declined) {",
             f"                for (int64_t g = 0; g < {g}; g++)",
             f"                    for (int64_t j = 0; j < {m}; j++)",
             f"                        for (int64_t kk = 0; kk < {k}; kk++) {{",
             f"                            {t} s = parts[{at}];",
             *([f"                            for (int64_t q = 1; q < {parts}; q++) "
                f"s += parts[q * {block} + {at}];"] if parts > 1 else []),
             f"                            gw[(g * {m} + j) * {k} + kk] = s;",
             "                        }",
             "            } else {",
             _wgrad_plain(run, t, addr),
             "            }",
             "        }",
             "        free(parts);"]
    return task, "\n".join(lines)


def _wgrad_plain(run, t, addr):
    """C of the weight gradient as a plain sum over the real output positions (inputs holding inf or NaN)."""
    D, H, W, KD, KH, KW, OD, OH, OW = run.geo[:9]
    PD, PH, PW, DD, DH, DW = run.geo[12:18]
    cg = run.c // run.groups
    x, go = addr[run.x], addr[run.go]
    ind = "                "
    return "\n".join([
        f"{ind}for (int64_t g = 0; g < {run.groups}; g++) for (int64_t j = 0; j < {run.m}; j++)",
        f"{ind}for (int64_t ci = 0; ci < {cg}; ci++) for (int64_t a = 0; a < {KD}; a++)",
        f"{ind}for (int64_t b = 0; b < {KH}; b++) for (int64_t e = 0; e < {KW}; e++) {{",
        f"{ind}    {t} s = 0;",
        f"{ind}    for (int64_t i = 0; i < {run.n}; i++) for (int64_t od = 0; od < {OD}; od++) {{",
        f"{ind}        const int64_t id = od + a * {DD} - {PD};",
        f"{ind}        if (id < 0 || id >= {D}) continue;",
        f"{ind}        for (int64_t oh = 0; oh < {OH}; oh++) {{",
        f"{ind}            const int64_t ih = oh + b * {DH} - {PH};",
        f"{ind}            if (ih < 0 || ih >= {H}) continue;",
        f"{ind}            for (int64_t ow = 0; ow < {OW}; ow++) {{",
        f"{ind}                const int64_t iw = ow + e * {DW} - {PW};",
        f"{ind}                if (iw < 0 || iw >= {W}) continue;",
        f"{ind}                s += {go}[((i * {run.groups} + g) * {run.m} + j) * {OD * OH * OW} + "
        f"(od * {OH} + oh) * {OW} + ow] * {x}[(i * {run.c} + g * {cg} + ci) * {D * H * W} + (id * {H} + ih) * {W} + iw];",
        f"{ind}            }}",
        f"{ind}        }}",
        f"{ind}    }}",
        f"{ind}    gw[(g * {run.m} + j) * {run.k} + (ci * {KD} + a) * {KH * KW} + b * {KW} + e] = s;",
        f"{ind}}}"])


def _shape(view, dtype):
    return SimpleNamespace(dtype=np.dtype(dtype._np), shape=tuple(view.layout.size))


def conv_plan(buf, multi_outputs=(), threads=None):
    """A ConvPlan when the extern `buf` can run from C, else None. `multi_outputs`: the MultiOutput buffers of
    the graph that read `buf` (convolution_backward's results); `threads`: what eager's pool splits over
    (config.threads() when None)."""
    if threads is None:
        from .. import config
        threads = config.threads()
    if not isinstance(buf, ExternKernel) or buf.kwargs or str(buf.op) not in CONV_OPS:
        return None
    if _library() is None:
        return None
    from ember.kernels.cpu import conv_direct
    op = str(buf.op)
    if op == "aten.convolution.default":
        if len(buf.args) != 9 or not buf.has_tensor_result:
            return None
        x, w, b, stride, padding, dilation, transposed, _, groups = buf.args
        go = None
    else:
        if len(buf.args) != 11 or buf.has_tensor_result:
            return None
        go, x, w, _, stride, padding, dilation, transposed, _, groups, mask = buf.args
        b = None
        if len(mask) != 3 or mask[2] or not (mask[0] or mask[1]):
            return None
    views = [v for v in (x, w, b, go) if v is not None]
    if transposed or type(groups) is not int or groups < 1 or any(not isinstance(v, BufferView) for v in views):
        return None
    dtype = x.buffer.dtype
    if dtype not in _SUFFIX or any(v.buffer.dtype is not dtype or v.layout.dtype is not dtype for v in views):
        return None
    if not all(_static(v) for v in views):
        return None
    d = len(w.layout.size) - 2
    if not 1 <= d <= 3 or len(x.layout.size) != d + 2:
        return None
    st, pd, dl = _ints(stride, d), _ints(padding, d), _ints(dilation, d)
    if st is None or pd is None or dl is None or min(st) < 1 or min(dl) < 1 or min(pd) < 0:
        return None
    n, c = x.layout.size[:2]
    wshape = tuple(w.layout.size)
    in_sp, kern = tuple(x.layout.size[2:]), wshape[2:]
    cout = wshape[0]
    if n < 1 or c % groups or cout % groups or wshape[1] != c // groups or min(wshape) < 1:
        return None
    out = tuple((in_sp[i] + 2 * pd[i] - dl[i] * (kern[i] - 1) - 1) // st[i] + 1 for i in range(d))
    if min(out) < 1 or min(in_sp) < 1:
        return None
    if b is not None and tuple(b.layout.size) != (cout,):
        return None
    xs = _shape(x, dtype)
    og = cout // groups
    itemsize = np.dtype(dtype._np).itemsize

    def gemm_run(kind, **names):
        if not conv_gemm_calls.runs_ok():
            return None
        return GemmConv(kind, n, c, groups, og, kern, in_sp, out, st, pd, dl, itemsize, threads, names)

    if op == "aten.convolution.default":
        if tuple(buf.layout.size) != (n, cout) + out or not buf.layout.is_contiguous() or buf.layout.offset:
            return None
        named = {"x": x, "w": w}
        if b is not None:
            named["b"] = b
        if conv_direct.usable(xs, wshape, st, pd, dl, groups, out):
            run = _Fwd("x", "y", "w", "b" if b is not None else None, n, c, groups, og, kern, in_sp, out,
                       pd, dl, False, np.dtype(dtype._np))
        else:
            run = gemm_run("fwd", **{r: r for r in ("x", "w", "b", "y") if r in named or r == "y"})
            if run is None:
                return None
        return ConvPlan(buf, dtype, named, {"y": buf}, [run])
    if tuple(go.layout.size) != (n, cout) + out:
        return None
    by_path = {}
    for mo in multi_outputs:
        if not isinstance(mo, MultiOutput) or mo.kernel is not buf or len(mo.path) != 1 or mo.path[0] in by_path:
            return None
        lay = mo.layout
        if not lay.is_contiguous() or lay.offset or lay.dtype is not dtype:
            return None
        by_path[mo.path[0]] = mo
    if 2 in by_path or any(p not in (0, 1) or not mask[p] for p in by_path):
        return None
    gi, gw = by_path.get(0), by_path.get(1)
    if mask[0] and (gi is None or tuple(gi.layout.size) != (n, c) + in_sp):
        return None
    if mask[1] and (gw is None or tuple(gw.layout.size) != wshape):
        return None
    runs, writes = [], {}
    if mask[0]:
        writes["gi"] = gi
    if mask[1]:
        writes["gw"] = gw
    named = {"go": go, "x": x, "w": w}
    # eager's kernels/cpu/conv.py convolution_backward: dconv for what conv_direct.usable takes, else im2col
    # (both gradients in one im2col pass when both are wanted and dconv does not take the weight gradient)
    wgrad_direct = conv_direct.usable(xs, wshape, st, pd, dl, groups, out, conv_direct.GRAD_WEIGHT_LIMIT)
    if mask[0] and mask[1] and not wgrad_direct:
        run = gemm_run("both", x="x", w="w", go="go", gi="gi", gw="gw")
        return None if run is None else ConvPlan(buf, dtype, named, writes, [run])
    if mask[0]:
        pd2 = tuple(dl[i] * (kern[i] - 1) - pd[i] for i in range(d))
        swapped = (c, og) + kern                             # the convolution the input gradient runs
        if min(pd2) >= 0 and conv_direct.usable(_shape(go, dtype), swapped, st, pd2, dl, groups, in_sp,
                                                conv_direct.GRAD_INPUT_LIMIT):
            runs.append(_Fwd("go", "gi", "w", None, n, cout, groups, c // groups, kern, out, in_sp, pd2, dl, True,
                             np.dtype(dtype._np)))
        else:
            runs.append(gemm_run("gi", w="w", go="go", gi="gi"))
    if mask[1]:
        if wgrad_direct:
            runs.append(_WGrad("x", "go", "gw", n, c, groups, og, kern, in_sp, out, pd, dl, np.dtype(dtype._np)))
        else:
            runs.append(gemm_run("gw", x="x", go="go", gw="gw"))
    if any(r is None for r in runs):
        return None
    return ConvPlan(buf, dtype, named, writes, runs)


def _decls():
    """(kernel, C pointer type) of dconv's functions, in _BIND_NAMES order."""
    sig = ("int (*)(const {t}*, {t}*, const {t}*, const {t}*, const int64_t*, int64_t, int64_t, int64_t, int64_t, "
           "int64_t, int64_t)")
    wsig = "int (*)(const {t}*, const {t}*, {t}*, const int64_t*, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t)"
    csig = "int (*)(const {t}*, {t}*, const {t}*, const {t}*, const int64_t*, int64_t, int64_t, int64_t, int64_t, int64_t)"
    return [(f"dconv_{kind}_{sfx}", s.format(t=t)) for sfx, t in (("f32", "float"), ("f64", "double"))
            for kind, s in (("fwd", sig), ("wgrad", wsig), ("wgradc", wsig), ("fwdc", csig))]


def preamble():
    """C declarations of dconv's function pointers and `ember_set_dconv`, which the loader calls."""
    return (pointer_preamble("ember_set_dconv", "ember's direct convolution (kernels/cpu/csrc/dconv.c)", _decls()) +
            conv_gemm_calls.preamble())


_BIND_NAMES = ("dconv_fwd_f32", "dconv_wgrad_f32", "dconv_wgradc_f32", "dconv_fwdc_f32", "dconv_fwd_f64",
               "dconv_wgrad_f64", "dconv_wgradc_f64", "dconv_fwdc_f64")


def bind(lib):
    """Give a loaded library the addresses of dconv's functions (RuntimeError when ember's dconv is not there)."""
    bind_pointers(lib, "ember_set_dconv", _library(), _BIND_NAMES, "ember's direct convolution (dconv.c)")
    conv_gemm_calls.bind(lib)
