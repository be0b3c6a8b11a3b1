"""OpInfo entries of the interpolation, grid_sample, pixel (un)shuffle (torch's common_methods_invocations.py op_db, this family's part)."""

from .._opinfo import OpInfo
from ._common import A, S, _info, _s


def _pixel_unshuffle(dt):
    return [S(A((1, 2, 4, 6), dt), 2), S(A((2, 6, 3), dt), 3)]


def _interpolate(dt):
    return [S(A((1, 2, 3, 4), dt), size=(5, 7)), S(A((2, 1, 3, 3), dt), scale_factor=2, mode="bilinear"),
            S(A((1, 2, 4, 3), dt), size=(6, 5), mode="bilinear", align_corners=True),
            S(A((1, 1, 4, 4), dt), scale_factor=1.5, mode="bicubic")]


def _interpolate2(dt):
    return [S(A((2, 3, 4), dt), size=7, mode="linear"), S(A((1, 2, 3, 4), dt), size=(5, 2), mode="bicubic",
                                                                align_corners=True),
            S(A((2, 3, 5), dt), scale_factor=0.5), S(A((1, 1, 3, 4), dt), size=(6, 9), mode="nearest-exact")]


def _grid_sample(dt):
    g = lambda s, seed: A(s, dt, -1.1, 1.1, seed=seed)  # noqa: E731
    return [S(A((1, 2, 4, 5), dt), g((1, 3, 2, 2), 1), align_corners=False),
            S(A((1, 1, 4, 4), dt), g((1, 2, 3, 2), 2), padding_mode="border", align_corners=True),
            S(A((2, 1, 3, 3), dt), g((2, 2, 2, 2), 3), padding_mode="reflection", align_corners=False),
            S(A((1, 2, 3, 4), dt), g((1, 2, 2, 2), 4), mode="nearest", align_corners=False)]


def _pixel_shuffle(dt):
    return [S(A((1, 8, 2, 2), dt), 2), S(A((9, 2, 1), dt), 3)]


def _aa(mode):
    def samples(dt):
        out = [S(A((1, 2, 5, 6), dt), size=(2, 3), mode=mode, antialias=True),
               S(A((1, 1, 8, 8), dt), scale_factor=0.4, mode=mode, antialias=True),
               S(A((2, 1, 4, 7), dt), size=(6, 3), mode=mode, antialias=True),
               S(A((1, 1, 7, 5), dt), scale_factor=(0.5, 1.5), mode=mode, antialias=True,
                 recompute_scale_factor=True)]
        if mode != "lanczos":
            out.append(S(A((1, 2, 6, 5), dt), size=(3, 2), mode=mode, antialias=True, align_corners=True))
        return out
    return samples


op_db = [
    OpInfo("pixel_shuffle", _s(((2, 8, 3, 2), (2,), {})), torch_name="nn.functional.pixel_shuffle",
           check_strides=False),
    # grids and indices kept off the kinks of the backward formulas
    OpInfo("nn.functional.grid_sample", _s(((1, 2, 3, 4), (("arr", (1, 2, 3, 2), -1.2, 1.2),), {}),
                                           ((1, 2, 3, 4), (("arr", (1, 3, 2, 2), -1.5, 1.5),),
                                            {"mode": "bicubic", "padding_mode": "border", "align_corners": True}),
                                           ((1, 1, 4, 3), (("arr", (1, 2, 2, 2), -2.0, 2.0),),
                                            {"padding_mode": "reflection", "align_corners": False})),
           method_variant=False, aten_name="grid_sampler_2d", rtol=1e-5, atol=1e-6),
    _info("nn.functional.pixel_unshuffle", _pixel_unshuffle),
    _info("nn.functional.interpolate", _interpolate, rtol=1e-5, atol=1e-5, aten_name="upsample_bilinear2d"),
    _info("nn.functional.interpolate", _interpolate2, rtol=1e-5, atol=1e-5, aten_name="upsample_bicubic2d"),
    _info("nn.functional.grid_sample", _grid_sample, rtol=1e-5, atol=1e-5, aten_name="grid_sampler_2d"),
    _info("nn.functional.pixel_shuffle", _pixel_shuffle),
    _info("nn.functional.interpolate", _aa("bilinear"), rtol=1e-5, atol=1e-5, aten_name="_upsample_bilinear2d_aa"),
    _info("nn.functional.interpolate", _aa("bicubic"), rtol=1e-5, atol=1e-5, aten_name="_upsample_bicubic2d_aa"),
    _info("nn.functional.interpolate", _aa("lanczos"), rtol=1e-5, atol=1e-5, aten_name="_upsample_lanczos2d_aa"),
]
