"""linalg.vector_norm where each result reduces one element: torch's value is |x| for every ord (x != 0 for ord 0),
not the power's round trip, so the 2-norm of [finfo.max] is finite (squaring overflowed to inf here) and the
3-norm of [3.] is 3. exactly; norm, Tensor.norm, matrix_norm('fro') of a 1x1, F.normalize and
clip_grad_norm_ follow. The 2-norm's backward is torch's grad * (self / norm), bit for bit."""
import numpy as np
import pytest

import ember

F32_MAX = float(np.finfo(np.float32).max)
F64_MAX = float(np.finfo(np.float64).max)
ORDS = [2, 3, 1, 0.5, float("inf"), 0, -1, float("-inf")]


def _bits(t):
    a = np.ascontiguousarray(t.detach().numpy())
    return a.dtype.str, a.shape, a.view(np.uint8).tobytes()


def _cases(L, dtype, m):
    x = L.tensor([[m], [2e19], [-3.0], [1e-30], [0.0], [float("nan")]], dtype=getattr(L, dtype))
    out = {}
    for o in ORDS:
        out[f"dim1 {o}"] = L.linalg.vector_norm(x, o, dim=1)
        out[f"keepdim {o}"] = L.linalg.vector_norm(x, o, dim=(1,), keepdim=True)
        out[f"all {o}"] = L.linalg.vector_norm(x[:1], o)
        out[f"norm {o}"] = L.norm(x, o, dim=1)
        out[f"0-d {o}"] = L.linalg.vector_norm(L.tensor(m, dtype=getattr(L, dtype)), o)
    out["x.norm()"] = x[:1, 0].norm()
    out["fro 1x1"] = L.linalg.matrix_norm(x[:1])
    out["linalg.norm 1x1"] = L.linalg.norm(x[:1])
    out["normalize"] = L.nn.functional.normalize(x[:1, 0], dim=0)
    out["float64 result"] = L.linalg.vector_norm(x, 3, dim=1, dtype=L.float64)
    return out


@pytest.mark.parity
@pytest.mark.parametrize("dtype,m", [("float32", F32_MAX), ("float64", F64_MAX)])
def test_single_element_norms_are_abs_like_torch(dtype, m):
    torch = pytest.importorskip("torch")
    want, got = _cases(torch, dtype, m), _cases(ember, dtype, m)
    for k in want:
        assert _bits(got[k]) == _bits(want[k]), k


@pytest.mark.parity
def test_max_float_gradient_and_clip_grad_norm_like_torch():
    torch = pytest.importorskip("torch")
    res = []
    for L in (torch, ember):
        z = L.tensor([F32_MAX], requires_grad=True)
        L.linalg.vector_norm(z).backward()
        g = z.grad.clone()
        total = L.nn.utils.clip_grad_norm_([z], 1.0)
        res.append((_bits(g), _bits(total), _bits(z.grad)))
    assert res[0] == res[1]


@pytest.mark.parity
@pytest.mark.parametrize("shape,dim", [((1000,), None), ((10, 100), 1), ((10, 100), None), ((7, 5), 0)])
def test_two_norm_backward_bits_like_torch(shape, dim):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    xn = rng.standard_normal(shape).astype(np.float32)
    gn = rng.standard_normal(() if dim is None else tuple(s for i, s in enumerate(shape) if i != dim))
    gn = np.asarray(gn, np.float32)
    norms, grads = [], []
    for L in (torch, ember):
        x = L.tensor(xn, requires_grad=True)
        n = L.linalg.vector_norm(x, dim=dim)
        gx, = L.autograd.grad(n, x, L.tensor(gn))
        norms.append(n.detach().numpy())
        grads.append(gx.numpy())
    # each element: grad * (self / norm) with ember's own norm (its sum's order may differ from torch's in the last
    # bit for some rows); where the norms agree the gradients agree bit for bit
    same = np.broadcast_to(norms[0] == norms[1] if dim is None else
                           np.expand_dims(norms[0] == norms[1], dim), shape)
    assert same.mean() > 0.5
    np.testing.assert_array_equal(grads[1][same].view(np.int32), grads[0][same].view(np.int32))
