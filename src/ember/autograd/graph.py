"""Nodes of the autograd graph (torch/csrc/autograd/function.h + torch/autograd/graph.py).

A Node is the backward of one forward op. `next_edges[i]` is where the gradient for the op's i-th
differentiable input goes, torch's Edge: an entry is `(node, input_nr)`, a Node alone standing for
`(node, 0)`, a leaf tensor standing for `(its AccumulateGrad, 0)` until the edge is first read (leaf_edges),
or None. `edge_pairs(node)` gives them as torch's pairs. `input_meta[j]` is (shape, dtype) of the op's
j-th output, used to validate and materialize incoming gradients.

Why entries and not pairs: a recorded forward keeps every node's edges alive until backward, and an
`(fn, nr)` tuple holds a node, so each is an object the cyclic GC tracks and walks; almost every edge
goes to output 0 of its producer. The crf benchmark's forward kept ~925 edge tuples of ~2,800 tracked
objects alive (next to ~700 nodes); with entries it keeps ~15.

Also here: AccumulateGrad and accumulate_grad (torch/csrc/autograd/functions/accumulate_grad.h), and
gradient_edge, which regenerates the history of a view whose base was written in place (torch's
VariableHooks::grad_fn); the in-place side of views, CopySlices, is in _views.py.
"""
import itertools
import sys
import threading
import weakref

import numpy as np

from .._core import dtype as _dt
from .._core.device import CPU as _CPU, META as _META
from .._core.dispatch_keys import AUTOGRAD_BIT, CPU_BIT, INPLACE_OR_VIEW_BIT, META_BIT
from .._core.tls import state
from .._core.dispatch_keys import MATH_BITS
from .._core.tensor_impl import TensorImpl as Tensor
from .._ops import ops
from . import anomaly_mode as _anomaly

_seq = itertools.count()
_weakref = weakref.ref
_getattr = getattr
_INF = float("inf")
_ANOMALY = _anomaly.ENABLED_ANYWHERE
PLAIN_CPU = _PLAIN_CPU = CPU_BIT | INPLACE_OR_VIEW_BIT     # a plain cpu tensor's key set (no math bits, no modes)
PLAIN_MASK = _PLAIN_MASK = ~AUTOGRAD_BIT                  # a leaf's or a result's autograd bit does not matter

# what the generated Autograd kernels use to build a node without a Python-level Node.__init__ frame:
# _new(cls), then _sequence_nr = next_sequence_nr(), input_meta, and record_anomaly(node) when ANOMALY[0]
new_node = object.__new__
next_sequence_nr = _seq.__next__
ANOMALY = _ANOMALY


# One output's (shape, dtype, device) record, shared: most nodes have one output of a shape and dtype seen before,
# so a node's input_meta is one interned tuple `((size, dtype, CPU),)` instead of a fresh list holding a fresh tuple.
# Both of those would be objects the cyclic GC tracks for as long as the graph lives (a list always, the tuple
# because it holds a dtype), and a recorded forward pass of a small model keeps thousands of nodes alive: every 700
# tracked objects that survive trigger a gen-0 collection that walks them all. Only plain cpu tensors are interned
# (sizes are Python ints; a meta/fake tensor's may be symbolic, and hashing or comparing those could guard), and
# the table is emptied when it grows past META_CACHE_MAX (shapes that vary per step must not grow it for ever).
# input_meta is read by position and len() only (engine, _validate_outputs); builders that append (set_history,
# custom Functions, rebase_history) start their own list.
META_CACHE = {}         # dtype -> {size: ((size, dtype, cpu),)}: two dict subscripts, no key tuple built
META_CACHE_MAX = 4096


def cpu_meta(size, dtype):
    """The shared `((size, dtype, cpu),)` input_meta of a node with one plain cpu output (the generated kernels
    read `META_CACHE[dtype][size]` inline and call this on a miss)."""
    d = META_CACHE.get(dtype)
    if d is None:
        d = META_CACHE[dtype] = {}
    m = d.get(size)
    if m is None:
        if len(d) >= META_CACHE_MAX:
            d.clear()
        m = d[size] = ((size, dtype, _CPU),)
    return m


def record_anomaly(node):
    """Node.__init__'s anomaly-mode trace, for a node the generated kernels build inline (called at the
    same stack depth as from __init__, so the recorded trace ends at the forward op's caller)."""
    if _anomaly._state.enabled:
        _anomaly.record(node)


class RemovableHandle:
    _ids = itertools.count()

    def __init__(self, container):
        self._container = container
        self.id = next(RemovableHandle._ids)

    def remove(self):
        c = self._container
        if c is not None:
            c.pop(self.id, None)
        self._container = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


