"""Gaps closed together: rsub's positional alpha and torch's alpha checks for add/sub/rsub."""
import warnings

import numpy as np
import pytest

import ember


def _inputs(lib):
    return dict(f=lib.tensor([1.5, -2.0]), i=lib.tensor([3, 4]), b=lib.tensor([True, False]),
                c=lib.tensor([1 + 1j, 2j]), h=lib.tensor([1.0, 2.0], dtype=lib.float16))


ALPHA_CALLS = [
    "rsub(f, i, alpha=2)", "rsub(f, 2, 3)", "rsub(i, 2, 3)", "rsub(i, 2.5)", "rsub(f, i, alpha=0.5)",
    "add(f, i, alpha=0.5)", "sub(f, i, alpha=0.5)", "add(i, f, alpha=0.5)", "add(b, b, alpha=2)",
    "add(b, b, alpha=True)", "add(f, f, alpha=True)", "add(i, i, alpha=1.0)", "add(f, f, alpha=1j)",
    "add(c, f, alpha=1j)", "sub(c, f, alpha=2j)", "sub(i, i, alpha=True)", "rsub(f, f, True)",
    "rsub(f, f, alpha=1j)", "add(i, 2, alpha=2)", "sub(f, 2.5, alpha=2)", "rsub(f, i, 2)", "add(f, i, 2)",
    "sub(f, i, 2)", "rsub(h, f, alpha=3)", "add(h, 2, alpha=3)", "rsub(i, 1, alpha=1.5)",
    "add(i, i, alpha=np.int64(2))", "add(f, f, alpha=np.float32(2))", "rsub(f, 2, alpha=3)",
    "rsub(c, 1, 2j)", "rsub(2, f)", "add(f, i, alpha='x')",
]


def _run(lib, call):
    env = dict(_inputs(lib), np=np, lib=lib)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = eval("lib." + call, env)
        return "ok", str(r.dtype).split(".")[-1], r.tolist()
    except Exception as e:   # noqa: BLE001  (the exception type is what is compared)
        return (type(e).__name__,)


@pytest.mark.parity
@pytest.mark.parametrize("call", ALPHA_CALLS)
def test_alpha_handling_parity(call):
    torch = pytest.importorskip("torch")
    assert _run(ember, call) == _run(torch, call)


def test_rsub_positional_alpha_only_for_a_number_other():
    x = ember.tensor([1.0, 2.0])
    assert ember.rsub(x, 2, 3).tolist() == [-1.0, -4.0]
    with pytest.raises(TypeError, match="rsub"):
        ember.rsub(x, x, 2)
    with pytest.raises(TypeError):
        ember.add(x, x, 2)


def test_alpha_checks_leave_inplace_target_unchanged():
    x = ember.tensor([1, 2])
    with pytest.raises(RuntimeError, match="alpha"):
        x.add_(ember.tensor([1, 1]), alpha=0.5)
    assert x.tolist() == [1, 2]
    out = ember.zeros(2)
    with pytest.raises(RuntimeError, match="Boolean alpha"):
        ember.sub(ember.ones(2), ember.ones(2), alpha=True, out=out)


@pytest.mark.parity
def test_rsub_scalar_alpha_grad_parity():
    torch = pytest.importorskip("torch")
    x = np.array([0.5, -1.0, 2.0])
    ex = ember.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    ember.rsub(ex, 2.0, 3.0).sum().backward()
    torch.rsub(tx, 2.0, 3.0).sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy())
    assert ember.autograd.gradcheck(lambda a: ember.rsub(a, 1.5, 0.5), (ember.tensor(x, requires_grad=True),))


# ---------------------------------------------------------------- _ctc_loss.Tensor and forward AD

def _ctc_case(lib, dtype_name="float64"):
    rng = np.random.default_rng(0)
    lp = rng.standard_normal((6, 3, 5))
    x = lib.tensor(lp, dtype=getattr(lib, dtype_name))
    tg = lib.tensor([[1, 2, 2], [3, 1, 0], [4, 4, 4]])
    return x, tg, lib.tensor([6, 5, 6]), lib.tensor([3, 2, 1])


