"""ember.linalg: torch.linalg's functions over the aten linalg_* ops."""
import ember as _e

__all__ = ["vector_norm", "matrix_norm", "norm", "cross"]


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    if isinstance(dim, int):
        dim = [dim]
    return _e.linalg_vector_norm(x, ord, dim, keepdim, dtype=dtype, out=out)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    return _e.linalg_matrix_norm(A, ord, list(dim), keepdim, dtype=dtype, out=out)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    if isinstance(dim, int):
        dim = [dim]
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype, out=out)
        return vector_norm(A if dim is not None else A.reshape(-1), 2, dim, keepdim, dtype=dtype, out=out)
    if dim is None and A.dim() == 2 or dim is not None and len(dim) == 2:
        return matrix_norm(A, ord, dim if dim is not None else (-2, -1), keepdim, dtype=dtype, out=out)
    return vector_norm(A, ord, dim, keepdim, dtype=dtype, out=out)


def cross(input, other, *, dim=-1, out=None):
    return _e.linalg_cross(input, other, dim=dim, out=out)
