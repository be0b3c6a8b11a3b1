"""OpInfo entries of the view ops (torch's common_methods_invocations.py op_db, this family's part)."""

from .._samples import make
from ._common import FIB, SN, _info_fi


def _unfold(dt):
    return [SN(make((7,), dt), 0, 2, 1), SN(make((3, 7), dt), 1, 3, 2), SN(make((4, 3), dt), 0, 4, 1), SN(make((), dt), 0, 1, 1),
            SN(make((3, 5), dt), -1, 0, 3)]


op_db = [
    _info_fi("Tensor.unfold", _unfold, dtypes=FIB, aten_name="unfold"),
]
