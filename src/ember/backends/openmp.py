"""torch.backends.openmp: ember's C kernels are built without an OpenMP runtime (parallel work goes
to ember's own thread pool), so `is_available()` is False."""


def is_available():
    return False
