"""torch.backends.mkl: ember's BLAS is numpy's (OpenBLAS), not MKL, so `is_available()` is False."""

VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available():
    return False


class verbose:
    """`with torch.backends.mkl.verbose(level)`: MKL's verbose log; nothing to log without MKL."""

    def __init__(self, enable):
        self.enable = enable

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
