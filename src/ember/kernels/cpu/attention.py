"""cpu _scaled_dot_product_flash_attention_for_cpu and its backward: one fused op for the attention of
scaled_dot_product_attention (no dropout), instead of the math decomposition's scale, matmul, mask add,
softmax and matmul ops (and their autograd nodes).

Forward: s = q @ k^T for all (batch, head) pairs in one stacked BLAS product, then per row the scaled,
masked softmax in place and its log-sum-exp (C row kernels of csrc/attention.c, or numpy), then
out = p @ v. Backward (torch's flash formulas, with the probabilities rebuilt from logsumexp):
p = exp(scale * q @ k^T - lse), dv = p^T @ dO, dp = dO @ v^T, ds = scale * p * (dp - rowsum(dO * O)),
dq = ds @ k, dk = ds^T @ q. The causal mask is top-left aligned (query i sees keys j <= i), as torch's
is_causal; an additive attn_mask (q's dtype) broadcast to (B, H, L, S) runs numpy.

Tuning: scaled_dot_product_attention takes this fused op only without mask or dropout on 4-d float
q/k/v. The stacked BLAS products run per batch chunk of about 256 KB of scores, so a chunk's scores
stay in L2 while the C rows (csrc/attention.c: scaled, causal-masked softmax and its log-sum-exp) pass
over them; the backward rebuilds the probabilities from the log-sum-exp instead of saving them. torch
gives the fused op no double backward; ember's backward is written in ember ops and differentiated
like any other, so second order still works."""
import math

import numpy as np

from ..meta import attention as M
from .runtime.arrays import acc
from .runtime.flat import _parallel_for
from .runtime.pool import get_num_threads, split_run
from ..common import empty_tensor
from .runtime import blas, clib, cparts, gemm
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
    np.subtract(s, m, out=s)
    np.exp(s, out=s)
    tot = np.sum(s, axis=-1, keepdims=True)
    s /= tot
    lse[...] = (m + np.log(tot))[..., 0]


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


# multiply-adds of the products (B*H*L*S*E) from which the matrices are shared out over the C pool
_MIN_PARTS = 1 << 20


def _strided(a, E):
    """(batch, head, row) element strides of a (B, H, T, E) float array that cblas reads in place (unit inner
    stride, rows at least E apart), or None."""
    isz = a.itemsize
    st = a.strides
    if st[3] != isz or any(x % isz or x < 0 for x in st[:3]) or st[2] // isz < E:
        return None
    return tuple(x // isz for x in st[:3])


def _parts(name, arrays, B, H, L, S, E, sc, causal, lse, d=None):
    """Every (batch, head) matrix by csrc/attention.c's attn_<name>_part over the C pool (one matrix's products
    and row kernels per item, the bits of the numpy chunks): True when done, False (nothing written) when it
    does not apply (C, numpy's cblas or the pool unavailable, one thread, small, unreadable strides, q and k
    one buffer: numpy may take syrk there). arrays: q, k, v, g (out / grad_out), then gq, gk, gv."""
    q = arrays[0]
    sfx = c_suffix(lse)
    t = get_num_threads()
    if (sfx is None or min(L, S, E) < 2 or B * H * L * S * E < _MIN_PARTS or t < 2
            or any(a.dtype != q.dtype for a in arrays) or not gemm.available()):
        return False
    fn = cparts.entry("attention", f"attn_{name}_part_{sfx}")
    fns = blas.cblas_gemm()
    strides = [_strided(a, E) for a in arrays]
    if not fn or fns is None or None in strides or clib.address(q) == clib.address(arrays[1]):
        return False
    blas.hold_single()
    desc = [fns[1] if q.dtype == np.float64 else fns[0], fns[2], H, L, S, E]
    for a, st in zip(arrays[:4], strides[:4]):
        desc += [clib.address(a), *st]
    failed = np.zeros(1, np.int64)
    desc += [clib.address(lse), 0 if d is None else clib.address(d)]
    for a, st in zip(arrays[4:], strides[4:]):
        desc += [clib.address(a), *st]
    desc += [0] * (36 - len(desc)) + [clib.address(failed)]
    dd = np.array(desc, np.int64)
    _parallel_for()(fn, clib.address(dd), None, None, None, float(sc), float(bool(causal)), B * H,
                    cparts.grain(B * H, t), t)
    if failed[0]:
        raise MemoryError("ember: attention could not allocate its scratch buffers")
    return True


def _scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p=0.0, is_causal=False, *,
                                                 attn_mask=None, scale=None):
    B, H, L, S, E = M.flash_spec(query, key, value, dropout_p, attn_mask)
    q, k, v = _arrays(query, key, value)
    sc = _scale(scale, E)
    out = empty_tensor((B, H, L, E), query.dtype)
    lse = np.empty((B, H, L), q.dtype)
    bias = _bias(attn_mask, q.dtype)
    kt = k.swapaxes(-1, -2)
    slices, scratch = _chunks(B, H, L, S, q.itemsize)
    if bias is None and _parts("fwd", [q, k, v, out._np], B, H, L, S, E, sc, is_causal, lse):
        slices = ()
    buf = np.empty(scratch, q.dtype) if slices else None
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):   # inf/NaN inputs: NaN results, as torch
        for sl in slices:
            s = np.matmul(q[sl], kt[sl], out=buf[:sl.stop - sl.start])
            _softmax_lse(s, lse[sl], L, S, sc, is_causal, _bias_rows(bias, sl))
            np.matmul(s, v[sl], out=out._np[sl])
    lse_t = empty_tensor((B, H, L), query.dtype, strides=(L * H, 1, H))
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
    lse = np.ascontiguousarray(acc(logsumexp), q.dtype)
    bias = _bias(attn_mask, q.dtype)
    gq, gk, gv = _grad_buffer((B, H, L, E), dt), _grad_buffer((B, H, S, E), dt), _grad_buffer((B, H, S, E), dt)
    gqn, gkn, gvn = gq._np, gk._np, gv._np
    kt, vt = k.swapaxes(-1, -2), v.swapaxes(-1, -2)
    slices, scratch = _chunks(B, H, L, S, q.itemsize)
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.ascontiguousarray(np.vecdot(go, o))             # (B, H, L) = rowsum(p * dp)
        if bias is None and _parts("bwd", [q, k, v, go, gqn, gkn, gvn], B, H, L, S, E, sc, is_causal, lse, d):
            slices = ()
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
