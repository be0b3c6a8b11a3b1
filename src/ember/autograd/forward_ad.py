"""Forward-mode AD (torch/autograd/forward_ad.py): dual tensors carry a tangent; each op with a
forward rule (`result:` in native/derivatives.yaml) computes its output tangent from its inputs'.

Rules: `auto_element_wise` (the backward formula applied to the tangent: exact for ops whose
Jacobian is diagonal), `auto_linear` (the op applied to the tangents), `multilinear` (sum over
inputs of the op with one input replaced by its tangent), or an expression over primals and
`<input>_t` tangents. Entries without `result:` get `auto_double_backward`: their backward formulas
are linear in grad and differentiable, so J·t = d<J^T u, t>/du (fw_transpose; for multi-output
backward kernels such as convolution_backward, every output gets a seed: fw_transpose_multi).
One dual level at a time (torch's limit too). Ops without a rule raise.

Limitations (ember): forward AD rides the Autograd dispatch key, so it does not run under no_grad /
inference_mode; in-place ops on dual tensors are not supported.
"""
from collections import namedtuple

from .._core.dispatch_keys import AUTOGRAD_BIT
from .._core.tensor_impl import TensorImpl as Tensor
from .._ops import ops as _ops

_FW = [0]           # 1 while a dual level is active and not paused (generated kernels check it first)
_level = [None]     # the active level (an int) or None
_paused = []

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def enter_dual_level():
    if _level[0] is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    from .._core.tensor_impl import ensure_autograd as _ensure_autograd
    _ensure_autograd()
    _level[0] = 0
    _FW[0] = 1
    return 0


def exit_dual_level(*, level=None):
    if _level[0] is None:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created.")
    _level[0] = None
    _FW[0] = 0
    for ref in list(_DUALS.values()):
        t = ref()
        if t is not None:
            t.__dict__.pop("_fw_tangent", None)
    _DUALS.clear()


class dual_level:
    """Context manager: tangents made inside live until it exits."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


import weakref  # noqa: E402

_DUALS = {}     # id -> weakref of every tensor given a tangent at this level (cleared on exit)


def make_dual(tensor, tangent, *, level=None):
    if _level[0] is None:
        raise RuntimeError("To create a dual Tensor, you need to be inside a dual_level context manager.")
    if not isinstance(tangent, Tensor) or tangent._size != tensor._size:
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor._size)} while the given "
                           f"forward gradient is of size {list(getattr(tangent, '_size', ()))}.")
    if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if tangent.dtype is not tensor.dtype:
        raise RuntimeError("Expected tangent to have the same dtype as the primal")
    d = _ops.aten.alias.default(tensor) if tensor._requires_grad else tensor.detach()   # a new view: the primal keeps no tangent
    _attach(d, tangent)
    return d


def unpack_dual(tensor, *, level=None):
    t = tensor.__dict__.get("_fw_tangent") if isinstance(tensor, Tensor) else None
    if t is None:
        return UnpackedDualTensor(tensor, None)
    p = tensor.detach() if not tensor._requires_grad else _ops.aten.alias.default(tensor)
    p.__dict__.pop("_fw_tangent", None)
    return UnpackedDualTensor(p, t)


def _attach(t, tangent):
    t._fw_tangent = tangent
    t._ks |= AUTOGRAD_BIT
    _DUALS[id(t)] = weakref.ref(t)


# ---------------------------------------------------------------- used by the Autograd kernels
# (the helpers of the generated forward rules are in _forward_rules.py)
def fw_has(ins):
    for x in ins:
        if x.__class__ is list or x.__class__ is tuple:
            if any(isinstance(y, Tensor) and y.__dict__.get("_fw_tangent") is not None for y in x):
                return True
        elif isinstance(x, Tensor) and x.__dict__.get("_fw_tangent") is not None:
            return True
    return False


def fw_unsupported(name):
    raise NotImplementedError(f"Trying to use forward AD with {name} that does not support it because it has not "
                              "been implemented yet.")


__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor"]
