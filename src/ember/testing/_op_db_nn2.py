"""OpInfo entries for the rest of issue 3's nn ops (paddings, 1-d/3-d convs and pools, adaptive max pools,
unpooling, interpolation, grid_sample, bags, norms, distances, the remaining losses, svd/eigh) and the
random ops. Samples are small (float64 ones mostly <= 64 elements, so gradcheck takes them), cover
batch-less forms where torch allows them and the option variants torch's docs name."""
import numpy as np

from ._opinfo import OpInfo, SampleInput
from ._samples import make

F = ("float32", "float64")
I64 = ("int64",)


def S(x, *args, **kw):
    return SampleInput(x, args, kw)


def _info(name, samples, dtypes=F, **kw):
    """name: ember path ("nn.functional.pad"); torch's path is the same unless torch_name says otherwise."""
    def f(op, dt):
        out = samples(dt)
        for i, s in enumerate(out):
            s.name = s.name or str(i)
        return out
    kw.setdefault("method_variant", False)
    kw.setdefault("aten_name", name.split(".")[-1])
    return OpInfo(name, f, dtypes=dtypes, **kw)


def A(shape, dt, lo=-3.0, hi=3.0, seed=0):
    return make(shape, dt, lo, hi, seed=seed)


def idx(shape, high, seed=0, low=0):
    return np.asarray(np.random.default_rng(seed).integers(low, high, shape), dtype=np.int64)


def logp(shape, dt, dim=-1, seed=0):
    a = A(shape, dt, seed=seed).astype(np.float64)
    return (a - np.log(np.exp(a).sum(dim, keepdims=True))).astype(dt)


def probs(shape, dt, dim=-1, seed=0):
    return np.exp(logp(shape, dt, dim, seed)).astype(dt)


def sign(shape, dt, seed=0):
    return np.where(np.random.default_rng(seed).random(shape) < 0.5, -1.0, 1.0).astype(dt)


def binary01(shape, dt, seed=0):
    return (np.random.default_rng(seed).random(shape) < 0.5).astype(dt)


# ------------------------------------------------------------------ activations, padding, shuffles
def _unary(dt):
    return [S(A(s, dt, seed=i)) for i, s in enumerate([(), (5,), (3, 4), (0, 2)])]


def _pad(dt):
    return [S(A((2, 3, 4), dt), (1, 2)), S(A((3, 4), dt), (2, 1, -1, 1), value=1.5),
            S(A((2, 2, 4), dt, seed=1), (2, 3), mode="reflect"), S(A((2, 3, 3), dt, seed=2), (1, 1, 2, 0), mode="reflect")]


def _pad2(dt):
    return [S(A((2, 3, 4), dt), (2, 1), mode="replicate"), S(A((1, 2, 3, 3), dt), (1, 0, 2, 1), mode="replicate"),
            S(A((2, 2, 4), dt, seed=1), (1, 2), mode="circular"), S(A((2, 3, 3), dt, seed=2), (1, 1, 2, 0), mode="circular")]


def _pixel_unshuffle(dt):
    return [S(A((1, 2, 4, 6), dt), 2), S(A((2, 6, 3), dt), 3)]


def _one_hot(dt):
    return [S(idx((5,), 4), 6), S(idx((2, 3), 5, 1), 5), S(idx((0,), 3), 3)]


def _unique(dt):
    x = np.array([3, 1, 2, 3, 1, 5, 2, 3], dtype=dt)
    m = np.array([[1, 2], [0, 1], [1, 2], [0, 0]], dtype=dt)
    return [S(x), S(x, return_inverse=True, return_counts=True), S(m, sorted=True, return_inverse=True, dim=0),
            S(m.T.copy(), return_counts=True, dim=1)]


# ------------------------------------------------------------------ linear, convs, pools
def _bilinear(dt):
    return [S(A((4, 3), dt), A((4, 2), dt, seed=1), A((2, 3, 2), dt, seed=2), A((2,), dt, seed=3)),
            S(A((2, 2, 3), dt), A((2, 2, 2), dt, seed=1), A((3, 3, 2), dt, seed=2))]


