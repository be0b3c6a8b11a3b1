"""The backward engine (torch/csrc/autograd/engine.cpp), single-threaded.

A GraphTask counts, for each Node reachable from the roots, how many edges point at it; a Node is
ready when all its producers have run. Ready Nodes run in torch's CPU order: highest sequence number
first (the most recently created op), AccumulateGrad as soon as it is ready.
"""
import heapq

import numpy as np

from .._core.tls import state
from .._grad_mode import _set_enabled
from .._core.tensor_impl import TENSOR_TYPES as _TENSOR_TYPES, TensorImpl as Tensor
from . import anomaly_mode
from ._shape_dtype import _PLAIN_CPU, _sum_to_plain, sum_to, to_dtype
from .graph import AccumulateGrad, _clone_detached, leaf_edges as _leaf_edges
from .input_buffer import accumulate as _accumulate
from .forward_ad import _level as _FW_LEVEL
from .._core.strides import same_shape

class _TaskState:
    stack = []      # running GraphTasks (reentrant backward nests)


def _zeros(meta):
    shape, dtype, dev = meta
    if state.mode_stack:                 # a tracing mode (make_fx, fake tensors) must see the op
        from .._ops import ops
        return ops.aten.zeros.default(list(shape), dtype=dtype)
    if getattr(dev, "type", "cpu") == "meta":
        from ..kernels.common import empty_tensor
        return empty_tensor(tuple(shape), dtype, dev)
    return Tensor._wrap_np(np.zeros(shape, dtype._np), dtype)


def _has_complex(buf):
    for g in buf:
        if g is not None and g.dtype.is_complex:
            return True
    return False


def _apply_complex(fn, buf, anomaly):
    """fn.apply for complex grads. Generated formulas are written for real numbers (grad * f'(z));
    torch's convention for complex is grad * conj(f'(z)), which is conj(conj(grad) * f'(z)): so the
    grads go in conjugated and the results come out conjugated (linear ops with real coefficients
    are unchanged by this). Nodes marked `complex: not_implemented` raise instead."""
    if fn._complex == "raise":
        raise NotImplementedError(f"ember: the backward of {fn._op_name or fn.name()} for complex tensors is not "
                                  f"implemented")
    buf = [g if g is None or not g.dtype.is_complex else g.conj_physical() for g in buf]
    outs = anomaly_mode.run_checked(fn, buf) if anomaly else fn.apply(buf)
    if outs.__class__ is not tuple and outs.__class__ is not list:
        outs = (outs,)
    return [o.conj_physical() if o is not None and o.dtype.is_complex else o for o in outs]


def _validate_outputs(fn, edges, grads):
    if len(grads) != len(edges):
        raise RuntimeError(f"function {fn.name()} returned an incorrect number of gradients "
                           f"(expected {len(edges)}, got {len(grads)})")
    out = None
    for i, e in enumerate(edges):
        g = grads[i]
        if e is None or g is None:
            continue
        if g.__class__ is not Tensor and not isinstance(g, Tensor):
            raise TypeError(f"function {fn.name()} returned a gradient of type {type(g).__name__} at index {i}")
        shape, dtype, _ = e[0].input_meta[e[1]] if e.__class__ is tuple else e.input_meta[0]
        if same_shape(g._size, shape) and g.dtype is dtype:
            continue
        if not same_shape(g._size, shape):
            if not _expandable(shape, g._size):
                raise RuntimeError(f"Function {fn.name()} returned an invalid gradient at index {i} - got "
                                   f"{list(g._size)} but expected shape compatible with {list(shape)}")
            g = sum_to(g, shape)
        if g.dtype is not dtype:
            if g.dtype.is_complex and not dtype.is_complex:
                g = g.real          # a real input's grad is the real part (torch's handle_r_to_c)
            g = to_dtype(g, dtype)
        if out is None:
            out = list(grads)
        out[i] = g
    return grads if out is None else out


def _expandable(shape, gshape):
    """True if `shape` can be broadcast to `gshape` (so gshape reduces back to shape)."""
    if len(shape) > len(gshape):
        return False
    for s, g in zip(reversed(shape), reversed(gshape)):
        if s != g and s != 1:
            return False
    return True


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _call_tensor_hooks(fn, buf):
    th = fn._tensor_pre_hooks
    if th:
        for nr, hooks in th.items():
            for h in list(hooks.values()):
                g = buf[nr]
                r = h(g)
                if r is not None:
                    _check_hook_result(h, g, r)
                    buf[nr] = r
    rg = fn._retains_grad
    if rg:
        for nr, ref in rg.items():
            t = ref()
            g = buf[nr]
            if t is None or g is None:
                continue
            if t._grad is None:
                t._grad = g.detach() if not state.grad_enabled else g
                if t._grad is g:
                    t._grad = _clone_detached(g)
            else:
                t._grad = t._grad + g
    ph = fn._pre_hooks
    if ph:
        for h in list(ph.values()):
            r = h(tuple(buf))
            if r is not None:
                buf[:] = list(r)


