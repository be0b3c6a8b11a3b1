"""The complex family's lazy conjugation: x.conj() is a view with the conj bit, x.conj().imag one with the neg
bit (ember/_math_bits.py), and every op, in-place write, conversion, print and gradient reads them as torch."""
import io

import numpy as np
import pytest

import ember

A = np.array([[1 + 2j, -3 + 0.5j, 2 - 1j], [0.25 - 4j, 1j, -2 + 2j]], dtype=np.complex64)


def _vals(t):
    """Logical values and bits of a result (a tensor, a Python value or a tuple of them)."""
    if hasattr(t, "is_conj"):
        a = t.resolve_conj().resolve_neg().detach().numpy()
        return str(t.dtype).split(".")[-1], t.is_conj(), t.is_neg(), (a.round(4) if a.dtype.kind in "fc" else a).tolist()
    if isinstance(t, (tuple, list)):
        return [_vals(x) for x in t]
    return t


# -- the bits themselves ----------------------------------------------------------------------------

def test_conj_is_a_view_with_the_conj_bit():
    x = ember.tensor(A)
    y = x.conj()
    assert y.is_conj() and not x.is_conj() and ember.is_conj(y)
    assert y.untyped_storage() is x.untyped_storage() and y.data_ptr() == x.data_ptr()
    assert y._base is x and y._version == x._version
    assert not y.conj().is_conj() and y.conj().data_ptr() == x.data_ptr()
    np.testing.assert_array_equal(y.resolve_conj().numpy(), A.conj())
    np.testing.assert_array_equal(y.numpy(force=True), A.conj())
    assert y.tolist() == A.conj().tolist() and y[1, 0].item() == complex(A[1, 0].conj())


def test_conj_of_a_real_tensor_is_the_tensor():
    r = ember.tensor([1.0, 2.0])
    assert r.conj() is r and ember.conj(r) is r and r.resolve_conj() is r and r.resolve_neg() is r
    c = r.conj_physical()
    assert c is not r and not c.is_conj() and c.tolist() == [1.0, 2.0]


def test_imag_of_a_conj_view_is_a_neg_view():
    x = ember.tensor(A)
    im, re = x.conj().imag, x.conj().real
    assert im.is_neg() and not im.is_conj() and not re.is_neg() and not re.is_conj()
    assert im.untyped_storage() is x.untyped_storage()
    np.testing.assert_array_equal(im.numpy(force=True), -A.imag)
    np.testing.assert_array_equal(re.numpy(), A.real)
    n = ember._neg_view(ember.tensor([1.0, -2.0]))
    assert n.is_neg() and ember.is_neg(n) and n.tolist() == [-1.0, 2.0] and not n._neg_view().is_neg()
    assert n.resolve_neg().tolist() == [-1.0, 2.0] and not n.resolve_neg().is_neg()


def test_bits_on_meta_tensors():
    m = ember.empty(2, 3, dtype=ember.complex64, device="meta")
    assert m.conj().is_conj() and not (m.conj() + 1).is_conj() and m.conj().imag.is_neg()
    assert m.conj().t().is_conj() and m.conj().t().shape == (3, 2)


@pytest.mark.parity
def test_errors_match_torch():
    torch = pytest.importorskip("torch")
    for mod in (ember, torch):
        y = mod.tensor(A).conj()
        msgs = []
        for f in (lambda: mod.view_as_real(y), lambda: y.numpy(), lambda: y.imag.numpy(), lambda: np.asarray(y)):
            with pytest.raises(RuntimeError) as e:
                f()
            msgs.append(str(e.value))
        if mod is ember:
            got = msgs
        else:
            assert got == msgs


# -- parity: which results carry a bit, and their values --------------------------------------------