_UNPACK = []      # [unpack_slot, unpack_output] of autograd/_saved.py (set there: it imports this module)


def saved_attr(n, kind):
    """torch's `_saved_<n>` attribute of a generated node (the generator puts one per saved value in the node's
    class, derivatives-yaml names: `_saved_self`, `_saved_other`, `_saved_dim`, `_saved_self_sym_sizes`,
    `_saved_result`...): a saved tensor reads back unpacked (torch's error when the graph was freed or the tensor
    modified in place), sizes and int lists as tuples, None where nothing was saved (an operand no gradient
    needed). `kind`: "tensor" (an input), "output", "list" (an int[] argument), "value". (Class properties, not a
    Node.__getattr__: that would put a Python call on every failed attribute lookup of a node, as
    release_variables' getattr(node, "s_self", None) of an unsaved operand.)"""
    def get(node):
        return _read_saved(node, n, kind)
    get.__name__ = "_saved_" + n
    return property(get)


def _read_saved(node, n, kind):
    """The value of a generated node's `_saved_<n>` (Node.__getattr__)."""
    if "s_" + n not in node.__dict__:
        return None
    if kind == "tensor":
        return _UNPACK[0](node, n)
    if kind == "output":
        return _UNPACK[1](node, n)
    v = node.__dict__["s_" + n]
    if isinstance(v, (list, tuple)):       # int[] / SymInt[] (sizes, dims), Tensor[]: torch's tuples
        return tuple(v)
    if kind == "list" and v is not None:   # an int[1] argument given one int (sum(1)): torch's (1,)
        return (v,)
    return v


class Node:
    """Base of every backward function. Subclasses implement `apply(grads) -> tuple of grads`."""

    _op_name = None        # "aten::mul.Tensor" for generated nodes
    _released = False
    _multi_view = False    # outputs are views from unbind/split/chunk: no in-place on them
    _complex = None        # generated nodes: "conj" (engine conjugates complex grads around apply) or "raise"
    _is_accumulate = False
    _materialize = True    # undefined incoming grads become zeros before apply (custom Functions may opt out)
    _grads_read = None     # ... only the first n of them (generated nodes whose formulas read `grad` alone: 1)

    # per-node state, None until first set on the instance (class defaults keep Node creation cheap)
    next_edges = ()
    _pre_hooks = None          # register_prehook: fn(grad_outputs)
    _post_hooks = None         # register_hook: fn(grad_inputs, grad_outputs)
    _tensor_pre_hooks = None   # output_nr -> {id: fn(grad)}
    _retains_grad = None       # output_nr -> weakref'd tensor
    _metadata = None
    _anomaly_trace = None
    _hooked = False            # set once any of the four above is: the engine reads this one flag per node

    def __init__(self):
        self._sequence_nr = next(_seq)
        self.input_meta = []
        if _ANOMALY[0] and _anomaly._state.enabled:
            _anomaly.record(self)

    # -------------------------------------------------------- public API
    def name(self):
        return type(self).__name__

    @property
    def next_functions(self):
        return tuple(e if e is not None else (None, 0) for e in edge_pairs(self))

    @property
    def metadata(self):
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn):
        if self._post_hooks is None:
            self._post_hooks = {}
            self._hooked = True
        h = RemovableHandle(self._post_hooks)
        self._post_hooks[h.id] = fn
        return h

    def register_prehook(self, fn):
        if self._pre_hooks is None:
            self._pre_hooks = {}
            self._hooked = True
        h = RemovableHandle(self._pre_hooks)
        self._pre_hooks[h.id] = fn
        return h

    def _register_tensor_pre_hook(self, output_nr, fn):
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
            self._hooked = True
        d = self._tensor_pre_hooks.setdefault(output_nr, {})
        h = RemovableHandle(d)
        d[h.id] = fn
        return h

    def __call__(self, *grads):
        return self.apply(grads)

    def apply(self, grads):
        raise NotImplementedError

    def release_variables(self):
        self._released = True

    def _raise_released(self):
        raise RuntimeError(ERR_SECOND_BACKWARD)

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"     # the Python class, as torch's repr

    # -------------------------------------------------------- wiring helpers
    def _add_input_meta(self, t):
        self.input_meta.append((t._size, t.dtype, t.device))
        return len(self.input_meta) - 1


ERR_SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
    "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time "
    "or if you need to access saved tensors after calling backward.")