@pytest.mark.parity
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_tensor_overload_parity(zero_infinity):
    torch = pytest.importorskip("torch")
    res = []
    for lib in (ember, torch):
        x, tg, il, tl = _ctc_case(lib)
        x.requires_grad_()
        nll, la = lib._ctc_loss(x.log_softmax(2), tg, il, tl, 0, zero_infinity)
        assert type(nll.grad_fn).__name__ == "CtcLossBackward1"
        (nll * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
        # log_alpha past each sample's lengths is scratch space in torch: compare its shape only
        res.append((nll.detach().numpy(), np.array(la.shape), x.grad.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_ctc_loss_tensor_overload_matches_int_list_overload():
    x, tg, il, tl = _ctc_case(ember)
    a = ember._ctc_loss(x, tg, il, tl)
    b = ember._ctc_loss(x, tg, il.tolist(), tl.tolist())
    assert type(a[0].grad_fn) is type(b[0].grad_fn)   # neither requires grad: no node
    np.testing.assert_array_equal(a[0].numpy(), b[0].numpy())
    np.testing.assert_array_equal(a[1].numpy(), b[1].numpy())
    # lengths tensors are read flat, as torch does
    c = ember._ctc_loss(x, tg, il.view(3, 1), tl.view(1, 3))
    np.testing.assert_array_equal(a[0].numpy(), c[0].numpy())


def test_ctc_loss_tensor_gradcheck():
    x, tg, il, tl = _ctc_case(ember)
    x.requires_grad_()
    assert ember.autograd.gradcheck(lambda v: ember._ctc_loss(v.log_softmax(2), tg, il, tl)[0], (x,))


@pytest.mark.parametrize("which", ["input_lengths", "target_lengths"])
def test_ctc_loss_tensor_lengths_must_be_integral(which):
    x, tg, il, tl = _ctc_case(ember)
    args = {"input_lengths": il, "target_lengths": tl}
    args[which] = args[which].double()
    with pytest.raises(RuntimeError, match=f"{which} must be integral"):
        ember.ops.aten._ctc_loss.Tensor(x, tg, args["input_lengths"], args["target_lengths"])


def test_ctc_loss_tensor_has_no_meta_kernel_like_torch():
    x, tg, il, tl = _ctc_case(ember)
    with pytest.raises(NotImplementedError):
        ember.ops.aten._ctc_loss.Tensor(x.to("meta"), tg.to("meta"), il.to("meta"), tl.to("meta"))


@pytest.mark.parametrize("call", ["F.ctc_loss(d, tg, il, tl)", "F.ctc_loss(d, tg, il.tolist(), tl.tolist())",
                                  "lib._ctc_loss(d, tg, il, tl)", "lib._ctc_loss(d, tg, [6, 5, 6], [3, 2, 1])"])
def test_ctc_forward_ad_not_implemented(call):
    import ember.autograd.forward_ad as fwAD
    import ember.nn.functional as F
    x, tg, il, tl = _ctc_case(ember)
    with fwAD.dual_level():
        d = fwAD.make_dual(x.log_softmax(2), ember.randn(x.shape, dtype=ember.float64))
        with pytest.raises(NotImplementedError, match="forward AD with _ctc_loss"):
            eval(call, dict(F=F, lib=ember, d=d, tg=tg, il=il, tl=tl))


@pytest.mark.parity
def test_ctc_forward_ad_error_parity():
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as tfw
    x, tg, il, tl = _ctc_case(torch)
    with tfw.dual_level():
        d = tfw.make_dual(x.log_softmax(2), torch.randn(x.shape, dtype=torch.float64))
        with pytest.raises(NotImplementedError, match="forward AD with _ctc_loss"):
            torch._ctc_loss(d, tg, il, tl)
