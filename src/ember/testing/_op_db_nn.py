"""OpInfo entries for the nn ops (branch nnops): sample inputs for the generic op test
(meta agreement, non-contiguous inputs, parity with torch). Part of `op_db` (see _op_db.py), so
tests/ops/test_ops.py and the gradcheck of tests/autograd/test_op_db.py run them; _op_db_nn2.py has the rest."""
import numpy as np

from ._opinfo import OpInfo, SampleInput
from ._samples import make

F = ("float32", "float64")


def _s(*cases):
    """cases: (input_shape, args, kwargs[, name]); array args given as ('arr', shape[, low, high]) or ('idx', shape, n)."""
    def build(spec, dtype, seed):
        if isinstance(spec, tuple) and spec and spec[0] == "arr":
            lo, hi = (spec[2], spec[3]) if len(spec) > 2 else (-3.0, 3.0)
            return make(spec[1], dtype, lo, hi, seed=seed)
        if isinstance(spec, tuple) and spec and spec[0] == "idx":
            return np.random.default_rng(seed).integers(0, spec[2], spec[1]).astype(np.int64)
        return spec

    def f(op, dtype):
        out = []
        for i, c in enumerate(cases):
            shape, args, kw = c[:3]
            x = make(shape, dtype, seed=i) if not (isinstance(shape, tuple) and shape and shape[0] in ("arr", "idx")) \
                else build(shape, dtype, i)
            out.append(SampleInput(x, tuple(build(a, dtype, 10 + i + j) for j, a in enumerate(args)),
                                   {k: build(v, dtype, 30 + i) for k, v in kw.items()}, f"{op.name}-{i}"))
        return out
    return f


