"""Nodes of the autograd graph (torch/csrc/autograd/function.h + torch/autograd/graph.py).

A Node is the backward of one forward op. `next_edges[i]` is where the gradient for the op's i-th
differentiable input goes: `(node, input_nr)` or None. `input_meta[j]` is (shape, dtype) of the
op's j-th output, used to validate and materialize incoming gradients.
"""
import itertools
import threading
import weakref

from .._core.dispatch_keys import MATH_BITS
from .._core.tensor_impl import TensorImpl as Tensor
from . import anomaly_mode as _anomaly

_seq = itertools.count()


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


class Node:
    """Base of every backward function. Subclasses implement `apply(grads) -> tuple of grads`."""

    _op_name = None        # "aten::mul.Tensor" for generated nodes
    _released = False
    _multi_view = False    # outputs are views from unbind/split/chunk: no in-place on them
    _complex = None        # generated nodes: "conj" (engine conjugates complex grads around apply) or "raise"
    _is_accumulate = False
    _materialize = True    # undefined incoming grads become zeros before apply (custom Functions may opt out)

    # per-node state, None until first set on the instance (class defaults keep Node creation cheap)
    next_edges = ()
    _pre_hooks = None          # register_prehook: fn(grad_outputs)
    _post_hooks = None         # register_hook: fn(grad_inputs, grad_outputs)
    _tensor_pre_hooks = None   # output_nr -> {id: fn(grad)}
    _retains_grad = None       # output_nr -> weakref'd tensor
    _metadata = None
    _anomaly_trace = None

    def __init__(self):
        self._sequence_nr = next(_seq)
        self.input_meta = []
        if _anomaly._state.enabled:
            _anomaly.record(self)

    # -------------------------------------------------------- public API
    def name(self):
        return type(self).__name__

    @property
    def next_functions(self):
        return tuple((e[0], e[1]) if e is not None else (None, 0) for e in self.next_edges)

    @property
    def metadata(self):
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn):
        if self._post_hooks is None:
            self._post_hooks = {}
        h = RemovableHandle(self._post_hooks)
        self._post_hooks[h.id] = fn
        return h

    def register_prehook(self, fn):
        if self._pre_hooks is None:
            self._pre_hooks = {}
        h = RemovableHandle(self._pre_hooks)
        self._pre_hooks[h.id] = fn
        return h

    def _register_tensor_pre_hook(self, output_nr, fn):
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
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
        return f"<{self.name()} object at {hex(id(self))}>"

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

    def __init__(self, variable):
        super().__init__()
        self._sequence_nr = float("inf")   # torch: UINT64_MAX, runs as soon as it is ready
        self.variable = variable
        self.input_meta = [(variable._size, variable.dtype, variable.device)]

    def apply(self, grads):
        if not _accumulate:
            from .engine import accumulate_grad
            _accumulate.append(accumulate_grad)
        _accumulate[0](self.variable, grads[0])
        return ()


_accumulate = []      # engine.accumulate_grad, imported on first use (the engine imports this module)


def grad_accumulator(t):
    """The (cached, weakly held by the tensor) AccumulateGrad of a leaf that requires grad."""
    ref = getattr(t, "_grad_acc_ref", None)
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._grad_acc_ref = weakref.ref(acc)
    return acc


_refresh_view = []     # ._views.refresh_view, imported on first use (_views imports this module)


def gradient_edge(t):
    if t._base is not None:
        if not _refresh_view:
            from ._views import refresh_view
            _refresh_view.append(refresh_view)
        _refresh_view[0](t)
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    if t._requires_grad:
        return (grad_accumulator(t), 0)
    return None


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


class saved_tensors_hooks:
    """Context manager: pack_hook(tensor) -> obj when saving, unpack_hook(obj) -> tensor when used."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if hook_state.disabled is not None:
            raise RuntimeError(hook_state.disabled)
        hook_state.stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        hook_state.stack.pop()
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
