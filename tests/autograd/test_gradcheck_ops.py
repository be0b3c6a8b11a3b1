"""gradcheck and gradgradcheck for every op with a formula in derivatives.yaml."""
import pytest

from ember.autograd import gradcheck, gradgradcheck

from ._util import FIRST_ORDER_ONLY, OPS


@pytest.mark.parametrize("name", sorted(OPS))
def test_gradcheck(name):
    fn, make = OPS[name]
    assert gradcheck(fn, make())


@pytest.mark.parametrize("name", sorted(OPS))
def test_gradgradcheck(name):
    fn, make = OPS[name]
    if name in FIRST_ORDER_ONLY:
        with pytest.raises(RuntimeError, match="is not implemented"):
            gradgradcheck(fn, make())
        return
    assert gradgradcheck(fn, make())
