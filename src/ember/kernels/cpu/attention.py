"""cpu _scaled_dot_product_flash_attention_for_cpu and its backward: one fused op for the attention of
scaled_dot_product_attention (no dropout), instead of the math decomposition's scale, matmul, mask add,
softmax and matmul ops (and their autograd nodes).

With C (csrc/attention.c's fused attn_flash_fwd / attn_flash_bwd, no attn_mask): per (batch, head) pair, blocks of
query rows: s = q k^T, the scaled (causal-masked) softmax and its log-sum-exp, out = p v, all in C with the pair's
scores in a scratch block; the backward (torch's flash formulas) rebuilds p = exp(scale * q k^T - lse) and takes
dv = p^T dO, dp = dO v^T, ds = scale * p * (dp - rowsum(dO * O)), dq = ds k, dk = ds^T q. The pairs are shared out
over the C pool (cparts); causal groups of rows skip the keys past their last row. Its bits (documented in the C):
the same at any thread count and with or without AVX-512; not the unfused composition's bits.
Without C, or with an additive attn_mask (q's dtype, broadcast to (B, H, L, S)): numpy, per batch chunk of about
256 KB of scores (kept in L2): stacked BLAS products and the C row kernels of csrc/attention.c (or numpy rows).
The causal mask is top-left aligned (query i sees keys j <= i), as torch's is_causal.

Tuning (GPT step, (16, 4, 64, 32) causal float32, 1 thread, min us, torch 2.13 in the same process, load ~8):
forward 861 -> 433 (torch 681), forward + backward 2517 -> 1819 (torch 2803). The products are AVX-512 tiles near
the core's FMA peak; the rest is the row passes (exp) and k's transpose. torch gives the fused op no double
backward; ember's backward is written in ember ops and differentiated like any other, so second order works."""
import math

import numpy as np

from ..meta import attention as M
from .runtime.arrays import acc
from .runtime.pool import split_run
from ..common import empty_tensor
from .runtime import clib, cparts
from .runtime.clib import c_suffix


# score elements: below this the C row kernels run on the calling thread (the GPT step's (16, 4, 64, 64)
# scores take ~0.3 ms; see norm_rows._LN_MIN_SPLIT for why a split call does not pay there)
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
    """The additive (.., L, S) attn_mask (of q's dtype, as torch's op requires) as numpy, or None."""
    return None if attn_mask is None else acc(attn_mask).astype(dtype, copy=False)


def _bias_rows(bias, sl):
    """The part of a (broadcast) bias for the batch slice sl."""
    return bias[sl] if bias is not None and bias.ndim == 4 and bias.shape[0] != 1 else bias


def _masked_scores(s, L, S, sc, causal, bias):
    """numpy: scale * s with the causal / attn_mask bias applied, in place."""
    s *= sc
    if causal:
        s[..., np.triu(np.ones((L, S), bool), 1)] = -np.inf
    if bias is not None:
        s += bias


def _softmax_lse(s, lse, L, S, sc, causal, bias):
    """In place: s (b, H, L, S) raw scores -> probabilities; their log-sum-exp into lse (b, H, L)."""
    if bias is None and _c_rows("attn_softmax_fwd", [s.reshape(-1, S), lse.reshape(-1)], S, L, sc, causal):
        return
    _masked_scores(s, L, S, sc, causal, bias)
    m = np.max(s, axis=-1, keepdims=True) if S else np.full(s.shape[:3] + (1,), -np.inf, s.dtype)
    m[np.isneginf(m)] = 0                   # a fully masked row: p 0, lse 0 (torch's kernel), no NaN
    np.subtract(s, m, out=s)
    np.exp(s, out=s)
    tot = np.sum(s, axis=-1, keepdims=True)
    dead = tot == 0
    s /= np.where(dead, 1, tot)
    lse[...] = np.where(dead, 0, m + np.log(np.where(dead, 1, tot)))[..., 0]


def _probs(s, lse, L, S, sc, causal, bias):
    """In place: s raw scores -> exp(scale * s - lse) (masked entries 0)."""
    if bias is None and _c_rows("attn_probs", [s.reshape(-1, S), lse.reshape(-1)], S, L, sc, causal):
        return
    _masked_scores(s, L, S, sc, causal, bias)
    s -= lse[..., None]
    np.exp(s, out=s)


