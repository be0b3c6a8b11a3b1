"""cpu _ctc_loss: the CTC forward (alpha) recursion in log space, vectorised over batch and
extended-label positions; the only loop is over time steps (the recursion is sequential in t)."""
import numpy as np

from ..meta.loss_ctc import ctc_spec
from .runtime.arrays import wrap
from .runtime import clib
from ..meta.loss_ctc import ctc_backward_spec


def _lse3(a, b, c):
    """log(exp a + exp b + exp c) elementwise, -inf where all three are; the caller holds
    np.errstate(divide="ignore") around its time loop (entering it per call cost more than the math)."""
    m = np.maximum(np.maximum(a, b), c)
    ms = np.where(np.isfinite(m), m, 0)
    return ms + np.log(np.exp(a - ms) + np.exp(b - ms) + np.exp(c - ms))


def extended_labels(targets, tl, S, blank):
    """(B, 2S+1) label sequences with a blank before, between and after the targets (blank-padded past
    each target length); targets are (B, >=S) padded or 1-D concatenated."""
    B = tl.shape[0]
    tg = targets._np.astype(np.int64)
    if tg.ndim == 2:
        tpad = tg[:, :S] if tg.shape[1] >= S else np.pad(tg, [(0, 0), (0, S - tg.shape[1])])
    else:                                             # 1-D: concatenated targets
        starts = np.concatenate([[0], np.cumsum(tl)[:-1]]).astype(np.int64)
        pos = starts[:, None] + np.arange(S)[None, :]
        tpad = tg[np.minimum(pos, max(tg.size - 1, 0))] if tg.size else np.zeros((B, S), np.int64)
    tpad = np.where(np.arange(S)[None, :] < tl[:, None], tpad, blank)
    ext = np.full((B, 2 * S + 1), blank, np.int64)
    ext[:, 1::2] = tpad
    return ext


def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
    nll_shape, la_shape, dt = ctc_spec(log_probs, targets, input_lengths, target_lengths, blank)
    lp = log_probs._np
    T, B, _ = lp.shape
    il = np.asarray([int(v) for v in input_lengths], np.int64)
    tl = np.asarray([int(v) for v in target_lengths], np.int64)
    S = la_shape[2] // 2
    ext = extended_labels(targets, tl, S, blank)
    lpe = np.take_along_axis(lp, np.broadcast_to(ext[None], (T, B, 2 * S + 1)), axis=2)   # T, B, 2S+1
    skip = np.zeros((B, 2 * S + 1), bool)
    skip[:, 3::2] = ext[:, 3::2] != ext[:, 1:-2:2]
    ninf = np.asarray(-np.inf, lp.dtype)
    alpha = _alpha_c(lpe, skip, tl)
    if alpha is None:
        alpha = _alpha_numpy(lpe, skip, tl)
    bi = np.arange(B)
    last = np.maximum(il - 1, 0)
    end = alpha[last, bi, 2 * tl]
    prev = np.where(tl > 0, alpha[last, bi, np.maximum(2 * tl - 1, 0)], ninf)
    with np.errstate(divide="ignore"):
        nll = -np.logaddexp(end, prev)
    nll = np.where(il > 0, nll, np.where(tl == 0, 0, np.inf))
    if zero_infinity:
        nll = np.where(np.isinf(nll), 0, nll)
    return wrap(nll, dt), wrap(np.moveaxis(alpha, 0, 1), dt)


def _ckernel(name, dtype, sig):
    sfx = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}.get(np.dtype(dtype))
    return None if sfx is None else clib.kernel("ctc", f"{name}_{sfx}", sig)


def _alpha_c(lpe, skip, tl):
    """The alpha recursion in C (csrc/ctc.c), or None."""
    f = _ckernel("ctc_alpha", lpe.dtype, "pppplll")
    if f is None:
        return None
    lpe, sk = np.ascontiguousarray(lpe), np.ascontiguousarray(skip, np.uint8)
    tl = np.ascontiguousarray(tl, np.int64)
    alpha = np.empty(lpe.shape, lpe.dtype)
    f(lpe.ctypes.data, sk.ctypes.data, tl.ctypes.data, alpha.ctypes.data, *lpe.shape)
    return alpha


def _alpha_numpy(lpe, skip, tl):
    T, B, K = lpe.shape
    ninf = np.asarray(-np.inf, lpe.dtype)
    alpha = np.full((T, B, K), ninf, lpe.dtype)
    if T:
        alpha[0, :, 0] = lpe[0, :, 0]
        if K > 1:
            alpha[0, :, 1] = np.where(tl > 0, lpe[0, :, 1], ninf)
    a1 = np.full((B, K), ninf, lpe.dtype)                   # alpha shifted by one / two positions
    a2 = np.full((B, K), ninf, lpe.dtype)
    with np.errstate(divide="ignore"):
        for t in range(1, T):
            a = alpha[t - 1]
            a1[:, 1:] = a[:, :-1]
            a2[:, 2:] = np.where(skip[:, 2:], a[:, :-2], ninf)
            np.add(_lse3(a, a1, a2), lpe[t], out=alpha[t])
    return alpha


def _lengths_list(t, name):
    """The values of a lengths tensor (any shape, read flat like torch) as Python ints."""
    if t.dtype.is_floating_point or t.dtype.is_complex:
        raise RuntimeError(f"{name} must be integral")
    return [int(v) for v in t._np.reshape(-1)]


def _ctc_loss_tensor(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
    """_ctc_loss.Tensor: lengths given as integer tensors (torch's ctc_loss_tensor reads them on the cpu)."""
    return _ctc_loss(log_probs, targets, _lengths_list(input_lengths, "input_lengths"),
                     _lengths_list(target_lengths, "target_lengths"), blank, zero_infinity)


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
