"""CompositeImplicitAutograd kernels of attention (torch's transformers/attention.cpp: scaled_dot_product_attention)."""

import math
from .dropout import dropout
from ..._ops import ops

aten = ops.aten


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None,
                                 enable_gqa=False):
    if attn_mask is not None and attn_mask.dtype.name not in ("bool", "float32") and attn_mask.dtype != query.dtype:
        from ..common import c_type_name
        raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {c_type_name(attn_mask.dtype)} and  query.dtype: "
                           f"{c_type_name(query.dtype)} instead.")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    L, S, E = query._size[-2], key._size[-2], query._size[-1]
    if enable_gqa and query.dim() >= 3 and key._size[-3] != query._size[-3]:
        hq, hk = query._size[-3], key._size[-3]
        if hq % hk:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in query")
        key, value = _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hk)
    if _fused_ok(query, key, value, attn_mask, dropout_p):
        return aten._scaled_dot_product_flash_attention_for_cpu.default(query, key, value, 0.0, is_causal,
                                                                        scale=scale)[0]
    sc = 1.0 / math.sqrt(E) if scale is None else scale
    # scale the (.., L, E) query rather than the (.., L, S) scores, and mask by adding a 0/-inf bias of
    # the mask's own (broadcast) shape, as torch's math path does: the add's backward is the identity
    # for the scores, where a `where` would materialise a -inf tensor and mask the gradient again
    q = query if sc == 1 else aten.mul.Scalar(query, sc)
    attn = aten.matmul.default(q, aten.transpose.int(key, -2, -1))
    if is_causal:
        attn_mask = _causal_bias(L, S, attn.dtype, query.device)
    elif attn_mask is not None and attn_mask.dtype.name == "bool":
        bias = aten.zeros.default(list(attn_mask._size), dtype=attn.dtype, device=query.device)
        attn_mask = aten.masked_fill.Scalar(bias, aten.logical_not.default(attn_mask), float("-inf"))
    dead = None
    if attn_mask is not None:
        # torch's math path takes _safe_softmax: a query row whose scores are all -inf (fully masked) gives zeros
        # and passes no gradient, where a plain softmax gives NaN. The dead rows are found on the mask, in its own
        # (broadcast) shape, and their bias zeroed, so no NaN reaches the softmax or its backward; their
        # probabilities are zeroed after it (one pass over the scores where a check of the scores takes three; a
        # row whose scores are all -inf from infinite inputs, not from the mask, stays NaN)
        dead = aten.all.dim(aten.eq.Scalar(attn_mask, float("-inf")), -1, True)
        zero = aten.zeros.default([], dtype=attn.dtype, device=query.device)
        attn = aten.add.Tensor(attn, aten.where.self(dead, zero, attn_mask))
    attn = aten._softmax.default(attn, -1, False)
    if dead is not None:
        attn = aten.where.self(dead, zero, attn)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return _matmul(attn, value)


def _matmul(a, b):
    """torch's matmul of two >= 2-d operands as its composite runs it: mm for matrices, else the broadcast
    batch folded into one bmm and viewed back with _unsafe_view (the nodes torch's math path ends in)."""
    if a.dim() == 2 and b.dim() == 2:
        return aten.mm.default(a, b)
    if a.dim() < 2 or b.dim() < 2:
        return aten.matmul.default(a, b)
    from ..common import broadcast_shapes
    batch = list(broadcast_shapes(a._size[:-2], b._size[:-2]))
    n = 1
    for s in batch:
        n *= s
    a3 = aten.reshape.default(aten.expand.default(a, batch + list(a._size[-2:])), [n] + list(a._size[-2:]))
    b3 = aten.reshape.default(aten.expand.default(b, batch + list(b._size[-2:])), [n] + list(b._size[-2:]))
    return aten._unsafe_view.default(aten.bmm.default(a3, b3), batch + [a._size[-2], b._size[-1]])


def _fused_ok(q, k, v, attn_mask, dropout_p):
    """The fused cpu op (one node, csrc/attention.c's fused kernel) takes 4-d float32/float64 cpu q, k, v of one
    batch and head count and one head size, with unit last strides (torch's check_last_dim_stride_equals_1_dense),
    without attn_mask or dropout; else the math path.
    Differs from torch: torch 2.13 also takes its flash kernel with a 2-d or 4-d attn_mask (bool or q's dtype, not
    requiring grad, last sizes L or 1 and S or 1, leading B or 1 and H or 1); ember keeps the math path there
    because inductor's compiled masked attention is built from the math decomposition (the fused op itself takes
    an additive mask, in C)."""
    if attn_mask is not None or dropout_p > 0.0 or q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        return False
    if q.device.type != "cpu" or k.device.type != "cpu" or v.device.type != "cpu":
        return False
    if not (q.dtype == k.dtype == v.dtype) or q.dtype.name not in ("float32", "float64"):
        return False
    qs, ks, vs = q._size, k._size, v._size
    # (each size > 0, not min(qs) > 0: with symbolic sizes, min would compare the batch with the head count)
    return qs[:2] == ks[:2] == vs[:2] and qs[3] == ks[3] == vs[3] and ks[2] == vs[2] and \
        all(s > 0 for s in qs) and ks[2] > 0 and q.stride(-1) == 1 and k.stride(-1) == 1 and v.stride(-1) == 1


_CAUSAL = {}


def _causal_bias(L, S, dtype, device):
    """The (L, S) 0 / -inf upper-triangle bias of is_causal. Plain cpu calls reuse one cached tensor per
    (L, S, dtype): it is only ever read (an add's `other`, which saves nothing for backward). Under a
    dispatch mode, in inference mode or on other devices it is built each time, so modes see the ops."""
    from ..._core.tls import state
    cache = device.type == "cpu" and not state.mode_stack and not state.inference_mode
    key = (L, S, dtype)
    t = _CAUSAL.get(key) if cache else None
    if t is None:
        t = aten.triu.default(aten.full.default([L, S], float("-inf"), dtype=dtype, device=device), 1)
        if cache:
            if len(_CAUSAL) >= 16:
                _CAUSAL.clear()
            _CAUSAL[key] = t
    return t


def _repeat_heads(t, r):
    s = list(t._size)
    e = aten.expand.default(aten.unsqueeze.default(t, -3), s[:-3] + [s[-3], r] + s[-2:])
    return aten.reshape.default(e, s[:-3] + [s[-3] * r] + s[-2:])
