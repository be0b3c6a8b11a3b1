"""torch/_inductor/codegen/wrapper.py (PythonWrapperCodegen): the Python function that runs one graph.

`generate(graph, scheduler)` returns a `CompiledModule`: the C source (the fused kernels, and one C entry
per run of consecutive kernels, `int64_t entryN(void** p)`, that calls them in order) and the Python source of
`call(*args)`, which
  1. checks each input's strides against the ones compiled for (a different layout is copied into the
     compiled one, never read wrongly),
  2. takes the storage of the memory plan (`scheduler.plan_memory`: dead buffers are reused) from arenas kept
     between calls (`_arena`: an earlier call's arena is reused once nothing references it),
  3. calls each C entry with one array of pointers (one ctypes transition per run of kernels) and each extern
     op between them (the eager op on ember tensors viewing the buffers),
  4. returns ember tensors (outputs that view an input are views of that input, as eager).
"""
import ctypes
import sys

import numpy as np

from ember._core.tensor_impl import TensorImpl

from ..ir import ComputedBuffer, ExternKernel, InputBuffer, MultiOutput
from ..scheduler import plan_memory
from ..sizevars import SizeUnsupported, SymFloatSize, SymSize, symbols_of
from . import attention_calls, blas_calls, conv_calls, loss_calls, pool_calls, softmax_calls
from .cpp import PREAMBLE, KernelCodegen, storage_ctype

# a kernel touching at least this much work (KernelCodegen.work(): elements, a heavy op per element counting
# HEAVY_OP_WORK more) splits its first outer loop over config.threads() threads of ember's C pool (cpp.py's
# ember_parallel), as torch splits from its GRAIN (32768) and eager's softmax rows from softmax._POOL_MIN.
# Measured (session 16) with benchmarks/compile_pointwise.py's chains compiled serial and split at 2 threads, one
# process, wall time per call (the wrapper's ~7 us included), min / median of 30 x 4-200 alternated calls, load 14:
#   10 arithmetic ops, n =  16k:  9.6 / 9.9 us serial,  9.4 / 10.0 split    (even)
#                          32k: 12.6 / 13.2,           10.1 / 13.2          (1.24x at the minimum)
#                          64k: 19.3 / 20.8,           13.2 / 20.2          (1.46x)
#                         256k: 59.6 / 63.4,           36.5 / 60.9          (1.63x)
#   with sin, sqrt, exp,   8k: 21.2 / 21.6,           15.2 / 21.7          (work 205k: 1.39x)
#                          64k:  143 / 146,             68 / 128           (2.1x)
# A split never cost more than a few us at the median (a preempted worker's chunks run on the caller), and pays
# from ~32k elements of plain work when the second core is free. The old 2M came from threads created per call.
PARALLEL_MIN_WORK = 1 << 15
# mm/bmm externs BLAS can read in place are called from the C entry (blas_calls.py); False: from Python
EXTERN_GEMM_IN_C = True
# convolutions ember's direct kernel takes are called from the C entry (conv_calls.py); False: from Python
EXTERN_CONV_IN_C = True
# the fused attention and its backward are called from the C entry (attention_calls.py); False: from Python
EXTERN_ATTENTION_IN_C = True
# max pools (eager's pool.c) are called from the C entry (pool_calls.py); False: from Python
EXTERN_POOL_IN_C = True
# last-dim (log_)softmax and its backward (eager's softmax.c) are called from the C entry (softmax_calls.py)
EXTERN_SOFTMAX_IN_C = True
# nll_loss_forward (eager's nll.c) is called from the C entry (loss_calls.py)
EXTERN_LOSS_IN_C = True


