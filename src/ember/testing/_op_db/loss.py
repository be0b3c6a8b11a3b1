"""OpInfo entries of the losses (torch's common_methods_invocations.py op_db, this family's part)."""
import numpy as np

from .._opinfo import OpInfo
from ._common import A, S, _info, _s, idx


def logp(shape, dt, dim=-1, seed=0):
    a = A(shape, dt, seed=seed).astype(np.float64)
    return (a - np.log(np.exp(a).sum(dim, keepdims=True))).astype(dt)


def probs(shape, dt, dim=-1, seed=0):
    return np.exp(logp(shape, dt, dim, seed)).astype(dt)


def sign(shape, dt, seed=0):
    return np.where(np.random.default_rng(seed).random(shape) < 0.5, -1.0, 1.0).astype(dt)


def binary01(shape, dt, seed=0):
    return (np.random.default_rng(seed).random(shape) < 0.5).astype(dt)


def _nll(dt):
    return [S(logp((4, 5), dt), idx((4,), 5)), S(logp((4, 5), dt, seed=1), idx((4,), 5, 1), A((5,), dt, 0.2, 2.0),
                                                  ignore_index=1),
            S(logp((2, 5, 3), dt, 1), idx((2, 3), 5), reduction="none"), S(logp((5,), dt), np.array(2), reduction="sum")]


def _aten_nll(dt):
    """torch._C._nn.nll_loss(self, target, weight, reduction, ignore_index): reduction as aten's int (0 none,
    1 mean, 2 sum)."""
    return [S(logp((4, 5), dt), idx((4,), 5)), S(logp((4, 5), dt, seed=1), idx((4,), 5, 1), A((5,), dt, 0.2, 2.0), 2, 1),
            S(logp((3, 5), dt, seed=2), idx((3,), 5, 2), None, 0), S(logp((5,), dt), np.array(2), None, 1, 2)]


def _cross_entropy(dt):
    return [S(A((4, 5), dt), idx((4,), 5), A((5,), dt, 0.2, 2.0), ignore_index=2, reduction="sum"),
            S(A((4, 5), dt), idx((4,), 5), label_smoothing=0.2),
            S(A((2, 5, 3), dt), probs((2, 5, 3), dt, 1), reduction="none"),
            S(A((5,), dt), probs((5,), dt, seed=1), A((5,), dt, 0.2, 2.0), label_smoothing=0.1)]


def _bce_logits(dt):
    t = lambda s, seed=0: A(s, dt, 0.0, 1.0, seed)  # noqa: E731
    return [S(A((3, 4), dt), t((3, 4)), pos_weight=A((4,), dt, 0.5, 2.0, seed=1)),
            S(A((3, 4), dt), t((3, 4)), A((3, 4), dt, 0.1, 1.0, seed=2), reduction="none"),
            S(A((5,), dt), t((5,)), pos_weight=A((5,), dt, 0.5, 2.0, seed=1), reduction="sum"),
            S(A((2, 3), dt), t((2, 3), 3), reduction="none")]


def _huber(dt):
    return [S(A((3, 4), dt), A((3, 4), dt, seed=1)), S(A((3, 4), dt), A((3, 4), dt, seed=1), delta=0.5, reduction="none"),
            S(A((5,), dt), A((5,), dt, seed=2), delta=2.0, reduction="sum")]


def _bce(dt):
    p = lambda s, seed=0: A(s, dt, 0.05, 0.95, seed)  # noqa: E731
    return [S(p((3, 4)), p((3, 4), 1)), S(p((3, 4)), binary01((3, 4), dt), A((3, 4), dt, 0.1, 2.0, seed=2), reduction="none"),
            S(p((5,)), p((5,), 3), reduction="sum")]


def _kl_div(dt):
    return [S(logp((3, 4), dt), probs((3, 4), dt, seed=1), reduction="batchmean"),
            S(logp((3, 4), dt), logp((3, 4), dt, seed=1), reduction="none", log_target=True),
            S(logp((2, 3), dt), probs((2, 3), dt, seed=1), reduction="sum")]


def _margin_ranking(dt):
    return [S(A((5,), dt), A((5,), dt, seed=1), sign((5,), dt)),
            S(A((4,), dt), A((4,), dt, seed=1), sign((4,), dt, 1), margin=0.5, reduction="none")]


