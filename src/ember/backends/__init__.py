"""torch.backends: the per-backend switches and availability checks scripts set before training.

ember runs on the CPU with numpy's BLAS and its own C kernels, so the GPU libraries (cudnn, cuBLAS,
MPS) and the CPU libraries torch links (oneDNN, MKL, OpenMP) report that they are not available;
their flags are still settable and readable, as they are on torch's builds without those libraries.
"""
from .._core.unimplemented import missing_attribute as _missing_attribute
from . import cpu, cuda, cudnn, mha, mkl, mkldnn, mps, openmp  # noqa: F401


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
