"""Bad input to the nn entry points raises torch's exception type and message."""
import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as EF

R = np.random.default_rng(0)


def f(*s):
    return R.standard_normal(s).astype(np.float32)


CASES = [
 ("conv2d", (f(1,4,5,5), f(8,3,3,3)), {}),
 ("conv2d", (f(2,3), f(8,3,3,3)), {}),
 ("conv1d", (f(2,3,5,5), f(8,3,3)), {}),
 ("conv2d", (f(1,3,5,5), f(8,3,3,3)), {"padding": "foo"}),
 ("conv2d", (f(1,3,5,5), f(8,3,3,3), f(4)), {}),
 ("conv2d", (f(1,3,5,5), f(8,3,3,3)), {"stride": -1}),
 ("conv2d", (f(1,3,5,5), f(8,3,3,3)), {"padding": -1}),
 ("conv2d", (f(1,3,5,5), f(8,3,3,3)), {"dilation": 0}),
 ("conv2d", (f(1,3,5,5), f(8,3,3,3)), {"groups": 0}),
 ("conv_transpose2d", (f(1,3,5,5), f(4,3,3,3)), {}),
 ("conv_transpose2d", (f(2,3), f(4,3,3,3)), {}),
 ("conv_transpose2d", (f(1,4,5,5), f(4,3,3,3)), {"output_padding": 2}),
 ("conv3d", (f(1,3,5,5), f(8,3,3,3,3)), {}),
 ("max_pool2d", (f(1,3,5,5),), {"kernel_size": 0}),
 ("max_pool2d", (f(1,3,5,5),), {"kernel_size": (2,2,2)}),
 ("max_pool1d", (f(1,3,5,5),), {"kernel_size": 2}),
 ("avg_pool1d", (f(5),), {"kernel_size": 2}),
 ("avg_pool2d", (f(1,3,5,5),), {"kernel_size": 2, "divisor_override": 0}),
 ("adaptive_avg_pool1d", (f(5),), {"output_size": 2}),
 ("adaptive_max_pool2d", (f(1,3,5,5),), {"output_size": -1}),
 ("layer_norm", (f(2,3,4), [4], f(3)), {}),
 ("group_norm", (f(2,6,4), 3, f(5)), {}),
 ("batch_norm", (f(2,3,4), f(4), f(3)), {}),
 ("batch_norm", (f(2,3,4), None, None), {}),
 ("instance_norm", (f(2,3,4), f(4), f(4)), {}),
 ("embedding", (np.array([[0, 1]]), f(3)), {}),
 ("one_hot", (np.array([1.5]),), {}),
 ("pad", (f(2,3),), {"pad": [1]}),
 ("pad", (f(2,3),), {"pad": [1,1,1,1,1,1]}),
 ("pad", (f(2,3),), {"pad": [3,3], "mode": "reflect"}),
 ("pad", (f(3,3),), {"pad": [1,1], "mode": "foo"}),
 ("interpolate", (f(1,3,4,4),), {"size": 3, "scale_factor": 2}),
 ("interpolate", (f(1,3,4,4),), {"scale_factor": 2, "mode": "linear"}),
 ("interpolate", (f(1,3,4,4),), {"scale_factor": 2, "align_corners": True}),
 ("interpolate", (f(1,3,4,4),), {}),
 ("scaled_dot_product_attention", (f(2,3,4), f(2,5,4), f(2,5,6)), {"attn_mask": np.ones((3,5), bool), "is_causal": True}),
 ("scaled_dot_product_attention", (f(2,3,4), f(2,5,3), f(2,5,6)), {}),
 ("pixel_shuffle", (f(3,4),), {"upscale_factor": 2}),
 ("pixel_unshuffle", (f(1,3,5,4),), {"downscale_factor": 2}),
 ("unfold", (f(1,3,2,2),), {"kernel_size": 3}),
 ("fold", (f(1,12,4),), {"output_size": 4, "kernel_size": 2}),
 ("dropout", (f(3),), {"p": -0.1}),
 ("dropout2d", (f(3),), {"p": 0.1}),
 ("softmax", (f(3,4),), {"dim": 2}),
 ("log_softmax", (np.arange(4),), {"dim": 0}),
 ("grid_sample", (f(1,3,4,4), f(1,2,2,3)), {}),
]


def _conv(m):
    return lambda a: m(a.copy()) if isinstance(a, np.ndarray) else a


@pytest.mark.parity
@pytest.mark.parametrize("name,args,kw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_error_parity(name, args, kw):
    torch = pytest.importorskip("torch")
    tf = getattr(torch.nn.functional, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as te:
            tf(*map(_conv(torch.from_numpy), args), **{k: _conv(torch.from_numpy)(v) for k, v in kw.items()})
        with pytest.raises(type(te.value)) as ee:
            getattr(EF, name)(*map(_conv(ember.from_numpy), args), **{k: _conv(ember.from_numpy)(v) for k, v in kw.items()})
    assert str(ee.value) == str(te.value)


@pytest.mark.parity
@pytest.mark.parametrize("a,b", [((3,), (3, 3)), ((3, 4), (3, 3))])
def test_cdist_errors(a, b):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as te:
        torch.cdist(torch.randn(*a), torch.randn(*b))
    with pytest.raises(RuntimeError) as ee:
        ember.cdist(ember.randn(*a), ember.randn(*b))
    assert str(ee.value) == str(te.value)
