"""OpInfo entries for the misc gaps of the third batch: antialiased F.interpolate (bilinear, bicubic,
lanczos; downsampling mostly, where antialiasing matters) and rsub with a number and a positional alpha."""
from ._op_db_nn2 import A, S, _info
from ._opinfo import OpInfo, SampleInput
from ._samples import make


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


def _rsub_scalar(op, dt):
    return [SampleInput(make((2, 3), dt, seed=1), (2.5, 3)), SampleInput(make((4,), dt, seed=2), (-1,)),
            SampleInput(make((2, 2), dt, seed=3), (1.5,), {"alpha": 0.5})]


op_db_misc3 = [
    _info("nn.functional.interpolate", _aa("bilinear"), rtol=1e-5, atol=1e-5, aten_name="_upsample_bilinear2d_aa"),
    _info("nn.functional.interpolate", _aa("bicubic"), rtol=1e-5, atol=1e-5, aten_name="_upsample_bicubic2d_aa"),
    _info("nn.functional.interpolate", _aa("lanczos"), rtol=1e-5, atol=1e-5, aten_name="_upsample_lanczos2d_aa"),
    OpInfo("rsub", _rsub_scalar, dtypes=("float32", "float64"), method_variant=False),
]
