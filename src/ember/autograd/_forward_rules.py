"""The helpers the generated forward-mode rules call (torch's forward-grad helpers in
FunctionsManual.cpp / VariableTypeUtils.h): take the inputs' tangents and pause forward AD while a rule
runs, attach the result's tangent (in place through a view's base), and the transposition trick of
`auto_double_backward` rules. The dual-level state and the public API are in forward_ad.py."""
import numpy as np

from .._core.tensor_impl import TensorImpl as Tensor
from .._grad_mode import enable_grad  # noqa: F401  (used by the generated rules)
from ._backward import grad as _grad
from .formulas._common import _dim_index, const_ones_like, const_zeros_like, index_of
from .forward_ad import _FW, _attach, _paused
from .graph import view_positions


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
    if like.__class__ is list or like.__class__ is tuple:
        t = t or [None] * len(like)
        return [x if x is not None else const_zeros_like(y) for x, y in zip(t, like)]
    return t if t is not None else const_zeros_like(like)


def fw_ones(like):
    return const_ones_like(like)


def fw_reduce(x, dim, keepdim, out):
    """Sum x over the dims a reduction removed, shaped like its output."""
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0) or x.dim() == 0:
        r = x.sum()
    else:
        r = x.sum(dim, keepdim=keepdim)
    return r.reshape(out._size) if r._size != out._size else r


def fw_gather(t, dim, indices):
    if t.dim() == 0:
        return t
    return index_of(t, _dim_index(indices, dim % t.dim()))


def fw_seed(result):
    return const_zeros_like(result).requires_grad_()


def fw_transpose(gs, u, ts, result):
    """Given input-gradients gs = J^T u (linear in u), return J t = d<gs, t>/du."""
    pairs = [(g, t) for g, t in zip(gs, ts) if g is not None and g.requires_grad]
    if not pairs:
        return const_zeros_like(result)
    return _grad([g for g, _ in pairs], [u], [t for _, t in pairs], allow_unused=True, materialize_grads=True)[0]


def fw_transpose_multi(gs, us, ts, results):
    """fw_transpose for an op whose every output has a seed in `us` (None for undefined outputs):
    the tangent of each output."""
    pairs = [(g, t) for g, t in zip(gs, ts) if g is not None and g.requires_grad]
    seeds = [u for u in us if u is not None]
    if not pairs:
        return [const_zeros_like(r) if r is not None else None for r in results]
    got = iter(_grad([g for g, _ in pairs], seeds, [t for _, t in pairs], allow_unused=True, materialize_grads=True))
    return [next(got) if u is not None else None for u in us]
