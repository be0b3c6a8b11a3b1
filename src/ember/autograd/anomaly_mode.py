"""Anomaly detection (torch/autograd/anomaly_mode.py): nodes remember the forward stack that made
them; backward checks each node's outputs for nan and names the failing forward op."""
import threading
import traceback
import warnings


ENABLED_ANYWHERE = [0]     # threads with anomaly mode on: Node creation reads the thread-local flag only then
_count_lock = threading.Lock()


class _State(threading.local):
    def __init__(self):
        self._enabled = False
        self.check_nan = True

    @property
    def enabled(self):
        return self._enabled

    @enabled.setter
    def enabled(self, on):
        on = bool(on)
        if on is not self._enabled:
            with _count_lock:
                ENABLED_ANYWHERE[0] += 1 if on else -1
            self._enabled = on


_state = _State()


def is_anomaly_enabled():
    return _state.enabled


def is_anomaly_check_nan_enabled():
    return _state.check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    """torch.set_anomaly_enabled: switch anomaly mode for this thread (what set_detect_anomaly does on entry)."""
    for name, pos, v in (("enabled", 1, enabled), ("check_nan", 2, check_nan)):
        if not isinstance(v, bool):
            raise TypeError(f"set_anomaly_enabled(): argument '{name}' (position {pos}) must be bool, not "
                            f"{type(v).__name__}")
    _state.enabled, _state.check_nan = enabled, check_nan


class detect_anomaly:
    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self.prev = (_state.enabled, _state.check_nan)
        _state.enabled, _state.check_nan = True, self.check_nan
        return self

    def __exit__(self, *exc):
        _state.enabled, _state.check_nan = self.prev
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def w(*a, **k):
            with detect_anomaly(self.check_nan):
                return fn(*a, **k)
        return w


class set_detect_anomaly:
    def __init__(self, mode, check_nan=True):
        self.prev = (_state.enabled, _state.check_nan)
        _state.enabled, _state.check_nan = bool(mode), check_nan

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _state.enabled, _state.check_nan = self.prev
        return False


def record(node):
    node._anomaly_trace = "".join(traceback.format_stack()[:-3])


def run_checked(fn, buf):
    import numpy as np
    from .._core.tensor_impl import TensorImpl as Tensor
    try:
        outs = fn.apply(buf)
    except Exception:
        _warn_trace(fn)
        raise
    outs_t = outs if isinstance(outs, (tuple, list)) else (outs,)
    if _state.check_nan:
        for i, g in enumerate(outs_t):
            if isinstance(g, Tensor) and g._np is not None and (g.dtype.is_floating_point or g.dtype.is_complex) \
                    and np.isnan(g._np).any():
                _warn_trace(fn)
                raise RuntimeError(f"Function '{fn.name()}' returned nan values in its {i}th output.")
    return outs


def _warn_trace(fn):
    tr = fn._anomaly_trace
    if tr:
        warnings.warn(f"Error detected in {fn.name()}. Traceback of forward call that caused the error:\n{tr}",
                      stacklevel=2)
