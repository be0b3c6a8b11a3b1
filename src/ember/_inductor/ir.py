"""torch/_inductor/ir.py: the loop-level IR that aten graphs are lowered to.

- `Layout`: sizes, strides and an offset (in elements) over a flat buffer; `flat(index)` is the affine
  element offset of an index.
- Values a lowering returns (`IRNode`s):
  * `Pointwise(size, dtype, inner_fn)`: not stored anywhere; `inner_fn(index)` computes the element at
    `index` (a list of `Index`, one per dim) by calling `ops.*` (see `virtualized.py`). Consumers call it
    inside their own loops, which is how producers are inlined.
  * `BufferView(buffer, layout)`: the elements of a realized buffer seen through a layout. Every view op
    (view/permute/expand/slice/select/unsqueeze/squeeze/as_strided, a reshape of a viewable layout) makes a
    new layout over the same buffer: no copy.
- Buffers (the things that get memory; nodes of the scheduler):
  * `InputBuffer`: a graph input (or a constant tensor of the GraphModule).
  * `ComputedBuffer`: a realized `Pointwise` or a `Reduction` (sum, prod, max, min, argmax, argmin, any,
    all over `reduction_size`, the inner function taking `(index, reduction_index)`), or a `Scatter` (stores at
    computed positions: scatter, index_put, the pool backwards) or a `Scan` (cumsum, cumprod), which share no
    outer loops with anything (their kernels may take pointwise epilogues, see scheduler.py).
  * `ExternKernel` (+ `MultiOutput` for each tensor of a tuple result): an eager aten op called from the
    wrapper: mm/addmm/bmm (numpy BLAS), convolution, ember's fused attention, and the fallback for every op
    without a lowering (`lowering.FALLBACK_REASONS` says why each known one falls back).
- `ReadRecorder` and `OpCounter`: ops handlers that run an inner function to learn what it reads and how much
  work it is.
"""
from ember._core import dtype as _dt

from .index import Index, contiguous_strides, prod
from .virtualized import BINARY_OPS, UNARY_OPS, ops, set_ops_handler


def _sz(s):
    """A size or stride as an int, keeping a symbolic size (sizevars.SymSize, an int) symbolic."""
    return s if isinstance(s, int) else int(s)


class Layout:
    __slots__ = ("size", "stride", "offset", "dtype")

    def __init__(self, size, stride, offset, dtype):
        self.size = tuple(_sz(s) for s in size)
        self.stride = tuple(_sz(s) for s in stride)
        self.offset = _sz(offset)
        self.dtype = dtype

    @staticmethod
    def contiguous(size, dtype):
        return Layout(size, contiguous_strides(size), 0, dtype)

    def flat(self, index):
        """The flat element offset of the element at `index` (one Index or int per dim): offset + sum(i * stride),
        summed into one dict (the hot path of lowering and fusion: no intermediate Index per dim)."""
        terms = {}
        const = self.offset
        for i, sz, st in zip(index, self.size, self.stride):
            if sz == 1 or not st:
                continue
            if type(i) is Index:
                const += i.const * st
                for v, c in i.terms.items():
                    terms[v] = terms.get(v, 0) + c * st
            else:
                const += _sz(i) * st
        return Index(terms, const)

    def numel(self):
        return prod(self.size)

    def storage_numel(self):
        """Elements from the start of the buffer that this layout can touch (the allocation it needs)."""
        if any(s == 0 for s in self.size):
            return 0
        return self.offset + 1 + sum((s - 1) * st for s, st in zip(self.size, self.stride) if st > 0)

    def is_contiguous(self):
        return self.offset == 0 and all(st == c for s, st, c in zip(self.size, self.stride,
                                                                     contiguous_strides(self.size)) if s != 1)

    def __eq__(self, other):
        return isinstance(other, Layout) and (self.size, self.stride, self.offset, self.dtype) == \
            (other.size, other.stride, other.offset, other.dtype)

    def __repr__(self):
        return f"Layout({list(self.size)}, stride={list(self.stride)}, offset={self.offset}, {self.dtype})"


# ---------------------------------------------------------------------------- values
class IRNode:
    def get_size(self):
        return self.size

    def get_dtype(self):
        return self.dtype


class Pointwise(IRNode):
    def __init__(self, size, dtype, inner_fn):
        self.size = tuple(_sz(s) for s in size)
        self.dtype = dtype
        self.inner_fn = inner_fn

    def make_loader(self):
        return self.inner_fn

    def __repr__(self):
        return f"Pointwise({list(self.size)}, {self.dtype})"


class BufferView(IRNode):
    def __init__(self, buffer, layout):
        self.buffer = buffer
        self.layout = layout
        self.size = layout.size
        self.dtype = layout.dtype

    def make_loader(self):
        name, layout = self.buffer.name, self.layout

        def load(index):
            return ops.load(name, layout.flat(index))
        return load

    def is_whole_buffer(self):
        return self.layout == self.buffer.layout

    def __repr__(self):
        return f"BufferView({self.buffer.name}, {self.layout})"


