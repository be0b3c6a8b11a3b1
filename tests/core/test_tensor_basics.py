"""Tensor metadata, storages, data interop (numpy, __array__, dlpack), scalars, meta tensors."""
import numpy as np
import pytest

import ember


def test_metadata():
    t = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert t.shape == ember.Size([2, 3]) and t.size() == (2, 3) and t.size(1) == 3 and t.size(-1) == 3
    assert t.stride() == (3, 1) and t.stride(0) == 3 and t.storage_offset() == 0
    assert t.dim() == 2 and t.ndim == 2 and t.numel() == 6 and t.element_size() == 4
    assert t.dtype is ember.float32 and t.device == ember.device("cpu") and t.is_contiguous()
    assert repr(t.shape) == "ember.Size([2, 3])"
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.size(2)


def test_storage_shared_by_views_and_versions():
    t = ember.tensor([1.0, 2.0, 3.0, 4.0])
    v = t[1:3]
    st = t.untyped_storage()
    assert v.untyped_storage() is st and st.nbytes() == 16 and v.storage_offset() == 1
    assert v.data_ptr() == t.data_ptr() + 4
    v.mul_(10)
    assert t.tolist() == [1.0, 20.0, 30.0, 4.0]
    assert t._version == v._version == 1 and v._base is t and v._is_view() and not t._is_view()


def test_untyped_storage_basics():
    s = ember.UntypedStorage(8)
    assert s.nbytes() == 8 and s.device.type == "cpu" and s.data_ptr() != 0
    s.resize_(16)
    assert s.nbytes() == 16
    with pytest.raises(RuntimeError):
        ember.UntypedStorage(-1)
    m = ember.UntypedStorage(8, device="meta")
    assert m.device.type == "meta" and m.data_ptr() == 0 and m.nbytes() == 8


def test_numpy_and_from_numpy_share_memory():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    t = ember.from_numpy(a)
    assert t.dtype is ember.float64 and t.shape == (2, 3)
    a[0, 0] = 100
    assert t[0, 0].item() == 100
    t.add_(1)
    assert a[1, 2] == 6
    n = t.numpy()
    n[0, 1] = -5
    assert t[0, 1].item() == -5
    tt = ember.from_numpy(a.T)                      # non-contiguous arrays keep their strides
    assert tt.stride() == (1, 3) and tt.tolist() == a.T.tolist()
    with pytest.raises(ValueError, match="negative"):
        ember.from_numpy(a[:, ::-1])
    with pytest.raises(TypeError):
        ember.from_numpy([1, 2])


_INPLACE = {"add_": lambda t, L: t.add_(1), "clamp_": lambda t, L: t.clamp_(0, 1), "fill_": lambda t, L: t.fill_(3),
            "zero_": lambda t, L: t.zero_(), "copy_": lambda t, L: t.copy_(L.ones(t.shape[0])),
            "masked_fill_": lambda t, L: t.masked_fill_(L.ones(t.shape[0], dtype=L.bool), 2),
            "setitem": lambda t, L: t.__setitem__(0, 5), "mul_": lambda t, L: t.mul_(2), "neg_": lambda t, L: t.neg_(),
            "index_add_": lambda t, L: t.index_add_(0, L.tensor([0]), L.ones(1)), "uniform_": lambda t, L: t.uniform_(),
            "out=": lambda t, L: L.add(L.ones(t.shape[0]), 1, out=t), "scatter_": lambda t, L: t.scatter_(0, L.tensor([1]), 7.0),
            "index_fill_": lambda t, L: t.index_fill_(0, L.tensor([0]), 1.0), "sub_": lambda t, L: t.sub_(2)}


@pytest.mark.parity
@pytest.mark.parametrize("n", [4, 100000])           # numpy's kernels and the C ones
def test_from_numpy_of_a_read_only_array_writes_through_as_torch(n):
    """torch.from_numpy of a non-writable array warns (once per process) and shares it writable: every
    in-place op writes the array, as in torch (ember's numpy kernels raised ValueError, its C ones wrote)."""
    torch = pytest.importorskip("torch")
    import warnings

    def run(L):
        out = {}
        for name, f in _INPLACE.items():
            a = np.arange(n, dtype=np.float32)
            a.flags.writeable = False
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = L.from_numpy(a)
            L.manual_seed(0)
            f(t, L)
            out[name] = (a[:3].tolist() if name != "uniform_" else not np.array_equal(a, np.arange(n)),
                         a.flags.writeable, t.numpy().flags.writeable)
        return out
    assert run(ember) == run(torch)


