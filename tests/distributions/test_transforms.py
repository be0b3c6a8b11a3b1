"""The transforms of torch.distributions.transforms and the biject_to / transform_to registries against torch:
forward and inverse values, log |det J|, shapes, domains and codomains, and gradients through them."""
import numpy as np
import pytest

import ember

from ._parity_checks import close

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity

RNG = np.random.default_rng(7)


def _transforms(T):
    tr = T.distributions.transforms
    normal = T.distributions.Normal(T.tensor(0.5, dtype=T.float64), T.tensor(2.0, dtype=T.float64))
    return {
        "abs": (tr.AbsTransform(), (4, 3)),
        "softplus": (tr.SoftplusTransform(), (4, 3)),
        "softmax": (tr.SoftmaxTransform(), (4, 3)),
        "stick-breaking": (tr.StickBreakingTransform(), (4, 3)),
        "lower-cholesky": (tr.LowerCholeskyTransform(), (2, 3, 3)),
        "positive-definite": (tr.PositiveDefiniteTransform(), (2, 3, 3)),
        "corr-cholesky": (tr.CorrCholeskyTransform(), (2, 6)),
        "reshape": (tr.ReshapeTransform((2, 3), (3, 2)), (4, 2, 3)),
        "independent": (tr.IndependentTransform(tr.SoftplusTransform(), 1), (4, 3)),
        "independent-2": (tr.IndependentTransform(tr.ExpTransform(), 2), (2, 4, 3)),
        "cat": (tr.CatTransform([tr.ExpTransform(), tr.SoftplusTransform(), tr.identity_transform], dim=1,
                                lengths=[1, 2, 1]), (3, 4)),
        "cat-event": (tr.CatTransform([tr.IndependentTransform(tr.ExpTransform(), 1),
                                       tr.IndependentTransform(tr.SoftplusTransform(), 1)], dim=-1, lengths=[2, 3]),
                      (4, 5)),
        "stack": (tr.StackTransform([tr.ExpTransform(), tr.SigmoidTransform(), tr.SoftplusTransform()], dim=1),
                  (4, 3)),
        "cdf": (tr.CumulativeDistributionTransform(normal), (4, 3)),
    }


NAMES = list(_transforms(ember))


@pytest.mark.parametrize("name", NAMES)
def test_transform_matches_torch(name):
    et, shape = _transforms(ember)[name]
    tt, _ = _transforms(torch)[name]
    x = RNG.standard_normal(shape)
    ex, tx = ember.tensor(x), torch.tensor(x)
    ey, ty = et(ex), tt(tx)
    close(ey, ty)
    assert et.bijective == tt.bijective
    assert repr(et.domain) == repr(tt.domain) and repr(et.codomain) == repr(tt.codomain)
    assert et.domain.event_dim == tt.domain.event_dim and et.codomain.event_dim == tt.codomain.event_dim
    assert tuple(et.forward_shape(ember.Size(shape))) == tuple(tt.forward_shape(torch.Size(shape)))
    assert tuple(et.inverse_shape(ember.Size(ty.shape))) == tuple(tt.inverse_shape(torch.Size(ty.shape)))
    assert bool(et.codomain.check(ey).all()) == bool(tt.codomain.check(ty).all())
    close(et.inv(ey), tt.inv(ty), 1e-5)
    if name not in ("abs", "softmax", "lower-cholesky", "positive-definite"):     # torch leaves these undefined
        close(et.log_abs_det_jacobian(ex, ey), tt.log_abs_det_jacobian(tx, ty), 1e-6)
    else:
        with pytest.raises(NotImplementedError):
            tt.log_abs_det_jacobian(tx, ty)
        with pytest.raises(NotImplementedError):
            et.log_abs_det_jacobian(ex, ey)


@pytest.mark.parametrize("name", ["softplus", "stick-breaking", "corr-cholesky", "cat", "stack", "cdf"])
def test_gradients_through_transform_match_torch(name):
    et, shape = _transforms(ember)[name]
    tt, _ = _transforms(torch)[name]
    x = RNG.standard_normal(shape)
    ex, tx = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ey, ty = et(ex), tt(tx)
    w = RNG.standard_normal(tuple(ty.shape))
    ((ey * ember.tensor(w)).sum() + et.log_abs_det_jacobian(ex, ey).sum()).backward()
    ((ty * torch.tensor(w)).sum() + tt.log_abs_det_jacobian(tx, ty).sum()).backward()
    close(ex.grad, tx.grad, 1e-6)