# ---------------------------------------------------------------------------- buffers
class Buffer:
    is_extern = False

    def __init__(self, name, layout):
        self.name = name
        self.layout = layout
        self.dtype = layout.dtype

    def view(self):
        return BufferView(self, self.layout)

    def nbytes(self):
        return self.layout.storage_numel() * self.dtype.itemsize

    def __repr__(self):
        return f"{type(self).__name__}({self.name}, {self.layout})"


class InputBuffer(Buffer):
    def __init__(self, name, layout, position=None, constant=None):
        super().__init__(name, layout)
        self.position = position      # the graph argument it is, or None for a constant
        self.constant = constant      # the real tensor of a get_attr constant


class Reduction:
    """The body of a reduction buffer: out[index] = reduce over reduction_index of inner_fn(index, rindex)."""
    TYPES = ("sum", "prod", "max", "min", "argmax", "argmin", "any", "all")

    def __init__(self, size, reduction_size, reduction_type, inner_fn, src_dtype):
        if reduction_type not in self.TYPES:
            raise NotImplementedError(f"ember._inductor: reduction type {reduction_type!r}")
        self.size = tuple(_sz(s) for s in size)
        self.reduction_size = tuple(_sz(s) for s in reduction_size)
        self.reduction_type = reduction_type
        self.inner_fn = inner_fn
        self.src_dtype = src_dtype
        # a sum of a tensor over some of its dims (lowering.make_reduction): how many trailing reduction dims are
        # the tensor's own trailing dims (its contiguous run, 0 when its last dim is kept), so the C can add in
        # numpy's order as eager does (codegen/cpp.py, KernelCodegen._numpy_sum); None: any order
        self.run_dims = None


class Scatter:
    """The body of a buffer written at computed positions (scatter, scatter_add, index_put, index_add, the pool
    backwards): out[i] = init[i] for every i, then for each index of `size` *in order*: if mask,
    out[flat] = value (or out[flat] += value when `accumulate`), with `inner_fn(index)` returning
    (flat, value, mask or None), `flat` an Index into the output's contiguous layout (opaque vars allowed).
    `direct`: pairs (dim of `size`, output dim) where the stores' position along that output dim is the loop index
    itself: stores at different values of it never meet, so the kernel may split it over threads. The stores
    may conflict otherwise, so the kernel shares no loops with others (only pointwise epilogues reading the
    element it stores run after its stores in the same kernel: scheduler._try_fuse_serial_epilogue)."""

    def __init__(self, size, init, inner_fn, accumulate, direct=()):
        self.size = tuple(_sz(s) for s in size)
        self.init = init                # an IR value (Pointwise / BufferView) of the output's size and dtype
        self.inner_fn = inner_fn
        self.accumulate = accumulate
        self.direct = tuple(direct)


class Scan:
    """The body of a prefix scan (cumsum, cumprod) along `dim`: out[.., j, ..] = out[.., j-1, ..] (+ or *)
    inner_fn(index at j), out[.., 0, ..] = inner_fn(index at 0); combined in the output dtype (eager's numpy
    scans accumulate in it too). Shares no loops with others (pointwise epilogues only): its scan loop sits outside
    the dims after `dim` (which vectorise)."""
    TYPES = ("sum", "prod")

    def __init__(self, size, dim, scan_type, inner_fn):
        if scan_type not in self.TYPES:
            raise NotImplementedError(f"ember._inductor: scan type {scan_type!r}")
        self.size = tuple(_sz(s) for s in size)
        self.dim = dim
        self.scan_type = scan_type
        self.inner_fn = inner_fn


class ComputedBuffer(Buffer):
    """A buffer computed by generated code: `data` is a Pointwise, a Reduction, or a Scatter / Scan (`is_serial`:
    no outer loops shared with anything). `mutated_input` names the graph input whose storage
    it is written into (an in-place update kept in place), else None."""
    mutated_input = None

    def __init__(self, name, layout, data):
        super().__init__(name, layout)
        self.data = data

    def is_reduction(self):
        return isinstance(self.data, Reduction)

    def is_serial(self):
        return isinstance(self.data, (Scatter, Scan))

    def ranges(self):
        if self.is_serial():
            return ()
        return self.data.size

    def reduction_ranges(self):
        return self.data.reduction_size if self.is_reduction() else ()


class ExternKernel(Buffer):
    """An eager aten op called from the wrapper. `args`/`kwargs` hold BufferViews where the op takes tensors;
    `layout` is the expected layout of a single tensor result (None for a tuple result, see MultiOutput)."""
    is_extern = True

    def __init__(self, name, layout, op, args, kwargs, reason):
        super().__init__(name, layout or Layout((), (), 0, _dt.float32))
        self.has_tensor_result = layout is not None
        self.op = op
        self.args = args
        self.kwargs = kwargs
        self.reason = reason          # "extern" (a library kernel by design) or why there is no lowering

    def input_views(self):
        out = []
        _collect_views((self.args, self.kwargs), out)
        return out