class CompiledModule:
    """What generate() produced for one graph. Picklable (the graph-level disk cache, fxgraph_cache.py, stores
    it): `namespace` holds only data (constants, dtypes, ops); load() adds the helpers, the ctypes pointer-array
    types and a fresh arena pool."""

    def __init__(self, c_source, py_source, entry_names, namespace, n_kernels, pointer_arrays=(), n_arenas=0,
                 blas_bits=None, dconv=False, attention=False, pool=False, softmax=False, nll=False):
        self.c_source = c_source
        self.py_source = py_source
        self.entry_names = entry_names
        self.namespace = namespace
        self.n_kernels = n_kernels
        self.pointer_arrays = tuple(pointer_arrays)
        self.n_arenas = n_arenas
        self.blas_bits = blas_bits       # the C calls cblas gemms of this integer width (blas_calls.py), or None
        self.dconv = dconv               # the C calls ember's direct convolution (conv_calls.py)
        self.attention = attention       # the C calls ember's attention row kernels (attention_calls.py)
        self.pool = pool                 # the C calls eager's max pool kernels (pool_calls.py)
        self.softmax = softmax           # the C calls eager's softmax row kernels (softmax_calls.py)
        self.nll = nll                   # the C calls eager's nll_loss forward (loss_calls.py)

    def load(self, lib):
        """Bind the C entries of the built library and return the `call` function."""
        _bind_parallel(lib)
        if self.blas_bits is not None:
            blas_calls.bind(lib, self.blas_bits)
            _hold_blas_single()
        if getattr(self, "dconv", False):
            conv_calls.bind(lib)
        if getattr(self, "attention", False):
            attention_calls.bind(lib)
        if getattr(self, "pool", False):
            pool_calls.bind(lib)
        if getattr(self, "softmax", False):
            softmax_calls.bind(lib)
        if getattr(self, "nll", False):
            loss_calls.bind(lib)
        ns = dict(self.namespace)
        ns.update(_HELPERS)
        ns["_pool"] = [None] * self.n_arenas
        ns["_pool_addr"] = [0] * self.n_arenas
        for n in self.pointer_arrays:
            ns[f"_P{n}"] = ctypes.c_void_p * n
        for name in self.entry_names:
            fn = lib[name]
            fn.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
            fn.restype = ctypes.c_int64
            ns["_" + name] = fn
            ns["_" + name + "_raw"] = fn
        exec(compile(self.py_source, "<ember._inductor wrapper>", "exec"), ns)
        return ns["call"]


def _hold_blas_single():
    """OpenBLAS held at one thread, as eager holds it (runtime/blas.py hold_single): the C entry's gemms are single
    cblas calls, or blocks of one shared out over ember's pool (blas_calls.split_plan) as eager's runtime/gemm.py
    shares them. OpenBLAS's own threads spin ~0.1 s of cpu after each threaded call: measured on the 2-core VM at
    load ~10, 2 threads, wall median a step with OpenBLAS's threads / held at one: CNN 249 / 32 ms (eager 35), MLP
    213 / 48 (eager 45), GPT 1692 / 343 (eager 470)."""
    from ember.kernels.cpu.runtime import blas
    blas.hold_single()


def _wrap(arena, offset, npdtype, dtype, size, stride=None):
    """An ember tensor over the bytes of `arena` (a uint8 array) from byte `offset`, with the given size and
    element strides (None: contiguous)."""
    if stride is not None:
        itemsize = npdtype.itemsize
        arr = np.ndarray(size, npdtype, arena, offset, tuple(s * itemsize for s in stride))
        return TensorImpl._wrap_np(arr, dtype)
    return TensorImpl._wrap_fresh(np.ndarray(size, npdtype, arena, offset), dtype)


def _restride(t, size, stride):
    """A copy of t laid out with `stride` (an input whose layout differs from the compiled one)."""
    import ember
    out = ember.empty_strided(size, stride, dtype=t.dtype)
    out.copy_(t)
    return out


def _view_of(t, size, stride, offset):
    return t.as_strided(size, stride, t.storage_offset() + offset)


def _index_error(code=1):
    """Raise what eager raises for the error flag a C entry returned (1: an index out of range, 2: an integer
    division by zero, 3: a kernel the entry calls could not allocate its scratch memory)."""
    if code == 3:
        raise MemoryError("ember: a convolution, matmul or attention in compiled code could not allocate its "
                          "scratch buffers")
    if code == 2:
        raise RuntimeError("ZeroDivisionError")
    raise IndexError("index out of range in self")


