"""autocast("cpu", dtype=bfloat16) and GradScaler: which ops run in the lower precision, which in float32,
and the scale/skip/grow rules, against torch."""
import numpy as np
import pytest

import ember
from _porting import outcome, torch_fixture  # noqa: F401  (the `torch` fixture)


def _ops(t):
    F = t.nn.functional
    x = t.tensor(np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32))
    xb = x.bfloat16()
    img = t.tensor(np.random.default_rng(1).standard_normal((1, 2, 6, 6)).astype(np.float32))
    k = t.tensor(np.random.default_rng(2).standard_normal((3, 2, 3, 3)).astype(np.float32))
    target = t.tensor([0, 1, 2, 3])
    return {
        "mm": lambda: t.mm(x, x), "matmul": lambda: x @ x, "bmm": lambda: t.bmm(x[None], x[None]),
        "addmm": lambda: t.addmm(x, x, x), "linear": lambda: F.linear(x, x), "conv2d": lambda: F.conv2d(img, k),
        "conv_transpose2d": lambda: F.conv_transpose2d(img, k.transpose(0, 1)), "prelu": lambda: F.prelu(x, t.ones(1)),
        "sdpa": lambda: F.scaled_dot_product_attention(x[None], x[None], x[None]),
        "nll_loss": lambda: F.nll_loss(xb, target), "cross_entropy": lambda: F.cross_entropy(xb, target),
        "l1_loss": lambda: F.l1_loss(xb, xb), "smooth_l1_loss": lambda: F.smooth_l1_loss(xb, xb),
        "bce_with_logits": lambda: F.binary_cross_entropy_with_logits(xb, xb.sigmoid()),
        "binary_cross_entropy": lambda: F.binary_cross_entropy(xb.sigmoid(), xb.sigmoid()),
        "huber_loss": lambda: F.huber_loss(xb, xb), "prod": lambda: t.prod(xb), "cdist": lambda: t.cdist(xb, xb),
        "trace": lambda: t.trace(xb), "max_pool3d": lambda: F.max_pool3d(img.bfloat16()[None], 2),
        "avg_pool3d": lambda: F.avg_pool3d(img.bfloat16()[None], 2),
        "reflection_pad": lambda: F.pad(xb[None], (1, 1), mode="reflect"),
        "margin_ranking": lambda: F.margin_ranking_loss(xb[0], xb[1], t.ones(4)),
        "soft_margin": lambda: F.soft_margin_loss(xb, t.ones(4, 4)),
        # not listed: run in the dtype they are given
        "add_mixed": lambda: x + xb, "relu": lambda: t.relu(xb), "sum": lambda: xb.sum(),
        "softmax": lambda: F.softmax(xb, -1), "sigmoid_f32": lambda: t.sigmoid(x), "mv": lambda: t.mv(x, x[0]),
        "float64_mm": lambda: t.mm(x.double(), x.double()),
        # promote
        "cat": lambda: t.cat([x, xb]), "stack": lambda: t.stack([xb, xb]),
    }


@pytest.mark.parity
@pytest.mark.parametrize("name", list(_ops(ember)))
def test_output_dtype_under_cpu_autocast_matches_torch(torch, name):
    with ember.autocast("cpu", dtype=ember.bfloat16):
        got = _ops(ember)[name]().dtype
    with torch.autocast("cpu", dtype=torch.bfloat16):
        want = _ops(torch)[name]().dtype
    assert str(got).split(".")[-1] == str(want).split(".")[-1]


def test_autocast_state_nests_and_restores():
    assert not ember.is_autocast_enabled("cpu")
    lin = ember.nn.Linear(4, 3)
    x = ember.randn(2, 4)
    with ember.autocast("cpu", dtype=ember.bfloat16):
        assert ember.is_autocast_enabled("cpu") and ember.get_autocast_dtype("cpu") == ember.bfloat16
        with ember.autocast("cpu", enabled=False):
            assert lin(x).dtype == ember.float32
        with ember.autocast("cpu", dtype=ember.float16):
            assert lin(x).dtype == ember.float16
        y = lin(x)
        assert y.dtype == ember.bfloat16
        assert type(y.grad_fn).__name__ == "AddmmBackward0"
    assert not ember.is_autocast_enabled("cpu") and lin(x).dtype == ember.float32
    y.float().sum().backward()          # the casts are recorded: gradients reach the float32 leaves
    assert lin.weight.grad.dtype == ember.float32 and lin.weight.grad.shape == (3, 4)

    @ember.autocast("cpu")
    def f(a):
        return a @ a
    assert f(ember.ones(2, 2)).dtype == ember.bfloat16
    with pytest.warns(UserWarning, match="CPU Autocast only supports dtypes of"):
        with ember.autocast("cpu", dtype=ember.float64):
            assert lin(x).dtype == ember.float32
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'banana'"):
        ember.autocast("banana")
    with pytest.warns(UserWarning, match="CUDA is not available"):
        with ember.autocast("cuda"):
            assert lin(x).dtype == ember.float32


