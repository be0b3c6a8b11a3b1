"""torch.func's model-ensembling helpers against torch: stack_module_state (stacked leaves, buffers, its errors)
with vmap over functional_call as torch's ensembling tutorial runs it, and replace_all_batch_norm_modules_."""
import copy

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _models(L, n=3, bn=False):
    out = []
    for i in range(n):
        layers = [L.nn.Linear(3, 4)] + ([L.nn.BatchNorm1d(4)] if bn else []) + [L.nn.ReLU(), L.nn.Linear(4, 2)]
        m = L.nn.Sequential(*layers)
        with L.no_grad():
            for j, p in enumerate(m.parameters()):
                p.copy_(L.tensor(np.sin(np.arange(p.numel()) * (i + 1) + j).reshape(tuple(p.shape)), dtype=L.float32))
        out.append(m)
    return out


def test_stack_module_state_and_ensembled_forward_match_torch():
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    res = []
    for L in (torch, ember):
        models = _models(L, bn=True)
        params, buffers = L.func.stack_module_state(models)
        base = copy.deepcopy(models[0]).to("meta")

        def f(p, b, xx):
            return L.func.functional_call(base, (p, b), (xx,))
        out = L.func.vmap(f, in_dims=(0, 0, None))(params, buffers, L.tensor(x))
        out.pow(2).sum().backward()
        res.append(({k: (tuple(v.shape), v.requires_grad, v.is_leaf) for k, v in params.items()},
                    {k: (tuple(v.shape), str(v.dtype).split(".")[1]) for k, v in buffers.items()},
                    out.detach().numpy(), params["0.weight"].grad.numpy()))
    assert res[0][:2] == res[1][:2]
    np.testing.assert_allclose(res[1][2], res[0][2], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(res[1][3], res[0][3], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("make", [
    lambda L: [], lambda L: [_models(L)[0], _models(L)[1].eval()],
    lambda L: [_models(L)[0], L.nn.Linear(3, 4)],
    lambda L: [_models(L)[0], _models(L)[1].requires_grad_(False)],
], ids=["none", "modes", "classes", "requires-grad"])
def test_stack_module_state_errors_match_torch(make):
    errs = []
    for L in (torch, ember):
        with pytest.raises(RuntimeError) as e:
            L.func.stack_module_state(make(L))
        errs.append(str(e.value))
    assert errs[0] == errs[1]


def test_replace_all_batch_norm_modules_matches_torch():
    res = []
    for L in (torch, ember):
        m = L.nn.Sequential(L.nn.BatchNorm1d(3), L.nn.Sequential(L.nn.BatchNorm2d(2, track_running_stats=True)),
                            L.nn.Linear(3, 3))
        r = L.func.replace_all_batch_norm_modules_(m)
        res.append((r is m, [n for n, _ in m.named_buffers()], m[0].track_running_stats, m[1][0].running_mean,
                    repr(m)))
    assert res[0] == res[1]