op_db_nn = [
    OpInfo("softmax", _s(((3, 5), (1,), {}), ((2, 3, 4), (-1,), {}), ((), (0,), {}), ((0, 3), (1,), {})),
           method_variant=True),
    OpInfo("log_softmax", _s(((3, 5), (1,), {}), ((2, 3, 4), (0,), {}), ((4,), (0,), {}))),
    OpInfo("_nn.linear", _s(((5, 3), (("arr", (4, 3)), ("arr", (4,))), {}), ((2, 5, 3), (("arr", (4, 3)),), {})),
           torch_name="nn.functional.linear", rtol=1e-5, atol=1e-5),
    OpInfo("conv1d", _s(((2, 3, 9), (("arr", (4, 3, 3)), ("arr", (4,))), {"stride": 2, "padding": 1}),
                        ((3, 8), (("arr", (2, 3, 2)),), {"padding": "same"})),
           torch_name="nn.functional.conv1d", rtol=1e-5, atol=1e-5),
    OpInfo("conv2d", _s(((2, 3, 6, 5), (("arr", (4, 3, 3, 3)), ("arr", (4,))), {"padding": 1}),
                        ((1, 4, 7, 7), (("arr", (4, 2, 3, 2)),), {"stride": 2, "dilation": (1, 2), "groups": 2})),
           torch_name="nn.functional.conv2d", rtol=1e-5, atol=1e-5),
    OpInfo("conv_transpose2d", _s(((2, 4, 4, 3), (("arr", (4, 3, 3, 3)),), {"stride": 2, "output_padding": 1})),
           torch_name="nn.functional.conv_transpose2d", rtol=1e-5, atol=1e-5),
    OpInfo("max_pool2d", _s(((2, 3, 7, 6), (2,), {}), ((3, 9, 9), (3, 2, 1), {"ceil_mode": True})),
           torch_name="nn.functional.max_pool2d"),
    OpInfo("_nn.avg_pool2d", _s(((2, 3, 7, 6), (2,), {}), ((3, 9, 9), (3, 2, 1), {"ceil_mode": True,
                                                                             "count_include_pad": False})),
           torch_name="nn.functional.avg_pool2d"),
    OpInfo("_nn.adaptive_avg_pool2d", _s(((2, 3, 7, 6), ((3, 4),), {})), torch_name="nn.functional.adaptive_avg_pool2d"),
    OpInfo("max_pool3d", _s(((2, 3, 5, 6, 4), (2,), {}), ((3, 7, 7, 5), (3, 2, 1), {"ceil_mode": True}),
                           ((1, 2, 6, 5, 6), ((2, 3, 2),), {"dilation": 2})),
           torch_name="nn.functional.max_pool3d", method_variant=False),
    OpInfo("_nn.avg_pool3d", _s(((2, 3, 5, 6, 4), (2,), {}), ((3, 7, 7, 5), (3, 2, 1), {"ceil_mode": True,
                                                                                     "count_include_pad": False}),
                                ((1, 2, 4, 4, 4), (2,), {"divisor_override": 3})),
           torch_name="nn.functional.avg_pool3d", method_variant=False),
    OpInfo("_nn.adaptive_avg_pool3d", _s(((2, 3, 5, 6, 7), ((2, 4, 3),), {}), ((3, 4, 4, 4), ((4, 1, 3),), {})),
           torch_name="nn.functional.adaptive_avg_pool3d", method_variant=False),
    OpInfo("nn.functional.adaptive_max_pool3d", _s(((2, 3, 5, 6, 7), ((2, 4, 3),), {}), ((3, 4, 4, 4), (3,), {})),
           method_variant=False),
    OpInfo("layer_norm", _s(((2, 3, 4), ([4], ("arr", (4,)), ("arr", (4,))), {}), ((5, 6), ([6],), {})),
           torch_name="nn.functional.layer_norm"),
    OpInfo("group_norm", _s(((2, 6, 5), (3, ("arr", (6,)), ("arr", (6,))), {})),
           torch_name="nn.functional.group_norm"),
    OpInfo("rms_norm", _s(((2, 3, 4), ([4], ("arr", (4,))), {})), torch_name="nn.functional.rms_norm"),
    OpInfo("embedding", _s((("arr", (6, 3)), (("idx", (2, 4), 6),), {})), torch_name="embedding"),
    OpInfo("_nn.mse_loss", _s(((3, 4), (("arr", (3, 4)),), {}), ((5,), (("arr", (5,)),), {})),
           torch_name="nn.functional.mse_loss"),
    OpInfo("_nn.l1_loss", _s(((3, 4), (("arr", (3, 4)),), {})), torch_name="nn.functional.l1_loss"),
    OpInfo("_nn.smooth_l1_loss", _s(((3, 4), (("arr", (3, 4)),), {"beta": 0.5})),
           torch_name="nn.functional.smooth_l1_loss"),
    OpInfo("binary_cross_entropy_with_logits", _s(((3, 4), (("arr", (3, 4), 0.0, 1.0),), {})),
           torch_name="nn.functional.binary_cross_entropy_with_logits"),
    OpInfo("_nn.cross_entropy_loss", _s(((4, 5), (("idx", (4,), 5),), {}), ((4, 5), (("arr", (4, 5), 0.0, 1.0),), {})),
           torch_name="nn.functional.cross_entropy", rtol=1e-5, atol=1e-5),
    OpInfo("pixel_shuffle", _s(((2, 8, 3, 2), (2,), {})), torch_name="nn.functional.pixel_shuffle",
           check_strides=False),
    OpInfo("pairwise_distance", _s(((4, 5), (("arr", (4, 5)),), {})), torch_name="nn.functional.pairwise_distance"),
    OpInfo("cosine_similarity", _s(((4, 5), (("arr", (4, 5)),), {})), torch_name="nn.functional.cosine_similarity"),
    # second tier (backward formulas in derivatives_nn2.yaml); grids and indices kept off the kinks
    OpInfo("nn.functional.grid_sample", _s(((1, 2, 3, 4), (("arr", (1, 2, 3, 2), -1.2, 1.2),), {}),
                                           ((1, 2, 3, 4), (("arr", (1, 3, 2, 2), -1.5, 1.5),),
                                            {"mode": "bicubic", "padding_mode": "border", "align_corners": True}),
                                           ((1, 1, 4, 3), (("arr", (1, 2, 2, 2), -2.0, 2.0),),
                                            {"padding_mode": "reflection", "align_corners": False})),
           method_variant=False, aten_name="grid_sampler_2d", rtol=1e-5, atol=1e-6),
    OpInfo("cdist", _s(((3, 2), (("arr", (4, 2)),), {}), ((3, 2), (("arr", (4, 2)),), {"p": 1.0}),
                       ((2, 3, 2), (("arr", (2, 4, 2)),), {"p": 3.0}),
                       ((3, 2), (("arr", (4, 2)),), {"p": float("inf")})),
           method_variant=False, aten_name="_cdist_forward", rtol=1e-5, atol=1e-6),
    OpInfo("nn.functional.embedding_bag",
           _s((("idx", (9,), 6), (("arr", (6, 3)), np.array([0, 2, 2, 5])), {"mode": "sum"}),
              (("idx", (9,), 6), (("arr", (6, 3)), np.array([0, 4])), {"mode": "mean", "padding_idx": 2}),
              (("idx", (9,), 6), (("arr", (6, 3)), np.array([0, 3, 7])), {"mode": "max"}),
              (("idx", (9,), 6), (("arr", (6, 3)), np.array([0, 3])), {"mode": "sum",
                                                                        "per_sample_weights": ("arr", (9,))})),
           method_variant=False, aten_name="_embedding_bag", check_strides=False),
    OpInfo("nn.functional.max_unpool2d", _s(((1, 2, 2, 2), (np.array([[[[0, 3], [9, 14]], [[5, 2], [8, 15]]]]), 2), {}),
                                            ((2, 2, 2), (np.array([[[1, 7], [13, 19]], [[0, 2], [10, 22]]]), 2),
                                             {"output_size": (5, 5)})),
           method_variant=False, aten_name="max_unpool2d"),
    OpInfo("nn.functional.ctc_loss", _s(((5, 2, 4), (np.array([[1, 2], [3, 3]]), [5, 4], [2, 2]), {}),
                                        ((6, 2, 4), (np.array([1, 2, 2, 3]), [6, 5], [3, 1]), {"reduction": "sum"})),
           method_variant=False, aten_name="_ctc_loss", rtol=1e-5, atol=1e-6),
    OpInfo("_nn.scaled_dot_product_attention", _s(((2, 3, 4, 8), (("arr", (2, 3, 5, 8)), ("arr", (2, 3, 5, 8))), {}),
                                              ((2, 4, 8), (("arr", (2, 4, 8)), ("arr", (2, 4, 8))),
                                               {"is_causal": True})),
           torch_name="nn.functional.scaled_dot_product_attention", rtol=1e-5, atol=1e-5, check_strides=False),
]

# issue 5: multi-class margin losses (native/nn_extra.yaml)
op_db_nn += [
    OpInfo("_nn.multi_margin_loss", _s(((4, 5), (("idx", (4,), 5),), {}), ((4, 5), (("idx", (4,), 5), 2, 0.5), {}),
                                   ((6,), (("idx", (1,), 6),), {})),
           torch_name="nn.functional.multi_margin_loss", method_variant=False),
    OpInfo("_nn.multilabel_margin_loss", _s(((3, 4), (("idx", (3, 4), 4),), {}), ((5,), (("idx", (5,), 5),), {})),
           torch_name="nn.functional.multilabel_margin_loss", method_variant=False),
]