def _cases(t):
    def mk():
        return t.tensor(A)
    return {
        "conj": lambda y: y, "conj_conj": lambda y: y.conj(), "imag": lambda y: y.imag, "real": lambda y: y.real,
        "clone": lambda y: y.clone(), "contiguous": lambda y: y.contiguous(), "t_contiguous": lambda y: y.t().contiguous(),
        "to_same": lambda y: y.to(t.complex64), "to_double": lambda y: y.to(t.complex128), "detach": lambda y: y.detach(),
        "resolve_conj": lambda y: y.resolve_conj(), "resolve_neg": lambda y: y.resolve_neg(),
        "conj_physical": lambda y: y.conj_physical(), "empty_like_shape": lambda y: t.empty_like(y).is_conj(),
        "zeros_like": lambda y: t.zeros_like(y), "select": lambda y: y[0], "view": lambda y: y.view(3, 2),
        "reshape": lambda y: y.reshape(6), "t": lambda y: y.t(), "unsqueeze": lambda y: y.unsqueeze(0),
        "expand": lambda y: y[0].expand(2, 3), "slice": lambda y: y[:, 1:], "diagonal": lambda y: t.diagonal(y),
        "unbind": lambda y: t.unbind(y), "split": lambda y: y.split(1, 1), "chunk": lambda y: y.chunk(2),
        "mT": lambda y: y.mT, "mH": lambda y: y.mH, "imag_t": lambda y: y.imag.t(), "imag_view": lambda y: y.imag[1],
        "add": lambda y: y + mk(), "mul_scalar": lambda y: y * 2, "rsub": lambda y: 1 - y, "neg": lambda y: -y,
        "div": lambda y: y / (mk() + 10), "pow": lambda y: y ** 2, "exp": lambda y: y.exp(), "sqrt": lambda y: y.sqrt(),
        "abs": lambda y: y.abs(), "sgn": lambda y: y.sgn(), "sum": lambda y: y.sum(0), "mean": lambda y: y.mean(),
        "prod": lambda y: y.prod(1), "cumsum": lambda y: y.cumsum(1), "matmul": lambda y: y @ y.mT,
        "mH_matmul": lambda y: y.mH @ y, "einsum": lambda y: t.einsum("ij,kj->ik", y, y),
        "vdot": lambda y: t.vdot(y[0], y[1]), "cat": lambda y: t.cat([y, mk()]), "stack": lambda y: t.stack([y, y]),
        "index": lambda y: y[[1, 0]], "mask": lambda y: y[t.tensor([[True, False, True], [False, True, True]])],
        "where": lambda y: t.where(t.tensor([True, False, True]), y, mk()), "flip": lambda y: y.flip(0),
        "gather": lambda y: y.gather(1, t.tensor([[0, 2], [1, 1]])), "roll": lambda y: y.roll(1, 1),
        "eq": lambda y: y == mk().conj_physical(), "equal": lambda y: t.equal(y, mk().conj_physical()),
        "isclose": lambda y: t.isclose(y, mk().conj_physical()), "allclose": lambda y: t.allclose(y, mk().conj_physical()),
        "fft": lambda y: t.fft.fft(y), "ifft": lambda y: t.fft.ifft(y), "norm": lambda y: t.linalg.vector_norm(y),
        "solve": lambda y: t.linalg.solve(y[:, :2], y[:, 2]), "det": lambda y: t.linalg.det(y[:, :2]),
        "svdvals": lambda y: t.linalg.svdvals(y), "masked_fill": lambda y: y.masked_fill(t.tensor([True, False, True]), 5j),
        "imag_mul": lambda y: y.imag * y.real, "imag_matmul": lambda y: y.imag @ y.imag.T, "imag_sum": lambda y: y.imag.sum(),
        "neg_of_neg_view": lambda y: t._neg_view(y.imag) + 1, "view_as_real_resolved": lambda y: t.view_as_real(y.resolve_conj()),
        "bool": lambda y: bool(y[0, 0]), "item": lambda y: y[1, 1].item(), "tolist": lambda y: y.tolist(),
        "float_imag": lambda y: float(y[0, 0].imag), "imag_tolist": lambda y: y.imag.tolist(),
    }


@pytest.mark.parity
def test_ops_read_conj_and_neg_views_as_torch():
    torch = pytest.importorskip("torch")
    ours, theirs = _cases(ember), _cases(torch)
    for name, f in ours.items():
        got = _vals(f(ember.tensor(A).conj()))
        want = _vals(theirs[name](torch.tensor(A).conj()))
        assert got == want, name