def _conv3d(dt):
    return [S(A((1, 2, 4, 4, 3), dt), A((3, 2, 2, 2, 2), dt, seed=1), A((3,), dt, seed=2), stride=2, padding=1),
            S(A((2, 3, 3, 3), dt), A((2, 1, 2, 2, 1), dt, seed=1), groups=2, padding="same", dilation=(1, 2, 1))]


def _conv_t1d(dt):
    return [S(A((2, 3, 5), dt), A((3, 2, 3), dt, seed=1), A((2,), dt, seed=2), stride=2, padding=1, output_padding=1),
            S(A((4, 4), dt), A((4, 1, 2), dt, seed=1), groups=2, dilation=2),
            S(A((1, 2, 4), dt), A((2, 3, 2), dt, seed=1), stride=3, padding=2)]


def _pool1d(dt):
    return [S(A((2, 3, 9), dt), 3, 2, 1), S(A((3, 8), dt), 2, ceil_mode=True),
            S(A((2, 2, 7), dt, seed=1), 3, 2, 1, ceil_mode=True, count_include_pad=False)]


def _max_pool1d(dt):
    return [S(A((2, 3, 9), dt), 3, 2, 1), S(A((3, 8), dt), 2, ceil_mode=True, dilation=2),
            S(A((2, 2, 7), dt, seed=1), 3, 2, 1, return_indices=True)]


def _adaptive1d(dt, indices=False):
    extra = {"return_indices": True} if indices else {}
    return [S(A((2, 3, 9), dt), 4), S(A((3, 7), dt), 3, **extra), S(A((1, 2, 5), dt), 5)]


def _adaptive_max2d(dt):
    return [S(A((2, 3, 7, 6), dt), (3, 4)), S(A((3, 5, 5), dt), 2, return_indices=True),
            S(A((1, 2, 4, 5), dt), (None, 2))]


def _unpool_indices(n, c, h, w, k, seed=0):
    """For an (n, c, h, w) pooled map of kernel=stride=k: one flat index per window, inside the window."""
    rng = np.random.default_rng(seed)
    oi, oj = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    di, dj = rng.integers(0, k, (n, c, h, w)), rng.integers(0, k, (n, c, h, w))
    return ((oi * k + di) * (w * k) + oj * k + dj).astype(np.int64)


def _max_unpool2d(dt):
    return [S(A((1, 2, 2, 3), dt), _unpool_indices(1, 2, 2, 3, 2), 2),
            S(A((2, 2, 2), dt), _unpool_indices(1, 2, 2, 2, 2, 1)[0], 2, output_size=(5, 5))]


def _interpolate(dt):
    return [S(A((1, 2, 3, 4), dt), size=(5, 7)), S(A((2, 1, 3, 3), dt), scale_factor=2, mode="bilinear"),
            S(A((1, 2, 4, 3), dt), size=(6, 5), mode="bilinear", align_corners=True),
            S(A((1, 1, 4, 4), dt), scale_factor=1.5, mode="bicubic")]


def _interpolate2(dt):
    return [S(A((2, 3, 4), dt), size=7, mode="linear"), S(A((1, 2, 3, 4), dt), size=(5, 2), mode="bicubic",
                                                                align_corners=True),
            S(A((2, 3, 5), dt), scale_factor=0.5), S(A((1, 1, 3, 4), dt), size=(6, 9), mode="nearest-exact")]


def _grid_sample(dt):
    g = lambda s, seed: A(s, dt, -1.1, 1.1, seed=seed)  # noqa: E731
    return [S(A((1, 2, 4, 5), dt), g((1, 3, 2, 2), 1), align_corners=False),
            S(A((1, 1, 4, 4), dt), g((1, 2, 3, 2), 2), padding_mode="border", align_corners=True),
            S(A((2, 1, 3, 3), dt), g((2, 2, 2, 2), 3), padding_mode="reflection", align_corners=False),
            S(A((1, 2, 3, 4), dt), g((1, 2, 2, 2), 4), mode="nearest", align_corners=False)]