class MultiOutput(Buffer):
    """One tensor of an ExternKernel's tuple result, at `path` (a tuple of indices)."""
    is_extern = True

    def __init__(self, name, layout, kernel, path):
        super().__init__(name, layout)
        self.kernel = kernel
        self.path = path


def _collect_views(obj, out):
    if isinstance(obj, BufferView):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _collect_views(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _collect_views(o, out)


# ---------------------------------------------------------------------------- views
def make_loader(x):
    return x.make_loader()


def remap(x, new_size, reindex):
    """x seen through an index map: new[index] = x[reindex(index)]. On a buffer view the map is folded into
    a new layout (always affine); on a Pointwise it wraps the inner function."""
    new_size = tuple(_sz(s) for s in new_size)
    if isinstance(x, BufferView):
        vars_ = [Index.var(f"_d{i}") for i in range(len(new_size))]
        flat = x.layout.flat(reindex(vars_))
        if any(not k.startswith("_d") for k in flat.terms):
            raise AssertionError("view of a buffer produced a non-affine index")
        strides = tuple(flat.coeff(f"_d{i}") for i in range(len(new_size)))
        return BufferView(x.buffer, Layout(new_size, strides, flat.const, x.dtype))
    inner = x.make_loader()
    return Pointwise(new_size, x.dtype, lambda index: inner(reindex(index)))


def view_strides(old_size, old_stride, new_size):
    """Strides of `new_size` viewing the layout (old_size, old_stride) without a copy, or None when a copy is
    needed (ATen's computeStride)."""
    if prod(old_size) == 0 or not old_size:
        return contiguous_strides(new_size)
    new_stride = [0] * len(new_size)
    view_d = len(new_size) - 1
    chunk_base = old_stride[-1]
    tensor_numel = view_numel = 1
    for d in range(len(old_size) - 1, -1, -1):
        tensor_numel *= old_size[d]
        if d == 0 or (old_size[d - 1] != 1 and old_stride[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_size[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base
                view_numel *= new_size[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = old_stride[d - 1]
                tensor_numel = view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


# ---------------------------------------------------------------------------- analysis handlers
class _Value:
    __slots__ = ("v",)

    def __init__(self, v=None):
        self.v = v


class OpCounter:
    """Counts the ops an inner function runs (with no common-subexpression elimination: the cost of calling it)."""

    def __init__(self):
        self.count = 0
        self.loads = 0

    def load(self, name, index):
        self.loads += 1
        self.count += 1
        return _Value()

    def constant(self, value, dtype):
        return _Value()

    def index_expr(self, index, dtype):
        return _Value()

    def to_dtype(self, x, dtype):
        return x

    def masked(self, mask, body, other):
        self.count += 1
        return body()

    def indirect_indexing(self, x, size):
        return Index.var("_opaque")

    def where(self, c, a, b):
        self.count += 1
        return _Value()

    def __getattr__(self, name):
        if name in UNARY_OPS or name in BINARY_OPS:
            def op(*args):
                self.count += 1
                return _Value()
            return op
        raise AttributeError(name)


class ReadRecorder(OpCounter):
    """Records (buffer name, Index) of every load an inner function makes."""

    def __init__(self):
        super().__init__()
        self.reads = []

    def load(self, name, index):
        self.reads.append((name, index))
        return super().load(name, index)


def count_ops(x):
    h = OpCounter()
    with set_ops_handler(h):
        x.make_loader()([Index.var(f"_c{i}") for i in range(len(x.get_size()))])
    return h.count


def count_reads(x):
    """How many distinct buffers a Pointwise's inner function loads from."""
    h = ReadRecorder()
    with set_ops_handler(h):
        x.make_loader()([Index.var(f"_c{i}") for i in range(len(x.get_size()))])
    return len({n for n, _ in h.reads})


def body_reads(buf, index, rindex=None):
    """The (name, Index) loads of a computed buffer's body at the given loop indices."""
    h = ReadRecorder()
    with set_ops_handler(h):
        if isinstance(buf.data, Scatter):
            n = len(buf.data.size)
            buf.data.init.make_loader()([Index.var(f"_o{i}") for i in range(len(buf.layout.size))])
            buf.data.inner_fn([Index.var(f"_s{i}") for i in range(n)])
        elif isinstance(buf.data, Scan):
            buf.data.inner_fn([Index.var(f"_s{i}") for i in range(len(buf.data.size))])
        elif buf.is_reduction():
            buf.data.inner_fn(index, rindex)
        else:
            buf.data.inner_fn(index)
    return h.reads
