"""torch.func's module-state helpers (stack_module_state, replace_all_batch_norm_modules_, debug_unwrap) vs torch."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _models(lib, n=3):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = lib.nn.Linear(3, 4)
            self.bn = lib.nn.BatchNorm1d(4)

        def forward(self, x):
            return self.bn(self.l1(x))
    lib.manual_seed(0)
    ms = [Net() for _ in range(n)]
    rng = np.random.default_rng(1)
    with lib.no_grad():
        for m in ms:
            for p in list(m.parameters()) + [m.bn.running_mean]:
                p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
    return ms


@pytest.mark.parity
def test_stack_module_state_matches_torch():
    (ep, eb), (tp, tb) = ember.func.stack_module_state(_models(ember)), torch.func.stack_module_state(_models(torch))
    assert list(ep) == list(tp) and list(eb) == list(tb)
    for d_e, d_t in ((ep, tp), (eb, tb)):
        for k in d_t:
            np.testing.assert_array_equal(d_e[k].numpy() if not d_e[k].requires_grad else d_e[k].detach().numpy(),
                                          d_t[k].detach().numpy())
            assert d_e[k].requires_grad == d_t[k].requires_grad
            assert d_e[k].is_leaf == d_t[k].is_leaf
    assert ep["l1.weight"].shape == (3, 4, 3) and eb["bn.num_batches_tracked"].dtype == ember.int64


@pytest.mark.parity
def test_stacked_state_through_vmap_matches_torch():
    def ensemble(lib):
        models = _models(lib)
        params, buffers = lib.func.stack_module_state(models)
        for m in models:
            m.eval()
        x = lib.tensor(np.linspace(-1, 1, 6).reshape(2, 3), dtype=lib.float32)
        base = models[0]

        def call(p, b, data):
            return lib.func.functional_call(base, (p, b), (data,))
        return lib.func.vmap(call, in_dims=(0, 0, None))(params, buffers, x)
    e, t = ensemble(ember), ensemble(torch)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parity
def test_stack_module_state_errors_match_torch():
    def errors(lib):
        out = []
        ms = _models(lib, 2)
        bad = [
            [],
            [ms[0], lib.nn.Linear(3, 4)],
        ]
        ms2 = _models(lib, 2)
        ms2[1].eval()
        bad.append(ms2)
        ms3 = _models(lib, 2)
        ms3[1].l1.weight.requires_grad_(False)
        bad.append(ms3)
        for models in bad:
            with pytest.raises(RuntimeError) as e:
                lib.func.stack_module_state(models)
            out.append(str(e.value))
        return out
    assert errors(ember) == errors(torch)


@pytest.mark.parity
def test_replace_all_batch_norm_modules_matches_torch():
    def run(lib):
        net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Sequential(lib.nn.BatchNorm1d(4)))
        assert lib.func.replace_all_batch_norm_modules_(net) is net
        x = lib.tensor(np.linspace(-1, 1, 12).reshape(4, 3), dtype=lib.float32)
        with lib.no_grad():
            net[0].weight.copy_(lib.tensor(np.linspace(-0.5, 0.5, 12).reshape(4, 3), dtype=lib.float32))
        net.eval()                    # without running stats eval mode still normalises by batch statistics
        state = [(m.running_mean, m.running_var, m.num_batches_tracked, m.track_running_stats) for m in (net[1], net[2][0])]
        return net(x), state, sorted(dict(net.named_buffers()))
    (eo, es, eb), (to, ts, tb) = run(ember), run(torch)
    np.testing.assert_allclose(eo.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert es == ts == [(None, None, None, False)] * 2
    assert eb == tb == []


@pytest.mark.parity
def test_debug_unwrap_outside_and_inside_transforms():
    x = ember.tensor([1.0, 2.0])
    assert ember.func.debug_unwrap(x) is x
    tx = torch.tensor([1.0, 2.0])
    assert torch.func.debug_unwrap(tx) is tx
    seen = []
    ember.func.grad(lambda a: (seen.append(ember.func.debug_unwrap(a, recurse=False)), (a * a).sum())[1])(x)
    np.testing.assert_array_equal(seen[0].detach().numpy(), [1.0, 2.0])