# ------------------------------------------------------------------ embeddings, norms, distances
def _embedding_bag(dt):
    w = A((6, 3), dt)
    return [S(idx((2, 4), 6), w), S(idx((7,), 6, 1), w, np.array([0, 2, 2, 5]), mode="sum"),
            S(idx((2, 3), 6, 2), w, mode="max"),
            S(idx((5,), 6, 3), w, np.array([0, 3]), mode="sum", per_sample_weights=A((5,), dt, seed=4))]


def _batch_norm(dt):
    rm, rv = A((3,), dt, seed=5), A((3,), dt, 0.5, 2.0, seed=6)
    return [S(A((4, 3), dt), None, None, A((3,), dt, seed=1), A((3,), dt, seed=2), training=True),
            S(A((2, 3, 5), dt), rm, rv, A((3,), dt, seed=1), A((3,), dt, seed=2)),
            S(A((2, 3, 2, 3), dt), rm, rv, training=True, momentum=0.2, eps=1e-3),
            S(A((2, 3, 4), dt, seed=3), rm, rv, None, A((3,), dt, seed=2), training=False)]


def _instance_norm(dt):
    return [S(A((2, 3, 5), dt)), S(A((2, 3, 3, 3), dt), weight=A((3,), dt, seed=1), bias=A((3,), dt, seed=2)),
            S(A((2, 3, 4), dt, seed=3), A((3,), dt, seed=5), A((3,), dt, 0.5, 2.0, seed=6), momentum=0.3),
            S(A((2, 3, 4), dt, seed=3), A((3,), dt, seed=5), A((3,), dt, 0.5, 2.0, seed=6), use_input_stats=False)]


def _cdist(dt):
    return [S(A((4, 3), dt), A((5, 3), dt, seed=1)), S(A((2, 3, 2), dt), A((2, 4, 2), dt, seed=1), p=1.0),
            S(A((3, 4), dt), A((2, 4), dt, seed=1), p=float("inf")), S(A((3, 2), dt), A((4, 2), dt, seed=1), p=3.0)]


# ------------------------------------------------------------------ losses
def _nll(dt):
    return [S(logp((4, 5), dt), idx((4,), 5)), S(logp((4, 5), dt, seed=1), idx((4,), 5, 1), A((5,), dt, 0.2, 2.0),
                                                  ignore_index=1),
            S(logp((2, 5, 3), dt, 1), idx((2, 3), 5), reduction="none"), S(logp((5,), dt), np.array(2), reduction="sum")]


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


# ------------------------------------------------------------------ small variants of op_db_nn's ops
# (small enough for gradcheck, and the options op_db_nn's samples leave out)
def _linear(dt):
    return [S(A((3,), dt), A((4, 3), dt, seed=1), A((4,), dt, seed=2)), S(A((2, 2, 3), dt), A((2, 3), dt, seed=1)),
            S(A((0, 3), dt), A((2, 3), dt, seed=1), A((2,), dt, seed=2))]


def _conv1d(dt):
    return [S(A((1, 4, 6), dt), A((2, 2, 3), dt, seed=1), A((2,), dt, seed=2), groups=2, dilation=2),
            S(A((2, 5), dt), A((3, 2, 2), dt, seed=1), padding="valid", stride=2),
            S(A((1, 2, 5), dt), A((2, 2, 4), dt, seed=1), padding="same")]


def _conv2d(dt):
    return [S(A((1, 2, 4, 4), dt), A((2, 2, 2, 2), dt, seed=1), A((2,), dt, seed=2), stride=2, padding=1),
            S(A((2, 3, 4), dt), A((4, 1, 2, 2), dt, seed=1), groups=2, padding="same", dilation=(1, 2)),
            S(A((1, 1, 5, 4), dt), A((2, 1, 3, 2), dt, seed=1), stride=(2, 1), padding=(1, 0))]


