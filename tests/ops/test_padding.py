"""F.pad (constant, reflect, replicate, circular) and its errors against torch."""
import pytest
import ember
import ember.nn.functional as EF
from ._nn_util import DTYPES, arr, close, meta_matches, pair


def both(torch, name, e_args, t_args, **kw):
    tf = getattr(torch.nn.functional, name, None) or getattr(torch, name)
    return getattr(EF, name)(*e_args, **kw), tf(*t_args, **kw)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,p", [((2, 3, 5), [1, 2]), ((2, 3, 5, 4), [1, 2, 2, 0]), ((3, 4, 5), [2, 1, 1, 3]),
                                     ((1, 2, 3, 4, 5), [1, 1, 1, 1, 1, 1])])
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad(dtype, shape, p, mode):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    close(*both(torch, "pad", (x, p), (tx, p), mode=mode))
    if mode == "constant":
        close(*both(torch, "pad", (x, [-1, 2]), (tx, [-1, 2]), value=2.5))
    meta_matches(lambda t: EF.pad(t, p, mode=mode), x)


@pytest.mark.parity
def test_pad_reflect_error():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as te:
        torch.nn.functional.pad(torch.randn(1, 2, 3), [3, 3], mode="reflect")
    with pytest.raises(RuntimeError) as ee:
        EF.pad(ember.randn(1, 2, 3), [3, 3], mode="reflect")
    assert str(ee.value) == str(te.value)
