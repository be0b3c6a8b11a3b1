"""torch.library.register_torch_dispatch (ember.library.register_torch_dispatch) against torch: per-op rules for
a dispatch mode class."""
import uuid

import numpy as np
import pytest

import ember
from ember.utils._python_dispatch import TorchDispatchMode as ETorchDispatchMode

torch = pytest.importorskip("torch")
from torch.utils._python_dispatch import TorchDispatchMode as TTorchDispatchMode  # noqa: E402


def _run(lib, Mode, how):
    ns = "ns19r_" + uuid.uuid4().hex[:8]
    L = lib.library.Library(ns, "FRAGMENT")
    L.define("foo(Tensor x) -> Tensor")
    L.impl("foo", lambda x: x.clone(), "CompositeExplicitAutograd")
    op = getattr(lib.ops, ns).foo
    calls = []

    class MyMode(Mode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            calls.append(str(func).split(".", 1)[-1])
            return func(*args, **(kwargs or {}))

    def rule(mode, func, types, args, kwargs):
        calls.append(("rule", type(mode).__name__))
        (x,) = args
        return x + 1
    target = {"string": f"{ns}::foo", "overload": op.default}[how]
    assert lib.library.register_torch_dispatch(target, MyMode, rule, lib=L) is rule
    with pytest.raises(RuntimeError, match="already has a `__torch_dispatch__` rule registered for"):
        lib.library.register_torch_dispatch(target, MyMode, rule, lib=L)
    x = lib.tensor([1.0, 2.0])
    outside = op(x).tolist()
    with MyMode():
        inside = op(x).tolist()
        other = (x * 3).tolist()            # other ops still reach the mode's __torch_dispatch__
    return outside, inside, other, calls


@pytest.mark.parity
@pytest.mark.parametrize("how", ["string", "overload"])
def test_rule_replaces_the_modes_torch_dispatch_for_that_op(how):
    e = _run(ember, ETorchDispatchMode, how)
    t = _run(torch, TTorchDispatchMode, how)
    assert e == t
    np.testing.assert_array_equal(e[1], [2.0, 3.0])
    assert e[3][0] == ("rule", "MyMode")
