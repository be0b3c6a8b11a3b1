"""nn.functional's distances (torch/nn/functional.py cosine_similarity, pairwise_distance, cdist,
pdist)."""


import ember

__all__ = ["cosine_similarity", "pairwise_distance", "cdist", "pdist"]


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    return ember.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return ember.pairwise_distance(x1, x2, p, eps, keepdim)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    modes = {"use_mm_for_euclid_dist_if_necessary": None, "use_mm_for_euclid_dist": 1,
             "donot_use_mm_for_euclid_dist": 2}
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return ember.ops.aten.cdist.default(x1, x2, p, modes[compute_mode])


def pdist(input, p=2):
    return ember.pdist(input, p)