def _inplace_cases(t):
    def mk():
        return t.tensor(A)
    return {
        "add_": lambda y: y.add_(1 + 1j), "mul_": lambda y: y.mul_(2j), "neg_": lambda y: y.neg_(),
        "conj_physical_": lambda y: y.conj_physical_(), "imag_conj_physical_": lambda y: y.imag.conj_physical_(),
        "copy_": lambda y: y.copy_(t.ones(2, 3) * (1 - 3j)), "copy_conj_src": lambda y: y.copy_(mk().conj()),
        "fill_": lambda y: y.fill_(2 + 5j), "zero_": lambda y: y.zero_(), "exp_": lambda y: y.exp_(),
        "setitem": lambda y: y.__setitem__((0, 1), 7 + 8j), "setitem_all": lambda y: y.__setitem__(slice(None), mk()),
        "row_add_": lambda y: y[1].add_(10j), "t_mul_": lambda y: y.t().mul_(-1), "sub_self": lambda y: y.sub_(y),
        "div_": lambda y: y.div_(y.resolve_conj() + 5), "addcmul_": lambda y: y.addcmul_(mk(), mk()),
        "imag_mul_": lambda y: y.imag.mul_(3), "imag_fill_": lambda y: y.imag.fill_(1.5),
        "imag_copy_": lambda y: y.imag.copy_(t.arange(6.0).reshape(2, 3)), "imag_clamp_": lambda y: y.imag.clamp_(min=0),
        "real_add_": lambda y: y.real.add_(100), "out_add": lambda y: t.add(mk(), 1j, out=y),
        "out_row": lambda y: t.mul(mk()[0], 2, out=y[0]),
        "index_put_": lambda y: y.index_put_((t.tensor([0, 1]), t.tensor([2, 0])), t.tensor([9j, 9 + 0j])),
        "masked_fill_": lambda y: y.masked_fill_(t.tensor([True, False, True]), -1j),
    }


@pytest.mark.parity
def test_inplace_ops_write_through_the_bits_as_torch():
    torch = pytest.importorskip("torch")
    ours, theirs = _inplace_cases(ember), _inplace_cases(torch)
    for name, f in ours.items():
        res = []
        for mod, fn in ((ember, f), (torch, theirs[name])):
            x = mod.tensor(A)
            y = x.conj()
            v0 = y._version
            r = fn(y)
            res.append((x.numpy().round(4).tolist(), y.is_conj(), r is y if r is not None else None, y._version > v0))
        assert res[0] == res[1], name


# -- autograd ------------------------------------------------------------------------------------------

def _grad_cases(t):
    def inplace(w):
        x = w * 1
        x.conj().mul_(t.tensor([1j, 2, 1 + 1j], dtype=t.complex128))
        return x.abs().sum()
    return {
        "conj_mul": lambda w: (w.conj() * t.tensor([1j, 2, 3])).abs().sum(),
        "conj_real": lambda w: w.conj().real.sum(),
        "conj_imag": lambda w: (w.conj().imag * t.tensor([1.0, 2, 3])).sum(),
        "conj_conj": lambda w: (w.conj().conj() * 1j).real.sum(),
        "resolve": lambda w: (w.conj().resolve_conj() ** 2).abs().sum(),
        "neg_view": lambda w: t._neg_view(w.real).pow(2).sum(),
        "vdot_conj": lambda w: t.vdot(w.conj(), w).real,
        "vdot": lambda w: t.vdot(w, w * 1j).real,
        "inplace_on_conj_view": inplace,
    }


def _chain(r):
    names, node = [], r.grad_fn
    while node is not None:
        names.append(type(node).__name__)
        nxt = [f for f, _ in node.next_functions if f is not None]
        node = nxt[0] if nxt else None
    return names


