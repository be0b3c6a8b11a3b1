"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode (torch/autograd/grad_mode.py).

Grad mode is thread-local. Disabling it adds the Autograd key to the thread-local exclude set, so
ops dispatch straight past autograd without recording anything.
"""
import functools
from threading import get_ident as _get_ident

from ._core.tls import GRAD_OFF as _GRAD_OFF, state
from ._core.dispatch_keys import AUTOGRAD_BIT
from ._core import tensor_impl as _tensor_impl


def is_grad_enabled():
    return state.grad_enabled


def _set_enabled(mode):
    state.grad_enabled = bool(mode)
    # only the Autograd bit changes, which does not count in tls.KEYS_ACTIVE: the plain slot is enough, with
    # this thread's entry in tls.GRAD_OFF
    ex = state._exclude
    if mode:
        if ex & AUTOGRAD_BIT:
            state._exclude = ex & ~AUTOGRAD_BIT
            _GRAD_OFF.discard(_get_ident())
    elif not ex & AUTOGRAD_BIT:
        state._exclude = ex | AUTOGRAD_BIT
        _GRAD_OFF.add(_get_ident())


class _DecoratorContextManager:
    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    def __enter__(self):
        self.prev = state.grad_enabled
        _set_enabled(False)

    def __exit__(self, *exc):
        _set_enabled(self.prev)
        return False


class enable_grad(_DecoratorContextManager):
    def __enter__(self):
        self.prev = state.grad_enabled
        _set_enabled(True)

    def __exit__(self, *exc):
        _set_enabled(self.prev)
        return False


class set_grad_enabled(_DecoratorContextManager):
    def __init__(self, mode):
        self.prev = state.grad_enabled
        self.mode = bool(mode)
        _set_enabled(self.mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _set_enabled(self.prev)
        return False

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad, and tensors created inside are inference tensors (see autograd issue)."""

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self.prev = (state.grad_enabled, state.inference_mode)
        state.inference_mode = bool(self.mode)
        if self.mode:
            _tensor_impl._INFERENCE[0] += 1
            _set_enabled(False)

    def __exit__(self, *exc):
        if self.mode:
            _tensor_impl._INFERENCE[0] -= 1
        state.inference_mode = self.prev[1]
        _set_enabled(self.prev[0])
        return False

    def clone(self):
        return self.__class__(self.mode)


def is_inference_mode_enabled():
    return state.inference_mode