def _ds(p, dp, d, L, S, sc, causal, bias):
    """In place in dp: scale * p * (dp - d)."""
    if bias is None and _c_rows("attn_softmax_bwd", [p.reshape(-1, S), dp.reshape(-1, S), d.reshape(-1)],
                                S, L, sc, causal):
        return
    dp -= d[..., None]
    dp *= p
    dp *= sc


# bytes of one chunk's (b, H, L, S) score block: the batch is processed in chunks whose scores (and, in the
# backward, their gradient) stay in the L2 cache through the products and row kernels that reuse them
_CHUNK_BYTES = 1 << 18


def _chunks(B, H, L, S, itemsize):
    """Batch slices of about _CHUNK_BYTES of scores each, and the scratch shape for one."""
    cb = max(1, min(B, _CHUNK_BYTES // max(1, H * L * S * itemsize)))
    return [slice(b, min(B, b + cb)) for b in range(0, B, cb)], (cb, H, L, S)


def _arrays(*ts):
    return [acc(t) for t in ts]


# multiply-adds (B*H*L*S*E) from which the fused kernel shares the (batch, head) pairs out over the C pool
_MIN_SPLIT_MACS = 1 << 20


def _rows_view(a):
    """a (B, H, T, E) float array as csrc/attention.c's fused kernel reads it (unit inner stride, the other
    strides whole elements), copied when it is not."""
    isz = a.itemsize
    s0, s1, s2, s3 = a.strides
    if (s3 != isz and a.shape[3] > 1) or s0 % isz or s1 % isz or s2 % isz:
        return np.ascontiguousarray(a)
    return a


_NONE4 = (0, 0, 0, 0)


def _desc4(a, isz):
    """(address, batch, head and row strides in elements) of a (B, H, T, E) or (B, H, L) array."""
    st = a.strides
    return (clib.address(a), st[0] // isz, st[1] // isz, st[2] // isz)


def _flash(name, B, H, L, S, E, sc, causal, bias, q, k, v, o, lse, go=None, gq=None, gk=None, gv=None):
    """csrc/attention.c's fused attn_flash_<name> over the (batch, head) pairs: True when done, False (nothing
    written) when C is off. q, k, v, o, go: (B, H, T, E) arrays; lse: (B, H, L) array; gq, gk, gv: outputs;
    bias: None or the additive mask (q's dtype, broadcastable to (B, H, L, S)). The descriptor's layout is
    csrc/attention.c's (lse's row stride: between query positions)."""
    dt = q.dtype
    sfx = clib._C_TYPES.get(dt)
    if bias is not None:
        bias = np.broadcast_to(bias, (B, H, L, S))
        if bias.strides[3] != bias.itemsize and S > 1:
            bias = np.ascontiguousarray(bias)
        if bias.dtype != dt:
            return False
    if sfx is None or k.dtype != dt or v.dtype != dt or o.dtype != dt or lse.dtype != dt or \
            (go is not None and go.dtype != dt):
        return False
    fn = cparts.entry("attention", f"attn_flash_{name}_{sfx}")
    if not fn:
        return False
    isz = q.itemsize
    failed = np.zeros(1, np.int64)
    dd = np.empty(46, np.int64)
    dd[:5] = (H, L, S, E, int(bool(causal)))
    dd[5:9] = _desc4(q, isz)
    dd[9:13] = _desc4(k, isz)
    dd[13:17] = _desc4(v, isz)
    dd[17:21] = _desc4(o, isz)
    dd[21:25] = _desc4(lse, isz)
    if go is None:
        dd[25:41] = 0
    else:
        dd[25:29] = _desc4(go, isz)
        dd[29:33] = _desc4(gq, isz)
        dd[33:37] = _desc4(gk, isz)
        dd[37:41] = _desc4(gv, isz)
    dd[41] = clib.address(failed)
    dd[42:46] = _NONE4 if bias is None else _desc4(bias, isz)
    threads = cparts.threads_for(B * H * L * S * E, _MIN_SPLIT_MACS)
    cparts.run(fn, B * H, threads, cparts.grain(B * H, threads), clib.address(dd), s0=float(sc))
    if failed[0]:
        raise MemoryError("ember: attention could not allocate its scratch buffers")
    return True


def _scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p=0.0, is_causal=False, *,
                                                 attn_mask=None, scale=None):
    B, H, L, S, E = M.flash_spec(query, key, value, dropout_p, attn_mask)
    q, k, v = _arrays(query, key, value)
    sc = _scale(scale, E)
    out = empty_tensor((B, H, L, E), query.dtype)
    lse_t = empty_tensor((B, H, L), query.dtype, strides=(L * H, 1, H))
    bias = _bias(attn_mask, q.dtype)
    if min(B, H, L, S, E) > 0 and _flash("fwd", B, H, L, S, E, sc, is_causal, bias, _rows_view(q), _rows_view(k),
                                         _rows_view(v), out._np, lse_t._np):
        return out, lse_t
    lse = np.empty((B, H, L), q.dtype)
    kt = k.swapaxes(-1, -2)
    slices, scratch = _chunks(B, H, L, S, q.itemsize)
    buf = np.empty(scratch, q.dtype) if slices else None
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):   # inf/NaN inputs: NaN results, as torch
        for sl in slices:
            s = np.matmul(q[sl], kt[sl], out=buf[:sl.stop - sl.start])
            _softmax_lse(s, lse[sl], L, S, sc, is_causal, _bias_rows(bias, sl))
            np.matmul(s, v[sl], out=out._np[sl])
    lse_t._np[...] = lse
    return out, lse_t


def _grad_buffer(shape, dtype):
    B, H, T, E = shape
    return empty_tensor(shape, dtype, strides=M.blhe_strides(B, H, T, E))


def _scaled_dot_product_flash_attention_for_cpu_backward(grad_out, query, key, value, out, logsumexp, dropout_p,
                                                          is_causal, *, attn_mask=None, scale=None):
    """Per batch chunk: p rebuilt from the scores and lse, dv = p^T dO, ds = scale p (dO v^T - rowsum(dO O)),
    dq = ds k, dk = ds^T q."""
    B, H, L, S, E = M.flash_spec(query, key, value, dropout_p, attn_mask)
    q, k, v, go, o = _arrays(query, key, value, grad_out, out)
    dt = query.dtype
    sc = _scale(scale, E)
    bias = _bias(attn_mask, q.dtype)
    gq, gk, gv = _grad_buffer((B, H, L, E), dt), _grad_buffer((B, H, S, E), dt), _grad_buffer((B, H, S, E), dt)
    gqn, gkn, gvn = gq._np, gk._np, gv._np
    if min(B, H, L, S, E) > 0 and _flash(
            "bwd", B, H, L, S, E, sc, is_causal, bias, *(_rows_view(a) for a in (q, k, v, o)),
            acc(logsumexp).astype(q.dtype, copy=False), _rows_view(go), gqn, gkn, gvn):
        return gq, gk, gv
    lse = np.ascontiguousarray(acc(logsumexp), q.dtype)
    kt, vt = k.swapaxes(-1, -2), v.swapaxes(-1, -2)
    slices, scratch = _chunks(B, H, L, S, q.itemsize)
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.ascontiguousarray(np.vecdot(go, o))             # (B, H, L) = rowsum(p * dp)
        pbuf, dpbuf = (np.empty(scratch, q.dtype), np.empty(scratch, q.dtype)) if slices else (None, None)
        for sl in slices:
            n = sl.stop - sl.start
            p = np.matmul(q[sl], kt[sl], out=pbuf[:n])             # raw scores -> probabilities, in place
            _probs(p, lse[sl], L, S, sc, is_causal, _bias_rows(bias, sl))
            np.matmul(p.swapaxes(-1, -2), go[sl], out=gvn[sl])
            dp = np.matmul(go[sl], vt[sl], out=dpbuf[:n])
            _ds(p, dp, d[sl], L, S, sc, is_causal, _bias_rows(bias, sl))
            np.matmul(dp, k[sl], out=gqn[sl])
            np.matmul(dp.swapaxes(-1, -2), q[sl], out=gkn[sl])
    return gq, gk, gv