class AccumulateGrad(Node):
    """Sink for a leaf: adds the incoming gradient into `variable.grad`."""
    _is_accumulate = True
    _sequence_nr = _INF      # torch: UINT64_MAX (no number taken), runs as soon as it is ready

    def __init__(self, variable):
        self.variable = variable
        self.input_meta = [(variable._size, variable.dtype, _META if variable._ks & META_BIT else _CPU)]
        if _ANOMALY[0] and _anomaly._state.enabled:
            _anomaly.record(self)

    def name(self):
        return "torch::autograd::AccumulateGrad"     # the C++ class, as torch's name() (type name: AccumulateGrad)

    def apply(self, grads):
        # torch's AccumulateGrad::apply: a variable that has since taken a history (an in-place op recorded on it
        # after it stopped requiring grad) is an error, one that no longer requires grad gets nothing. Checked here,
        # when the gradient arrives, as torch does: the edge itself may be made only then (graph.leaf_edges)
        var = self.variable
        if var.grad_fn is not None:
            raise RuntimeError("leaf variable has been moved into the graph interior")
        if var._requires_grad:
            accumulate_grad(var, grads[0])
        return ()


_refcount = sys.getrefcount
_STEAL_REFS = 3     # references to a grad nobody else holds, inside accumulate_grad (see there)


def accumulate_grad(var, g):
    """AccumulateGrad::accumulateGrad: new grad into var.grad (in place unless create_graph)."""
    old = var._grad
    if old is None:
        if g._ks & MATH_BITS:
            # a conj / neg view (ConjBackward0's grad.conj()) is resolved: torch may keep the bit on .grad, but
            # optimizers and user code read .grad's stored values (torch's own Adam refuses a conj .grad)
            g = g.resolve_conj().resolve_neg()
        if not state.grad_enabled:
            # steal the incoming gradient when it obeys the layout contract (torch's AccumulateGrad):
            # same strides as the variable, e.g. the transposed view TBackward hands to `weight`; and,
            # as torch checks its use count, only when nothing else holds it: the same grad object
            # sent to two leaves (a + b) or kept by a hook must not become a .grad that the next
            # backward adds into in place. Held here by the engine's buffer, `g` and getrefcount's
            # argument; a tensor whose storage was ever viewed (detach, retain_grad) may be shared.
            if g._base is not None:
                # a view (TBackward's transpose of a fresh product) whose base only it holds: keep its
                # elements as a tensor of their own, not a view (torch's weight.grad is no view)
                if (g._np is None or g.stride() != var.stride() or _refcount(g) > _STEAL_REFS
                        or _refcount(g._base) > 2 or g._base._base is not None):
                    g = _clone_detached(g)
                else:
                    g = Tensor._wrap_np(g._np, g.dtype)
            elif g._storage is not None or g._requires_grad or _refcount(g) > _STEAL_REFS:
                g = _clone_detached(g)
        var._grad = g
    elif not state.grad_enabled and old.grad_fn is None and old._np is not None and not (old._ks | g._ks) & MATH_BITS:
        np.add(old._np, g._np, out=old._np, casting="unsafe")
        old._version_counter.bump()
    else:
        var._grad = old + g
    hooks = var._post_acc_hooks
    if hooks:
        for h in list(hooks.values()):
            h(var)


def grad_accumulator(t):
    """The (cached, weakly held by the tensor) AccumulateGrad of a leaf that requires grad."""
    ref = getattr(t, "_grad_acc_ref", None)
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._grad_acc_ref = weakref.ref(acc)
    return acc


def leaf_edges(node):
    """`node.next_edges` with every leaf entry replaced by the leaf's AccumulateGrad (an entry standing for
    `(AccumulateGrad, 0)`), stored back on the node; what every reader of next_edges other than a node's own
    apply goes through (the engine's first pass; edge_pairs for next_functions and DDP).

    A generated kernel records a leaf input that needs grad as the tensor itself in `next_edges` (where
    torch's codegen calls gradient_edge and so makes the leaf's AccumulateGrad, held by the node and weakly
    by the leaf): the AccumulateGrad is made here when the edge is first read. A forward whose graph is never
    differentiated (inference with parameters needing grad, a loss only printed) makes none: about 2.6k of the
    ~11k instructions of recording `a + b` with one leaf input, and a GC-tracked object and a weakref per leaf
    input per op fewer. The edge is the same object torch's would be while any node holds the leaf's
    AccumulateGrad (grad_accumulator's weak cache). One difference from torch's edge made at the forward op: its
    input metadata is the leaf's shape when the edge is first read (differs only if `x.data = <other shape>`
    between forward and backward). A tensor that stopped being a leaf between forward and backward is handled
    as in torch by AccumulateGrad.apply, which checks the variable when the gradient arrives (no longer
    requiring grad: nothing accumulated; a history now: torch's error). In anomaly mode the kernels resolve at
    once (the AccumulateGrad's trace is the forward's). An apply reads its own next_edges only for
    `is not None`, which every kind of entry answers."""
    edges = node.next_edges
    for e in edges:
        if e is not None and e.__class__ is not tuple and isinstance(e, Tensor):
            break
    else:
        return edges
    out = []
    for e in edges:
        if e is not None and e.__class__ is not tuple and isinstance(e, Tensor):
            ref = _getattr(e, "_grad_acc_ref", None)      # grad_accumulator(e), inlined
            acc = ref() if ref is not None else None
            if acc is None:
                acc = _new_accumulator(e)
            e = acc
        out.append(e)
    edges = node.next_edges = tuple(out)
    return edges


