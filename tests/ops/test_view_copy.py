"""The *_copy views (torch.t_copy, split_copy, view_as_real_copy, ...): fresh contiguous results equal to the
view's, their out= forms, and their gradients named like torch's (the op database covers the common ones)."""
import numpy as np
import pytest

import ember


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def _both(torch, f):
    return f(ember), f(torch)


def _same(e, t):
    assert (tuple(e.shape), e.stride(), str(e.dtype).split(".")[-1]) == \
        (tuple(t.shape), t.stride(), str(t.dtype).split(".")[-1])
    np.testing.assert_array_equal(e.numpy(), t.numpy())


_A = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7


@pytest.mark.parity
def test_complex_and_dtype_view_copies_match_torch(torch):
    z = (_A[..., :2].copy())
    cases = [lambda m: m.view_as_complex_copy(m.from_numpy(z.copy())),
             lambda m: m.view_as_real_copy(m.view_as_complex(m.from_numpy(z.copy()))),
             lambda m: m.view_copy(m.from_numpy(_A.copy()), m.int32),
             lambda m: m.view_copy(m.from_numpy(_A.copy()), m.uint8)]
    for f in cases:
        _same(*_both(torch, f))


@pytest.mark.parity
def test_out_forms_of_complex_dtype_and_split_copies_match_torch(torch):
    z = _A[..., :2].copy()

    def run(m, name):
        x = m.from_numpy(_A.copy())
        if name == "view_as_complex_copy":
            out = m.empty(0, dtype=m.complex64)
            return [m.view_as_complex_copy(m.from_numpy(z.copy()), out=out)]
        if name == "view_as_real_copy":
            out = m.empty(0)
            return [m.view_as_real_copy(m.view_as_complex(m.from_numpy(z.copy())), out=out)]
        if name == "view_copy.dtype":
            out = m.empty(0, dtype=m.int32)
            return [m.view_copy(x, m.int32, out=out)]
        outs = [m.empty(2, 3, 1), m.empty(2, 3, 3)]
        assert m.split_with_sizes_copy(x, [1, 3], 2, out=outs) is None
        return outs
    for name in ("view_as_complex_copy", "view_as_real_copy", "view_copy.dtype", "split_with_sizes_copy"):
        for e, t in zip(run(ember, name), run(torch, name)):
            _same(e, t)


@pytest.mark.parity
def test_split_copy_out_needs_one_out_per_piece(torch):
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match=r"^split_with_sizes_copy_out expected an out= argument of size 2, "
                                               r"got size 1$"):
            m.split_with_sizes_copy(m.ones(2, 4), [1, 3], 1, out=[m.empty(2, 1)])
        with pytest.raises(RuntimeError, match=r"^split_copy_Tensor_out\(\) expected an out= argument of size 2"):
            m.split_copy(m.ones(2, 4), 2, 1, out=[m.empty(2, 2)])
        with pytest.raises(RuntimeError, match=r"^unbind_copy_int_out expected an out= argument of size 2, got size 3"):
            m.unbind_copy(m.ones(2, 4), out=[m.empty(4)] * 3)


@pytest.mark.parity
def test_view_copy_gradients_match_torch(torch):
    def grads(m):
        x = m.from_numpy(_A.copy().astype(np.float64)).requires_grad_()
        outs = [m.t_copy(x[0]), m.select_copy(x, 1, 2), m.diagonal_copy(x, 1, 1, 2), m.unfold_copy(x, 2, 2, 1),
                *m.split_copy(x, 2, 1), m.expand_copy(x[:, :1], (2, 5, 4)), m.as_strided_copy(x, (3, 2), (2, 5), 1)]
        names = [type(o.grad_fn).__name__ for o in outs]
        sum(((o * (i + 1)).sum() for i, o in enumerate(outs)), m.zeros((), dtype=m.float64)).backward()
        return names, x.grad.numpy()
    (en, eg), (tn, tg) = grads(ember), grads(torch)
    assert en == tn
    np.testing.assert_allclose(eg, tg)


@pytest.mark.parity
def test_view_as_complex_copy_autograd_matches_torch():
    """torch has no complex derivative for view_as_complex_copy: an input requiring grad is refused under grad mode;
    without grad (no_grad, inference_mode, an input without grad) it is a plain copy. view_as_real_copy records."""
    torch = pytest.importorskip("torch")
    got = []
    for L in (torch, ember):
        x = L.tensor([[1.0, 2.0], [3.0, -1.0]], dtype=L.float64, requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            L.view_as_complex_copy(x)
        with L.no_grad():
            a = L.view_as_complex_copy(x)
        with L.inference_mode():
            b = L.view_as_complex_copy(x)
        c = L.view_as_complex_copy(x.detach())
        r = L.view_as_real_copy(L.view_as_complex(x * 1))
        got.append((str(e.value), [(t.requires_grad, t.grad_fn, t.tolist()) for t in (a, b, c)],
                    type(r.grad_fn).__name__, r._base is None))
    assert got[0] == got[1]