def _train(t, scaler_args, steps, poison_step):
    lin = t.nn.Linear(3, 2)
    with t.no_grad():
        lin.weight.copy_(t.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
        lin.bias.zero_()
    opt = t.optim.SGD(lin.parameters(), lr=0.1)
    scaler = t.amp.GradScaler("cpu", **scaler_args)
    scales = []
    for i in range(steps):
        opt.zero_grad()
        loss = lin(t.ones(4, 3)).pow(2).mean()
        scaler.scale(loss).backward()
        if i == poison_step:
            lin.weight.grad[0, 0] = float("inf")
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
    return scales, lin.weight.detach().numpy().copy(), scaler.state_dict()


@pytest.mark.parity
def test_grad_scaler_scales_skips_and_grows_like_torch(torch):
    args = {"init_scale": 8.0, "growth_interval": 2}
    got = _train(ember, args, 6, poison_step=2)
    want = _train(torch, args, 6, poison_step=2)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    assert got[2] == want[2]


def test_grad_scaler_stage_errors_and_disabled_cuda_scaler():
    lin = ember.nn.Linear(2, 1)
    opt = ember.optim.SGD(lin.parameters(), lr=0.1)
    scaler = ember.amp.GradScaler("cpu")
    with pytest.raises(AssertionError, match="did not use scaler.scale"):
        scaler.step(opt)
    scaler.scale(lin(ember.ones(1, 2)).sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling"):
        off = ember.amp.GradScaler()
    loss = lin(ember.ones(1, 2)).sum()
    assert off.scale(loss) is loss and off.get_scale() == 1.0 and off.state_dict() == {}
    with pytest.warns(FutureWarning, match="torch.cuda.amp.GradScaler"):
        ember.cuda.amp.GradScaler()


_RNNS = {
    "GRUCell": (lambda t: t.nn.GRUCell(2, 3), (3, 2), None),
    "LSTMCell": (lambda t: t.nn.LSTMCell(2, 3), (3, 2), None),
    "GRU": (lambda t: t.nn.GRU(2, 3, num_layers=2, bidirectional=True), (4, 2, 2), None),
    "GRU_batch_first": (lambda t: t.nn.GRU(2, 3, batch_first=True), (2, 4, 2), None),
    "LSTM": (lambda t: t.nn.LSTM(2, 3, num_layers=2, bidirectional=True), (4, 2, 2), None),
    "LSTM_hx": (lambda t: t.nn.LSTM(2, 3), (4, 2, 2), lambda t: (t.zeros(1, 2, 3), t.ones(1, 2, 3))),
    "LSTM_proj": (lambda t: t.nn.LSTM(2, 3, proj_size=2), (4, 2, 2), None),
    "LSTM_packed": (lambda t: t.nn.LSTM(2, 3), (4, 2, 2), "packed"),
    "GRU_packed": (lambda t: t.nn.GRU(2, 3), (4, 2, 2), "packed"),
}


def _rnn_under_autocast(t, name):
    ctor, shape, hx = _RNNS[name]
    mod = ctor(t)
    with t.no_grad():
        for i, p in enumerate(mod.parameters()):
            p.copy_(t.linspace(-0.7, 0.6 + 0.01 * i, p.numel()).reshape(p.shape))
    x = t.tensor(np.sin(np.arange(np.prod(shape))).reshape(shape).astype(np.float32), requires_grad=True)
    with t.autocast("cpu", dtype=t.bfloat16):
        if hx == "packed":
            out = mod(t.nn.utils.rnn.pack_padded_sequence(x, [shape[0], shape[0] - 1]))
            out = (out[0].data, out[1])
        else:
            out = mod(x) if hx is None else mod(x, hx(t))
    flat = []
    def walk(v):
        if isinstance(v, (tuple, list)):
            for a in v:
                walk(a)
        else:
            flat.append(v)
    walk(out)
    sum(o.float().sum() for o in flat).backward()
    first = next(iter(mod.parameters()))
    return ([str(o.dtype).split(".")[-1] for o in flat], [o.detach().float().numpy() for o in flat],
            x.grad.numpy(), str(first.grad.dtype).split(".")[-1], first.grad.numpy())


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(_RNNS))
def test_recurrent_layers_under_cpu_autocast_match_torch(torch, name):
    """torch's CPU LSTM runs its layers through mkldnn_rnn_layer (lower-precision list: bfloat16 output and
    state) unless packed or projected; GRU, those LSTMs and the cells take the math cells, whose float32 state
    stays float32. ember's fused cells used to refuse the bfloat16 gates next to a float32 state."""
    got, want = _rnn_under_autocast(ember, name), _rnn_under_autocast(torch, name)
    assert got[0] == want[0]                       # output / state dtypes
    assert got[3] == want[3] == "float32"          # gradients reach the float32 parameters in float32
    for a, b in zip(got[1] + [got[2], got[4]], want[1] + [want[2], want[4]]):
        np.testing.assert_allclose(a, b, rtol=0.05, atol=0.03)     # bfloat16 rounding differs, not the math


_EINSUMS = [("ij,jk->ik", ((2, 3), (3, 2))), ("i,i->i", ((3,), (3,))), ("i,i->", ((3,), (3,))),
            ("bi,ij,bj->b", ((2, 3), (3, 3), (2, 3))), ("bi,bj->bij", ((2, 3), (2, 3))), ("ij->j", ((2, 3),))]


def _einsum_outcomes(t):
    """einsum over float32 and bfloat16 operands (the last one bfloat16) with and without autocast: a pairwise
    product promotes, a contraction is a bmm, which refuses mixed dtypes unless autocast casts them."""
    res = []
    for eq, shapes in _EINSUMS:
        ops = [t.ones(s) for s in shapes]
        ops[-1] = ops[-1].bfloat16()
        for ac in (False, True):
            with t.autocast("cpu", dtype=t.bfloat16, enabled=ac):
                r = outcome(lambda: str(t.einsum(eq, *ops).dtype).split(".")[-1])
            res.append((eq, ac, r))
    a = t.ones(1, 2, 3)
    for sb in ((1, 3, 2), (3, 2), (2, 3, 2)):
        res.append(("matmul", sb, outcome(lambda: t.matmul(a if len(sb) != 3 or sb[0] == 1 else a[0],
                                                           t.ones(sb, dtype=t.bfloat16)))[:3]))
    res.append(("bmm", outcome(lambda: t.bmm(a, t.ones(1, 3, 2, dtype=t.bfloat16)))[:3]))
    return res


@pytest.mark.parity
def test_einsum_and_bmm_dtypes_and_messages_match_torch(torch):
    """A model's einsum of a bfloat16 activation with a float32 parameter under autocast raised (ember checked
    the operands' dtypes up front)."""
    assert _einsum_outcomes(ember) == _einsum_outcomes(torch)


def _matmul_dtype_messages(t):
    """What the matmul family says about float32 next to bfloat16 operands (self, first, second factor), the
    error a half-converted model meets outside autocast."""
    f, b = t.float32, t.bfloat16
    res = []
    for s, x, y in ((f, f, b), (f, b, f), (b, f, f), (f, b, b), (b, f, b), (b, b, f)):
        calls = {
            "mv": lambda: t.mv(t.ones(2, 3, dtype=x), t.ones(3, dtype=y)),
            "addmv": lambda: t.addmv(t.ones(2, dtype=s), t.ones(2, 3, dtype=x), t.ones(3, dtype=y)),
            "baddbmm": lambda: t.baddbmm(t.ones(1, 2, 2, dtype=s), t.ones(1, 2, 3, dtype=x), t.ones(1, 3, 2, dtype=y)),
            "addbmm": lambda: t.addbmm(t.ones(2, 2, dtype=s), t.ones(1, 2, 3, dtype=x), t.ones(1, 3, 2, dtype=y)),
            "addmm": lambda: t.addmm(t.ones(2, 2, dtype=s), t.ones(2, 3, dtype=x), t.ones(3, 2, dtype=y)),
            "matmul_nd_1d": lambda: t.matmul(t.ones(2, 2, 3, dtype=x), t.ones(3, dtype=y)),
            "linear": lambda: t.nn.functional.linear(t.ones(2, 3, dtype=x), t.ones(2, 3, dtype=y),
                                                     t.ones(2, dtype=s)),
        }
        for name, call in calls.items():
            r = outcome(call)
            res.append((name, str(s), r[:3] if r[0] == "raise" else "ok"))
    return [(n, s.replace("torch.", "").replace("ember.", ""), r) for n, s, r in res]


@pytest.mark.parity
def test_matmul_family_dtype_messages_match_torch(torch):
    assert _matmul_dtype_messages(ember) == _matmul_dtype_messages(torch)