def _arena(pool, addrs, i, nbytes):
    """The bytes of storage arena i for this call and their address: the array of an earlier call when nothing
    holds it any more (no tensor, view or numpy array of it is alive: its only references are the pool's and
    ours), else a new one that replaces it in the pool (`addrs[i]` keeps its address, read once). Fresh memory costs a page fault per 4 kB on first touch (about 1.5 ms per
    MB on this class of machine, more than the kernels writing it), so reusing it is what makes a compiled
    step cheaper than eager's; a tensor the caller still holds is never overwritten, and a call re-entered
    while the arena is in use gets its own.

    The arena is a view starting at a multiple of _ARENA_ALIGN bytes of a slightly larger array (malloc
    gives 16-byte alignment, so without it every arena, and with it every slot the memory plan lays out at
    multiples of 64 bytes, started at an address that differed between processes). Tensors made over the
    view hold its owner (numpy points a view's base at the array owning the memory), so "nothing holds it"
    is: the view is referenced only by the pool and us, and its owner only by the view."""
    a = pool[i]
    if (a is not None and _getrefcount(a) == 3 and _getrefcount(a.base) == 2   # pool[i], `a`, the argument;
            and a.size >= nbytes):                                             # the view's base, the argument
        return a, addrs[i]
    owner = np.empty(nbytes + _ARENA_ALIGN, np.uint8)
    skip = -_addr(owner) % _ARENA_ALIGN
    a = pool[i] = owner[skip:skip + nbytes]
    del owner
    p = addrs[i] = _addr(a)
    return a, p


_ARENA_ALIGN = 64           # bytes: a cache line, an AVX-512 vector (what BLAS and the vector loops prefer)


_getrefcount = sys.getrefcount
_from_buffer = ctypes.c_char.from_buffer
_addressof = ctypes.addressof


def _addr(arr):
    """The address of a writable contiguous array's first byte (1 µs, where `arr.ctypes.data` takes 5)."""
    try:
        return _addressof(_from_buffer(arr))
    except (TypeError, ValueError, BufferError):
        return arr.ctypes.data


def _ptr(t):
    """The address of a tensor's first element."""
    a = t._np
    try:
        return _addressof(_from_buffer(a))
    except (TypeError, ValueError, BufferError):     # read-only or non-contiguous: numpy knows
        return a.ctypes.data


_ALIGN = 64


