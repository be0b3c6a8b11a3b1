"""OpInfo entries of the dropouts (torch's common_methods_invocations.py op_db, this family's part)."""

from ._common import A, N_STAT, S, _RAND, _info


def _dropout(**kw):
    return lambda dt: [S(A((3, 4), dt), 0.3, **kw), S(A((2, 3, 4), dt, seed=1), **kw), S(A((0, 3), dt), 0.2, **kw)]


def _dropout_deterministic(dt):
    """p=0 or eval mode: the identity (value parity and gradcheck as for any op)."""
    return [S(A((3, 4), dt), 0.0), S(A((2, 3, 4), dt), 0.5, training=False), S(A((2, 3, 4), dt), 0.5, False, True)]


def _feature_dropout_deterministic(dt):
    """p=0 or eval mode of a channel dropout: the identity."""
    return [S(A((2, 4, 3), dt), 0.0, True), S(A((2, 3, 4), dt), 0.5), S(A((3, 2, 2, 2), dt), 0.5, False, True)]


def _dropout_stat(p, shape=(N_STAT, 3), **kw):
    return lambda op, dt: [S(A(shape, dt, 0.5, 2.0), p, **kw)]


def _channel_dropout(n_spatial):
    def f(dt):
        return [S(A((2, 4) + (3,) * n_spatial, dt), 0.4), S(A((4,) + (3,) * n_spatial, dt, seed=1))]
    return f


op_db = [
    _info("nn.functional.dropout", _dropout(), stat_inputs_func=_dropout_stat(0.3), **_RAND),
    _info("nn.functional.alpha_dropout", _dropout(training=True), stat_inputs_func=_dropout_stat(0.4, training=True),
          **_RAND),
    _info("nn.functional.dropout", _dropout_deterministic, aten_name="dropout"),
    _info("nn.functional.feature_alpha_dropout", _feature_dropout_deterministic, aten_name="feature_alpha_dropout"),
    _info("nn.functional.dropout1d", _channel_dropout(1), aten_name="feature_dropout",
          stat_inputs_func=_dropout_stat(0.3, (N_STAT // 4, 2, 4)),
          **_RAND),
    _info("nn.functional.dropout2d", _channel_dropout(2), aten_name="feature_dropout",
          stat_inputs_func=_dropout_stat(0.3, (N_STAT // 4, 2, 2, 2)),
          **_RAND),
]
