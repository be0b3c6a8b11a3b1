"""softmax / log_softmax: values, grads, stability and infinities against torch."""
import numpy as np
import pytest
import ember
from ._nn_util import DTYPES, arr, close, meta_matches, pair


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", [((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -1), ((), 0), ((4, 0), 1)])
def test_softmax(dtype, shape, dim):
    torch = pytest.importorskip("torch")
    a = arr(*shape, dtype=dtype) * 30
    x, tx = pair(torch, a)
    close(ember.softmax(x, dim), torch.softmax(tx, dim))
    close(ember.log_softmax(x, dim), torch.log_softmax(tx, dim))
    close(x.softmax(dim), tx.softmax(dim))
    close(ember.softmax(x, dim, dtype=ember.float64), torch.softmax(tx, dim, dtype=torch.float64))
    meta_matches(ember.log_softmax, x, dim)


@pytest.mark.parity
def test_softmax_stable_and_inf():
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, np.array([[1000., 1001., -np.inf], [-np.inf, -np.inf, 0.]], np.float32))
    close(ember.softmax(x, 1), torch.softmax(tx, 1))
    close(ember.log_softmax(x, 1), torch.log_softmax(tx, 1))


@pytest.mark.parity
@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_rows_with_pos_inf_or_all_neg_inf_are_nan(dim):
    torch = pytest.importorskip("torch")
    a = np.array([[1., np.inf, 2., 0.], [-np.inf] * 4, [3., 1., 2., 0.], [np.inf, np.inf, 0., 1.]], np.float32)
    x, tx = pair(torch, a if dim == 1 else a.T.copy())
    for f in ("softmax", "log_softmax"):
        e, t = getattr(ember, f)(x, dim), getattr(torch, f)(tx, dim)
        assert np.isnan(t.numpy()).any()
        close(e, t)


@pytest.mark.parity
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [-1, 0])
def test_backward_of_a_broadcast_grad_matches_torch(fn, dim):
    """The grad reaching softmax's backward is often an expanded tensor (a sum over a dim, or .sum() itself:
    stride 0) while the saved output is contiguous: the backward kernels take mixed layouts."""
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(7).standard_normal((4, 6))
    w = np.linspace(-1.0, 2.0, 6 if dim == -1 else 4)
    grads = []
    for lib in (ember, torch):
        x = lib.tensor(a, requires_grad=True)
        y = getattr(lib, fn)(x, dim)
        (y.sum(dim=0 if dim == -1 else 1) * lib.tensor(w)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-12)


_SEPARATED = np.array([[0.0, 100.0, 0.0], [60.0, 0.0, -40.0], [0.0, -30.0, 45.0]])   # gaps no Gumbel draw closes


@pytest.mark.parity
@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("tau,dim", [(1.0, -1), (0.5, 1), (2.0, 0)])
def test_gumbel_softmax_on_separated_logits_matches_torch(hard, tau, dim):
    torch = pytest.importorskip("torch")
    res = []
    for lib in (torch, ember):
        x = lib.tensor(_SEPARATED.T if dim == 0 else _SEPARATED, requires_grad=True)
        y = lib.nn.functional.gumbel_softmax(x, tau=tau, hard=hard, dim=dim)
        (y * lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], dtype=y.dtype)).sum().backward()
        res.append((y.detach().numpy(), x.grad.numpy(), type(y.grad_fn).__name__, y.dtype == x.dtype))
    np.testing.assert_allclose(res[1][0], res[0][0], atol=1e-6)
    np.testing.assert_allclose(res[1][1], res[0][1], atol=1e-6)
    assert res[1][2:] == res[0][2:]


@pytest.mark.parity
def test_gumbel_softmax_samples_the_categorical_distribution_as_torch():
    """The Gumbel-max trick: the argmax of a hard sample is distributed as softmax(logits); each sample sums to 1."""
    torch = pytest.importorskip("torch")
    p = np.array([0.1, 0.3, 0.6])
    logits = np.tile(np.log(p), (6000, 1))
    for lib in (torch, ember):
        lib.manual_seed(0)
        hard = lib.nn.functional.gumbel_softmax(lib.tensor(logits), hard=True).numpy()
        soft = lib.nn.functional.gumbel_softmax(lib.tensor(logits), tau=0.7).numpy()
        assert set(np.unique(hard)) == {0.0, 1.0} and np.all(hard.sum(1) == 1)
        np.testing.assert_allclose(soft.sum(1), 1.0, rtol=1e-12)
        np.testing.assert_allclose(hard.mean(0), p, atol=0.025)      # 4 standard errors at n = 6000
        np.testing.assert_allclose((soft.argmax(1)[:, None] == np.arange(3)).mean(0), p, atol=0.025)


@pytest.mark.parity
def test_gumbel_softmax_eps_warning_matches_torch():
    import warnings
    torch = pytest.importorskip("torch")
    got = []
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.functional.gumbel_softmax(lib.zeros(3), eps=1e-3)
        got.append([(c.category, str(c.message)) for c in w])
    assert got[0] == got[1] and len(got[0]) == 1


@pytest.mark.parametrize("name", ["softmax", "softmin", "log_softmax"])
def test_implicit_dim_warning_points_at_the_callers_line(name):
    """F.softmax(x) without dim warns (as torch) at the line that called it (torch's _stacklevel=3), not
    inside ember."""
    import ember.nn.functional as F
    with pytest.warns(UserWarning, match="Implicit dimension choice") as w:
        getattr(F, name)(ember.ones(2, 3))
    assert w[0].filename == __file__
