"""cpu _scaled_dot_product_flash_attention_for_cpu and its backward: one fused op for the attention of
scaled_dot_product_attention (no dropout), instead of the math decomposition's scale, matmul, mask add,
softmax and matmul ops (and their autograd nodes).

Forward: s = q @ k^T for all (batch, head) pairs in one stacked BLAS product, then per row the scaled,
masked softmax in place and its log-sum-exp (C row kernels of csrc/attention.c, or numpy), then
out = p @ v. Backward (torch's flash formulas, with the probabilities rebuilt from logsumexp):
p = exp(scale * q @ k^T - lse), dv = p^T @ dO, dp = dO @ v^T, ds = scale * p * (dp - rowsum(dO * O)),
dq = ds @ k, dk = ds^T @ q. The causal mask is top-left aligned (query i sees keys j <= i), as torch's
is_causal; an attn_mask (bool: True keeps, or additive float) broadcast to (B, H, L, S) runs numpy."""
import math

import numpy as np

from ..meta import attention as M
from ..meta.nn_common import acc, split_run
from ..common import empty_tensor
from . import clib
from .rowblocks import c_suffix


# score elements: below this the C row kernels run on the calling thread (the GPT step's (16, 4, 64, 64)
# scores take ~0.3 ms; see norm_c._LN_MIN_SPLIT for why a split call does not pay there)
_MIN_SPLIT = 1 << 21


def _scale(scale, E):
    if scale is not None:
        return float(scale)
    return 1.0 / math.sqrt(E) if E else math.inf


def _c_rows(name, arrays, n, L, scale, causal):
    """Runs the C row kernel `name` over the (rows, n) score blocks (other arrays: per-row vectors);
    False when C cannot take them."""
    suf = c_suffix(*arrays)
    fn = clib.kernel("attention", f"{name}_{suf}", "p" * len(arrays) + "lllldi") if suf and n and L else None
    if fn is None:
        return False
    rows = arrays[0].shape[0]

    def chunk(idx, *arrs):
        fn(*(a.ctypes.data for a in arrs), arrs[0].shape[0], n, L, int(idx[0]), float(scale), int(causal))
    if rows:
        split_run(chunk, [np.arange(rows)] + list(arrays), 0, _MIN_SPLIT)
    return True


def _bias(attn_mask, dtype):
    """The additive (.., L, S) bias of an attn_mask: 0 / -inf for a bool mask (True keeps)."""
    m = acc(attn_mask)
    if m.dtype == np.bool_:
        return np.where(m, np.array(0, dtype), np.array(-np.inf, dtype))
    return m.astype(dtype, copy=False)


def _masked_scores(s, L, S, sc, causal, attn_mask):
    """numpy: scale * s with the causal / attn_mask bias applied, in place."""
    s *= sc
    if causal:
        s[..., np.triu(np.ones((L, S), bool), 1)] = -np.inf
    if attn_mask is not None:
        s += _bias(attn_mask, s.dtype)


def _softmax_lse(s, L, S, sc, causal, attn_mask):
    """In place: s (B, H, L, S) raw scores -> probabilities; returns the (B, H, L) log-sum-exp."""
    rows = s.reshape(-1, S)
    if attn_mask is None:
        lse = np.empty(rows.shape[0], s.dtype)
        if _c_rows("attn_softmax_fwd", [rows, lse], S, L, sc, causal):
            return lse.reshape(s.shape[:3])
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        _masked_scores(s, L, S, sc, causal, attn_mask)
        m = np.max(s, axis=-1, keepdims=True) if S else np.full(s.shape[:3] + (1,), -np.inf, s.dtype)
        np.subtract(s, m, out=s)
        np.exp(s, out=s)
        tot = np.sum(s, axis=-1, keepdims=True)
        s /= tot
        return (m + np.log(tot))[..., 0]


def _probs(s, lse, L, S, sc, causal, attn_mask):
    """In place: s raw scores -> exp(scale * s - lse) (masked entries 0)."""
    rows = s.reshape(-1, S)
    if attn_mask is None and _c_rows("attn_probs", [rows, lse.reshape(-1)], S, L, sc, causal):
        return
    with np.errstate(invalid="ignore", over="ignore"):
        _masked_scores(s, L, S, sc, causal, attn_mask)
        s -= lse[..., None]
        np.exp(s, out=s)


def _ds(p, dp, d, L, S, sc, causal, attn_mask):
    """In place in dp: scale * p * (dp - d)."""
    if attn_mask is None and _c_rows("attn_softmax_bwd", [p.reshape(-1, S), dp.reshape(-1, S), d.reshape(-1)],
                                     S, L, sc, causal):
        return
    with np.errstate(invalid="ignore"):
        dp -= d[..., None]
        dp *= p
        dp *= sc


def _arrays(*ts):
    return [acc(t) for t in ts]


def _scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p=0.0, is_causal=False, *,
                                                 attn_mask=None, scale=None):
    B, H, L, S, E = M.flash_spec(query, key, value, dropout_p, attn_mask)
    q, k, v = _arrays(query, key, value)
    sc = _scale(scale, E)
    with np.errstate(invalid="ignore", over="ignore"):     # inf/NaN inputs: NaN results, as torch, silently
        s = np.matmul(q, k.swapaxes(-1, -2))               # (B, H, L, S), fresh
        lse = _softmax_lse(s, L, S, sc, is_causal, attn_mask)
        out = empty_tensor((B, H, L, E), query.dtype)
        np.matmul(s, v, out=out._np)
    lse_t = empty_tensor((B, H, L), query.dtype, strides=(L * H, 1, H))
    lse_t._np[...] = lse
    return out, lse_t


def _grad_buffer(shape, dtype):
    B, H, T, E = shape
    return empty_tensor(shape, dtype, strides=M.blhe_strides(B, H, T, E))


def _scaled_dot_product_flash_attention_for_cpu_backward(grad_out, query, key, value, out, logsumexp, dropout_p,
                                                          is_causal, *, attn_mask=None, scale=None):
    B, H, L, S, E = M.flash_spec(query, key, value, dropout_p, attn_mask)
    q, k, v, go, o = _arrays(query, key, value, grad_out, out)
    dt = query.dtype
    sc = _scale(scale, E)
    lse = np.ascontiguousarray(acc(logsumexp), q.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        p = np.matmul(q, k.swapaxes(-1, -2))                   # raw scores -> probabilities, in place
        _probs(p, lse, L, S, sc, is_causal, attn_mask)
        gq, gk, gv = _grad_buffer((B, H, L, E), dt), _grad_buffer((B, H, S, E), dt), _grad_buffer((B, H, S, E), dt)
        np.matmul(p.swapaxes(-1, -2), go, out=gv._np)
        dp = np.matmul(go, v.swapaxes(-1, -2))
        d = np.ascontiguousarray(np.vecdot(go, o))             # (B, H, L) = rowsum(p * dp)
        _ds(p, dp, d, L, S, sc, is_causal, attn_mask)
        np.matmul(dp, k, out=gq._np)
        np.matmul(dp.swapaxes(-1, -2), q, out=gk._np)
    return gq, gk, gv
