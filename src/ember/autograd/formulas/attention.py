"""Backward helpers of the fused attention ops (torch has no double backward for them): the double backward
of the fused cpu attention, by differentiating its backward written in ember ops."""

import math


from ..._core import dtype as D
from ._common import _aten, _at, _vjp_composite

__all__ = ["flash_attention_double_backward"]


def _attention_backward_composite(is_causal, attn_mask, scale):
    def fn(go, q, k, v):
        A = _aten()
        L, S, E = q._size[-2], k._size[-2], q._size[-1]
        sc = 1.0 / math.sqrt(E) if scale is None else scale
        s = A.mul.Scalar(A.matmul.default(q, A.transpose.int(k, -2, -1)), sc)
        if is_causal:
            keep = A.tril.default(A.ones.default([L, S], dtype=D.bool_, device=q.device))
            s = A.masked_fill.Scalar(s, A.logical_not.default(keep), float("-inf"))
        if attn_mask is not None:
            if attn_mask.dtype.name == "bool":
                s = A.masked_fill.Scalar(s, A.logical_not.default(attn_mask), float("-inf"))
            else:
                s = A.add.Tensor(s, attn_mask)
        p = A._softmax.default(s, -1, False)
        gv = A.matmul.default(A.transpose.int(p, -2, -1), go)
        dp = A.matmul.default(go, A.transpose.int(v, -2, -1))
        ds = A.mul.Scalar(A.mul.Tensor(p, A.sub.Tensor(dp, A.sum.dim_IntList(A.mul.Tensor(dp, p), [-1], True))), sc)
        gq = A.matmul.default(ds, k)
        gk = A.matmul.default(A.transpose.int(ds, -2, -1), q)
        return gq, gk, gv
    return fn


def flash_attention_double_backward(grads, grad_out, query, key, value, is_causal, attn_mask, scale, mask):
    fn = _attention_backward_composite(is_causal, attn_mask, scale)
    return _vjp_composite(fn, (grad_out, query, key, value), [_at(grads, i) for i in range(3)])
