"""OpInfo entries of the view ops (torch's common_methods_invocations.py op_db, this family's part)."""

import numpy as np

from .._samples import make
from ._common import FIB, SN, _info_fi


def _unfold(dt):
    return [SN(make((7,), dt), 0, 2, 1), SN(make((3, 7), dt), 1, 3, 2), SN(make((4, 3), dt), 0, 4, 1), SN(make((), dt), 0, 1, 1),
            SN(make((3, 5), dt), -1, 0, 3)]


def _slice_scatter(dt):
    return [SN(make((5, 4), dt), make((2, 4), dt, seed=1), 0, 1, 3),
            SN(make((3, 6), dt), make((3, 3), dt, seed=2), 1, None, None, 2),
            SN(make((3, 6), dt), make((3, 3), dt, seed=3), -1, -4, -1, 1),
            SN(make((2, 3, 4), dt), make((2, 3, 0), dt, seed=4), 2, 5, 9),
            SN(make((4,), dt), make((4,), dt, seed=5))]


def _select_scatter(dt):
    return [SN(make((5, 4), dt), make((4,), dt, seed=1), 0, 2),
            SN(make((3, 6), dt), make((3,), dt, seed=2), 1, -1),
            SN(make((2, 3, 4), dt), make((2, 4), dt, seed=3), 1, 0),
            SN(make((4,), dt), make((), dt, seed=4), 0, 3)]


def _diagonal_scatter(dt):
    return [SN(make((4, 4), dt), make((4,), dt, seed=1)),
            SN(make((3, 5), dt), make((3,), dt, seed=2), 2),
            SN(make((3, 5), dt), make((2,), dt, seed=3), -1),
            SN(make((2, 3, 4), dt), make((3, 2), dt, seed=4), 0, 0, 2),
            SN(make((3, 4), dt), make((0,), dt, seed=5), 4)]


def _as_strided_scatter(dt):
    return [SN(make((3, 4), dt), make((2, 2), dt, seed=1), (2, 2), (4, 1), 1),
            SN(make((12,), dt), make((3,), dt, seed=2), (3,), (4,)),
            SN(make((2, 3, 4), dt), make((3, 2), dt, seed=3), (3, 2), (1, 12), 5)]


def _np_slice_scatter(x, src, dim=0, start=None, end=None, step=1):
    out = x.copy()
    out[(slice(None),) * (dim % max(x.ndim, 1)) + (slice(start, end, step),)] = src
    return out


def _np_select_scatter(x, src, dim, index):
    out = x.copy()
    out[(slice(None),) * (dim % x.ndim) + (index,)] = src
    return out


def _np_diagonal_scatter(x, src, offset=0, dim1=0, dim2=1):
    out = np.moveaxis(x.copy(), (dim1, dim2), (-2, -1))
    n = np.diagonal(out, offset, -2, -1).shape[-1]
    i = np.arange(n)
    rows, cols = (i, i + offset) if offset >= 0 else (i - offset, i)
    out[..., rows, cols] = src
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


def _np_as_strided_scatter(x, src, size, stride, storage_offset=0):
    out = np.ascontiguousarray(x).copy()
    flat = out.reshape(-1)
    step = flat.itemsize
    np.lib.stride_tricks.as_strided(flat[storage_offset:], size, [s * step for s in stride], writeable=True)[...] = src
    return out


op_db = [
    _info_fi("slice_scatter", _slice_scatter, dtypes=FIB, ref=_np_slice_scatter),
    _info_fi("select_scatter", _select_scatter, dtypes=FIB, ref=_np_select_scatter),
    _info_fi("diagonal_scatter", _diagonal_scatter, dtypes=FIB, ref=_np_diagonal_scatter),
    _info_fi("as_strided_scatter", _as_strided_scatter, dtypes=FIB, ref=_np_as_strided_scatter,
             layout_dependent=True),
    _info_fi("Tensor.unfold", _unfold, dtypes=FIB, aten_name="unfold"),
]


# the *_copy views (issue 19): the view's result in fresh contiguous memory
def _copy_samples(*cases):
    def f(dt):
        x = make((2, 3, 4), dt)
        return [SN(make(s, dt, seed=i) if s is not None else x, *a, name=f"{i}") for i, (s, a) in enumerate(cases)]
    return f


_X = (2, 3, 4)
_VIEW_COPIES = {
    "alias_copy": [(_X, ())],
    "as_strided_copy": [(_X, ((2, 2), (1, 2))), (_X, ((3,), (4,), 1))],
    "detach_copy": [(_X, ())],
    "diagonal_copy": [(_X, ()), (_X, (1, 1, 2))],
    "expand_copy": [((3, 1), ((2, 3, 4),))],
    "permute_copy": [(_X, ((2, 0, 1),))],
    "select_copy": [(_X, (1, 2)), (_X, (-1, 0))],
    "slice_copy": [(_X, (1, 0, 2)), (_X, (2, 1, 4, 2))],
    "split_copy": [(_X, (2, 1)), (_X, (3,))],
    "split_with_sizes_copy": [(_X, ([1, 3], 2))],
    "squeeze_copy": [((2, 1, 3), ()), ((2, 1, 3), (1,)), ((1, 2, 1), ([0, 2],))],
    "t_copy": [((3, 4), ())],
    "transpose_copy": [(_X, (0, 2))],
    "unbind_copy": [(_X, (1,)), (_X, ())],
    "unfold_copy": [(_X, (2, 2, 1))],
    "unsqueeze_copy": [(_X, (1,))],
    "view_copy": [(_X, ((6, 4),)), (_X, ((-1,),))],
    "view_as_real_copy": [],
}
op_db += [_info_fi(n, _copy_samples(*cases), dtypes=FIB, method_variant=False, layout_dependent=n == "as_strided_copy",
                   supports_out=n not in ("split_copy", "split_with_sizes_copy", "unbind_copy"))
          for n, cases in _VIEW_COPIES.items() if cases]
