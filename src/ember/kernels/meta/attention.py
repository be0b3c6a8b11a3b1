"""Meta functions of the fused cpu attention ops (_scaled_dot_product_flash_attention_for_cpu and its
backward): torch's argument checks and the output layouts torch gives them. The output is a contiguous
(B, H, L, E) tensor; logsumexp (B, H, L) is laid out as (B, L, H) in memory, and the grads of q, k, v as
(B, L, H, E) (the layout of q/k/v split from one (B, L, 3*H*E) projection)."""
from ..common import empty_tensor

_WHO = "scaled_dot_product_attention_flash_attention"


def flash_spec(query, key, value, dropout_p, attn_mask):
    """Checks of torch's cpu flash kernel; returns (B, H, L, S, E)."""
    if dropout_p > 0.0:
        raise RuntimeError(f"{_WHO}: Currently do not support dropout > 0")
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise RuntimeError(f"{_WHO}: Accept only 4 dims inputs shape of {{B, H, T, K}}")
    if not (query._size[3] == key._size[3] == value._size[3]):
        raise RuntimeError(f"{_WHO}: Q/K/V should have the same head size")
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"{_WHO}: Q/K/V should have the same data type")
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"{_WHO}: Q/K/V should be floating point tensors, got {query.dtype}")
    B, H, L, E = query._size
    if tuple(key._size[:2]) != (B, H) or tuple(value._size[:2]) != (B, H):
        raise RuntimeError(f"{_WHO}: Q/K/V should have the same batch size and number of heads")
    S = key._size[2]
    if value._size[2] != S:
        raise RuntimeError(f"{_WHO}: K/V should have the same sequence length")
    if attn_mask is not None and attn_mask.dtype != query.dtype:
        raise RuntimeError(f"{_WHO}: Attention mask is the same data type as query")
    if attn_mask is not None and attn_mask.dim() not in (2, 4):
        raise RuntimeError(f"{_WHO}: Attention mask dim in {{2, 4}}")
    return B, H, L, S, E


def blhe_strides(B, H, L, E):
    """Strides of a (B, H, L, E) tensor stored as a contiguous (B, L, H, E) array."""
    return (L * H * E, E, H * E, 1)


def flash_attention(query, key, value, dropout_p=0.0, is_causal=False, *, attn_mask=None, scale=None):
    B, H, L, S, E = flash_spec(query, key, value, dropout_p, attn_mask)
    dev = query.device
    out = empty_tensor((B, H, L, E), query.dtype, dev)
    lse = empty_tensor((B, H, L), query.dtype, dev, (L * H, 1, H))
    return out, lse


def flash_attention_backward(grad_out, query, key, value, out, logsumexp, dropout_p, is_causal, *, attn_mask=None,
                             scale=None):
    B, H, L, S, E = flash_spec(query, key, value, dropout_p, attn_mask)
    dev, dt = query.device, query.dtype
    return (empty_tensor((B, H, L, E), dt, dev, blhe_strides(B, H, L, E)),
            empty_tensor((B, H, S, E), dt, dev, blhe_strides(B, H, S, E)),
            empty_tensor((B, H, S, E), dt, dev, blhe_strides(B, H, S, E)))
