"""torch/_inductor/ir.py's ExternKernel buffers, as ember's C entry passes them: the part every extern call plan
(convolution, pooling, attention, softmax, loss) shares.

A plan holds `views` (operand name -> the BufferView it reads) and `writes` (result name -> the Buffer it writes);
the entry passes each distinct buffer's address once, the operands read first, then those written.

The generated C reaches eager's kernels through static function pointers, one per kernel of an ember library
(`ember_<kernel>`), that the loader sets by calling the module's `ember_set_<what>(void** f)` with their
addresses: `pointer_preamble` writes those declarations and the setter, `bind_pointers` calls it.
"""
from ember._core import dtype as _dt

CTYPE = {_dt.float32: "float", _dt.float64: "double"}        # the C type of a kernel's floating dtype
SUFFIX = {_dt.float32: "f32", _dt.float64: "f64"}            # and the suffix of its kernels' names


def library(name):
    """ember's loaded library of kernels/cpu/csrc/<name>.c, or None (no C compiler, C kernels off)."""
    from ember.kernels.cpu.runtime import clib
    if not clib.enabled():
        return None
    return clib.library(name)


def static(lay):
    """Whether a layout's sizes, strides and offset are all known numbers (no size symbols)."""
    return all(type(x) is int for x in lay.size + lay.stride + (lay.offset,))


class ExternPlan:
    """Base of ConvPlan, PoolPlan, AttentionPlan and the row-kernel plans: the buffers an extern call's C
    statements use."""

    def buffer_names(self):
        """The buffers whose addresses the entry passes: the operands read, then those written, each once."""
        names = []
        for v in self.views.values():
            if v.buffer.name not in names:
                names.append(v.buffer.name)
        for b in self.writes.values():
            if b.name not in names:
                names.append(b.name)
        return names

    def written(self):
        return list(self.writes.values())

    def operands(self, ptr, base_offset, ctype):
        """(name -> C address of each operand's first element, the C lines copying those that are not contiguous
        into malloc'ed scratch, the lines freeing it). ptr(buffer name) is the C expression of a buffer's first
        element, base_offset(view) a view's element offset from it, ctype(name) an operand's C element type."""
        from .blas_calls import copy_c
        addr, copies, frees = {}, [], []
        for name, v in self.views.items():
            t = ctype(name)
            src = f"(({t}*){ptr(v.buffer.name)} + {base_offset(v)})"
            if v.layout.is_contiguous():
                addr[name] = src
            else:                 # a strided or expanded operand: a contiguous copy first, as eager's makes one
                addr[name] = f"{name}_c"
                copies.append("\n".join(copy_c(f"{name}_c", src, v.layout.size, v.layout.stride, t, indent="    ")))
                frees.append(f"    free({name}_c);")
        return addr, copies, frees


def two_outputs(buf, multi_outputs):
    """(result 0, result 1): the MultiOutput buffers of the extern `buf`'s two tensor results, or None when
    `multi_outputs` are not exactly those (each once, one level deep)."""
    from ..ir import MultiOutput
    by_path = {}
    for mo in multi_outputs:
        if not isinstance(mo, MultiOutput) or mo.kernel is not buf or len(mo.path) != 1 or mo.path[0] in by_path:
            return None
        by_path[mo.path[0]] = mo
    if set(by_path) != {0, 1}:
        return None
    return by_path[0], by_path[1]


def pointer_preamble(setter, source, decls):
    """C declarations of the pointers to a library's kernels and of `void <setter>(void** f)`, which sets them in
    order. `source` names the library in a comment; `decls` is a list of (kernel name in the library, its C type
    with `(*)` where the pointer's name goes), e.g. ("max_pool2d_f32", "void (*)(const float*, int64_t)")."""
    lines = [f"/* {source}: set by the loader ({setter}) */", "#include <stdlib.h>"]
    for name, sig in decls:
        lines.append("static " + sig.replace("(*)", f"(*ember_{name})", 1) + ";")
    body = "".join(f"    *(void**)&ember_{name} = f[{i}];\n" for i, (name, _) in enumerate(decls))
    lines.append(f"void {setter}(void** f)\n{{\n{body}}}")
    return "\n".join(lines) + "\n"


def bind_pointers(lib, setter, library, names, what):
    """Give a loaded module the addresses of `names` in the ember library `library` (a clib.library, or None when
    C kernels are off) through its `setter`; RuntimeError naming `what` when the library is missing."""
    import ctypes
    if library is None:
        raise RuntimeError(f"ember._inductor: the generated C calls {what}, which is not available in this process")
    addrs = (ctypes.c_void_p * len(names))(*(ctypes.cast(getattr(library, nm), ctypes.c_void_p).value
                                             for nm in names))
    fn = lib[setter]
    fn.argtypes = [ctypes.c_void_p]
    fn.restype = None
    fn(ctypes.cast(addrs, ctypes.c_void_p))
