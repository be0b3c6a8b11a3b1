"""Python-level signatures torch gives some shape ops on top of their aten schemas (torch/functional.py):
varargs tensor lists (einsum, meshgrid, broadcast_tensors, block_diag, cartesian_prod), tensordot's
dims forms, nonzero(as_tuple=True), where(condition) as a tuple, and unfold's Tensor method."""
from . import _argcheck as _chk
from ._generated import functions as _F
from ._tensor import Tensor

__all__ = ["nonzero", "einsum", "tensordot", "meshgrid", "broadcast_tensors", "block_diag", "cartesian_prod", "where"]


def _tensors(args, fname=None):
    ts = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
    if fname is not None:
        _chk.tensors(fname, "tensors", 1, ts)
    return ts


def nonzero(input, *, out=None, as_tuple=False):
    _chk.boolean("nonzero", "as_tuple", None, as_tuple)
    if not as_tuple:
        return _F.nonzero(input, out=out)
    x = input.unsqueeze(0) if input.dim() == 0 else input
    return tuple(_F.nonzero(x).unbind(1))


def _tensor_nonzero(self, *, as_tuple=False):
    return nonzero(self, as_tuple=as_tuple)


def where(condition, input=None, other=None, *, out=None):
    if input is None and other is None:
        return tuple(_F.where(condition))
    if out is not None:
        return _F.where(condition, input, other, out=out)
    return _F.where(condition, input, other)


def _sublist_equation(args):
    """einsum's sublist format (op, [0, 1], op, [1, 2], [0, 2]) as an equation string."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def sub(lst):
        return "".join("..." if s is Ellipsis else letters[s] for s in lst)
    ops, terms = list(args[0::2]), [sub(s) for s in args[1::2]]
    out = None
    if len(args) % 2 == 1:
        out = sub(args[-1])
        ops = ops[:-1]
    return ",".join(terms) + ("" if out is None else "->" + out), ops


def einsum(*args):
    if not args:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if isinstance(args[0], str):
        if len(args) == 1:
            raise ValueError("einsum(): must specify the equation string and at least one operand, or at least "
                             "one operand and its subscripts list")
        return _F.einsum(args[0], _tensors(args[1:], "einsum"))
    eq, ops = _sublist_equation(args)
    return _F.einsum(eq, ops)


def tensordot(a, b, dims=2, out=None):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    _chk.tensor("tensordot", "a", 1, a)
    _chk.tensor("tensordot", "b", 2, b)
    if not (isinstance(dims, int) or isinstance(dims, (list, tuple)) and len(dims) == 2):
        raise RuntimeError(f"tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    return _F.tensordot(a, b, da, db, out=out)


def meshgrid(*tensors, indexing=None):
    ts = _tensors(tensors, "meshgrid")
    if indexing is not None:
        _chk.string("meshgrid", "indexing", None, indexing)
    if indexing is None:
        return tuple(_F.meshgrid(ts))
    return tuple(_F.meshgrid(ts, indexing=indexing))


def broadcast_tensors(*tensors):
    return tuple(_F.broadcast_tensors(_tensors(tensors, "broadcast_tensors")))


def block_diag(*tensors):
    _chk.tensors("block_diag", "tensors", 1, tensors)
    return _F.block_diag(list(tensors))


def cartesian_prod(*tensors):
    _chk.tensors("cartesian_prod", "tensors", 1, tensors)
    return _F.cartesian_prod(list(tensors))


Tensor.nonzero = _tensor_nonzero
