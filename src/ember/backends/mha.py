"""torch.backends.mha: the switch for nn.MultiheadAttention's fused inference path (ember's
MultiheadAttention has one code path, so the flag is only recorded)."""

_FASTPATH = [True]


def get_fastpath_enabled():
    return _FASTPATH[0]


def set_fastpath_enabled(value):
    _FASTPATH[0] = bool(value)