def _hinge_embedding(dt):
    return [S(A((3, 4), dt), sign((3, 4), dt)), S(A((5,), dt), sign((5,), dt, 1), margin=0.5, reduction="sum")]


def _cosine_embedding(dt):
    return [S(A((4, 5), dt), A((4, 5), dt, seed=1), sign((4,), dt)),
            S(A((5,), dt), A((5,), dt, seed=1), np.asarray(-1.0, dt), margin=0.2),
            S(A((3, 4), dt), A((3, 4), dt, seed=2), sign((3,), dt, 1), margin=-0.3, reduction="none")]


def _triplet(dt):
    return [S(A((4, 5), dt), A((4, 5), dt, seed=1), A((4, 5), dt, seed=2)),
            S(A((5,), dt), A((5,), dt, seed=1), A((5,), dt, seed=2), margin=2.0, p=1),
            S(A((3, 4), dt), A((3, 4), dt, seed=1), A((3, 4), dt, seed=2), swap=True, reduction="none")]


def _ctc(dt):
    """Lengths as tensors (read by value: no meta) and, in _ctc_tuples, as int tuples."""
    lp = logp((6, 2, 4), dt)
    return [S(lp, idx((2, 3), 4, low=1), np.array([6, 5]), np.array([3, 2])),
            S(lp, idx((4,), 4, 1, low=1), np.array([6, 4]), np.array([3, 1]), reduction="sum"),
            S(logp((5, 3), dt, seed=2), idx((2,), 3, 2, low=1), np.array(5), np.array(2), blank=0, reduction="none"),
            S(lp, idx((2, 4), 4, 3, low=1), np.array([3, 6]), np.array([4, 3]), reduction="none", zero_infinity=True)]


def _ctc_tuples(dt):
    lp = logp((6, 2, 4), dt, seed=1)
    return [S(lp, idx((2, 3), 4, low=1), (6, 5), (3, 2)),
            S(lp, idx((2, 2), 4, 1, low=1), (4, 6), (2, 1), blank=1, reduction="none")]


def _poisson_nll(dt):
    counts = lambda s, seed=0: np.random.default_rng(seed).poisson(2.0, s).astype(dt)  # noqa: E731
    # full=True adds Stirling's term where target > 1: targets kept off that kink (and off 0) for gradcheck
    return [S(A((3, 4), dt, -1.0, 1.0), counts((3, 4))),
            S(A((3, 4), dt, 0.2, 3.0), A((3, 4), dt, 1.5, 4.0, seed=1), log_input=False, full=True, reduction="none"),
            S(A((5,), dt, -1.0, 1.0), A((5,), dt, 1.2, 5.0, seed=2), full=True, reduction="sum"),
            S(A((2, 3), dt, 0.2, 3.0), counts((2, 3), 3), log_input=False)]


def _gaussian_nll(dt):
    v = lambda s, seed: A(s, dt, 0.2, 2.0, seed)  # noqa: E731
    return [S(A((4, 3), dt), A((4, 3), dt, seed=1), v((4, 3), 2)),
            S(A((4, 3), dt), A((4, 3), dt, seed=1), v((4, 1), 3), full=True, reduction="none"),
            S(A((5,), dt), A((5,), dt, seed=1), v((5,), 4), reduction="sum", eps=1e-3)]


def _multilabel_soft_margin(dt):
    return [S(A((4, 5), dt), binary01((4, 5), dt)),
            S(A((3, 4), dt), binary01((3, 4), dt, 1), A((4,), dt, 0.2, 2.0, seed=2), reduction="none")]


def _pointwise_losses(dt):
    return [S(A((3, 4), dt), A((3, 4), dt, seed=1), reduction="none"), S(A((5,), dt), A((5,), dt, seed=1), reduction="sum"),
            S(A((2, 3), dt), A((3,), dt, seed=1))]


def _smooth_l1(dt):
    return _pointwise_losses(dt) + [S(A((3, 4), dt), A((3, 4), dt, seed=1), beta=0.0)]


