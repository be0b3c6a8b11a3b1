"""torch.backends: the per-backend switches and availability checks scripts set before training.

ember runs on the CPU with numpy's BLAS and its own C kernels, so the GPU libraries (cudnn, cuBLAS,
MPS) and the CPU libraries torch links (oneDNN, MKL, OpenMP) report that they are not available;
their flags are still settable and readable, as they are on torch's builds without those libraries.
"""
from . import cpu, cuda, cudnn, mha, mkl, mkldnn, mps, openmp  # noqa: F401
