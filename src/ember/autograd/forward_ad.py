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
from .._grad_mode import enable_grad  # noqa: F401  (used by the generated rules)
from .._core.tensor_impl import TensorImpl as Tensor

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
    d = tensor.alias() if tensor._requires_grad else tensor.detach()   # a new view: the primal keeps no tangent
    _attach(d, tangent)
    return d


def unpack_dual(tensor, *, level=None):
    t = tensor.__dict__.get("_fw_tangent") if isinstance(tensor, Tensor) else None
    if t is None:
        return UnpackedDualTensor(tensor, None)
    p = tensor.detach() if not tensor._requires_grad else tensor.alias()
    p.__dict__.pop("_fw_tangent", None)
    return UnpackedDualTensor(p, t)


def _attach(t, tangent):
    t._fw_tangent = tangent
    t._ks |= AUTOGRAD_BIT
    _DUALS[id(t)] = weakref.ref(t)


# ---------------------------------------------------------------- used by the generated kernels
def fw_has(ins):
    for x in ins:
        if x.__class__ is list or x.__class__ is tuple:
            if any(isinstance(y, Tensor) and y.__dict__.get("_fw_tangent") is not None for y in x):
                return True
        elif isinstance(x, Tensor) and x.__dict__.get("_fw_tangent") is not None:
            return True
    return False


def _tangent(x):
    if x.__class__ is list or x.__class__ is tuple:
        ts = [y.__dict__.get("_fw_tangent") if isinstance(y, Tensor) else None for y in x]
        return ts if any(t is not None for t in ts) else None
    return x.__dict__.get("_fw_tangent") if isinstance(x, Tensor) else None


def fw_take(ins):
    """Tangents of the differentiable inputs; pauses forward AD while the op and its rule run."""
    ts = tuple(_tangent(x) for x in ins)
    _paused.append(_FW[0])
    _FW[0] = 0
    return ts


def fw_restore():
    _FW[0] = _paused.pop()


def fw_attach(res, tangent, inplace=False):
    if inplace and isinstance(res, Tensor):
        return _attach_inplace(res, tangent)
    if tangent is not None and isinstance(res, Tensor):
        if tangent._size != res._size:
            tangent = tangent.expand(res._size).clone()
        if tangent.dtype is not res.dtype:
            tangent = tangent.to(res.dtype)
        _attach(res, tangent)
    return res


def _attach_inplace(t, tangent):
    """After an in-place op: write the new tangent into the old one (a view's tangent is a view of its
    base's, so the base sees it), or give the base a zero tangent and write into the view's region."""
    import numpy as np
    from .formulas._common import const_zeros_like
    if tangent is None:
        tangent = const_zeros_like(t)
    if tangent._size != t._size:
        tangent = tangent.expand(t._size)
    old = t.__dict__.get("_fw_tangent")
    if old is not None and old._np is not None:
        np.copyto(old._np, tangent._np, casting="unsafe")
        return t
    base = t._base
    if base is None:
        _attach(t, tangent.clone() if tangent._base is not None else tangent)
        return t
    from ._views import view_positions
    bt = base.__dict__.get("_fw_tangent")
    if bt is None:
        bt = const_zeros_like(base)
        _attach(base, bt)
    pos = view_positions(t, base)
    flat = bt._np.reshape(-1) if bt._np.flags.c_contiguous else None
    if flat is None:
        _attach(t, tangent.clone())
        return t
    flat[pos] = tangent._np
    if base.is_contiguous():
        _attach(t, bt.as_strided(t._size, t.stride(), t._offset - base._offset))
    else:
        _attach(t, tangent.clone())
    return t


def fw_acc(a, b):
    return b if a is None else a + b


def zeros_if_none(t, like):
    from .formulas._common import const_zeros_like
    if like.__class__ is list or like.__class__ is tuple:
        t = t or [None] * len(like)
        return [x if x is not None else const_zeros_like(y) for x, y in zip(t, like)]
    return t if t is not None else const_zeros_like(like)


def fw_ones(like):
    from .formulas._common import const_ones_like
    return const_ones_like(like)


def fw_reduce(x, dim, keepdim, out):
    """Sum x over the dims a reduction removed, shaped like its output."""
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0) or x.dim() == 0:
        r = x.sum()
    else:
        r = x.sum(dim, keepdim=keepdim)
    return r.reshape(out._size) if r._size != out._size else r


def fw_gather(t, dim, indices):
    from .formulas._common import _dim_index, index_of
    if t.dim() == 0:
        return t
    return index_of(t, _dim_index(indices, dim % t.dim()))


def fw_seed(result):
    from .formulas._common import const_zeros_like
    return const_zeros_like(result).requires_grad_()


def fw_transpose(gs, u, ts, result):
    """Given input-gradients gs = J^T u (linear in u), return J t = d<gs, t>/du."""
    from . import grad as _grad
    from .formulas._common import const_zeros_like
    pairs = [(g, t) for g, t in zip(gs, ts) if g is not None and g.requires_grad]
    if not pairs:
        return const_zeros_like(result)
    return _grad([g for g, _ in pairs], [u], [t for _, t in pairs], allow_unused=True, materialize_grads=True)[0]


def fw_transpose_multi(gs, us, ts, results):
    """fw_transpose for an op whose every output has a seed in `us` (None for undefined outputs):
    the tangent of each output."""
    from . import grad as _grad
    from .formulas._common import const_zeros_like
    pairs = [(g, t) for g, t in zip(gs, ts) if g is not None and g.requires_grad]
    seeds = [u for u in us if u is not None]
    if not pairs:
        return [const_zeros_like(r) if r is not None else None for r in results]
    got = iter(_grad([g for g, _ in pairs], seeds, [t for _, t in pairs], allow_unused=True, materialize_grads=True))
    return [next(got) if u is not None else None for u in us]


def fw_unsupported(name):
    raise NotImplementedError(f"Trying to use forward AD with {name} that does not support it because it has not "
                              "been implemented yet.")


__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor"]
