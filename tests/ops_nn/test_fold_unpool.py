import numpy as np
import pytest

import ember
import ember.nn.functional as EF
from _nn_util import DTYPES, arr, close, meta_matches, pair


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,kw", [((2, 3, 6, 5), dict(kernel_size=2)),
                                      ((3, 7, 7), dict(kernel_size=(3, 2), dilation=(1, 2), padding=1, stride=2))])
def test_unfold_fold(dtype, shape, kw):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    u, tu = EF.unfold(x, **kw), torch.nn.functional.unfold(tx, **kw)
    close(u, tu)
    meta_matches(lambda t: EF.unfold(t, **kw), x)
    close(EF.fold(u, shape[-2:], **kw), torch.nn.functional.fold(tu, shape[-2:], **kw))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
def test_max_unpool2d(dtype):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 6, 6, dtype=dtype))
    v, i = EF.max_pool2d(x, 2, return_indices=True)
    tv, ti = torch.nn.functional.max_pool2d(tx, 2, return_indices=True)
    close(EF.max_unpool2d(v, i, 2), torch.nn.functional.max_unpool2d(tv, ti, 2))
    close(EF.max_unpool2d(v, i, 2, output_size=(7, 7)), torch.nn.functional.max_unpool2d(tv, ti, 2, output_size=(7, 7)))
