"""nn.utils.prune against torch: the masks of the deterministic methods (l1, ln-structured, custom, global,
iterative containers), the reparameterisation (<name>_orig, <name>_mask, the pre-hook), remove, errors; the
random methods by the fraction they prune."""
import numpy as np
import pytest

import ember
import ember.nn.utils.prune  # noqa: F401  (not imported by ember.nn.utils, as torch's)

torch = pytest.importorskip("torch")
pytest.importorskip("torch.nn.utils.prune")

pytestmark = pytest.mark.parity


def _pair():
    w = np.random.default_rng(0).permutation(np.arange(1, 25)).reshape(4, 6) * 0.1   # no ties in |w|
    b = np.arange(4.0)
    em, tm = ember.nn.Linear(6, 4).double(), torch.nn.Linear(6, 4).double()
    with ember.no_grad():
        em.weight.copy_(ember.tensor(w))
        em.bias.copy_(ember.tensor(b))
    with torch.no_grad():
        tm.weight.copy_(torch.tensor(w))
        tm.bias.copy_(torch.tensor(b))
    return em, tm


def _same(em, tm, name="weight"):
    np.testing.assert_array_equal(getattr(em, name + "_mask").numpy(), getattr(tm, name + "_mask").numpy())
    np.testing.assert_allclose(getattr(em, name).detach().numpy(), getattr(tm, name).detach().numpy())
    assert sorted(n for n, _ in em.named_parameters()) == sorted(n for n, _ in tm.named_parameters())
    assert sorted(n for n, _ in em.named_buffers()) == sorted(n for n, _ in tm.named_buffers())


@pytest.mark.parametrize("steps", [
    [("l1_unstructured", {"amount": 0.3})],
    [("l1_unstructured", {"amount": 5})],
    [("ln_structured", {"amount": 0.5, "n": 2, "dim": 0})],
    [("ln_structured", {"amount": 2, "n": 1, "dim": 1})],
    [("l1_unstructured", {"amount": 0.25}), ("ln_structured", {"amount": 1, "n": 2, "dim": 0}),
     ("l1_unstructured", {"amount": 3})],
    [("identity", {})],
], ids=["l1-frac", "l1-int", "ln-dim0", "ln-dim1", "iterative", "identity"])
def test_masks(steps):
    em, tm = _pair()
    for fn, kw in steps:
        getattr(ember.nn.utils.prune, fn)(em, "weight", **kw)
        getattr(torch.nn.utils.prune, fn)(tm, "weight", **kw)
        _same(em, tm)
    assert ember.nn.utils.prune.is_pruned(em)
    x = np.random.default_rng(1).standard_normal((3, 6))
    ex, tx = ember.tensor(x), torch.tensor(x)
    ey, ty = em(ex), tm(tx)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy())
    ey.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(em.weight_orig.grad.numpy(), tm.weight_orig.grad.numpy())
    ember.nn.utils.prune.remove(em, "weight")
    torch.nn.utils.prune.remove(tm, "weight")
    assert isinstance(em.weight, ember.nn.Parameter) and not ember.nn.utils.prune.is_pruned(em)
    np.testing.assert_allclose(em.weight.detach().numpy(), tm.weight.detach().numpy())


def test_custom_and_global():
    em, tm = _pair()
    mask = (np.arange(4) % 2).astype(np.float64)
    ember.nn.utils.prune.custom_from_mask(em, "bias", ember.tensor(mask))
    torch.nn.utils.prune.custom_from_mask(tm, "bias", torch.tensor(mask))
    _same(em, tm, "bias")
    e2, t2 = _pair()
    ember.nn.utils.prune.global_unstructured([(em, "weight"), (e2, "weight"), (em, "bias")],
                                             pruning_method=ember.nn.utils.prune.L1Unstructured, amount=0.4)
    torch.nn.utils.prune.global_unstructured([(tm, "weight"), (t2, "weight"), (tm, "bias")],
                                             pruning_method=torch.nn.utils.prune.L1Unstructured, amount=0.4)
    _same(em, tm)
    _same(e2, t2)
    _same(em, tm, "bias")


def test_random_methods_prune_the_right_amount():
    em, _ = _pair()
    ember.manual_seed(0)
    ember.nn.utils.prune.random_unstructured(em, "weight", amount=0.5)
    assert int((em.weight_mask == 0).sum()) == 12
    e2, _ = _pair()
    ember.nn.utils.prune.random_structured(e2, "weight", amount=2, dim=1)
    cols = (e2.weight_mask.sum(0) == 0)
    assert int(cols.sum()) == 2 and bool(((e2.weight_mask.sum(0) == 0) | (e2.weight_mask.sum(0) == 4)).all())


@pytest.mark.parametrize("call", [
    lambda m, p: p.l1_unstructured(m, "weight", amount=1.5),
    lambda m, p: p.l1_unstructured(m, "weight", amount=-1),
    lambda m, p: p.l1_unstructured(m, "weight", amount=100),
    lambda m, p: p.ln_structured(m, "bias", amount=1, n=2, dim=0),
    lambda m, p: p.ln_structured(m, "weight", amount=1, n=2, dim=3),
    lambda m, p: p.remove(m, "weight"),
    lambda m, p: p.l1_unstructured(m, "weight", amount="a"),
], ids=["frac", "negative", "too-many", "structured-1d", "bad-dim", "remove-unpruned", "type"])
def test_errors(call):
    em, tm = _pair()
    with pytest.raises(Exception) as te:
        call(tm, torch.nn.utils.prune)
    with pytest.raises(type(te.value)) as ee:
        call(em, ember.nn.utils.prune)
    assert str(ee.value).replace("ember.", "torch.") == str(te.value)
    # a failed pruning leaves the module as it was
    assert "weight" in dict(em.named_parameters()) or "weight_orig" in dict(em.named_parameters())