@pytest.mark.parity
def test_gradients_through_conj_and_neg_views_match_torch():
    torch = pytest.importorskip("torch")
    vals = np.array([1 + 2j, -3 + 0.5j, 2 - 1j])
    ours, theirs = _grad_cases(ember), _grad_cases(torch)
    for name, f in ours.items():
        res = []
        for mod, fn in ((ember, f), (torch, theirs[name])):
            w = mod.tensor(vals, requires_grad=True)
            loss = fn(w)
            loss.backward()
            res.append((_chain(loss), w.grad.resolve_conj().numpy().round(6).tolist()))
        assert res[0] == res[1], name


@pytest.mark.parity
def test_node_names_of_the_bit_ops_match_torch():
    torch = pytest.importorskip("torch")
    for mod in (ember, torch):
        w = mod.tensor([1 + 2j], requires_grad=True)
        names = [type(r.grad_fn).__name__ for r in (w.conj(), w.conj().resolve_conj(), w.conj().imag,
                                                     mod._neg_view(w), w.conj_physical(),
                                                     mod.fft.ifft(mod.ones(4, requires_grad=True)),
                                                     (w * 1).conj_physical_())]
        if mod is ember:
            got = names
    assert got == names == ["ConjBackward0", "CloneBackward0", "SelectBackward0", "NegViewBackward0",
                            "ConjPhysicalBackward0", "ConjBackward0", "ConjPhysicalBackward1"]


@pytest.mark.parity
def test_sgd_on_a_parameter_used_through_conj_matches_torch():
    torch = pytest.importorskip("torch")
    res = []
    for mod in (ember, torch):
        w = mod.nn.Parameter(mod.tensor([1 + 2j, 3 - 1j]))
        opt = mod.optim.SGD([w], lr=0.1, momentum=0.9)
        for _ in range(3):
            opt.zero_grad()
            (w.conj() * mod.tensor([1j, 2])).abs().sum().backward()
            opt.step()
        res.append(np.round(w.detach().numpy(), 5).tolist())
    assert res[0] == res[1]


def test_gradcheck_through_conj_and_neg_views():
    from ember.autograd import gradcheck
    z = ember.tensor([1 + 2j, 3 - 1j], dtype=ember.complex128, requires_grad=True)
    for f in (lambda z: z.conj(), lambda z: z.conj().imag, lambda z: (z.conj() * z).real, lambda z: z[None].conj().mH):
        assert gradcheck(f, (z,))
    r = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    assert gradcheck(lambda r: ember._neg_view(r) * r, (r,))


def test_compiled_functions_read_the_bits():
    x = ember.tensor([1.0, -2.0, 3.0])
    f = ember.compile(lambda x: ember._neg_view(x) * 2 + 1)
    assert f(x).tolist() == (ember._neg_view(x) * 2 + 1).tolist() == [-1.0, 5.0, -5.0]
    g = ember.compile(lambda a: a * 2 + 1)
    assert g(ember._neg_view(x)).tolist() == [-1.0, 5.0, -5.0]
    z = ember.tensor([1 + 2j, 3 - 4j])
    h = ember.compile(lambda z: z.imag * 3 + z.real)
    assert h(z.conj()).tolist() == (z.conj().imag * 3 + z.conj().real).tolist() == [-5.0, 15.0]

    def scale(a):
        a.mul_(2)
        return a + 1
    y = ember.tensor([1.0, 2.0])
    assert ember.compile(scale)(ember._neg_view(y)).tolist() == [-1.0, -3.0] and y.tolist() == [2.0, 4.0]


# -- printing, serialization ----------------------------------------------------------------------------

@pytest.mark.parity
@pytest.mark.parametrize("data", [A.tolist(), [complex("inf"), complex("nan"), complex(-np.inf, 2)], [1 + 0j, 2 - 0j],
                                  [[1e-6 + 2j, 1e5 - 1j]], [3.5 + 100j]])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_conj_and_neg_views_print_as_torch(data, dtype):
    torch = pytest.importorskip("torch")
    for view in (lambda z: z.conj(), lambda z: z.conj().imag, lambda z: z.conj().real, lambda z: z.conj()[..., :1],
                 lambda z: z.conj().t() if z.dim() == 2 else z.conj()):
        got = repr(view(ember.tensor(data, dtype=getattr(ember, dtype))))
        want = repr(view(torch.tensor(data, dtype=getattr(torch, dtype)))).replace("torch.", "ember.")
        assert got == want
    w = ember.tensor([1 + 2j], requires_grad=True)
    wt = torch.tensor([1 + 2j], requires_grad=True)
    assert repr(w.conj()) == repr(wt.conj()).replace("torch.", "ember.")
    assert str(w.conj().imag) == str(wt.conj().imag).replace("torch.", "ember.")