def _check_hook_result(h, g, r):
    name = getattr(h, "__name__", type(h).__name__)
    if not isinstance(r, Tensor):
        raise TypeError(f"expected Tensor, but hook '{name}' returned {type(r).__name__}")
    if g is not None:
        if not same_shape(r._size, g._size):
            raise RuntimeError(f"hook '{name}' has changed the size of value")
        if r.dtype is not g.dtype:
            raise RuntimeError(f"hook '{name}' has changed the type of value (was {g.dtype} got {r.dtype})")


def run_backward(roots, grad_roots, keep_graph, create_graph, inputs=None, allow_unused=False,
                 accumulate_grad=True):
    """roots: list of edges (node, input_nr); grad_roots: matching grads. Returns captured grads for
    `inputs` (a list of edges) when given."""
    # ---- dependencies (reachable graph): deps[m] = how many edges point at m. A node is pushed the first
    # time an edge reaches it (the roots up front), so each is walked once without a separate `seen` set.
    deps = {}
    root_nodes = [e[0] for e in roots]
    rootset = set(root_nodes)
    stack = list(rootset)
    while stack:
        node = stack.pop()
        for e in node.next_edges:
            if e is not None:
                # an entry is (fn, input_nr), a node standing for (node, 0), or a leaf recorded as itself, whose
                # AccumulateGrad graph.leaf_edges makes now and puts in its place (see graph.py: entries). The
                # tensor test is TENSOR_TYPES' set lookup (every TensorImpl class is in it), not isinstance: no
                # call per entry, and a node, the common entry, fails it at once
                c = e.__class__
                if c is tuple:
                    m = e[0]
                elif c in _TENSOR_TYPES:
                    _leaf_edges(node)
                    m = e._grad_acc_ref()      # the AccumulateGrad the node holds from now on
                else:
                    m = e
                if m in deps:
                    deps[m] += 1
                else:
                    deps[m] = 1
                    if m not in rootset:
                        stack.append(m)
    # ---- which nodes need to run, and what to capture
    needed = None
    captures = None
    if inputs is not None:
        targets = {}
        for i, e in enumerate(inputs):
            targets.setdefault(e[0], []).append((e[1], i))
        order = list(rootset)
        order += [n for n in deps if n not in rootset]
        needed = _compute_needed(order, targets, accumulate_grad)
        captures = targets
    # ---- buffers
    buffers = {}
    heap = []
    for (node, nr), g in zip(roots, grad_roots):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * max(len(node.input_meta), nr + 1)
        buf[nr] = _add(buf[nr], g)
    queued = set()
    for node in root_nodes:
        if deps.get(node, 0) == 0 and node not in queued:
            queued.add(node)
            heapq.heappush(heap, (-node._sequence_nr, id(node), node))
    captured = [None] * len(inputs) if inputs is not None else None
    prev = state.grad_enabled
    _set_enabled(create_graph)
    anomaly = anomaly_mode._state.enabled
    heappop, heappush, heappushpop = heapq.heappop, heapq.heappush, heapq.heappushpop
    try:
        # the next node to run: popped from the heap, or handed on directly when it is the only ready one (a
        # chain), which is what the heap would give
        fn = heappop(heap)[2] if heap else None
        while fn is not None:
            buf = buffers.pop(fn)
            # (a class attribute read through an instance is CPython 3.11's slow generic lookup: one flag for
            # the four hook tables, which stay class-level None on most nodes)
            hooked = fn._hooked
            if hooked:
                _call_tensor_hooks(fn, buf)
            if captures is not None:
                if fn in captures:
                    for nr, i in captures[fn]:
                        captured[i] = buf[nr]
                if not needed.get(fn, False):
                    fn = heappop(heap)[2] if heap else None
                    continue
            edges = fn.next_edges
            if fn.__class__ is AccumulateGrad:      # (fn._is_accumulate, without a class attribute read)
                if buf[0] is not None:
                    fn.apply(buf)
                fn = heappop(heap)[2] if heap else None
                continue
            if len(buf) == 1:
                g = buf[0]
                n_none = 1 if g is None else 0
                cplx = g is not None and g.dtype.is_complex
            else:
                n_none = sum(1 for g in buf if g is None)
                cplx = _has_complex(buf)
            if n_none == len(buf):
                outs = (None,) * len(edges)
            else:
                # a released node runs again as in torch: only unpacking a freed saved tensor raises
                # (SavedVariable.unpack), so a node that saved nothing (y = x + 1) can be reused
                if n_none and fn._materialize:
                    # zeros for the missing grads the node's formulas read: the first `_grads_read` (generated
                    # nodes whose formulas read only `grad`, e.g. layer_norm's: its mean/rstd outputs' grads are
                    # left None, as torch leaves them undefined), or all of them
                    meta = fn.input_meta
                    n = fn._grads_read
                    for j in range(len(meta) if n is None or n > len(meta) else n):
                        if buf[j] is None and meta[j] is not None:
                            buf[j] = _zeros(meta[j])
                    cplx = _has_complex(buf)
                if cplx and fn._complex is not None:
                    outs = _apply_complex(fn, buf, anomaly)
                else:
                    outs = anomaly_mode.run_checked(fn, buf) if anomaly else fn.apply(buf)
                if outs.__class__ is not tuple and outs.__class__ is not list:
                    outs = (outs,)
                # _validate_outputs' common case inline: one grad per edge, each of its input's shape and dtype
                valid = len(outs) == len(edges)
                if valid:
                    try:
                        j = -1
                        copied = False
                        for e, g in zip(edges, outs):
                            j += 1
                            if e is not None and g is not None:
                                m = e[0].input_meta[e[1]] if e.__class__ is tuple else e.input_meta[0]
                                s = g._size
                                ms = m[0]
                                if g.dtype is not m[1] or g.__class__ not in _TENSOR_TYPES:
                                    valid = False
                                    break
                                # a cpu tensor's sizes are ints: compared directly; others may hold SymInts,
                                # compared by hash first (no guard on a symbolic size)
                                if s is not ms and (s != ms if g._np is not None else hash(s) != hash(ms) or s != ms):
                                    # a broadcast input's grad summed down to its shape (torch's sum_to in
                                    # validate_outputs), here when that is one numpy reduction
                                    r = _sum_to_plain(g, ms) if (
                                        g._ks == _PLAIN_CPU and not create_graph and not state.mode_stack
                                        and (_FW_LEVEL[0] is None or "_fw_tangent" not in g.__dict__)
                                    ) else None
                                    if r is None:
                                        valid = False
                                        break
                                    if not copied:
                                        outs = list(outs)       # (a list the node may hold stays as it is)
                                        copied = True
                                    outs[j] = r
                    except (TypeError, AttributeError):    # symbolic sizes, a non-tensor grad: the full check
                        valid = False
                if not valid:
                    outs = _validate_outputs(fn, edges, outs)
                if hooked and fn._post_hooks:
                    for h in list(fn._post_hooks.values()):
                        r = h(tuple(outs), tuple(buf))
                        if r is not None:
                            outs = list(r)
                if not keep_graph:
                    fn.release_variables()
            buf = None
            ready = None
            for e, g in zip(edges, outs):
                if e is None:
                    continue
                if e.__class__ is tuple:
                    nxt, nr = e
                else:
                    nxt = e
                    nr = 0
                if needed is not None and not needed.get(nxt, False) and nxt not in captures:
                    continue
                b = buffers.get(nxt)
                if b is None:
                    n_in = len(nxt.input_meta)
                    if n_in == 1 and nr == 0:
                        buffers[nxt] = [g]
                    else:
                        b = buffers[nxt] = [None] * (n_in if n_in > nr else nr + 1)
                        b[nr] = g
                elif g is not None:
                    old = b[nr]
                    b[nr] = g if old is None else _accumulate(old, g)
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    if ready is None:
                        ready = nxt
                    else:
                        heappush(heap, (-nxt._sequence_nr, id(nxt), nxt))
            outs = g = old = b = None      # no stale references: AccumulateGrad counts who holds a grad
            if ready is None:
                fn = heappop(heap)[2] if heap else None
            elif heap:
                fn = heappushpop(heap, (-ready._sequence_nr, id(ready), ready))[2]
            else:
                fn = ready
            ready = None
    finally:
        _set_enabled(prev)
    return captured


def _compute_needed(order, targets, accumulate_grad):
    """A node is needed (must execute) if a target is reachable through its outputs. Target nodes
    themselves execute only when accumulating into a leaf (AccumulateGrad)."""
    needed = {}
    # order is DFS pre-order from roots; iterate until fixpoint in reverse topological-ish order
    children = {n: [e[0] if e.__class__ is tuple else e for e in n.next_edges if e is not None] for n in order}
    topo = _topo(order, children)
    for n in reversed(topo):
        v = any(needed.get(c, False) or c in targets for c in children[n])
        if n in targets and accumulate_grad and isinstance(n, AccumulateGrad):
            v = True
        needed[n] = v
    return needed


def _topo(order, children):
    indeg = {n: 0 for n in order}
    for n in order:
        for c in children[n]:
            indeg[c] += 1
    out = [n for n in order if indeg[n] == 0]
    i = 0
    while i < len(out):
        for c in children[out[i]]:
            indeg[c] -= 1
            if indeg[c] == 0:
                out.append(c)
        i += 1
    return out
