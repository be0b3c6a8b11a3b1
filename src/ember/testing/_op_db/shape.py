"""OpInfo entries of the shape ops (cat, flip, roll, repeat, tril/triu, diag, broadcast helpers) (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from .._samples import make
from ._common import F, FIB, SN, _info_fi


def _tensor_lists(dt):
    """Lists of tensors (TensorList arguments) of the shapes the stacking functions accept."""
    return [SN([make((3,), dt), make((3,), dt, seed=1)], name="1-d"),
            SN([make((3, 2), dt), make((3, 1), dt, seed=1)], name="2-d"),
            SN([make((2, 3), dt), make((2, 3), dt, seed=2), make((2, 3), dt, seed=3)], name="three")]


def _concat(dt):
    return [SN([make((2, 3), dt), make((1, 3), dt, seed=1)], name="dim0"),
            SN([make((2, 3), dt), make((2, 1), dt, seed=2)], 1, name="dim1"),
            SN([make((2, 3), dt), make((0,), dt)], name="legacy-empty"),
            SN([make((2, 2, 2), dt), make((2, 2, 1), dt, seed=3)], -1, name="dim-1")]


def _repeat(dt):
    return [SN(make((3, 4), dt), (2, 1)), SN(make((3,), dt), (2, 1, 2)), SN(make((), dt), (3,)), SN(make((2, 3), dt), (0, 2))]


def _repeat_interleave(dt):
    x = make((3, 4), dt)
    return [SN(x, 2), SN(x, 2, dim=1), SN(x, np.array([1, 0, 3]), dim=0), SN(x, np.array([2]), dim=-1),
            SN(make((), dt), 3), SN(make((5,), dt), np.array([1, 2, 0, 1, 1]))]


def _tile(dt):
    return [SN(make((3, 4), dt), (2,)), SN(make((3,), dt), (2, 2)), SN(make((), dt), (2,)), SN(make((2, 3), dt), (1, 2, 1))]


def _roll(dt):
    x = make((3, 4), dt)
    return [SN(x, 1), SN(x, -5, 1), SN(x, (1, 2), (0, 1)), SN(make((5,), dt), 7, 0), SN(make((), dt), 1),
            SN(make((0, 3), dt), 1, 1)]


def _flip(dt):
    return [SN(make((3, 4), dt), (0,)), SN(make((2, 3, 4), dt), (0, -1)), SN(make((3, 4), dt), ()), SN(make((), dt), (0,)),
            SN(make((0, 3), dt), (1,))]


def _rot90(dt):
    x = make((3, 4), dt)
    return [SN(x), SN(x, 2), SN(x, 3), SN(x, -1), SN(make((2, 3, 4), dt), 1, (1, 2)), SN(x, 4)]


def _tri(dt):
    return [SN(make((3, 4), dt)), SN(make((3, 4), dt), 1), SN(make((2, 4, 3), dt), -1), SN(make((4, 4), dt), -5),
            SN(make((0, 3), dt))]


def _diag(dt):
    return [SN(make((4,), dt)), SN(make((4,), dt), 1), SN(make((3, 4), dt)), SN(make((3, 4), dt), -1), SN(make((3, 4), dt), 2),
            SN(make((0,), dt))]


def _diag_embed(dt):
    return [SN(make((3,), dt)), SN(make((2, 3), dt), 1), SN(make((2, 3), dt), -1, 0, 2), SN(make((2, 3), dt), 0, 1, 0)]


def _diagflat(dt):
    return [SN(make((3,), dt)), SN(make((2, 2), dt), 1), SN(make((), dt)), SN(make((2, 3), dt), -2)]


def _broadcast_to(dt):
    return [SN(make((3, 1), dt), (3, 4)), SN(make((4,), dt), (2, 3, 4)), SN(make((), dt), (2,)), SN(make((3, 4), dt), (-1, 4))]


def _broadcast_tensors(dt):
    return [SN(make((3, 1), dt), make((4,), dt, seed=1)), SN(make((), dt), make((2, 3), dt, seed=1), make((3,), dt, seed=2))]


def _meshgrid(dt):
    a, b, c = make((3,), dt), make((4,), dt, seed=1), make((2,), dt, seed=2)
    return [SN(a, b, indexing="ij"), SN(a, b, c, indexing="xy"), SN(a, make((), dt), indexing="ij"), SN(a, indexing="xy")]


def _narrow_copy(dt):
    return [SN(make((3, 4), dt), 1, 1, 2), SN(make((3, 4), dt), 0, -2, 2), SN(make((5,), dt), 0, 5, 0)]


def _block_diag(dt):
    return [SN(make((2, 2), dt), make((3,), dt, seed=1), make((), dt, seed=2)), SN(make((1, 3), dt)), SN(make((0, 2), dt), make((2, 0), dt))]


def _cartesian_prod(dt):
    return [SN(make((3,), dt), make((2,), dt, seed=1)), SN(make((2,), dt), make((2,), dt, seed=1), make((3,), dt, seed=2)),
            SN(make((4,), dt))]


def _combinations(dt):
    x = make((4,), dt)
    return [SN(x), SN(x, 3), SN(x, 2, True), SN(x, 1), SN(x, 0)]


op_db = [
    _info_fi("Tensor.repeat", _repeat, dtypes=FIB, ref=lambda x, r: np.tile(x, r), aten_name="repeat"),
    _info_fi("repeat_interleave", _repeat_interleave, supports_meta=False),
    _info_fi("tile", _tile, dtypes=FIB, ref=np.tile),
    _info_fi("roll", _roll, dtypes=FIB),
    _info_fi("flip", _flip, dtypes=FIB, ref=lambda x, d: np.flip(x, d) if d and x.ndim else x),
    _info_fi("fliplr", lambda dt: [SN(make((3, 4), dt)), SN(make((2, 3, 4), dt)), SN(make((0, 2), dt))], ref=np.fliplr),
    _info_fi("flipud", lambda dt: [SN(make((3, 4), dt)), SN(make((5,), dt)), SN(make((0,), dt))], ref=np.flipud),
    _info_fi("rot90", _rot90, dtypes=FIB),
    _info_fi("tril", _tri, dtypes=FIB, supports_out=True, inplace_variant="tril_", ref=np.tril),
    _info_fi("triu", _tri, dtypes=FIB, supports_out=True, inplace_variant="triu_", ref=np.triu),
    _info_fi("diag", _diag, dtypes=FIB, supports_out=True, ref=np.diag),
    _info_fi("diag_embed", _diag_embed, dtypes=FIB),
    _info_fi("diagflat", _diagflat, dtypes=FIB, ref=np.diagflat),
    _info_fi("broadcast_to", _broadcast_to, dtypes=FIB),
    _info_fi("broadcast_tensors", _broadcast_tensors, dtypes=FIB, method_variant=False, ref=lambda *a: np.broadcast_arrays(*a)),
    _info_fi("meshgrid", _meshgrid, dtypes=FIB, method_variant=False,
          ref=lambda *a, indexing: tuple(np.meshgrid(*[x.reshape(-1) for x in a], indexing=indexing))),
    *[_info_fi(n, lambda dt: [SN(make((), dt)), SN(make((3,), dt)), SN(make((2, 3), dt)), SN(make((2, 1, 3, 2), dt))],
               dtypes=FIB, method_variant=False) for n in ("atleast_1d", "atleast_2d", "atleast_3d")],
    _info_fi("meshgrid", lambda dt: [SN(make((3,), dt), make((4,), dt, seed=1))], dtypes=F, method_variant=False),
    *[_info_fi(n, _tensor_lists, dtypes=FIB, supports_out=True, method_variant=False)
      for n in ("column_stack", "dstack", "row_stack")],
    *[_info_fi(n, _concat, dtypes=FIB, supports_out=True, method_variant=False) for n in ("concat", "concatenate")],
    _info_fi("narrow_copy", _narrow_copy, dtypes=FIB, supports_out=True),
    _info_fi("block_diag", _block_diag, method_variant=False),
    _info_fi("cartesian_prod", _cartesian_prod, method_variant=False),
    _info_fi("combinations", _combinations, supports_meta=False),
]
