"""OpInfo entries of the scans (cumsum, cummax, ...) (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from .._opinfo import OpInfo
from .._samples import along_dim
from ._common import F, FI


op_db = [
    OpInfo("cumsum", along_dim(), ref=lambda a, dim: np.cumsum(a, axis=dim) if a.ndim else a, dtypes=FI,
           supports_out=True, inplace_variant="cumsum_"),
    OpInfo("cumprod", along_dim(), ref=lambda a, dim: np.cumprod(a, axis=dim) if a.ndim else a, dtypes=FI,
           supports_out=True, inplace_variant="cumprod_"),
    OpInfo("cummax", along_dim(), dtypes=FI),
    OpInfo("cummin", along_dim(), dtypes=FI),
    OpInfo("logcumsumexp", along_dim(), dtypes=F, supports_out=True),
]
