"""torch/_inductor's extern max pool (aten.max_pool2d_with_indices and its backward) called from the generated C
entry: eager's own kernels (kernels/cpu/csrc/pool.c `max_pool2d_*`, `max_pool2d_backward_*`), with no return to
Python in between.

Where eager has a C kernel for a pool (float32/float64, C built), lowering.py makes max_pool2d_with_indices and its
backward extern calls rather than generated loops: pool.c's 2x2 pool runs eight outputs per vector block without
data branches (LeNet's first pool: 0.12 ms where the fused generated select chain for values and indices took
0.25 ms, and the relu + mask kernel feeding it 0.30 ms more), and its backward is one memset and one pass of adds.
The values, indices and gradients are eager's bit for bit (the same C over the same planes; each plane is
independent, so neither splitting nor the thread count changes a bit).

- forward: `max_pool2d_<sfx>(x, y, idx, geo, planes)` over the planes of x (contiguous), geo being
  pool_planes.geometry's 12 numbers (H W KH KW SH SW PH PW DH DW OH OW);
- backward: `max_pool2d_backward_<sfx>(go, idx, gi, planes, o, hw)` zeroes grad_input and adds each output's
  gradient at its index; an index outside its plane (only a hand-made one can be) sets the entry's error flag 1,
  raised as IndexError, where eager's numpy fallback raises IndexError too.
The planes are shared out over `threads` threads of ember's C pool (ember_parallel) in about four chunks a thread
when the input has at least pool_planes._C_SPLIT elements, as eager shares them over its pool. Operands that are not contiguous are copied to contiguous scratch
first (conv_calls._copy_c); symbolic sizes keep the Python extern call. The library's functions are given to the
loaded module by `bind` (`ember_set_pool`), as conv_calls does for dconv.
"""
import math

from ember._core import dtype as _dt

from ..ir import BufferView, ExternKernel, MultiOutput
from .extern_plan import CTYPE as _CTYPE, SUFFIX as _SUFFIX, ExternPlan, bind_pointers, library, pointer_preamble
from .extern_plan import static, two_outputs

POOL_OPS = ("aten.max_pool2d_with_indices.default", "aten.max_pool2d_with_indices_backward.default")
_BIND_NAMES = ("max_pool2d_f32", "max_pool2d_backward_f32", "max_pool2d_f64", "max_pool2d_backward_f64")


def _library():
    """ember's loaded pool library, or None (no C compiler, C kernels off)."""
    return library("pool")


def available(dtype):
    """Whether a max pool of `dtype` can be called from the C entry (lowering.py then makes it an extern)."""
    return dtype in _SUFFIX and _library() is not None


def _static(view):
    return static(view.layout)


def _pair(v, default=None):
    v = default if v is None or (isinstance(v, (list, tuple)) and not v) else v
    if isinstance(v, int):
        return (v, v)
    v = tuple(v)
    return v * 2 if len(v) == 1 else v


