"""functional_call at both of torch's paths (torch.func.functional_call, the deprecated
torch.nn.utils.stateless.functional_call) against torch: outputs and gradients through the replacement tensors,
the module restored afterwards, in-place buffer updates handed back, tied weights, strict mode and the argument
errors."""
import warnings

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


class _Net:
    """The same small model in either library: Linear -> BatchNorm1d -> Linear whose weight is tied to a second
    name, with a plain tensor attribute."""

    @staticmethod
    def make(L):
        class Net(L.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = L.nn.Linear(3, 4)
                self.bn = L.nn.BatchNorm1d(4)
                self.out = L.nn.Linear(4, 4, bias=False)
                self.tied = self.out.weight
                self.register_buffer("shift", L.zeros(4))

            def forward(self, x, scale=1.0):
                h = self.bn(self.fc(x)) * scale
                return self.out(h) + h @ self.tied.t() + self.shift

        L.manual_seed(0)
        net = Net()
        with L.no_grad():
            for i, p in enumerate(net.parameters()):
                p.copy_(L.tensor(np.linspace(-1, 1, p.numel()).reshape(tuple(p.shape)) * (i + 1), dtype=L.float32))
        return net


_X = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)


def _vals(L, shape_of, k):
    return L.tensor(np.cos(np.arange(np.prod(shape_of)) + k).reshape(shape_of).astype(np.float32), requires_grad=True)


def _call(L, path, params, *args, **kwargs):
    net = _Net.make(L)
    before = {k: v.detach().clone() for k, v in net.state_dict().items()}
    fn = L.func.functional_call if path == "func" else L.nn.utils.stateless.functional_call
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn(net, params(L, net), *args, **kwargs)
    after = {k: v for k, v in net.state_dict().items()}
    restored = all(np.array_equal(before[k].numpy(), after[k].numpy()) for k in before)
    warned = [str(x.message) for x in w if issubclass(x.category, FutureWarning)]
    return out, restored, warned


