"""ember.compile(model) with the default backend ("inductor"): forward and gradients equal eager for an MLP, a
small CNN, a GPT block and a small GPT; training steps follow eager's losses; inference graphs compile too."""
import copy
import warnings

import pytest

import ember
import ember.nn as nn
from ember._dynamo.utils import counters
from ember.testing import assert_close
from tests.dynamo.models import CNN, GPT, MLP, Block

from ._compiled import fresh_caches

_fresh = pytest.fixture(autouse=True)(fresh_caches)

CASES = {
    "mlp": (lambda: MLP(), lambda: (ember.randn(4, 6),)),
    "cnn": (lambda: CNN(), lambda: (ember.randn(2, 1, 8, 8),)),
    "gpt_block": (lambda: Block(32, 4, 16), lambda: (ember.randn(2, 16, 32),)),
    "gpt": (lambda: GPT(), lambda: (ember.randint(0, 32, (2, 8)), ember.randint(0, 32, (2, 8)))),
}


def _loss(out):
    return out[1] if isinstance(out, tuple) else (out * out).mean()


@pytest.mark.parametrize("name", list(CASES))
def test_forward_and_gradients_equal_eager(name):
    make, inputs = CASES[name]
    ember.manual_seed(0)
    m = make()
    m2 = copy.deepcopy(m)
    cm = ember.compile(m2)
    before = dict(counters["inductor"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)       # no fallback of any kind
        for _ in range(2):
            args = inputs()
            out, out2 = m(*args), cm(*args)
            assert_close(_loss(out2), _loss(out), rtol=1e-4, atol=1e-5)
            _loss(out).backward()
            _loss(out2).backward()
    for (n, p), (_, p2) in zip(m.named_parameters(), m2.named_parameters()):
        assert_close(p2.grad, p.grad, rtol=1e-4, atol=1e-5, msg=n)
    assert counters["inductor"]["graphs"] >= before.get("graphs", 0) + 2       # forward and backward graphs
    assert counters["inductor"]["kernels"] > before.get("kernels", 0)


def test_training_steps_follow_eager_losses():
    ember.manual_seed(1)
    m = MLP(6, 32, 3)
    m2 = copy.deepcopy(m)
    opt = ember.optim.SGD(m.parameters(), lr=0.1)
    opt2 = ember.optim.SGD(m2.parameters(), lr=0.1)
    cm = ember.compile(m2)
    x, y = ember.randn(16, 6), ember.randint(0, 3, (16,))
    lossf = nn.CrossEntropyLoss()
    for _ in range(5):
        opt.zero_grad()
        opt2.zero_grad()
        la = lossf(m(x), y)
        lb = lossf(cm(x), y)
        la.backward()
        lb.backward()
        opt.step()
        opt2.step()
        assert_close(lb, la, rtol=1e-5, atol=1e-6)


def test_inference_graph_under_no_grad_is_compiled():
    m = Block(16, 2, 8).eval()
    cm = ember.compile(m)
    x = ember.randn(3, 8, 16)
    before = counters["inductor"]["graphs"]
    with ember.no_grad():
        assert_close(cm(x), m(x), rtol=1e-5, atol=1e-5)
    assert counters["inductor"]["graphs"] == before + 1


def test_compiled_function_with_python_scalars_and_mixed_dtypes():
    def f(x, n, k):
        return (x * k).sum(-1) + n.float(), (n * 2 + 1) // 3
    x, n = ember.randn(4, 5), ember.arange(4)
    cf = ember.compile(f)
    for got, want in zip(cf(x, n, 2.5), f(x, n, 2.5)):
        assert_close(got, want)


@pytest.mark.parity
def test_parity_gpt_block_forward_with_torch_weights():
    torch = pytest.importorskip("torch")
    ember.manual_seed(0)
    m = Block(16, 2, 8)
    x = ember.randn(2, 8, 16)
    out = ember.compile(m)(x)
    tm = torch.nn.Module()
    sd = {k: torch.tensor(v.numpy()) for k, v in m.state_dict().items()}
    xt = torch.tensor(x.numpy())
    ln = torch.nn.functional.layer_norm
    h = ln(xt, (16,), sd["ln_1.weight"], sd["ln_1.bias"])
    qkv = h @ sd["attn.c_attn.weight"].T + sd["attn.c_attn.bias"]
    q, k, v = qkv.split(16, dim=2)
    sh = lambda t: t.view(2, 8, 2, 8).transpose(1, 2)  # noqa: E731
    q, k, v = sh(q), sh(k), sh(v)
    att = (q @ k.transpose(-2, -1)) * (1.0 / 8 ** 0.5)
    att = att.masked_fill(torch.tril(torch.ones(8, 8)) == 0, float("-inf")).softmax(-1)
    y = (att @ v).transpose(1, 2).reshape(2, 8, 16) @ sd["attn.c_proj.weight"].T + sd["attn.c_proj.bias"]
    xt = xt + y
    h = ln(xt, (16,), sd["ln_2.weight"], sd["ln_2.bias"])
    h = torch.nn.functional.gelu(h @ sd["mlp.0.weight"].T + sd["mlp.0.bias"]) @ sd["mlp.2.weight"].T + sd["mlp.2.bias"]
    del tm
    assert_close(out, ember.tensor((xt + h).detach().numpy()), rtol=1e-4, atol=1e-5)


def test_dropout_draws_the_same_random_numbers_as_eager():
    m = MLP(p=0.3)
    m2 = copy.deepcopy(m)
    cm = ember.compile(m2)
    x = ember.randn(8, 6)
    ember.manual_seed(5)
    a = m(x)
    a.sum().backward()
    ember.manual_seed(5)
    b = cm(x)
    b.sum().backward()
    assert_close(b, a)
    assert_close(m2.fc1.weight.grad, m.fc1.weight.grad)
