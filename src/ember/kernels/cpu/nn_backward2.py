"""cpu _ctc_loss_backward (torch's LossCTC.cpp backward): the beta recursion in log space (vectorised over
batch and extended-label positions; the only loop is over time, run backwards), then per (t, b, class)
the log-sum of alpha * beta over the positions carrying that class, one bincount for all of them:

    grad[t, b, c] = (exp(lp[t,b,c]) - exp(log sum_{s: l'(s)=c} alpha_t(s) beta_t(s) + nll[b] - lp[t,b,c])) * g[b]

for t < input_length[b] (0 after it, and for an infinite loss when zero_infinity)."""
import numpy as np

from ..meta.nn_backward2 import ctc_backward_spec
from .runtime.arrays import wrap
from .loss_ctc import _ckernel, _lse3, extended_labels


def _lengths(v):
    return np.asarray([int(x) for x in (v.tolist() if hasattr(v, "tolist") else v)], np.int64)


def _log_beta(lpe, skip2, il, tl):
    """lpe: (T, B, 2S+1) log-probs of the extended labels; beta_t(s) includes the emission at t.
    C (csrc/ctc.c) when available, else numpy with a Python loop over time."""
    f = _ckernel("ctc_beta", lpe.dtype, "ppppplll")
    if f is not None:
        lpe, sk = np.ascontiguousarray(lpe), np.ascontiguousarray(skip2, np.uint8)
        il, tl = np.ascontiguousarray(il, np.int64), np.ascontiguousarray(tl, np.int64)
        beta = np.empty(lpe.shape, lpe.dtype)
        f(lpe.ctypes.data, sk.ctypes.data, il.ctypes.data, tl.ctypes.data, beta.ctypes.data, *lpe.shape)
        return beta
    return _log_beta_numpy(lpe, skip2, il, tl)


def _log_beta_numpy(lpe, skip2, il, tl):
    T, B, K = lpe.shape
    ninf = np.asarray(-np.inf, lpe.dtype)
    s = np.arange(K)[None, :]
    start = (s == 2 * tl[:, None]) | ((s == 2 * tl[:, None] - 1) & (tl[:, None] > 0))    # B, K
    beta = np.full((T, B, K), ninf, lpe.dtype)
    nxt = np.full((B, K), ninf, lpe.dtype)
    b1 = np.full((B, K), ninf, lpe.dtype)                    # beta_{t+1} shifted by one / two positions
    b2 = np.full((B, K), ninf, lpe.dtype)
    with np.errstate(divide="ignore"):
        for t in range(T - 1, -1, -1):
            b1[:, :-1] = nxt[:, 1:]
            b2[:, :-2] = np.where(skip2[:, :-2], nxt[:, 2:], ninf)
            rec = _lse3(nxt, b1, b2) + lpe[t]
            last = (t == il - 1)[:, None]
            cur = np.where(last, np.where(start, lpe[t], ninf), np.where((t < il - 1)[:, None], rec, ninf))
            beta[t] = cur
            nxt = cur
    return beta


def _ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha,
                       blank, zero_infinity=False):
    shape, dt = ctc_backward_spec(grad, log_probs, log_alpha)
    lp = log_probs._np
    T, B, C = lp.shape
    il, tl = _lengths(input_lengths), _lengths(target_lengths)
    K = log_alpha._size[2]
    ext = extended_labels(targets, tl, K // 2, blank)                                  # B, K
    lpe = np.take_along_axis(lp, np.broadcast_to(ext[None], (T, B, K)), axis=2)
    skip2 = np.zeros((B, K), bool)
    skip2[:, 1:-2:2] = ext[:, 1:-2:2] != ext[:, 3::2]            # label s may jump to label s+2
    beta = _log_beta(lpe, skip2, il, tl)
    lg = np.moveaxis(log_alpha._np, 1, 0) + beta                                      # T, B, K
    with np.errstate(invalid="ignore"):
        m = lg.max(axis=2, initial=-np.inf) if K else np.full((T, B), -np.inf, lp.dtype)
    m = np.where(np.isfinite(m), m, 0)
    lin = (np.arange(T)[:, None, None] * B + np.arange(B)[None, :, None]) * C + ext[None]
    acc = np.bincount(lin.reshape(-1), weights=np.exp(lg - m[..., None]).reshape(-1), minlength=T * B * C)
    nll = neg_log_likelihood._np
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lcab = np.log(acc.reshape(T, B, C)) + m[..., None]
        res = (np.exp(lp) - np.exp(lcab + nll[None, :, None] - lp)) * grad._np[None, :, None]
    keep = np.arange(T)[:, None] < il[None, :]                                        # T, B
    if zero_infinity:
        keep = keep & ~np.isinf(nll)[None, :]
    return wrap(np.where(keep[..., None], res, 0).astype(lp.dtype, copy=False), dt)
