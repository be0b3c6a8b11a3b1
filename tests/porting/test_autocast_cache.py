"""autocast's weight cache (torch's cached_cast): inside a region the lower-precision copy of a float32
leaf parameter is made once and shared by every op that casts it; `cache_enabled=False` turns it off,
and leaving the outermost region drops it. Which casts are shared is compared with torch through the
autograd graph (a shared cast is one ToCopyBackward0 node)."""
import warnings

import pytest

import ember
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = """
lin = torch.nn.Linear(4, 3)
x = torch.randn(2, 4)
w = torch.randn(3, 3, requires_grad=True)


def weight_cast(y):          # addmm(bias, x, weight.t()): the ToCopy under the transpose
    return y.grad_fn.next_functions[2][0].next_functions[0][0]


def bias_cast(y):
    return y.grad_fn.next_functions[0][0]


shared = {}
for cache in (True, False):
    with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=cache):
        y1, y2 = lin(x), lin(x)
        m1, m2 = torch.mm(w, w), torch.mm(w.t(), w)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y3 = lin(x)
        shared[cache] = (weight_cast(y1) is weight_cast(y2), bias_cast(y1) is bias_cast(y2),
                         m1.grad_fn.next_functions[0][0] is m1.grad_fn.next_functions[1][0],
                         m2.grad_fn.next_functions[0][0] is m2.grad_fn.next_functions[1][0],
                         weight_cast(y3) is weight_cast(y1), torch.is_autocast_cache_enabled())
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y4 = lin(x)
    shared[cache] += (weight_cast(y4) is weight_cast(y1),)
with torch.autocast("cpu", dtype=torch.bfloat16):
    loss = lin(x).float().sum() + lin(x).float().sum()
loss.backward()
grads = (lin.weight.grad.dtype, lin.weight.grad.shape)
cache_after = torch.is_autocast_cache_enabled()
"""


def _run(module):
    from _porting import run_script
    env = run_script(SCRIPT, module)
    return env["shared"], [str(d).split(".")[-1] for d in env["grads"][:1]] + [tuple(env["grads"][1])], \
        env["cache_after"]


def test_autocast_caches_leaf_parameter_casts_per_region():
    shared, grads, cache_after = _run(ember)
    # with the cache: both calls share the weight's and the bias's cast; w.t() is a view (never cached)
    assert shared[True] == (True, True, True, False, True, True, False)
    assert shared[False] == (False, False, False, False, False, False, False)
    assert grads == ["float32", (3, 4)] and cache_after is True


@pytest.mark.parity
def test_autocast_cache_matches_torch(torch):
    assert _run(ember) == _run(torch)


def test_cache_state_functions_and_nesting():
    assert ember.is_autocast_cache_enabled()
    ember.set_autocast_cache_enabled(False)
    assert not ember.is_autocast_cache_enabled()
    ember.set_autocast_cache_enabled(True)
    assert ember.autocast_increment_nesting() == 1 and ember.autocast_decrement_nesting() == 0
    ember.clear_autocast_cache()
    with pytest.warns(DeprecationWarning, match=r"is_autocast_cpu_enabled\(\) is deprecated"):
        assert ember.is_autocast_cpu_enabled() is False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert ember.get_autocast_cpu_dtype() == ember.bfloat16


@pytest.mark.parity
def test_autocast_op_lists_cover_torch_cpu_registrations(torch):
    """Every aten op torch registers an AutocastCPU kernel for is on one of ember's three lists, and
    ember lists nothing else (but nll_loss_nd: one kernel in ember, a decomposition into the listed
    nll_loss/nll_loss2d in torch)."""
    from ember.amp import cast_policy
    names = torch._C._dispatch_get_all_op_names()
    torch_ops = {n.split("::")[1].split(".")[0] for n in names
                 if n.startswith("aten::") and torch._C._dispatch_has_kernel_for_dispatch_key(n, "AutocastCPU")}
    ember_ops = cast_policy.LOWER_PRECISION_FP | cast_policy.FP32 | cast_policy.PROMOTE
    assert sorted(torch_ops - ember_ops) == []
    assert sorted(ember_ops - torch_ops) == ["nll_loss_nd"]
