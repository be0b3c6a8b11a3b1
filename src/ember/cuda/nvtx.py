"""torch.cuda.nvtx without CUDA: the markers raise torch's "NVTX functions not installed" error;
`range()` is a context manager that raises on entry the same way."""
import contextlib

_MSG = "NVTX functions not installed. Are you sure you have a CUDA build?"


def _missing(*args, **kwargs):
    raise RuntimeError(_MSG)


range_push = _missing
range_pop = _missing
range_start = _missing
range_end = _missing
mark = _missing


@contextlib.contextmanager
def range(msg, *args, **kwargs):
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
