"""Thread-local dispatch state: included/excluded dispatch keys and grad mode (c10/core/impl/LocalDispatchKeySet)."""
import threading


class _State(threading.local):
    def __init__(self):
        self.include = 0        # DispatchKeySet bits forced on
        self.exclude = 0        # DispatchKeySet bits forced off
        self.grad_enabled = True
        self.inference_mode = False
        self.mode_stack = []    # active TorchDispatchMode objects, innermost last


state = _State()
