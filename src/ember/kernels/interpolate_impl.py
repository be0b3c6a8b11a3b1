"""The .vec overloads of the antialiased upsample ops (CompositeImplicitAutograd, as in torch's
UpSampleBilinear2d.cpp / UpSampleBicubic2d.cpp). F.interpolate itself is ember/nn/functional/interpolate.py."""


def _ops():
    from .._ops import ops
    return ops


def _aa_vec(name):
    """The .vec overload of an antialiased op (CompositeImplicitAutograd, as in torch): output size
    from output_size or floor(in * scale), then the op with per-axis scales."""
    def f(input, output_size, align_corners, scale_factors):
        from .meta.interpolate import upsample_spec
        _, o, scales = upsample_spec(input, output_size, scale_factors, 2, name)
        return getattr(_ops().aten, name).default(input, list(o), align_corners, scales[0], scales[1])
    f.__name__ = name
    return f


_upsample_bilinear2d_aa = _aa_vec("_upsample_bilinear2d_aa")
_upsample_bicubic2d_aa = _aa_vec("_upsample_bicubic2d_aa")
_upsample_lanczos2d_aa = _aa_vec("_upsample_lanczos2d_aa")
