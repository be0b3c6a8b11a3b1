"""torch.unique / torch.unique_consecutive / Tensor.unique: Python wrappers choosing which of the
aten op's three outputs to return (torch/functional.py). Hook: `from ._unique import unique, unique_consecutive`."""
from ._generated import functions as _f


def _pick(out, return_inverse, return_counts):
    vals, inv, cnt = out
    if return_inverse and return_counts:
        return vals, inv, cnt
    if return_inverse:
        return vals, inv
    if return_counts:
        return vals, cnt
    return vals


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    if dim is None:
        out = _f._unique2(input, sorted, return_inverse, return_counts)
    else:
        out = _f.unique_dim(input, dim, sorted, return_inverse, return_counts)
    return _pick(out, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    return _pick(_f.unique_consecutive(input, return_inverse, return_counts, dim), return_inverse, return_counts)


def _install():
    from ._tensor import Tensor
    Tensor.unique = lambda self, sorted=True, return_inverse=False, return_counts=False, dim=None: unique(
        self, sorted, return_inverse, return_counts, dim)
    Tensor.unique_consecutive = lambda self, return_inverse=False, return_counts=False, dim=None: unique_consecutive(
        self, return_inverse, return_counts, dim)


_install()