def _conv_t2d(dt):
    return [S(A((1, 2, 3, 3), dt), A((2, 3, 2, 2), dt, seed=1), A((3,), dt, seed=2), stride=2, padding=1, output_padding=1),
            S(A((2, 2, 3), dt), A((2, 1, 2, 2), dt, seed=1), groups=2, dilation=2),
            S(A((1, 1, 2, 3), dt), A((1, 2, 3, 2), dt, seed=1), stride=(1, 2), padding=(1, 0))]


def _max_pool2d(dt):
    return [S(A((1, 2, 4, 4), dt), 2), S(A((2, 5, 5), dt), 3, 2, 1, ceil_mode=True),
            S(A((1, 1, 5, 6), dt), (2, 3), dilation=(2, 1), return_indices=True)]


def _avg_pool2d(dt):
    return [S(A((1, 2, 4, 4), dt), 2, 1, 1, count_include_pad=False), S(A((2, 5, 5), dt), 3, 2, 1, ceil_mode=True),
            S(A((1, 1, 4, 5), dt), (2, 3), divisor_override=4)]


def _adaptive_avg2d(dt):
    return [S(A((1, 2, 5, 4), dt), (2, 3)), S(A((2, 3, 5), dt), (None, 2)), S(A((1, 1, 3, 3), dt), 5)]


def _norms(dt):
    return [S(A((2, 3, 4), dt), [3, 4], A((3, 4), dt, seed=1), A((3, 4), dt, seed=2), eps=1e-3), S(A((4,), dt), (4,))]


def _group_norm(dt):
    return [S(A((2, 4, 3), dt), 2, A((4,), dt, seed=1), A((4,), dt, seed=2)), S(A((1, 6, 2, 2), dt), 6, eps=1e-3)]


def _rms_norm(dt):
    return [S(A((2, 3, 4), dt), [3, 4], A((3, 4), dt, seed=1)), S(A((5,), dt), (5,), eps=1e-2)]


def _embedding(dt):
    return [S(idx((2, 3), 5), A((5, 3), dt)), S(idx((4,), 5, 1), A((5, 2), dt), padding_idx=1), S(np.array(2), A((4, 3), dt))]


def _softmax(dt):
    return [S(A((3, 4), dt), 0), S(A((2, 3, 2), dt), -1, dtype=None), S(A((4,), dt), 0)]


def _pointwise_losses(dt):
    return [S(A((3, 4), dt), A((3, 4), dt, seed=1), reduction="none"), S(A((5,), dt), A((5,), dt, seed=1), reduction="sum"),
            S(A((2, 3), dt), A((3,), dt, seed=1))]


def _smooth_l1(dt):
    return _pointwise_losses(dt) + [S(A((3, 4), dt), A((3, 4), dt, seed=1), beta=0.0)]


def _pixel_shuffle(dt):
    return [S(A((1, 8, 2, 2), dt), 2), S(A((9, 2, 1), dt), 3)]


def _pairwise(dt):
    return [S(A((4, 5), dt), A((4, 5), dt, seed=1), p=1.0, keepdim=True), S(A((5,), dt), A((5,), dt, seed=1)),
            S(A((3, 4), dt), A((4,), dt, seed=1), p=3.0, eps=1e-3)]


def _cosine_similarity(dt):
    return [S(A((4, 5), dt), A((4, 5), dt, seed=1), dim=0), S(A((5,), dt), A((5,), dt, seed=1), dim=0),
            S(A((2, 3, 4), dt), A((3, 1), dt, seed=1), eps=1e-3)]


def _sdpa(dt):
    q, k, v = A((1, 3, 4), dt), A((1, 5, 4), dt, seed=1), A((1, 5, 2), dt, seed=2)
    mask = np.random.default_rng(0).random((3, 5)) < 0.7
    mask[:, 0] = True
    return [S(q, k, v, attn_mask=mask), S(q, k, v, attn_mask=A((3, 5), dt, seed=3), scale=0.3),
            S(A((2, 4), dt), A((3, 4), dt, seed=1), A((3, 2), dt, seed=2))]