def edge_pairs(node):
    """node's edges as torch's `(node, input_nr)` pairs or None (next_functions, DDP's graph walk), leaf
    entries resolved first (leaf_edges); the pairs of node entries are made here, not kept."""
    return tuple(e if e is None or e.__class__ is tuple else (e, 0) for e in leaf_edges(node))


def _new_accumulator(t):
    """AccumulateGrad(t) without its __init__ frame (anomaly mode records it at __init__'s stack depth), held
    weakly by the leaf."""
    acc = new_node(AccumulateGrad)
    acc.variable = t
    if t._ks & _PLAIN_MASK == _PLAIN_CPU:
        try:
            acc.input_meta = META_CACHE[t.dtype][t._size]
        except KeyError:
            acc.input_meta = cpu_meta(t._size, t.dtype)
    else:
        acc.input_meta = [(t._size, t.dtype, _META if t._ks & META_BIT else _CPU)]
    if _ANOMALY[0] and _anomaly._state.enabled:
        _anomaly.record(acc)        # at __init__'s depth: this function stands where __init__ would
    t._grad_acc_ref = _weakref(acc)
    return acc


def gradient_edge(t):
    """Where the gradient of t goes: (its grad_fn, output_nr), its leaf's AccumulateGrad, or None.
    A view whose base was written in place since its grad_fn was set gets a new one first."""
    if t._base is not None:
        refresh_view(t)
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        ref = _getattr(t, "_grad_acc_ref", None)      # grad_accumulator(t), inlined
        acc = ref() if ref is not None else None
        if acc is None:
            if t._no_grad_view is True:
                return None             # a view made in no_grad mode: requires grad, accumulates none (torch)
            acc = _new_accumulator(t)
        return (acc, 0)
    return None


def gradient_entry(t):
    """gradient_edge as a `next_edges` entry (see the module docstring): the node alone for its output 0 or a
    leaf's AccumulateGrad, `(fn, output_nr)` otherwise, or None; no tuple for the common edge."""
    base = t._base
    if (base is not None and base.grad_fn is not None and (vc := t._vc) is not None
            and _getattr(t, "_gfv", None) != vc.value):
        refresh_view(t)         # (its early returns inline: a call less per view input)
    fn = t.grad_fn
    if fn is not None:
        nr = t._output_nr
        return fn if nr == 0 else (fn, nr)
    if t._requires_grad:
        ref = _getattr(t, "_grad_acc_ref", None)      # grad_accumulator(t), inlined
        acc = ref() if ref is not None else None
        if acc is None:
            if t._no_grad_view is True:
                return None             # a view made in no_grad mode: requires grad, accumulates none (torch)
            acc = _new_accumulator(t)
        return acc
    return None


def leaf_edge(t):
    """gradient_entry's leaf half, for the generated kernels, which have read `_base` (None) and `grad_fn` (None)
    already: each is a class attribute read through the instance on a leaf, CPython 3.11's slow generic lookup.
    (A copy of that half rather than a call from gradient_entry: both reach _new_accumulator at one depth.)"""
    if t._requires_grad:
        ref = _getattr(t, "_grad_acc_ref", None)      # grad_accumulator(t), inlined
        acc = ref() if ref is not None else None
        if acc is None:
            if t._no_grad_view is True:
                return None             # a view made in no_grad mode: requires grad, accumulates none (torch)
            acc = _new_accumulator(t)
        return acc
    return None


# ------------------------------------------------------------ a view's history after its base was written
# (the in-place side, CopySlices, is in _views.py)
def _storage_positions(size, stride, offset):
    if any(s == 0 for s in size):
        return np.zeros(tuple(size), np.int64)
    ext = offset + 1 + sum((s - 1) * st for s, st in zip(size, stride))
    idx = np.arange(ext, dtype=np.int64)
    return np.lib.stride_tricks.as_strided(idx[offset:], shape=tuple(size),
                                           strides=tuple(s * idx.itemsize for s in stride))


