"""Thread-local dispatch state: included/excluded dispatch keys and grad mode (c10/core/impl/LocalDispatchKeySet).

`include` and `exclude` are properties: setting them also keeps `KEYS_ACTIVE[0]`, the number of threads whose
include set is not empty or whose exclude set holds more than the Autograd key (grad mode). While it is 0 the
dispatcher's fast paths skip reading these thread-local sets (a thread-local read costs as much as the rest of
a key-set computation); they then consult `_exclude` only for a tensor that has the Autograd key. The hot paths
read the plain `_include` / `_exclude` slots directly.

`GRAD_OFF` holds the ident of each thread whose exclude set holds the Autograd key or whose grad mode is off
(kept by `_grad_mode._set_enabled` and the `exclude` setter; every grad-mode write goes through
`_set_enabled`). While it is empty grad mode is on in every thread: reads of `grad_enabled` can be skipped. While it is empty and `KEYS_ACTIVE[0]` is 0, every thread's
exclude set is empty: the bindings then skip the thread-local read for a tensor that has the Autograd key too.
A thread that ends with grad mode off leaves its ident behind, which only costs that read.
"""
import threading

from .dispatch_keys import AUTOGRAD_BIT

KEYS_ACTIVE = [0]
GRAD_OFF = set()
_get_ident = threading.get_ident
_count_lock = threading.Lock()


class _State(threading.local):
    def __init__(self):
        self._include = 0       # DispatchKeySet bits forced on
        self._exclude = 0       # DispatchKeySet bits forced off
        self._counted = False   # this thread is counted in KEYS_ACTIVE
        self.grad_enabled = True
        self.inference_mode = False
        self.mode_stack = []    # active TorchDispatchMode objects, innermost last

    @property
    def include(self):
        return self._include

    @include.setter
    def include(self, bits):
        self._include = bits
        self._recount()

    @property
    def exclude(self):
        return self._exclude

    @exclude.setter
    def exclude(self, bits):
        self._exclude = bits
        if bits & AUTOGRAD_BIT or not self.grad_enabled:     # grad mode off always keeps its ident in
            GRAD_OFF.add(_get_ident())
        else:
            GRAD_OFF.discard(_get_ident())
        self._recount()

    def _recount(self):
        active = bool(self._include or self._exclude & ~AUTOGRAD_BIT)
        if active is not self._counted:
            with _count_lock:
                KEYS_ACTIVE[0] += 1 if active else -1
            self._counted = active


state = _State()