# ------------------------------------------------------------------ linalg with sign-ambiguous vectors
def _spd(shape, dt, seed=0):
    a = make(shape, "float64", seed=seed)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dt)


def _fix_signs(vectors, rows=None):
    """Flip each column of `vectors` (and the matching row of `rows`) so its largest-|.| entry is positive."""
    k = min(vectors.shape[-1], rows.shape[-2]) if rows is not None else vectors.shape[-1]
    cols = vectors[..., :k]
    pick = np.take_along_axis(cols, np.abs(cols).argmax(-2)[..., None, :], -2)
    s = np.where(pick < 0, -1.0, 1.0).astype(vectors.dtype)
    vectors = vectors.copy()
    vectors[..., :k] *= s
    if rows is None:
        return vectors
    rows = rows.copy()
    rows[..., :k, :] *= np.swapaxes(s, -1, -2)
    return vectors, rows


def _svd_canonical(outs):
    u, s, vh = outs
    u, vh = _fix_signs(u, vh)
    return [u, s, vh]


def _eigh_canonical(outs):
    w, v = outs
    return [w, _fix_signs(v)]


def _svd(dt):
    return [S(make((3, 3), dt)), S(make((4, 3), dt, seed=1)), S(make((2, 3, 5), dt, seed=2), full_matrices=False),
            S(make((4, 2), dt, seed=3), full_matrices=False)]


def _eigh(dt):
    return [S(_spd((3, 3), dt)), S(_spd((2, 4, 4), dt, 1), "U")]


# ------------------------------------------------------------------ random ops
N_STAT = 40_000


def _tile(row, dt, n=N_STAT):
    return np.ascontiguousarray(np.broadcast_to(np.asarray(row, dtype=dt), (n, len(row))))


def _normal(dt):
    return [S(A((3, 4), dt), 0.5), S(2.0, A((4,), dt, 0.5, 2.0, seed=1)),
            S(A((2, 3), dt), A((2, 3), dt, 0.5, 2.0, seed=1)), S(0.0, 2.0, (3, 4))]


def _normal_stat(dt):
    return [S(_tile([0.0, 10.0, -5.0], dt), 0.5), S(1.0, _tile([0.5, 3.0], dt)), S(-1.0, 2.0, (N_STAT, 1))]


def _fill_inplace(*args, **kw):
    return lambda dt: [S(A((3, 4), dt), *args, **kw), S(A((2, 3, 2), dt), *args, **kw), S(A((0, 3), dt), *args, **kw)]


def _fill_stat(*args, **kw):
    return lambda op, dt: [S(np.zeros((N_STAT, 2), dt), *args, **kw)]


def _bernoulli(dt):
    return [S(A((3, 4), dt, 0.0, 1.0)), S(A((2, 3, 2), dt, 0.0, 1.0, seed=1)), S(A((0, 2), dt, 0.0, 1.0))]


def _bernoulli_p(dt):      # bernoulli.p has no out= overload (in torch neither)
    return [S(A((2, 5), dt, 0.0, 1.0, seed=1), 0.3), S(A((3, 4), dt, 0.0, 1.0), 0.8)]


def _multinomial(dt):
    return [S(A((6,), dt, 0.1, 1.0), 4), S(A((3, 5), dt, 0.1, 1.0), 7, True), S(A((2, 6), dt, 0.0, 1.0, seed=1), 6)]


def _multinomial_stat(op, dt):
    return [S(_tile([0.2, 0.0, 0.8, 1.0], dt), 1), S(_tile([1.0, 2.0, 3.0, 4.0], dt, 20_000), 3)]


def _dropout(**kw):
    return lambda dt: [S(A((3, 4), dt), 0.3, **kw), S(A((2, 3, 4), dt, seed=1), **kw), S(A((0, 3), dt), 0.2, **kw)]


