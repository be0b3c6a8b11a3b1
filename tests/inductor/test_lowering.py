"""Lowerings of aten ops to the loop IR: compiled results equal eager ember (and torch, for a few parity cases)."""
import math

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.testing import assert_close

from ._compiled import Compiled, fresh_caches

_fresh = pytest.fixture(autouse=True)(fresh_caches)


def _check(fn, *args, rtol=None, atol=None, expect_kernels=True):
    c = Compiled(fn)
    got = c(*args)
    want = fn(*args)
    if isinstance(want, (tuple, list)):
        for g, w in zip(got, want):
            assert_close(g, w, rtol=rtol, atol=atol, equal_nan=True)
    else:
        assert_close(got, want, rtol=rtol, atol=atol, equal_nan=True)
    if expect_kernels:
        assert c.modules and sum(c.kernels()) >= 1, "the graph was not compiled to C"
    return c


UNARY = ["abs", "neg", "exp", "expm1", "log1p", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh", "erf",
         "sigmoid", "relu", "floor", "ceil", "trunc", "round", "sign", "exp2", "asinh", "erfc"]


@pytest.mark.parametrize("name", UNARY)
def test_unary(name):
    x = ember.randn(3, 17) * 3
    _check(lambda x: getattr(ember, name)(x) + 1, x, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["log", "sqrt", "rsqrt", "reciprocal", "log2", "log10"])
def test_unary_positive_domain(name):
    x = ember.rand(4, 9) + 0.1
    _check(lambda x: getattr(ember, name)(x) * 2, x, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "minimum", "atan2", "pow", "remainder",
                                "fmod", "floor_divide"])