def _aligned(nbytes):
    """Bytes a slot takes: a multiple of _ALIGN; a symbolic size (sizevars.SymSize) has each coefficient
    rounded up to a multiple of 8, so that every slot after it stays aligned for any dtype at every size."""
    if isinstance(nbytes, SymSize):
        # (the hint, used only for ordering, is approximate: at most 8 bytes more per term)
        return SymSize.make({m: -(-c // 8) * 8 for m, c in nbytes.terms}, int(nbytes) + 8 * len(nbytes.terms))
    return -(-max(nbytes, 1) // _ALIGN) * _ALIGN


KERNEL_TIMES = {}     # with config.cpp.enable_kernel_profile: kernel label -> [seconds, calls]


def _timed(fn, label):
    import time

    def call(p):
        t = time.perf_counter()
        r = fn(p)
        rec = KERNEL_TIMES.setdefault(label, [0.0, 0])
        rec[0] += time.perf_counter() - t
        rec[1] += 1
        return r
    return call


_GRAPH_IDS = [0]

# what every wrapper's namespace has (CompiledModule.load adds them; they are not pickled)
_HELPERS = {"_timed": _timed, "np": np, "ctypes": ctypes, "_arena": _arena, "_wrap": _wrap, "_restride": _restride,
            "_view_of": _view_of, "_index_error": _index_error, "_ptr": _ptr, "_addr": _addr,
            # the integer helpers a symbolic size may call (sizevars: the C preamble has the same names)
            "ember_floordiv_i": lambda a, b: a // b, "ember_mod_i": lambda a, b: a % b,
            "ember_f64": float, "ember_truediv": lambda a, b: a / b}


def _bind_parallel(lib):
    """Give a loaded library eager's C thread pool (csrc/parallel.c `ember_parallel_for`) for its parallel loops
    (cpp.py's ember_parallel); without it (C kernels off) they create threads per call."""
    try:
        setter = lib["ember_set_parallel"]
    except (AttributeError, KeyError):
        return                                  # a library built before the pool was bound (an old cache entry)
    from ember.kernels.cpu.runtime import clib
    dll = clib.library("parallel") if clib.enabled() else None
    addr = ctypes.cast(dll["ember_parallel_for"], ctypes.c_void_p).value if dll is not None else None
    setter.argtypes = [ctypes.c_void_p]
    setter.restype = None
    setter(addr)


def generate(graph, sched):
    from .. import config
    profile = config.cpp.enable_kernel_profile
    _GRAPH_IDS[0] += 1
    threads = config.threads()
    groups = sched.groups
    dtype_of = {}
    for b in graph.inputs + graph.constants + graph.buffers:
        dtype_of[b.name] = b.dtype
    by_name = {b.name: b for b in graph.inputs + graph.constants + graph.buffers}

    # matmuls the C entry calls (their results are buffers of the memory plan, like kernels' outputs)
    gemms = {}
    if EXTERN_GEMM_IN_C:
        for b in graph.buffers:
            plan = blas_calls.gemm_plan(b)
            if plan is not None:
                gemms[b.name] = plan

    # convolutions and attention the C entry calls (conv_calls.py, attention_calls.py): their results are
    # buffers of the memory plan too (convolution_backward's and attention's MultiOutputs)
    convs = {}
    multis = {}
    for b in graph.buffers:
        if isinstance(b, MultiOutput):
            multis.setdefault(b.kernel.name, []).append(b)
    for b in graph.buffers:
        if not isinstance(b, ExternKernel):
            continue
        plan = None
        if EXTERN_CONV_IN_C and str(b.op) in conv_calls.CONV_OPS:
            plan = conv_calls.conv_plan(b, multis.get(b.name, ()))
        elif EXTERN_ATTENTION_IN_C and str(b.op) in attention_calls.ATTENTION_OPS:
            plan = attention_calls.attention_plan(b, multis.get(b.name, ()))
        elif EXTERN_POOL_IN_C and str(b.op) in pool_calls.POOL_OPS:
            plan = pool_calls.pool_plan(b, multis.get(b.name, ()))
        elif EXTERN_SOFTMAX_IN_C and str(b.op) in softmax_calls.SOFTMAX_OPS:
            plan = softmax_calls.softmax_plan(b)
        elif EXTERN_LOSS_IN_C and str(b.op) in loss_calls.NLL_OPS:
            plan = loss_calls.nll_plan(b, multis.get(b.name, ()))
        if plan is not None:
            convs[b.name] = plan
    has_conv = any(isinstance(p, conv_calls.ConvPlan) for p in convs.values())
    has_attention = any(isinstance(p, attention_calls.AttentionPlan) for p in convs.values())
    has_pool = any(isinstance(p, pool_calls.PoolPlan) for p in convs.values())
    has_softmax = any(isinstance(p, softmax_calls.SoftmaxPlan) for p in convs.values())
    has_nll = any(isinstance(p, loss_calls.NllPlan) for p in convs.values())
    conv_written = {w.name for plan in convs.values() for w in plan.written()}

    def in_arena(b):
        return isinstance(b, ComputedBuffer) or b.name in gemms or b.name in conv_written

    # buffers the wrapper hands out as tensors keep their own storage
    keep = set()
    for out in graph.outputs:
        if out is not None:
            keep.add(out.buffer.name)
    for b in graph.buffers:
        if isinstance(b, ExternKernel) and b.reason != "extern":
            for v in b.input_views():
                if in_arena(v.buffer):
                    keep.add(v.buffer.name)          # a fallback op might return a view of its input
    assign, slots = plan_memory(groups, graph.buffers, keep, also=set(gemms) | conv_written,
                                written_by={n: [w.name for w in p.written()] for n, p in convs.items()})
    # storage per call: `scratch` for the buffers that die inside the call (one allocation, reused by the
    # memory plan), `kept` for the inputs of fallback ops, and one allocation per graph output, so that an
    # output the caller keeps (a loss, logits) holds nothing else alive (saved activations die after backward)
    slot_place = {}
    sizes = {"scratch": 0, "kept": 0}
    out_slots = {assign[o.buffer.name] for o in graph.outputs
                 if o is not None and o.buffer.name in assign}
    kept_slots = {assign[n] for n in keep if n in assign}
    for slot, nbytes in slots.items():
        if slot in out_slots:
            arena = f"out_{slot}"
            sizes[arena] = 0
        else:
            arena = "kept" if slot in kept_slots else "scratch"
        slot_place[slot] = (arena, sizes[arena])
        sizes[arena] += _aligned(nbytes)

    # C: kernels and entries
    c_parts = [PREAMBLE]
    needs_blas = gemms or has_attention or any(getattr(p, "needs_blas", False) for p in convs.values())
    blas_bits = blas_calls.blas_int_bits() if needs_blas else None
    if blas_bits is not None:
        c_parts.append(blas_calls.gemm_preamble(blas_bits))
    if has_conv:
        c_parts.append(conv_calls.preamble())
    if has_attention:
        c_parts.append(attention_calls.preamble())
    if has_pool:
        c_parts.append(pool_calls.preamble())
    if has_softmax:
        c_parts.append(softmax_calls.preamble())
    if has_nll:
        c_parts.append(loss_calls.preamble())
    entries = []
    py = ["def call(*args):"]
    namespace = {}
    pointer_arrays = set()
    n_in = len(graph.inputs)
    if graph.int_inputs:                     # size arguments among the tensors: unpack by position
        for b in graph.inputs:
            py.append(f"    {b.name} = args[{b.position}]")
    elif n_in:
        py.append(f"    {', '.join(b.name for b in graph.inputs)}{',' if n_in == 1 else ''} = args")
    # dynamic shapes: the size symbols, read from the inputs; the C takes them as int64_t parameters
    size_params = _size_params(graph)
    for sym in size_params:
        py.append(f"    {sym} = {graph.symbols[sym]}")
    mutated = [b.mutated_input for b in graph.buffers if getattr(b, "mutated_input", None) is not None]
    for b in graph.inputs:
        if b.name in mutated:
            py.append(f"    {b.name}_orig = {b.name}")
        py.append(f"    if {b.name}.stride() != {b.layout.stride!r}:")
        py.append(f"        {b.name} = _restride({b.name}, {b.layout.size!r}, {b.layout.stride!r})")
    for i, b in enumerate(graph.constants):
        namespace[b.name] = b.constant
    pool_index = 0
    for arena, nbytes in sizes.items():
        if nbytes:
            py.append(f"    {arena}, {arena}_p = _arena(_pool, _pool_addr, {pool_index}, {nbytes})")
            pool_index += 1

    def ptr_expr(name):
        b = by_name[name]
        if getattr(b, "mutated_input", None) is not None:
            return f"_ptr({b.mutated_input})"
        if in_arena(b):
            arena, off = slot_place[assign[name]]
            off += b.layout.offset * b.dtype.itemsize
            return f"{arena}_p + {off}" if off else f"{arena}_p"
        return f"_ptr({name})"

    def tensor_expr(view):
        b = view.buffer
        lay = view.layout
        if getattr(b, "mutated_input", None) is not None:
            b = by_name[b.mutated_input]
        if in_arena(b):
            nsname = f"_np_{b.dtype.name}"
            namespace[nsname] = b.dtype._np
            arena, off = slot_place[assign[b.name]]
            if lay.is_contiguous():
                return f"_wrap({arena}, {off}, {nsname}, _dt_{b.dtype.name}, {lay.size!r})"
            return (f"_wrap({arena}, {off + lay.offset * b.dtype.itemsize}, {nsname}, _dt_{b.dtype.name}, "
                    f"{lay.size!r}, {lay.stride!r})")
        if view.is_whole_buffer():
            return b.name
        return f"_view_of({b.name}, {lay.size!r}, {lay.stride!r}, {lay.offset - b.layout.offset})"

    pending = []           # what the entry being built calls: (kernel name, KernelCodegen), (None, GemmPlan)
    #                        or ("conv", ConvPlan or AttentionPlan)
    n_kernels = 0

    def flush():
        if not pending:
            return
        ename = f"entry{len(entries)}"
        names = []
        calls = []
        for kname, kc in pending:
            for n in (kc.buffer_names() if kname == "conv" else
                      [a.name for a in kc.args.values()] if kname is not None else
                      [kc.a.buffer.name, kc.b.buffer.name, kc.buf.name]):
                if n not in names:
                    names.append(n)
        # the sizes follow the pointers in the array; the entry (and a parallel task) reads them first
        n_ptr = len(names)
        read_sizes = "".join(f"    const int64_t {sym} = (int64_t)(intptr_t)p[{n_ptr + i}];\n"
                             for i, sym in enumerate(size_params))
        for kname, kc in pending:
            if kname == "conv":
                helpers, body = kc.c(f"_{kc.buf.name}", lambda n: f"p[{names.index(n)}]",
                                     lambda v: v.layout.offset - v.buffer.layout.offset, threads)
                c_parts.append(helpers)
                calls.append(body)
                continue
            if kname is None:
                calls.append(blas_calls.gemm_c(kc, *(f"p[{names.index(n)}]" for n in
                                                   (kc.a.buffer.name, kc.b.buffer.name, kc.buf.name)),
                                               lambda v: v.layout.offset - v.buffer.layout.offset, threads,
                                               c_parts, f"_{kc.buf.name}"))
                continue
            args = [f"({storage_ctype(a.dtype)}*)p[{names.index(a.name)}]" for a in kc.args.values()]
            args += list(size_params)
            if not kc.splittable:
                calls.append(f"    {kname}({', '.join(args)});")
                continue
            n0 = kc.split_size
            work = kc.work()
            task = (f"static void {kname}_task(void** p, int64_t lo, int64_t hi)\n{{\n{read_sizes}"
                    f"    {kname}({', '.join(args)}, lo, hi);\n}}\n")
            if threads > 1 and isinstance(work, SymSize):      # decided per call, on the run-time sizes
                c_parts.append(task)
                calls.append(f"    if ({n0} > 1 && {work} >= {PARALLEL_MIN_WORK}) "
                             f"ember_parallel({kname}_task, p, {n0}, {threads});")
                calls.append(f"    else {kname}({', '.join(args)}, 0, {n0});")
            elif threads > 1 and n0 > 1 and work >= PARALLEL_MIN_WORK:
                c_parts.append(task)
                calls.append(f"    ember_parallel({kname}_task, p, {n0}, {threads});")
            else:
                calls.append(f"    {kname}({', '.join(args)}, 0, {n0});")
        c_parts.append(f"int64_t {ename}(void** p)\n{{\n{read_sizes}" + "\n".join(calls) +
                       "\n    int64_t err = ember_index_error;\n    ember_index_error = 0;\n    return err;\n}\n")
        entries.append(ename)
        names = names + list(size_params)
        pointer_arrays.add(len(names))
        if profile:
            label = "+".join(sorted({n.buf.name for kname, kc in pending
                                     for n in (kc.group.nodes if kname not in (None, "conv") else ())} |
                                    {f"{kc.buf.name}={kc.buf.op}" for kname, kc in pending
                                     if kname in (None, "conv")}))
            namespace[f"_{ename}_label"] = f"graph{_GRAPH_IDS[0]} {ename}: {label}"
            py.append(f"    _{ename} = _timed(_{ename}_raw, _{ename}_label)")
        ptrs = [ptr_expr(n) for n in names[:n_ptr]] + list(size_params)
        py.append(f"    err = _{ename}(_P{len(names)}({', '.join(ptrs)}))")
        py.append("    if err:")
        py.append("        _index_error(err)")
        pending.clear()

    for g in groups:
        if g.is_extern and g.nodes[0].buf.name in gemms:
            pending.append((None, gemms[g.nodes[0].buf.name]))
            if profile:
                flush()
            continue
        if g.is_extern and g.nodes[0].buf.name in convs:
            pending.append(("conv", convs[g.nodes[0].buf.name]))
            if profile:
                flush()
            continue
        if g.is_extern and g.nodes[0].buf.name in conv_written:
            continue                 # a convolution_backward result the C call above wrote
        if g.is_extern:
            flush()
            b = g.nodes[0].buf
            if isinstance(b, MultiOutput):
                py.append(f"    {b.name} = {b.kernel.name}{''.join(f'[{i}]' for i in b.path)}")
            else:
                namespace[f"_op_{b.name}"] = b.op
                parts = [_render(a, tensor_expr, namespace) for a in b.args]
                parts += [f"{k}={_render(v, tensor_expr, namespace)}" for k, v in b.kwargs.items()]
                call = f"_op_{b.name}({', '.join(parts)})"
                py.append(f"    {b.name} = {call}  # {b.op}: {b.reason}")
                if not b.has_tensor_result:
                    continue
            py.append(f"    if {b.name}.stride() != {b.layout.stride!r}:")
            py.append(f"        {b.name} = _restride({b.name}, {b.layout.size!r}, {b.layout.stride!r})")
            continue
        kname = f"kernel{n_kernels}"
        n_kernels += 1
        kc = KernelCodegen(g, kname, dtype_of.__getitem__, size_params)
        c_parts.append(kc.generate())
        pending.append((kname, kc))
        if profile:
            flush()              # one entry per kernel, timed by the wrapper
    flush()

    # inputs written in place: a restrided copy goes back into the caller's tensor; versions bump as eager's
    for name in mutated:
        py.append(f"    if {name} is not {name}_orig:")
        py.append(f"        {name}_orig.copy_({name})")
        py.append(f"    else:")
        py.append(f"        {name}._version_counter.bump()")
    # outputs
    outs = []
    for v, const in zip(graph.outputs, graph.output_consts):
        if v is None and isinstance(const, (SymSize, SymFloatSize)):
            outs.append(repr(const))            # a size the graph returns: computed from the inputs' sizes
        elif v is None:
            namespace[f"_const{len(outs)}"] = const
            outs.append(f"_const{len(outs)}")
        else:
            outs.append(tensor_expr(v))
    for b in graph.buffers + graph.inputs:
        namespace[f"_dt_{b.dtype.name}"] = b.dtype
    if graph.single_output:
        py.append(f"    return {outs[0]}")
    else:
        py.append(f"    return ({', '.join(outs)}{',' if len(outs) == 1 else ''})")
    return CompiledModule("\n".join(c_parts), "\n".join(py) + "\n", entries, namespace, n_kernels,
                          sorted(pointer_arrays), pool_index, blas_bits, has_conv, has_attention, has_pool,
                          has_softmax, has_nll)


def _size_params(graph):
    """The size symbols of a dynamic-shape graph, each with its source among the inputs (else SizeUnsupported)."""
    used = set()
    for b in graph.inputs + graph.buffers:
        lay = b.layout
        for x in lay.size + lay.stride + (lay.offset,):
            used |= symbols_of(x)
        if isinstance(b, ComputedBuffer):
            for x in tuple(b.data.size) + tuple(b.reduction_ranges()):
                used |= symbols_of(x)
    for c in graph.output_consts:
        used |= symbols_of(c)
    missing = used - set(graph.symbols)
    if missing:
        raise SizeUnsupported(f"ember._inductor: no input gives the size symbol(s) {sorted(missing)}")
    return tuple(sorted(graph.symbols, key=lambda s: (len(s), s)))


def _render(obj, tensor_expr, namespace):
    """Python source for an extern argument: tensors via tensor_expr, literals as literals, other objects
    (dtypes, devices, memory formats) by a name bound in the wrapper's namespace."""
    import math
    from ..ir import BufferView
    if isinstance(obj, BufferView):
        return tensor_expr(obj)
    if isinstance(obj, list):
        return "[" + ", ".join(_render(o, tensor_expr, namespace) for o in obj) + "]"
    if isinstance(obj, tuple):
        return "(" + "".join(_render(o, tensor_expr, namespace) + ", " for o in obj) + ")"
    if isinstance(obj, float):
        if math.isnan(obj):
            return "float('nan')"
        if math.isinf(obj):
            return "float('inf')" if obj > 0 else "float('-inf')"
        return repr(obj)
    if isinstance(obj, (int, bool, str, type(None))):
        return repr(obj)                 # (a SymSize's repr is its expression over the size symbols)
    name = f"_obj{len(namespace)}"
    namespace[name] = obj
    return name