op_db = [
    # the aten bindings (torch._C._nn.*, torch.*): `int reduction=Mean` reads as 0 (none) when omitted, so
    # each also has a sample with an explicit reduction (1 mean, 2 sum)
    OpInfo("_nn.mse_loss", _s(((3, 4), (("arr", (3, 4)),), {}), ((5,), (("arr", (5,)),), {}),
                              ((3, 4), (("arr", (3, 4)), 1), {})),
           torch_name="_C._nn.mse_loss"),
    OpInfo("_nn.l1_loss", _s(((3, 4), (("arr", (3, 4)),), {}), ((3, 4), (("arr", (3, 4)), 2), {})),
           torch_name="_C._nn.l1_loss"),
    OpInfo("_nn.smooth_l1_loss", _s(((3, 4), (("arr", (3, 4)),), {"beta": 0.5}),
                                    ((3, 4), (("arr", (3, 4)), 1), {"beta": 0.5})),
           torch_name="_C._nn.smooth_l1_loss"),
    OpInfo("binary_cross_entropy_with_logits", _s(((3, 4), (("arr", (3, 4), 0.0, 1.0),), {}),
                                                  ((3, 4), (("arr", (3, 4), 0.0, 1.0), None, None, 1), {}))),
    OpInfo("_nn.cross_entropy_loss", _s(((4, 5), (("idx", (4,), 5),), {}), ((4, 5), (("arr", (4, 5), 0.0, 1.0),), {}),
                                        ((4, 5), (("idx", (4,), 5), None, 1), {})),
           torch_name="_C._nn.cross_entropy_loss", rtol=1e-5, atol=1e-5),
    OpInfo("nn.functional.ctc_loss", _s(((5, 2, 4), (np.array([[1, 2], [3, 3]]), [5, 4], [2, 2]), {}),
                                        ((6, 2, 4), (np.array([1, 2, 2, 3]), [6, 5], [3, 1]), {"reduction": "sum"})),
           method_variant=False, aten_name="_ctc_loss", rtol=1e-5, atol=1e-6),
    OpInfo("_nn.multi_margin_loss", _s(((4, 5), (("idx", (4,), 5),), {}), ((4, 5), (("idx", (4,), 5), 2, 0.5), {}),
                                   ((6,), (("idx", (1,), 6),), {})),
           torch_name="_C._nn.multi_margin_loss", method_variant=False),
    OpInfo("_nn.multilabel_margin_loss", _s(((3, 4), (("idx", (3, 4), 4),), {}), ((5,), (("idx", (5,), 5),), {})),
           torch_name="_C._nn.multilabel_margin_loss", method_variant=False),
    _info("nn.functional.nll_loss", _nll, aten_name="nll_loss_nd"),
    _info("_nn.nll_loss", _aten_nll, torch_name="_C._nn.nll_loss"),
    _info("nn.functional.cross_entropy", _cross_entropy, rtol=1e-5, atol=1e-5, aten_name="cross_entropy_loss"),
    _info("nn.functional.binary_cross_entropy_with_logits", _bce_logits, rtol=1e-5, atol=1e-5),
    _info("nn.functional.huber_loss", _huber),
    _info("nn.functional.binary_cross_entropy", _bce),
    _info("nn.functional.kl_div", _kl_div),
    _info("nn.functional.margin_ranking_loss", _margin_ranking),
    _info("nn.functional.hinge_embedding_loss", _hinge_embedding),
    _info("nn.functional.cosine_embedding_loss", _cosine_embedding, rtol=1e-5, atol=1e-5),
    _info("nn.functional.triplet_margin_loss", _triplet, rtol=1e-5, atol=1e-5),
    _info("nn.functional.ctc_loss", _ctc, rtol=1e-5, atol=1e-5, supports_meta=False),
    _info("nn.functional.ctc_loss", _ctc_tuples, rtol=1e-5, atol=1e-5),
    _info("nn.functional.poisson_nll_loss", _poisson_nll, rtol=1e-5, atol=1e-5),
    _info("nn.functional.gaussian_nll_loss", _gaussian_nll, rtol=1e-5, atol=1e-5,
          supports_meta=False),  # like torch's, it reads var's values (any(var < 0)): no meta
    _info("nn.functional.multilabel_soft_margin_loss", _multilabel_soft_margin, rtol=1e-5, atol=1e-5),
    _info("nn.functional.mse_loss", _pointwise_losses),
    _info("nn.functional.l1_loss", _pointwise_losses),
    _info("nn.functional.smooth_l1_loss", _smooth_l1),
]
