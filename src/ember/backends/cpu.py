"""torch.backends.cpu: the vector instruction set the CPU kernels use (ember compiles its C kernels
with -march=native, so this is the best level numpy's CPU feature probe reports)."""


def get_cpu_capability():
    import numpy as np
    feats = getattr(np, "__cpu_features__", None)
    if feats is None:
        from numpy._core._multiarray_umath import __cpu_features__ as feats
    if feats.get("AVX512F") and feats.get("AVX512BW"):
        return "AVX512"
    if feats.get("AVX2"):
        return "AVX2"
    if feats.get("VSX"):
        return "VSX"
    if feats.get("SVE"):
        return "SVE256"
    return "DEFAULT"
