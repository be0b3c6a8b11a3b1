"""OpInfo entries of the complex family: angle (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from .._opinfo import OpInfo, SampleInput
from .._samples import make


def _angle_samples(op, dt):
    if dt.startswith("complex"):
        re, im = make((3, 4), "float64", seed=1), make((3, 4), "float64", seed=2)
        z = (re + 1j * im).astype(dt)
        z[0, :2] = 0
        return [SampleInput(z, (), {}, "3x4"), SampleInput(np.asarray(z[0, 1]), (), {}, "0-d")]
    x = make((3, 4), dt, seed=1)
    if dt.startswith("float"):
        x[0, :3] = [np.nan, 0.0, -0.0]
    return [SampleInput(x, (), {}, "3x4"), SampleInput(make((0,), dt), (), {}, "empty"),
            SampleInput(make((2, 3, 4), dt, seed=3), (), {}, "2x3x4")]


def _angle_ref(x):
    if x.dtype.kind == "c":
        return np.angle(x)
    r = np.where(np.isnan(x), np.nan, np.where(x < 0, np.pi, 0.0))
    return r.astype(x.dtype if x.dtype.kind == "f" else np.float32)


op_db = [
    OpInfo("angle", _angle_samples, ref=_angle_ref, dtypes=("float32", "float64", "int64", "complex64", "complex128"),
           supports_out=True),
]
