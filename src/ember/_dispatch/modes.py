"""The dispatch-mode stack: TorchDispatchMode sees every op that reaches the Python key
(torch/utils/_python_dispatch.py). Entering a mode turns the Python key on in the thread-local
include set; while a mode's __torch_dispatch__ runs, that mode is popped so its own calls go below it.
An op can carry its own rule for a mode class or tensor subclass (torch.library.register_torch_dispatch,
kept in TORCH_DISPATCH_RULES): it runs instead of that class's __torch_dispatch__ for that op.
"""
import contextlib

from .._core.tls import state
from .._core.dispatch_keys import PYTHON_BIT


# op qualname as the registry spells it ("ns::name" for the default overload, "ns::name.overload") ->
# {mode class or tensor subclass: rule(mode or class, func, types, args, kwargs)}
TORCH_DISPATCH_RULES = {}


def _rule(op, cls):
    if not TORCH_DISPATCH_RULES:
        return None
    entry = getattr(op, "_entry", None)
    if entry is None:
        return None
    rules = TORCH_DISPATCH_RULES.get(entry.qualname)
    return rules.get(cls) if rules else None


def _sync_python_bit():
    if state.mode_stack:
        state.include |= PYTHON_BIT
    else:
        state.include &= ~PYTHON_BIT


def push_mode(mode):
    state.mode_stack.append(mode)
    _sync_python_bit()


def pop_mode():
    if not state.mode_stack:
        raise RuntimeError("pop_mode: no dispatch mode is active")
    m = state.mode_stack.pop()
    _sync_python_bit()
    return m


class TorchDispatchMode:
    """Subclass and define __torch_dispatch__(self, func, types, args=(), kwargs=None)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        push_mode(self)
        return self

    def __exit__(self, *exc):
        if not state.mode_stack or state.mode_stack[-1] is not self:
            raise RuntimeError("dispatch modes must be exited in the reverse order they were entered")
        pop_mode()
        return False

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)


@contextlib.contextmanager
def _pop_mode_temporarily():
    mode = pop_mode()
    try:
        yield mode
    finally:
        push_mode(mode)


def _get_current_dispatch_mode():
    return state.mode_stack[-1] if state.mode_stack else None


def _get_current_dispatch_mode_stack():
    return list(state.mode_stack)


def _dispatch_to_mode(op, args, kwargs):
    """Python-key kernel: hand the call to the innermost mode, with that mode popped."""
    from .._core.tensor_impl import TensorImpl as Tensor
    types = tuple({type(a) for a in _flat(args, kwargs) if isinstance(a, Tensor)})
    if not state.mode_stack:
        # no mode: a tensor subclass carrying the Python key handles the call (fake tensors outside their mode)
        for t in types:
            rule = _rule(op, t)
            if rule is not None:
                return rule(t, op, types, args, kwargs or {})
            handler = getattr(t, "__torch_dispatch__", None)
            if handler is not None:
                return handler(op, types, args, kwargs or {})
        raise RuntimeError(f"{op}: an argument carries the Python dispatch key, but no dispatch mode is active "
                           f"and no tensor subclass defines __torch_dispatch__")
    with _pop_mode_temporarily() as mode:
        rule = _rule(op, type(mode))
        if rule is not None:
            return rule(mode, op, types, args, kwargs or {})
        return mode.__torch_dispatch__(op, types, args, kwargs or {})


def _flat(args, kwargs):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from a
        else:
            yield a
    if kwargs:
        for a in kwargs.values():
            if isinstance(a, (list, tuple)):
                yield from a
            else:
                yield a