def test_from_numpy_of_a_read_only_array_warns_once():
    import ember.functional as F
    a = np.zeros(3)
    a.flags.writeable = False
    F._NOT_WRITABLE.clear()
    with pytest.warns(UserWarning, match="The given NumPy array is not writable, and PyTorch does not support"):
        ember.from_numpy(a)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.from_numpy(a)                         # suppressed for the rest of the program
        ember.frombuffer(bytearray(8), dtype=ember.float32)


def test_array_protocol_and_dlpack():
    t = ember.tensor([[1, 2], [3, 4]], dtype=ember.int32)
    assert np.asarray(t).dtype == np.int32 and np.asarray(t).tolist() == [[1, 2], [3, 4]]
    back = ember.from_dlpack(np.arange(4.0))
    assert back.tolist() == [0.0, 1.0, 2.0, 3.0]
    via = np.from_dlpack(t)
    assert via.tolist() == [[1, 2], [3, 4]]


@pytest.mark.parity
def test_dlpack_with_torch():
    torch = pytest.importorskip("torch")
    tt = torch.arange(6.0).reshape(2, 3)
    e = ember.from_dlpack(tt)
    assert e.tolist() == tt.tolist() and e.stride() == tt.stride()
    back = torch.from_dlpack(ember.tensor([1.0, 2.0]))
    assert back.tolist() == [1.0, 2.0]


def test_scalars_and_conversions():
    assert ember.tensor(3.5).item() == 3.5 and isinstance(ember.tensor(3).item(), int)
    assert float(ember.tensor([2.5])) == 2.5 and int(ember.tensor(7)) == 7 and bool(ember.tensor([True]))
    assert [1, 2, 3][ember.tensor(1)] == 2
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(ember.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        ember.tensor([1, 2]).item()
    assert len(ember.tensor([[1], [2]])) == 2
    with pytest.raises(TypeError):
        len(ember.tensor(1.0))


def test_tensor_dtype_inference():
    assert ember.tensor([1, 2]).dtype is ember.int64
    assert ember.tensor([1, 2.0]).dtype is ember.float32
    assert ember.tensor([True, False]).dtype is ember.bool
    assert ember.tensor([1 + 2j]).dtype is ember.complex64
    assert ember.tensor([]).dtype is ember.float32
    assert ember.tensor(np.array([1, 2], dtype=np.int16)).dtype is ember.int16
    with pytest.raises(TypeError):
        ember.tensor("abc")
    with pytest.raises(ValueError):
        ember.tensor([[1, 2], [3]])


def test_low_precision_dtypes():
    b = ember.tensor([1.0, 2.5, 3.0], dtype=ember.bfloat16)
    assert b.element_size() == 2 and (b * 2).tolist() == [2.0, 5.0, 6.0]
    f8 = ember.tensor([1.0, 0.5], dtype=ember.float8_e4m3fn)
    assert f8.element_size() == 1 and f8.tolist() == [1.0, 0.5]


def test_meta_tensors_have_no_data():
    m = ember.empty(2, 3, device="meta")
    assert m.is_meta and m.device.type == "meta" and m.shape == (2, 3)
    r = (m + 1).exp().sum(0)
    assert r.is_meta and r.shape == (3,)
    with pytest.raises(RuntimeError, match="meta"):
        m.numpy()
    t = ember.tensor([[1.0, 2.0]]).to("meta")
    assert t.is_meta and t.stride() == (2, 1)
    assert "device='meta'" in repr(t)


@pytest.mark.parity
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "eq", "lt", "maximum", "remainder"])
def test_binary_dtype_grid_matches_torch(op):
    torch = pytest.importorskip("torch")
    dts = ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
    for a in dts:
        for b in dts:
            if op == "sub" and "bool" in (a, b):
                continue
            ta = torch.tensor([1, 0, 1]).to(getattr(torch, a))
            tb = torch.tensor([1, 1, 0]).to(getattr(torch, b)) if op not in ("div", "remainder") else \
                torch.tensor([1, 1, 1]).to(getattr(torch, b))
            try:
                tr = getattr(torch, op)(ta, tb)
            except RuntimeError:
                with pytest.raises(RuntimeError):
                    getattr(ember, op)(ember.from_dlpack(ta.clone()), ember.from_dlpack(tb.clone()))
                continue
            ea = ember.tensor(ta.float().tolist(), dtype=getattr(ember, a))
            eb = ember.tensor(tb.float().tolist(), dtype=getattr(ember, b))
            er = getattr(ember, op)(ea, eb)
            assert er.dtype.name == str(tr.dtype).split(".")[1], (op, a, b)
            assert er.tolist() == tr.tolist(), (op, a, b)