def test_binary_broadcast(op):
    x = ember.randn(4, 1, 5)
    y = ember.randn(3, 1) + 2.5
    _check(lambda x, y: getattr(ember, op)(x, y) * 1.5, x, y, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cmp", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_comparisons_promote_int_and_float(cmp):
    x = ember.tensor([[1, 2, 3], [4, 5, 6]])
    y = ember.tensor([2.5, 2.0, 6.0])
    _check(lambda x, y: getattr(ember, cmp)(x, y).logical_not(), x, y)


def test_type_promotion_int_tensor_float_scalar_and_true_division():
    x = ember.tensor([[1, -2, 3], [7, 8, -9]])
    _check(lambda x: (x + 1.5, x / 2, x * 2, ember.div(x, 2, rounding_mode="floor"),
                      ember.div(x, 2, rounding_mode="trunc")), x)


def test_casts_and_bool():
    x = ember.randn(5, 6) * 4
    _check(lambda x: ((x > 0).to(ember.float32) + x.to(ember.int64) + x.to(ember.bool).to(ember.int32)), x)


def test_bfloat16_and_float16_compute_in_float32():
    x = ember.randn(6, 8)
    for dt in (ember.bfloat16, ember.float16):
        xd = x.to(dt)
        _check(lambda x: (x * 2 + 1).exp().to(dt), xd, rtol=2e-2, atol=1e-2)
        _check(lambda x: x.sum(-1), xd, rtol=2e-2, atol=2e-2)


def test_where_masked_fill_clamp():
    x = ember.randn(4, 7)
    m = x > 0.3
    _check(lambda x, m: (ember.where(m, x, -x).masked_fill(~m, 2.0), x.clamp(-0.5, 0.5), x.clamp(min=0.1),
                         ember.clamp(x, max=-0.2)), x, m)


def test_constants_full_zeros_ones_arange():
    x = ember.randn(3, 4)
    _check(lambda x: (x + ember.ones(3, 4), x * ember.zeros_like(x), ember.full((3, 4), 2.5) - x,
                      x + ember.arange(4), ember.arange(2, 14, 3, dtype=ember.float32)), x)


@pytest.mark.parametrize("dim,keepdim", [(None, False), (0, False), (1, True), ((0, 2), False), (-1, True)])
def test_reductions_dim_keepdim(dim, keepdim):
    x = ember.randn(3, 5, 6)
    kw = {} if dim is None else {"dim": dim, "keepdim": keepdim}
    _check(lambda x: (x.sum(**kw), x.mean(**kw), x.amax(**kw) if dim is not None else x.amax(),
                      x.amin(**kw) if dim is not None else x.amin()), x, rtol=1e-5, atol=1e-6)


def test_argmax_argmin_max_dim_prod_var():
    x = ember.randn(4, 9)
    _check(lambda x: (x.argmax(-1), x.argmin(0), x.argmax(), x.max(dim=1)[0], x.max(dim=1)[1],
                      x.prod(-1), x.var(-1), x.var(0, correction=0), x.std(-1)), x, rtol=1e-5, atol=1e-6)


def test_any_all_and_int_sum():
    x = ember.randint(-3, 3, (5, 4))
    _check(lambda x: ((x > 0).any(-1), (x > -3).all(), x.sum(-1), x.sum()), x)


def test_views_are_layouts():
    x = ember.randn(4, 6, 5)
    _check(lambda x: (x.permute(2, 0, 1) * 2 + 1, x[:, 1:5:2] - 1, x[1] + x[2], x.transpose(0, 1).sum(-1),
                      x.unsqueeze(1).expand(4, 3, 6, 5) * 1.0, x.reshape(24, 5) + 1, x.view(-1).exp()), x)


def test_reshape_of_non_contiguous_realizes_and_stays_correct():
    x = ember.randn(4, 6)
    _check(lambda x: (x.t() + 1).reshape(3, 8) * 2, x)
    _check(lambda x: x.t().reshape(24).cumsum(0) if False else x.t().reshape(24) * 3, x)


def test_split_cat():
    x = ember.randn(3, 10)
    y = ember.randn(3, 4)
    _check(lambda x, y: ember.cat([a * 2 for a in x.split(4, dim=1)] + [y], dim=1) + 1, x, y)
    _check(lambda x, y: ember.cat([x.t(), y.t()], 0).exp(), x, y)


def test_softmax_log_softmax_and_backward():
    x = ember.randn(5, 11, requires_grad=True)
    c = _check(lambda x: (F.softmax(x, -1), F.log_softmax(x, 0)), x, rtol=1e-5, atol=1e-6)
    del c
    g = ember.randn(5, 11)

    def f(x):
        return (F.softmax(x, -1) * g).sum() + (F.log_softmax(x, -1) * g).sum()
    c = Compiled(f)
    xa = x.detach().requires_grad_()
    c(xa).backward()
    xb = x.detach().requires_grad_()
    f(xb).backward()
    assert_close(xa.grad, xb.grad, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("in_c", [False, True], ids=["generated", "softmax_c"])
def test_softmax_of_all_minus_inf_row_is_nan_like_eager(in_c, monkeypatch):
    from ember._inductor.codegen import softmax_calls
    monkeypatch.setattr(softmax_calls, "SOFTMAX_IN_C", in_c)
    x = ember.tensor([[float("-inf")] * 3, [0.0, 1.0, float("-inf")]])
    c = _check(lambda x: F.softmax(x, -1), x, expect_kernels=not in_c)
    assert ("ember_softmax_fwd_f32(" in c.source()) == in_c


def test_layer_norm_gelu_silu():
    x = ember.randn(4, 7, 16)
    w, b = ember.randn(16), ember.randn(16)
    _check(lambda x: (F.layer_norm(x, (16,), w, b), F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x)), x,
           rtol=1e-5, atol=1e-5)


def test_embedding_is_an_indirect_load():
    w = ember.randn(10, 4)
    idx = ember.tensor([[1, 9, 0], [3, 3, -1 + 10]])
    c = _check(lambda w, idx: F.embedding(idx, w) * 2, w, idx)
    assert "ember_index(" in c.source()


def test_cross_entropy_forward_and_backward():
    logits = ember.randn(6, 5, requires_grad=True)
    target = ember.tensor([0, 4, 2, 2, 1, 3])

    def f(x, t):
        return F.cross_entropy(x, t)
    c = Compiled(f)
    xa = logits.detach().requires_grad_()
    la = c(xa, target)
    la.backward()
    xb = logits.detach().requires_grad_()
    lb = f(xb, target)
    lb.backward()
    assert_close(la, lb, rtol=1e-5, atol=1e-6)
    assert_close(xa.grad, xb.grad, rtol=1e-5, atol=1e-6)
    fallbacks = set().union(*[set(call._ember_graph.fallbacks) for call in c.calls])
    assert "aten.nll_loss_forward.default" not in fallbacks


def test_unlowered_op_falls_back_to_an_extern_call():
    x = ember.randn(4, 6)
    c = _check(lambda x: ember.sort(x * 2, 1)[0] + 1, x)
    fallbacks = c.calls[0]._ember_graph.fallbacks
    assert any("sort" in k for k in fallbacks)


def test_mm_addmm_bmm_are_externs_and_results_match():
    a, b = ember.randn(5, 7), ember.randn(7, 3)
    bias = ember.randn(3)
    x, y = ember.randn(2, 5, 7), ember.randn(2, 7, 4)
    c = _check(lambda a, b, bias, x, y: ((a @ b).relu(), ember.addmm(bias, a, b) * 2, ember.bmm(x, y).sum(-1)),
               a, b, bias, x, y, rtol=1e-5, atol=1e-5)
    reasons = c.calls[0]._ember_graph.fallbacks
    assert all(reasons[k] == "extern" for k in reasons if "mm" in k)


def test_no_lowering_graph_input_views_alias_like_eager():
    x = ember.randn(3, 4)
    c = Compiled(lambda x: (x.t(), x + 1))
    v, _ = c(x)
    x.add_(1)
    assert_close(v, x.t())          # a view output of an input is a view, as in eager


@pytest.mark.parity
def test_parity_with_torch_reductions_and_pointwise():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 9)).astype(np.float32)

    def f(x, lib):
        return ((x * 2).exp().sum(-1), lib.nn.functional.softmax(x, -1), x.amax(0), x.var(1))
    got = Compiled(lambda x: f(x, ember))(ember.tensor(a))
    want = f(torch.tensor(a), torch)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-5)


def test_math_constants_inf_nan_literals():
    x = ember.tensor([1.0, -2.0, 0.0])
    _check(lambda x: (x.masked_fill(x < 0, float("-inf")), x + float("inf"), x * math.pi,
                      x.masked_fill(x == 0, float("nan"))), x)


def test_empty_zero_dim_and_broadcast_inputs():
    _check(lambda x: (x * 2, x.sum(0), x.sum(), x.mean(1)), ember.randn(0, 3), expect_kernels=False)
    _check(lambda x: (x * 2 + 1, x.exp()), ember.tensor(3.0))
    _check(lambda x, y: x + y, ember.tensor(3.0), ember.randn(4))
    _check(lambda x: x[::2].t().contiguous() * 3, ember.randn(6, 5))
    _check(lambda x: x.expand(3, 4) + 1, ember.randn(1, 4))