def _dropout_deterministic(dt):
    """p=0 or eval mode: the identity (value parity and gradcheck as for any op)."""
    return [S(A((3, 4), dt), 0.0), S(A((2, 3, 4), dt), 0.5, training=False), S(A((2, 3, 4), dt), 0.5, False, True)]


def _dropout_stat(p, shape=(N_STAT, 3), **kw):
    return lambda op, dt: [S(A(shape, dt, 0.5, 2.0), p, **kw)]


def _channel_dropout(n_spatial):
    def f(dt):
        return [S(A((2, 4) + (3,) * n_spatial, dt), 0.4), S(A((4,) + (3,) * n_spatial, dt, seed=1))]
    return f


_RAND = dict(randomness=True, method_variant=False, check_strides=True)

op_db_random = [
    _info("normal", _normal, supports_out=True, supports_generator=True, stat_inputs_func=lambda op, dt: _normal_stat(dt),
          **_RAND),
    _info("Tensor.uniform_", _fill_inplace(-1.0, 2.0), torch_name="Tensor.uniform_", aten_name="uniform_",
          supports_generator=True, stat_inputs_func=_fill_stat(-1.0, 2.0), **_RAND),
    _info("Tensor.normal_", _fill_inplace(1.0, 3.0), torch_name="Tensor.normal_", aten_name="normal_",
          supports_generator=True, stat_inputs_func=_fill_stat(1.0, 3.0), **_RAND),
    _info("Tensor.exponential_", _fill_inplace(2.0), torch_name="Tensor.exponential_", aten_name="exponential_",
          supports_generator=True, stat_inputs_func=_fill_stat(0.5), **_RAND),
    _info("bernoulli", _bernoulli, supports_out=True, supports_generator=True,
          stat_inputs_func=lambda op, dt: [S(_tile([0.1, 0.5, 0.9], dt))], **_RAND),
    _info("bernoulli", _bernoulli_p, supports_generator=True,
          stat_inputs_func=lambda op, dt: [S(np.zeros((N_STAT, 1), dt), 0.3)], **_RAND),
    _info("multinomial", _multinomial, supports_out=True, supports_generator=True, stat_inputs_func=_multinomial_stat,
          **_RAND),
    _info("nn.functional.dropout", _dropout(), stat_inputs_func=_dropout_stat(0.3), **_RAND),
    _info("nn.functional.alpha_dropout", _dropout(training=True), stat_inputs_func=_dropout_stat(0.4, training=True),
          **_RAND),
    _info("nn.functional.dropout", _dropout_deterministic, aten_name="dropout"),
    _info("nn.functional.dropout1d", _channel_dropout(1), aten_name="feature_dropout",
          stat_inputs_func=_dropout_stat(0.3, (N_STAT // 4, 2, 4)),
          **_RAND),
    _info("nn.functional.dropout2d", _channel_dropout(2), aten_name="feature_dropout",
          stat_inputs_func=_dropout_stat(0.3, (N_STAT // 4, 2, 2, 2)),
          **_RAND),
]

op_db_nn2 = [
    _info("nn.functional.logsigmoid", _unary, aten_name="log_sigmoid"),
    _info("nn.functional.softsign", _unary),
    _info("unique", _unique, dtypes=("float32", "int64"), supports_meta=False, method_variant=True, aten_name="_unique2"),
    _info("nn.functional.pad", _pad, aten_name="pad"),
    _info("nn.functional.pad", _pad2, aten_name="pad"),
    _info("nn.functional.pixel_unshuffle", _pixel_unshuffle),
    _info("nn.functional.one_hot", _one_hot, dtypes=I64),
    _info("nn.functional.one_hot", lambda dt: [S(idx((5,), 4)), S(idx((2, 3), 5, 1))], dtypes=I64,
          supports_meta=False),       # num_classes=-1: the class count comes from the data
    _info("nn.functional.bilinear", _bilinear, rtol=1e-5, atol=1e-5),
    _info("nn.functional.conv3d", _conv3d, rtol=1e-5, atol=1e-5),
    _info("nn.functional.conv_transpose1d", _conv_t1d, rtol=1e-5, atol=1e-5),
    _info("nn.functional.max_pool1d", _max_pool1d),
    _info("nn.functional.avg_pool1d", _pool1d),
    _info("nn.functional.adaptive_avg_pool1d", _adaptive1d),
    _info("nn.functional.adaptive_max_pool1d", lambda dt: _adaptive1d(dt, True)),
    _info("nn.functional.adaptive_max_pool2d", _adaptive_max2d),
    _info("nn.functional.max_unpool2d", _max_unpool2d),
    _info("nn.functional.interpolate", _interpolate, rtol=1e-5, atol=1e-5, aten_name="upsample_bilinear2d"),
    _info("nn.functional.interpolate", _interpolate2, rtol=1e-5, atol=1e-5, aten_name="upsample_bicubic2d"),
    _info("nn.functional.grid_sample", _grid_sample, rtol=1e-5, atol=1e-5, aten_name="grid_sampler_2d"),
    _info("nn.functional.embedding_bag", _embedding_bag, aten_name="_embedding_bag"),
    _info("nn.functional.batch_norm", _batch_norm, rtol=1e-5, atol=1e-5),
    _info("nn.functional.instance_norm", _instance_norm, rtol=1e-5, atol=1e-5),
    _info("cdist", _cdist, rtol=1e-5, atol=1e-5),
    _info("nn.functional.nll_loss", _nll, aten_name="nll_loss_nd"),
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
          supports_meta=False),        # like torch's, it reads var's values (any(var < 0)): no meta

    _info("nn.functional.multilabel_soft_margin_loss", _multilabel_soft_margin, rtol=1e-5, atol=1e-5),
    _info("nn.functional.linear", _linear, rtol=1e-5, atol=1e-5),
    _info("nn.functional.conv1d", _conv1d, rtol=1e-5, atol=1e-5),
    _info("nn.functional.conv2d", _conv2d, rtol=1e-5, atol=1e-5),
    _info("nn.functional.conv_transpose2d", _conv_t2d, rtol=1e-5, atol=1e-5),
    _info("nn.functional.max_pool2d", _max_pool2d),
    _info("nn.functional.avg_pool2d", _avg_pool2d),
    _info("nn.functional.adaptive_avg_pool2d", _adaptive_avg2d),
    _info("nn.functional.layer_norm", _norms, rtol=1e-5, atol=1e-5),
    _info("nn.functional.group_norm", _group_norm, rtol=1e-5, atol=1e-5),
    _info("nn.functional.rms_norm", _rms_norm, rtol=1e-5, atol=1e-5),
    _info("nn.functional.embedding", _embedding),
    _info("nn.functional.softmax", _softmax),
    _info("nn.functional.log_softmax", _softmax),
    _info("nn.functional.mse_loss", _pointwise_losses),
    _info("nn.functional.l1_loss", _pointwise_losses),
    _info("nn.functional.smooth_l1_loss", _smooth_l1),
    _info("nn.functional.pixel_shuffle", _pixel_shuffle),
    _info("nn.functional.pairwise_distance", _pairwise, rtol=1e-5, atol=1e-5),
    _info("nn.functional.cosine_similarity", _cosine_similarity, rtol=1e-5, atol=1e-5),
    _info("nn.functional.scaled_dot_product_attention", _sdpa, rtol=1e-5, atol=1e-5),
    _info("linalg.svd", _svd, output_func=_svd_canonical, supports_out=True, rtol=1e-4, atol=1e-4, aten_name="linalg_svd"),
    _info("linalg.eigh", _eigh, output_func=_eigh_canonical, supports_out=True, rtol=1e-4, atol=1e-4, aten_name="linalg_eigh"),
] + op_db_random