def view_positions(view, base):
    """Flat (C-order) indices into `base` of each element of `view` (same storage)."""
    bpos = _storage_positions(base._size, base.stride(), base._offset)
    vpos = _storage_positions(view._size, view.stride(), view._offset)
    n = int(max(bpos.max(initial=0), vpos.max(initial=0))) + 1
    inv = np.full(n, -1, np.int64)
    inv[bpos.reshape(-1)] = np.arange(bpos.size, dtype=np.int64)
    out = inv[vpos]
    if out.size and out.min() < 0:
        raise RuntimeError("view_positions: the view reaches outside its base")
    return out


def _idx_tensor(pos):
    return Tensor._wrap_np(np.ascontiguousarray(pos), _dt.int64)


class AsStridedBackward0(Node):
    """grad_fn of a view whose base was modified in place: scatter the view's grad into the base."""
    _op_name = "aten::as_strided"

    def __init__(self, base, pos):
        super().__init__()
        self.base_size = base._size
        self.base_numel = base.numel()
        self.pos = pos

    def apply(self, grads):
        g = grads[0]
        z = ops.aten.zeros.default([self.base_numel], dtype=g.dtype)
        out = ops.aten.index_put.default(z, [_idx_tensor(self.pos)], g, True)
        return (out.reshape(self.base_size),)


def _set_view_fn(view, base, pos=None):
    if pos is None:
        pos = view_positions(view, base)
    node = AsStridedBackward0(base, pos)
    node.next_edges = (gradient_entry(base),)
    node.input_meta = [(view._size, view.dtype, view.device)]
    view.grad_fn = node
    view._output_nr = 0
    view._requires_grad = True
    view._ks |= AUTOGRAD_BIT
    view._gfv = view._version_counter.value


def refresh_view(t):
    """Lazily regenerate the grad_fn of a view whose base was written since (torch's
    VariableHooks::grad_fn for views)."""
    base = t._base
    # (getattr and the class default, not `t.__dict__`: reading __dict__ builds a dict for the view, about 1k
    # instructions and one more GC-tracked object per view input; _gfv is in the tensor's shared keys)
    vc = t._vc
    if base.grad_fn is None or vc is None or _getattr(t, "_gfv", None) == vc.value:
        return
    if t._no_grad_view:
        return
    if not (t.dtype.is_floating_point or t.dtype.is_complex):
        return
    _set_view_fn(t, base)


def get_gradient_edge(t):
    e = gradient_edge(t)
    return GradientEdge(e[0], e[1]) if e else GradientEdge(None, 0)


class GradientEdge(tuple):
    def __new__(cls, node, output_nr):
        return tuple.__new__(cls, (node, output_nr))

    node = property(lambda self: self[0])
    output_nr = property(lambda self: self[1])


# ------------------------------------------------------------ saved tensor hooks
class _HookState(threading.local):
    def __init__(self):
        self.stack = []
        self.disabled = None


hook_state = _HookState()
# threads inside a saved_tensors_hooks block: the generated kernels keep a saved tensor in the node itself
# (SavedVariable's common case, see _saved.py) only while this is 0, and read the thread-local stack otherwise
HOOKS_ANYWHERE = [0]


class saved_tensors_hooks:
    """Context manager: pack_hook(tensor) -> obj when saving, unpack_hook(obj) -> tensor when used."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if hook_state.disabled is not None:
            raise RuntimeError(hook_state.disabled)
        hook_state.stack.append((self.pack_hook, self.unpack_hook))
        HOOKS_ANYWHERE[0] += 1
        return self

    def __exit__(self, *exc):
        hook_state.stack.pop()
        HOOKS_ANYWHERE[0] -= 1
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are copied (ember has only a cpu device, so this is a plain copy)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            return (t.device, _clone_detached(t))

        def unpack(p):
            return p[1]
        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    def __init__(self, error_message):
        self.msg = error_message

    def __enter__(self):
        self.prev = hook_state.disabled
        hook_state.disabled = self.msg

    def __exit__(self, *exc):
        hook_state.disabled = self.prev
        return False


def _clone_detached(t):
    if t._np is None:
        return t.detach()
    # a clone reads the logical values: a conjugated grad comes out resolved (torch's clone)
    return Tensor._wrap_np(t._np.copy() if not t._ks & MATH_BITS else t._logical_np(), t.dtype)


def increment_version(t):
    t._version_counter.bump()


__all__ = ["Node", "GradientEdge", "get_gradient_edge", "saved_tensors_hooks", "save_on_cpu",
           "disable_saved_tensors_hooks", "increment_version", "RemovableHandle"]