@pytest.mark.parametrize("path", ["func", "stateless"])
@pytest.mark.parametrize("tie_weights", [True, False])
def test_functional_call_outputs_grads_and_restoring_match_torch(path, tie_weights):
    res = []
    for L in (torch, ember):
        given = {}

        def params(L, net):
            given.update({"fc.weight": _vals(L, (4, 3), 1), "out.weight": _vals(L, (4, 4), 2),
                          "bn.running_mean": L.zeros(4)})
            return given
        out, restored, warned = _call(L, path, params, (L.tensor(_X),), {"scale": 2.0}, tie_weights=tie_weights)
        (out ** 2).mean().backward()    # (a plain sum through BatchNorm has gradients of rounding size)
        res.append((restored, [m.replace("torch", "T") for m in warned],
                    [t.detach().numpy() for t in (out, given["fc.weight"].grad, given["out.weight"].grad,
                                                  given["bn.running_mean"])]))
    assert res[0][:2] == res[1][:2] and (len(res[1][1]) == 1) == (path == "stateless")
    for want, got in zip(res[0][2], res[1][2]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("path", ["func", "stateless"])
def test_functional_call_args_forms_match_torch(path):
    res = []
    for L in (torch, ember):
        x = L.tensor(_X)
        outs = [_call(L, path, lambda L, net: {}, x)[0],                    # one argument, not a tuple
                _call(L, path, lambda L, net: {"shift": L.ones(4)}, (x,), None)[0],
                _call(L, path, lambda L, net: {"shift": L.ones(4)}, (x, 0.5))[0]]
        res.append([o.detach().numpy() for o in outs])
    for want, got in zip(*res):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("params", [
    lambda L, net: {"fc.weight": L.zeros(4, 3), "nope": L.zeros(1)},
    lambda L, net: {k: v for k, v in net.state_dict(keep_vars=True).items() if k != "fc.bias"},
    lambda L, net: dict(net.state_dict(keep_vars=True), **{"fc.extra": L.zeros(1)}),
], ids=["unexpected-and-missing", "missing", "unexpected"])
def test_functional_call_strict_errors_match_torch(params):
    errs = []
    for L in (torch, ember):
        with pytest.raises(RuntimeError) as e:
            _call(L, "func", params, (L.tensor(_X),), strict=True)
        errs.append(str(e.value))
    assert errs[0] == errs[1]


@pytest.mark.parametrize("call", [
    lambda L, net: L.func.functional_call(net, ({"shift": L.ones(4)}, {"shift": L.ones(4)}), (L.ones(1, 3),)),
    lambda L, net: L.func.functional_call(net, ({"shift": L.ones(4)}, 3), (L.ones(1, 3),)),
    lambda L, net: L.func.functional_call(net, 3, (L.ones(1, 3),)),
    lambda L, net: L.func.functional_call(net, {"out.weight": L.ones(4, 4), "tied": L.zeros(4, 4)}, (L.ones(2, 3),)),
    lambda L, net: L.func.functional_call(net, {"shift": 3.0}, (L.ones(2, 3),)),
    lambda L, net: L.func.functional_call(net, {"fc.weight.x": L.ones(1)}, (L.ones(2, 3),)),
], ids=["repeated-keys", "not-a-dict", "not-dicts", "tied-values", "not-a-tensor", "into-a-tensor"])
def test_functional_call_argument_errors_match_torch(call):
    errs = []
    for L in (torch, ember):
        net = _Net.make(L)
        with pytest.raises(Exception) as e:
            call(L, net)
        errs.append((type(e.value).__name__, str(e.value).replace("torch.", "").replace("ember.", "")))
        assert net.shift.sum().item() == 0 and type(net.fc.weight).__name__ == "Parameter"
    assert errs[0] == errs[1]


def test_functional_call_of_a_new_attribute_is_removed_afterwards():
    res = []
    for L in (torch, ember):
        net = _Net.make(L)
        L.func.functional_call(net, {"fc.extra": L.ones(2)}, (L.ones(2, 3),))
        res.append(hasattr(net.fc, "extra"))
    assert res == [False, False]


def _shared(L):
    """`a` and `b` are one Linear (so `a.weight` and `b.weight` are one slot), `c.weight` is tied to it as a
    second Parameter entry of another Linear."""
    m = L.nn.Module()
    m.a = L.nn.Linear(2, 2)
    m.b = m.a
    m.c = L.nn.Linear(2, 2)
    m.c.weight = m.a.weight
    with L.no_grad():
        m.a.weight.copy_(L.tensor([[0.5, -1.0], [2.0, 0.25]]))
        m.a.bias.copy_(L.tensor([0.1, -0.2]))
        m.c.bias.copy_(L.tensor([-0.3, 0.7]))
    m.forward = lambda x, fail=False: (_ for _ in ()).throw(ValueError("boom")) if fail else \
        m.a(x) + 2 * m.b(x) + 3 * m.c(x)
    return m


_TIED_DICTS = [["a.weight", "b.weight"], ["b.weight", "a.weight"], ["a.weight", "c.weight"], ["a.weight"],
               ["b.weight"], ["c.weight", "b.weight", "a.weight"]]


@pytest.mark.parametrize("tie_weights", [True, False])
@pytest.mark.parametrize("names", _TIED_DICTS, ids="+".join)
@pytest.mark.parametrize("fail", [False, True], ids=["returns", "raises"])
def test_functional_call_of_tied_names_puts_the_module_back_exactly(tie_weights, names, fail):
    """Values given under several names of one tied tensor: the call sees what torch's call sees (or raises as
    torch does), and afterwards every name is the module's own Parameter again and the given dict holds what was
    given. torch itself undoes in call order, so when two names are one slot (`a`, `b` one submodule) it leaves
    the last replacement on the module and hands the original Parameter back in the dict; ember undoes last
    first (torch's stack_weights order), which leaves the module as it was."""
    res = []
    for L in (torch, ember):
        m = _shared(L)
        orig = {n: getattr(getattr(m, n), "weight") for n in "abc"}
        given = {n: L.full((2, 2), float(i + 1), requires_grad=True) for i, n in enumerate(names)}
        passed = dict(given)
        x = L.ones(1, 2)
        try:
            out = L.func.functional_call(m, passed, (x,), {"fail": fail}, tie_weights=tie_weights)
            got = ("out", out.detach().numpy())
        except (ValueError, KeyError) as e:
            got = (type(e).__name__, str(e))
        res.append(got)
        if L is ember:
            assert all(getattr(m, n).weight is orig[n] for n in "abc")
            assert all(type(getattr(m, n).weight).__name__ == "Parameter" for n in "abc")
            assert all(passed[k] is given[k] for k in given) and passed.keys() == given.keys()
    if res[0][0] == "KeyError":
        # torch's tied-values check looks up every tied name in the dict, so when only some of three tied names
        # are given it fails on a missing key instead of saying the given values differ; ember says that
        assert tie_weights and len(names) == 2 and res[1][0] == "ValueError" and "which are tied" in res[1][1]
        return
    assert res[0][0] == res[1][0]
    if res[0][0] == "out":
        np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-6)
    else:
        assert res[0][1] == res[1][1]