def test_plain_pickle_round_trip():
    import pickle
    t = ember.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    u = pickle.loads(pickle.dumps(t))
    assert u.tolist() == t.tolist() and u.requires_grad and u.dtype is ember.float32
    p = ember.nn.Parameter(ember.tensor([1.5], dtype=ember.bfloat16))
    q = pickle.loads(pickle.dumps(p))
    assert isinstance(q, ember.nn.Parameter) and q.dtype is ember.bfloat16 and q.tolist() == [1.5]


@pytest.mark.parity
@pytest.mark.parametrize("expr", ["t == None", "t != None", "t == 's'", "t != 's'", "t == [1.0, 2.0]",
                                  "t == object()", "t in [None, 's']", "t in [None, t]", "None == t", "t.eq(None)",
                                  "t < None", "(t == 1.0).tolist()", "(t != t).tolist()"])
def test_comparison_with_a_non_tensor_falls_back_like_torch(expr):
    """torch turns the binding's TypeError into NotImplemented for == and != only, so Python compares by
    identity (a bool) where the method form and <, > still raise."""
    torch = pytest.importorskip("torch")
    got = []
    for lib in (torch, ember):
        try:
            got.append(repr(eval(expr, {"t": lib.tensor([1.0, 2.0])})))
        except TypeError:
            got.append("TypeError")
    assert got[0] == got[1]


@pytest.mark.parity
def test_requires_grad_refusal_messages_by_path_match_torch():
    """An integer tensor refused requires_grad: torch's message differs by path (factory keyword, Parameter,
    the requires_grad setter, requires_grad_())."""
    torch = pytest.importorskip("torch")

    def run(L):
        out = []
        for f in (lambda: L.ones(2, dtype=L.long, requires_grad=True), lambda: L.arange(3, requires_grad=True),
                  lambda: L.tensor([1], requires_grad=True), lambda: L.nn.Parameter(L.ones(2, dtype=L.long)),
                  lambda: L.ones(2, dtype=L.long).requires_grad_(),
                  lambda: setattr(L.ones(2, dtype=L.long), "requires_grad", True),
                  lambda: L.zeros(2, dtype=L.bool).requires_grad_()):
            with pytest.raises(RuntimeError) as e:
                f()
            out.append(str(e.value))
        return out
    assert run(ember) == run(torch)


def _as_subclass_case(lib):
    """as_subclass of a non-leaf that requires grad and of a plain tensor: what torch.Tensor.as_subclass promises."""
    class Sub(lib.Tensor):
        pass
    a = lib.ones(3, requires_grad=True)
    s = (a * 2).as_subclass(Sub)
    leaf = a.as_subclass(Sub)
    x = lib.zeros(3)
    y = x.as_subclass(cls=Sub)
    y[0] = 5.0
    x[2] = 7.0
    out = {"type_is_sub": type(s) is Sub and type(leaf) is Sub and type(y) is Sub,
           "requires_grad": (s.requires_grad, leaf.requires_grad, y.requires_grad),
           "grad_fn": (type(s.grad_fn).__name__, type(leaf.grad_fn).__name__, leaf.is_leaf, y.grad_fn is None),
           "write_through": (x.tolist(), y.tolist(), x.data_ptr() == y.data_ptr()),
           "back_to_tensor": type(s.as_subclass(lib.Tensor)) is lib.Tensor,
           "values": (s + 1).tolist()}
    (s * leaf).sum().backward()
    out["grad"] = a.grad.tolist()
    errors = []
    for bad in (int, 3, object, "Tensor"):
        try:
            lib.ones(2).as_subclass(bad)
        except Exception as e:      # noqa: BLE001 - the exception type and message are what is compared
            errors.append((type(e).__name__, str(e)))
    out["errors"] = errors
    return out


@pytest.mark.parity
def test_as_subclass_matches_torch():
    torch = pytest.importorskip("torch")
    got, want = _as_subclass_case(ember), _as_subclass_case(torch)
    assert got == want
    assert want["type_is_sub"] and want["grad"] == [4.0, 4.0, 4.0] and len(want["errors"]) == 4


def test_as_subclass_result_in_ops_is_like_any_subclass_instance():
    # torch's default __torch_function__ re-wraps op results in the subclass: an op on an as_subclass result
    # returns a Sub, as for any other instance of the subclass
    class Sub(ember.Tensor):
        pass
    t = ember.arange(4.0)
    s = t.as_subclass(Sub)
    other = ember.arange(4.0)
    other.__class__ = Sub
    for op in (lambda v: v + 1, lambda v: ember.add(v, 1), lambda v: v.view(2, 2), lambda v: v.sum()):
        assert type(op(s)) is type(op(other)) is Sub
        assert op(s).tolist() == op(t).tolist()
