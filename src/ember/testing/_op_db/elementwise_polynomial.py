"""OpInfo entries of torch.special's orthogonal polynomials (torch's _internal/opinfo/definitions/special.py,
this family's part): p_n(x) for x in a range around the orthogonality interval and small integer degrees n
(as float tensors, and as a Python int for the n_scalar overload), compared with torch."""
import numpy as np

from .._opinfo import OpInfo, SampleInput
from .._samples import SHAPES, make
from ...kernels.meta.elementwise_polynomial import NAMES


def _samples(op, dt):
    out = []
    for i, s in enumerate(SHAPES):
        n = np.random.default_rng(i).integers(0, 12, s).astype(dt)
        out.append(SampleInput(make(s, dt, -1.5, 1.5, seed=i), (n,), {}, f"{s}"))
    out.append(SampleInput(make((4, 3), dt, -1.0, 1.0, seed=7), (5,), {}, "n_scalar"))
    return out


op_db = [OpInfo(f"special.{name}", _samples, dtypes=("float32", "float64"), method_variant=False, supports_out=True,
                aten_name=f"special_{name}") for name in NAMES]