class PoolPlan(ExternPlan):
    """The max pool extern `buf` as C statements of the entry (see the module docstring)."""
    needs_blas = False

    def __init__(self, buf, dtype, views, writes, backward, planes, geo):
        self.buf = buf
        self.dtype = dtype
        self.views = views            # operand name -> BufferView it reads
        self.writes = writes          # result name -> the Buffer it writes
        self.backward = backward
        self.planes = planes
        self.geo = geo                # H W KH KW SH SW PH PW DH DW OH OW
        self.hw = geo[0] * geo[1]
        self.o = geo[10] * geo[11]

    def c(self, uid, ptr, base_offset, threads):
        """(helper C functions, the entry's statements); ptr(buffer name) is the C expression of a buffer's first
        element, base_offset(view) the element offset of a view from it."""
        t = _CTYPE[self.dtype]
        sfx = _SUFFIX[self.dtype]
        addr, copies, frees = self.operands(ptr, base_offset, lambda name: "int64_t" if name == "idx" else t)
        for name, b in self.writes.items():
            addr[name] = f"(({'int64_t' if name == 'idx' else t}*){ptr(b.name)})"
        from ember.kernels.cpu.pool_planes import _C_SPLIT
        in_elems = self.planes * self.hw
        # eager's C-pool chunks (runtime/cparts.py grain: about four a thread, taken by whichever thread is free)
        parts = -(-self.planes // max(1, self.planes // (4 * threads))) if threads > 1 and in_elems >= _C_SPLIT else 1
        fn = f"ember_pool{uid}"
        if self.backward:
            call = (f"ember_max_pool2d_backward_{sfx}((const {t}*)p[0] + b * {self.o}, (const int64_t*)p[1] + "
                    f"b * {self.o}, ({t}*)p[2] + b * {self.hw}, e - b, {self.o}, {self.hw})")
            task = (f"static void {fn}_task(void** p, int64_t lo, int64_t hi)\n{{\n"
                    f"    for (int64_t j = lo; j < hi; j++) {{\n"
                    f"        const int64_t b = {self.planes} * j / {parts}, e = {self.planes} * (j + 1) / {parts};\n"
                    f"        if (e > b && {call} >= 0) ember_index_error = 1;\n    }}\n}}\n")
            ptrs = [addr["go"], addr["idx"], addr["gi"]]
        else:
            call = (f"ember_max_pool2d_{sfx}((const {t}*)p[0] + b * {self.hw}, ({t}*)p[1] + b * {self.o}, "
                    f"(int64_t*)p[2] + b * {self.o}, (const int64_t*)p[3], e - b)")
            task = (f"static void {fn}_task(void** p, int64_t lo, int64_t hi)\n{{\n"
                    f"    for (int64_t j = lo; j < hi; j++) {{\n"
                    f"        const int64_t b = {self.planes} * j / {parts}, e = {self.planes} * (j + 1) / {parts};\n"
                    f"        if (e > b) {call};\n    }}\n}}\n")
            ptrs = [addr["x"], addr["y"], addr["idx"], "(void*)geo"]
        body = [f"    /* {', '.join(b.name for b in self.writes.values())} = {self.buf.op}: eager's pool.c, "
                f"{self.planes} planes, {parts} part(s) */"]
        body += copies
        body.append("    if (!ember_index_error) {" if copies else "    {")
        if not self.backward:
            body.append(f"        static const int64_t geo[12] = {{{', '.join(str(g) for g in self.geo)}}};")
        body.append(f"        void* cp[{len(ptrs)}] = {{{', '.join(f'(void*){q}' for q in ptrs)}}};")
        body.append(f"        ember_parallel({fn}_task, cp, {parts}, {min(threads, parts)});" if parts > 1 else
                    f"        {fn}_task(cp, 0, 1);")
        body.append("    }")
        body += frees
        return task, "\n".join(body)


def pool_plan(buf, multi_outputs=()):
    """A PoolPlan when the max pool extern `buf` can run from C, else None (it stays a Python call).
    `multi_outputs`: the graph's MultiOutput buffers of `buf` (the forward's values and indices)."""
    if not isinstance(buf, ExternKernel) or buf.kwargs or str(buf.op) not in POOL_OPS or _library() is None:
        return None
    backward = str(buf.op) == POOL_OPS[1]
    args = list(buf.args)
    if backward:
        if len(args) != 8 or not buf.has_tensor_result:
            return None
        go, x, kernel, stride, padding, dilation, ceil, idx = args
        views = {"go": go, "x": x, "idx": idx}
    else:
        if not 2 <= len(args) <= 6 or buf.has_tensor_result:
            return None
        args += [(), 0, 1, False][len(args) - 2:]
        x, kernel, stride, padding, dilation, ceil = args
        views = {"x": x}
    if any(not isinstance(v, BufferView) or not _static(v) for v in views.values()):
        return None
    dtype = x.buffer.dtype
    if dtype not in _SUFFIX or x.layout.dtype is not dtype or len(x.layout.size) not in (3, 4):
        return None
    if backward and (go.buffer.dtype is not dtype or idx.buffer.dtype is not _dt.int64):
        return None
    try:
        k = _pair(kernel)
        s = _pair(stride, k)
        p, d = _pair(padding), _pair(dilation)
    except TypeError:
        return None
    if any(len(v) != 2 or any(type(i) is not int for i in v) for v in (k, s, p, d)) or type(ceil) is not bool:
        return None
    size = tuple(x.layout.size)
    H, W = size[-2:]
    planes = math.prod(size[:-2])
    if backward:
        out = tuple(go.layout.size)
    else:
        y = next((mo for mo in multi_outputs if isinstance(mo, MultiOutput) and mo.path == (0,)), None)
        if y is None:
            return None
        out = tuple(y.layout.size)
    if len(out) != len(size) or out[:-2] != size[:-2]:
        return None
    oh, ow = out[-2:]
    if planes < 1 or H < 1 or W < 1 or oh < 1 or ow < 1 or min(k) < 1 or min(s) < 1 or min(d) < 1 or min(p) < 0:
        return None
    geo = (H, W) + k + s + p + d + (oh, ow)
    if backward:
        if tuple(idx.layout.size) != out:
            return None
        lay = buf.layout
        if tuple(lay.size) != size or not lay.is_contiguous() or lay.offset or lay.dtype is not dtype:
            return None
        del views["x"]                          # only its size is read
        return PoolPlan(buf, dtype, views, {"gi": buf}, True, planes, geo)
    outs = two_outputs(buf, multi_outputs)
    if outs is None:
        return None
    y, ix = outs
    for b, dt in ((y, dtype), (ix, _dt.int64)):
        lay = b.layout
        if tuple(lay.size) != out or not lay.is_contiguous() or lay.offset or lay.dtype is not dt:
            return None
    return PoolPlan(buf, dtype, views, {"y": y, "idx": ix}, False, planes, geo)


def _decls():
    """(kernel, C pointer type) of pool.c's max pool functions, in _BIND_NAMES order."""
    out = []
    for sfx, t in (("f32", "float"), ("f64", "double")):
        out.append((f"max_pool2d_{sfx}", f"void (*)(const {t}*, {t}*, int64_t*, const int64_t*, int64_t)"))
        out.append((f"max_pool2d_backward_{sfx}",
                    f"int64_t (*)(const {t}*, const int64_t*, {t}*, int64_t, int64_t, int64_t)"))
    return out


def preamble():
    """C declarations of pool.c's function pointers and `ember_set_pool`, which the loader calls."""
    return pointer_preamble("ember_set_pool", "eager's max pool (kernels/cpu/csrc/pool.c)", _decls())


def bind(lib):
    """Give a loaded library the addresses of pool.c's max pool functions (RuntimeError when they are missing)."""
    bind_pointers(lib, "ember_set_pool", _library(), _BIND_NAMES, "ember's max pool (pool.c)")