def test_reshape_and_corr_cholesky_shape_errors():
    for mod in (torch, ember):
        tr = mod.distributions.transforms
        with pytest.raises(ValueError, match="different numbers of elements"):
            tr.ReshapeTransform((2, 3), (4,))
        with pytest.raises(ValueError, match="Shape mismatch"):
            tr.ReshapeTransform((2, 3), (6,)).forward_shape((4, 3, 2))
        with pytest.raises(ValueError, match="flattened lower-diagonal"):
            tr.CorrCholeskyTransform().forward_shape((4,))
        with pytest.raises(ValueError, match="not square"):
            tr.CorrCholeskyTransform().inverse_shape((3, 4))


def _constraints(C):
    return {
        "real": C.real, "positive": C.positive, "nonnegative": C.nonnegative, "greater_than": C.greater_than(2.0),
        "greater_than_eq": C.greater_than_eq(-1.0), "less_than": C.less_than(1.5), "unit": C.unit_interval,
        "interval": C.interval(-1.0, 3.0), "half_open": C.half_open_interval(0.0, 1.0), "simplex": C.simplex,
        "real_vector": C.real_vector, "corr_cholesky": C.corr_cholesky, "lower_cholesky": C.lower_cholesky,
        "positive_definite": C.positive_definite, "positive_semidefinite": C.positive_semidefinite,
        "independent_positive": C.independent(C.positive, 1),
        "cat": C.cat([C.positive, C.interval(0.0, 2.0)], dim=-1, lengths=[2, 2]),
        "stack": C.stack([C.positive, C.real, C.unit_interval], dim=-1),
    }


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", list(_constraints(ember.distributions.constraints)))
def test_constraint_registries_match_torch(registry, name):
    ec = _constraints(ember.distributions.constraints)[name]
    tc = _constraints(torch.distributions.constraints)[name]
    ereg, treg = getattr(ember.distributions, registry), getattr(torch.distributions, registry)
    try:
        tt = treg(tc)
    except NotImplementedError as exc:
        with pytest.raises(NotImplementedError) as ee:
            ereg(ec)
        assert str(ee.value) == str(exc)
        return
    et = ereg(ec)
    assert repr(et) == repr(tt) and et.bijective == tt.bijective
    shape = (4, 3, 3) if tc.event_dim == 2 else (4, 3) if name == "stack" else (4, 4)
    shape = tuple(tt.inverse_shape(torch.Size(shape)))
    x = RNG.standard_normal(shape)
    ey, ty = et(ember.tensor(x)), tt(torch.tensor(x))
    close(ey, ty, 1e-6)
    assert bool(ec.check(ey).all()) and bool(tc.check(ty).all())
    assert repr(ec) == repr(tc)


def test_registering_a_new_constraint():
    C = ember.distributions.constraints

    class _Odd(C.Constraint):
        def check(self, value):
            return value % 2 == 1

    registry = ember.distributions.constraint_registry.ConstraintRegistry()
    registry.register(_Odd, lambda c: ember.distributions.transforms.AffineTransform(1.0, 2.0))
    assert isinstance(registry(_Odd()), ember.distributions.transforms.AffineTransform)
    with pytest.raises(NotImplementedError, match="Cannot transform _Real constraints"):
        registry(C.real)


@pytest.mark.parametrize("name", ["square", "symmetric", "positive_semidefinite", "positive_definite",
                                  "lower_triangular", "lower_cholesky", "corr_cholesky"])
def test_matrix_constraints_match_torch(name):
    a = RNG.standard_normal((3, 3))
    mats = np.stack([a, a + a.T, a @ a.T + np.eye(3), -(a @ a.T) - np.eye(3), np.tril(a), np.eye(3),
                     np.linalg.cholesky(np.corrcoef(RNG.standard_normal((3, 10))))])
    ec, tc = getattr(ember.distributions.constraints, name), getattr(torch.distributions.constraints, name)
    np.testing.assert_array_equal(ec.check(ember.tensor(mats)).numpy(), tc.check(torch.tensor(mats)).numpy())
    assert ec.event_dim == tc.event_dim
