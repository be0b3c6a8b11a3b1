"""The backend registry (register_backend, lookup_backend, list_backends) and the eager / aot_eager backends."""
import copy

import pytest

import ember
from ember import fx
from ember._dynamo import list_backends, lookup_backend, register_backend
from ember._dynamo.exc import InvalidBackend
from ember.testing import assert_close

from ._models import CNN


def test_builtin_backends_are_debug_tagged():
    assert list_backends(exclude_tags=()) >= ["aot_eager", "eager"]
    assert "eager" not in list_backends()          # torch hides the debug backends by default


def test_register_and_lookup():
    calls = []

    @register_backend(name="fx_test_counting")
    def counting(gm, example_inputs):
        calls.append(len(example_inputs))
        return gm.forward

    assert "fx_test_counting" in list_backends()
    assert lookup_backend("fx_test_counting") is counting
    assert lookup_backend(counting) is counting
    gm = fx.symbolic_trace(lambda x: x + 1)
    assert lookup_backend("fx_test_counting")(gm, [ember.ones(1)])(ember.ones(1)).tolist() == [2.0]
    assert calls == [1]
    with pytest.raises(AssertionError, match="duplicate name"):
        register_backend(lambda gm, ex: gm, name="fx_test_counting")
    with pytest.raises(InvalidBackend, match="Invalid backend: 'no_such_backend'"):
        lookup_backend("no_such_backend")


@pytest.mark.parametrize("name", ["eager", "aot_eager"])
def test_backends_on_a_traced_cnn(name):
    ember.manual_seed(0)
    m = CNN()
    ref = copy.deepcopy(m)
    gm = fx.symbolic_trace(m)
    x = ember.randn(2, 2, 8, 8)
    compiled = lookup_backend(name)(gm, [x])
    out = compiled(x)
    want = ref(x)
    assert_close(out, want)
    out.sum().backward()
    want.sum().backward()
    for (n, p), (_, q) in zip(gm.named_parameters(), ref.named_parameters()):
        assert_close(p.grad, q.grad, msg=n)
    assert_close(gm.bn.running_mean, ref.bn.running_mean)
