"""Gradients of the shape/indexing and linalg ops against torch.autograd (formulas proposed in
native/shape_derivatives.proposed). An op whose derivative is not registered yet is skipped."""
import numpy as np
import pytest

import ember

R = np.random.default_rng(5)


def _a(*shape):
    return R.standard_normal(shape)


def _i(*vals):
    return np.array(vals, dtype=np.int64)


X, Y = _a(3, 4), _a(3, 4)
MASK = R.random((3, 4)) < 0.5
SPD = (lambda a: a @ a.T + 3 * np.eye(3))(_a(3, 3))
PERM = np.argsort(R.random((2, 4)), axis=0)

# name -> (fn(m, *tensors), differentiable float inputs, other inputs)
CASES = {
    "gather": (lambda m, x, i: m.gather(x, 1, i), [X], [_i([0, 3], [1, 1], [2, 0])]),
    "scatter_src": (lambda m, x, s, i: x.scatter(0, i, s), [X, _a(2, 4)], [PERM]),
    "scatter_value": (lambda m, x, i: x.scatter(0, i, 2.0), [X], [PERM]),
    "scatter_add": (lambda m, x, s, i: x.scatter_add(1, i, s), [X, _a(3, 2)], [_i([0, 0], [1, 3], [2, 2])]),
    "index_select": (lambda m, x, i: x.index_select(1, i), [X], [_i(0, 3, 0)]),
    "index_add": (lambda m, x, s, i: x.index_add(0, i, s, alpha=2), [X, _a(2, 4)], [_i(2, 2)]),
    "index_copy": (lambda m, x, s, i: x.index_copy(1, i, s), [X, _a(3, 2)], [_i(3, 0)]),
    "index_fill": (lambda m, x, i: x.index_fill(1, i, 5.0), [X], [_i(1, 2)]),
    "masked_fill": (lambda m, x, k: x.masked_fill(k, 0.5), [X], [MASK]),
    "masked_fill_bcast": (lambda m, x, k: x.masked_fill(k, 0.5), [_a(4)], [MASK]),
    "masked_fill_tensor": (lambda m, x, v, k: x.masked_fill(k, v), [X, np.array(1.5)], [MASK]),
    "masked_select": (lambda m, x, k: x.masked_select(k), [X], [MASK]),
    "masked_scatter": (lambda m, x, s, k: x.masked_scatter(k, s), [X, _a(13)], [MASK]),
    "take": (lambda m, x, i: m.take(x, i), [X], [_i([0, 5], [11, 5])]),
    "put": (lambda m, x, s, i: x.put(i, s), [X, _a(2)], [_i(1, 7)]),
    "repeat": (lambda m, x: x.repeat(2, 1, 3), [_a(3, 2)], []),
    "tile": (lambda m, x: m.tile(x, (2,)), [X], []),
    "repeat_interleave": (lambda m, x: x.repeat_interleave(2, dim=1), [X], []),
    "roll": (lambda m, x: m.roll(x, (1, -1), (0, 1)), [X], []),
    "flip": (lambda m, x: x.flip(0, 1), [X], []),
    "rot90": (lambda m, x: m.rot90(x, 1), [X], []),
    "tril": (lambda m, x: m.tril(x, 1), [X], []),
    "triu": (lambda m, x: m.triu(x, -1), [X], []),
    "diag": (lambda m, x: m.diag(x, 1), [X], []),
    "diag_embed": (lambda m, x: m.diag_embed(x, 1), [X], []),
    "trace": (lambda m, x: m.trace(x), [X], []),
    "outer": (lambda m, a, b: m.outer(a, b), [_a(3), _a(4)], []),
    "kron": (lambda m, a, b: m.kron(a, b), [_a(2, 3), _a(2, 2)], []),
    "cross": (lambda m, a, b: m.linalg.cross(a, b), [_a(4, 3), _a(1, 3)], []),
    "tensordot": (lambda m, a, b: m.tensordot(a, b, ([1], [0])), [X, _a(4, 2)], []),
    "unfold": (lambda m, x: x.unfold(1, 2, 1), [X], []),
    "narrow_copy": (lambda m, x: m.narrow_copy(x, 1, 1, 2), [X], []),
    "take_along_dim": (lambda m, x, i: m.take_along_dim(x, i, 1), [X], [_i([0], [3], [1])]),
    "einsum_attn": (lambda m, q, k: m.einsum("bhqd,bhkd->bhqk", q, k), [_a(2, 2, 3, 4), _a(2, 2, 5, 4)], []),
    "einsum_trace_outer": (lambda m, a, b: m.einsum("ii,j->j", a, b), [_a(3, 3), _a(4)], []),
    "broadcast_to": (lambda m, x: m.broadcast_to(x, (2, 3, 4)), [X], []),
    "det": (lambda m, a: m.linalg.det(a), [SPD], []),
    "matrix_exp": (lambda m, a: m.linalg.matrix_exp(a), [_a(3, 3) / 2], []),
    "cholesky_inverse": (lambda m, a: m.cholesky_inverse(a), [np.linalg.cholesky(SPD)], []),
    "cholesky_inverse_upper": (lambda m, a: m.cholesky_inverse(a, upper=True), [np.linalg.cholesky(SPD).T.copy()], []),
    "scatter_reduce_sum": (lambda m, x, s, i: x.scatter_reduce(1, i, s, "sum"), [X, _a(3, 2)], [_i([0, 0], [1, 3], [2, 2])]),
    "matrix_power": (lambda m, a: m.linalg.matrix_power(a, 3), [_a(3, 3)], []),
}


@pytest.mark.parity
@pytest.mark.parametrize("name", list(CASES))
def test_grad_matches_torch(name):
    torch = pytest.importorskip("torch")
    fn, diff, other = CASES[name]

    def run(m, conv):
        xs = [conv(a, True) for a in diff]
        out = fn(m, *xs, *[conv(o, False) for o in other])
        g = np.random.default_rng(1).standard_normal(tuple(out.shape))
        (out * conv(g, False)).sum().backward()
        return out, [x.grad for x in xs]

    try:
        e_out, e_grads = run(ember, lambda a, rg: ember.from_numpy(np.array(a)).requires_grad_(rg))
    except RuntimeError as err:
        if "not implemented" in str(err):
            pytest.skip(str(err))
        raise
    t_out, t_grads = run(torch, lambda a, rg: torch.from_numpy(np.array(a)).requires_grad_(rg))
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-10)
    for eg, tg in zip(e_grads, t_grads):
        assert eg is not None and tuple(eg.shape) == tuple(tg.shape)
        np.testing.assert_allclose(eg.numpy(), tg.numpy(), rtol=1e-7, atol=1e-9)
