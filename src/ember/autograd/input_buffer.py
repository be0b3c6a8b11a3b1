"""Summing the gradients a node receives on one input (torch/csrc/autograd/input_buffer.cpp, `accumulate`).

When several edges lead to the same input of a node, the engine adds their gradients up before the node runs.
torch adds the new gradient into the buffered one in place when nothing else can see the buffered tensor (the
buffer holds the last reference to it and to its storage, it is a plain dense tensor and grad mode is off),
and otherwise makes a new tensor. The in-place case is the common one in a loop-built graph (a CRF's forward
algorithm feeds one tensor's selects hundreds of times): one numpy add into the buffer instead of a dispatched
op and a new tensor each time.
"""
import sys

import numpy as np

from .._core.dispatch_keys import CPU_BIT, INPLACE_OR_VIEW_BIT
from .._core.tls import KEYS_ACTIVE, state
from .forward_ad import _level as _FW_LEVEL     # tangents exist only inside a dual level: outside one, no
                                                # tensor's __dict__ is read (see _shape_dtype._fw_linear)

_PLAIN_CPU = CPU_BIT | INPLACE_OR_VIEW_BIT
_getrefcount = sys.getrefcount
_add = np.add
# references to the buffered tensor while `accumulate(old, g)` runs, when only the buffer holds it: the buffer's
# list, the engine's local `old`, this function's argument and getrefcount's own; to its array: the tensor's
# __dict__, the local `a` and getrefcount's
_OWNED_REFS = 4
_OWNED_ARRAY_REFS = 3


def accumulate(old, g):
    """old + g, written into `old` when only the engine's buffer holds `old` (torch's can_accumulate_inplace)."""
    a = getattr(old, "_np", None)
    # (an active dispatch mode sets the thread's Python key, so KEYS_ACTIVE[0] == 0 says no mode stack: no
    # second thread-local read; numpy builds a `flags` object on each read: read once, last)
    if (not KEYS_ACTIVE[0] and not state.grad_enabled and a is not None
            and old._ks == _PLAIN_CPU and g._ks == _PLAIN_CPU and old.__class__ is g.__class__
            and old.dtype is g.dtype and old._size == g._size
            and old._base is None and old._storage is None and old._vc is None
            and a.base is None
            and (_FW_LEVEL[0] is None or "_fw_tangent" not in old.__dict__ and "_fw_tangent" not in g.__dict__)
            and _getrefcount(old) == _OWNED_REFS and _getrefcount(a) == _OWNED_ARRAY_REFS
            and (f := a.flags).c_contiguous and f.writeable):      # (after the count: `f` refers to `a`)
        b = g._np
        if b is not None:
            _add(a, b, out=a)
            return old
    return old + g
