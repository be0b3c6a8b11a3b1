"""ember.testing: assert_close (and the deprecated assert_allclose), make_tensor, and the op database (OpInfo
entries, loaded on first use)."""
from ._comparison import assert_allclose, assert_close, default_tolerances  # noqa: F401
from ._creation import make_tensor  # noqa: F401


def __getattr__(name):
    if name in ("OpInfo", "SampleInput", "op_db"):
        from . import _opinfo, _op_db
        return {"OpInfo": _opinfo.OpInfo, "SampleInput": _opinfo.SampleInput, "op_db": _op_db.op_db}[name]
    from .._core.unimplemented import no_attribute
    raise no_attribute(__name__, name)