def test_save_writes_the_conj_bit_and_load_shares_the_storage():
    base, r = ember.tensor(A), ember.tensor([1.0, -2.0])
    obj = {"base": base, "conj": base.conj(), "r": r, "neg": r._neg_view()}
    buf = io.BytesIO()
    ember.save(obj, buf)
    back = ember.load(io.BytesIO(buf.getvalue()))
    st = back["base"].untyped_storage()
    assert back["conj"].is_conj() and back["conj"].untyped_storage() is st
    assert back["neg"].is_neg() and back["neg"].untyped_storage() is back["r"].untyped_storage()
    assert back["neg"].tolist() == [-1.0, 2.0]
    np.testing.assert_array_equal(back["conj"].resolve_conj().numpy(), A.conj())
    back["conj"].add_(1)                    # still a view: the write lands in the base
    np.testing.assert_array_equal(back["base"].numpy(), A + 1)


@pytest.mark.parity
def test_checkpoints_with_conj_views_cross_load_with_torch(tmp_path):
    torch = pytest.importorskip("torch")
    base, r = ember.tensor(A), ember.tensor([1.0, -2.0])
    ember.save({"base": base, "conj": base.conj(), "r": r, "neg": r._neg_view()}, tmp_path / "e.pt")
    t = torch.load(tmp_path / "e.pt")
    assert t["conj"].is_conj() and t["neg"].is_neg() and t["neg"].tolist() == [-1.0, 2.0]
    assert t["conj"].untyped_storage().data_ptr() == t["base"].untyped_storage().data_ptr()
    np.testing.assert_array_equal(t["conj"].resolve_conj().numpy(), A.conj())
    tb, tr = torch.tensor(A), torch.tensor([1.0, -2.0])
    torch.save({"base": tb, "conj": tb.conj(), "r": tr, "neg": tr._neg_view()}, tmp_path / "t.pt")
    e = ember.load(tmp_path / "t.pt")
    assert e["conj"].is_conj() and e["neg"].is_neg() and e["conj"].untyped_storage() is e["base"].untyped_storage()
    assert e["neg"].untyped_storage() is e["r"].untyped_storage() and e["neg"].tolist() == [-1.0, 2.0]


@pytest.mark.parity
@pytest.mark.parametrize("fn", ["complex", "polar"])
def test_complex_and_polar_are_ops_with_torch_gradients(fn):
    """complex / polar have nodes of their own (ComplexBackward0, PolarBackward0) and torch's gradients for a
    complex grad_output, broadcast inputs included."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    a, b = rng.random((3, 1)) + 0.1, rng.standard_normal(4)
    g = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    res = []
    for L in (torch, ember):
        x, y = L.from_numpy(a.copy()).requires_grad_(), L.from_numpy(b.copy()).requires_grad_()
        r = getattr(L, fn)(x, y)
        gx, gy = L.autograd.grad(r, (x, y), L.from_numpy(g.copy()))
        res.append((r.detach().numpy(), gx.numpy(), gy.numpy(), type(r.grad_fn).__name__))
    for want, got in zip(res[0][:3], res[1][:3]):
        np.testing.assert_allclose(got, want)
    assert res[0][3] == res[1][3]
    x = ember.rand(2, 3, dtype=ember.float64) + 0.1
    y = ember.randn(2, 3, dtype=ember.float64)
    f = lambda p, q: ember.view_as_real(getattr(ember, fn)(p, q))  # noqa: E731
    assert ember.autograd.gradcheck(f, (x.requires_grad_(), y.requires_grad_()))
    assert ember.autograd.gradgradcheck(f, (x, y))
