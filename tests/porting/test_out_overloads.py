"""out= on every function torch's Python API takes it on (torch.*, torch.linalg.*, torch.fft.*,
torch.special.*), enumerated from the installed torch's own schema file: each one is called with out= in
ember and in torch and must give the same values, dtypes and shapes, return `out` itself, refuse a wrong
out dtype with torch's exception and message, and resize a wrongly sized out with torch's warning.
The functions ember does not define at all are listed in MISSING with the reason (a test keeps the list
exact)."""
import warnings

import numpy as np
import pytest

import ember
from _porting import outcome, torch_fixture  # noqa: F401  (the `torch` fixture)
from _torch_out_overloads import out_overloads, sample_arguments

GROUPS = {f"{m}.{n}.{o}": (m, n, g) for m, n, o, g in out_overloads()}

_SPARSE = "needs sparse layouts, which ember does not have"
_ACCEL = "backend-specific (cuDNN, MKL-DNN, CUDA batch norm statistics): no such kernel in ember"
# torch functions with an out= overload that ember does not define at all: name -> why
MISSING = {
    **{f"torch.{n}": _SPARSE for n in (
        "ccol_indices_copy", "col_indices_copy", "crow_indices_copy", "indices_copy", "row_indices_copy",
        "values_copy", "hspmm", "sspaddmm")},
    **{f"torch.{n}": _ACCEL for n in (
        "cudnn_batch_norm", "cudnn_convolution", "mkldnn_adaptive_avg_pool2d", "batch_norm_elemt")},
}

_SPD = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]]
_M = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [0.1, 0.2, 3.0]]


def _m(T, data=_M, **kw):
    return T.tensor(data, **kw)


# calls where the generic sample (3x3 matrices, 1, 0.5, ...) is not a valid input: key -> T -> (args, kwargs)
SAMPLES = {
    "torch.linspace.Tensor_Tensor_out": lambda T: ((T.tensor(0.0), T.tensor(1.0), 5), {}),
    "torch.linspace.Scalar_Tensor_out": lambda T: ((0.0, T.tensor(1.0), 5), {}),
    "torch.linspace.Tensor_Scalar_out": lambda T: ((T.tensor(0.0), 1.0, 5), {}),
    "torch.mv.out": lambda T: ((_m(T), _m(T)[0]), {}),
    "torch.rand.out": lambda T: (((2, 3),), {}),
    "torch.randn.out": lambda T: (((2, 3),), {}),
    "torch.rand.generator_out": lambda T: (((2, 3),), {"generator": T.Generator()}),
    "torch.randn.generator_out": lambda T: (((2, 3),), {"generator": T.Generator()}),
    "torch.randint.out": lambda T: ((5, (2, 3)), {}),
    "torch.randint.generator_out": lambda T: ((5, (2, 3)), {"generator": T.Generator()}),
    "torch.randint.low_out": lambda T: ((1, 5, (2, 3)), {}),
    "torch.randint.low_generator_out": lambda T: ((1, 5, (2, 3)), {"generator": T.Generator()}),
    "torch.randperm.out": lambda T: ((5,), {}),
    "torch.randperm.generator_out": lambda T: ((5,), {"generator": T.Generator()}),
    "torch.tensordot.out": lambda T: ((_m(T), _m(T)), {"dims": ([1], [0])}),
    "torch.where.self_out": lambda T: ((_m(T) > 0, _m(T), -_m(T)), {}),
    "torch.norm.out": lambda T: ((_m(T), 2, [1]), {}),
    "torch.norm.dtype_out": lambda T: ((_m(T), 2, [1]), {"keepdim": False, "dtype": T.float64}),
    "torch.nuclear_norm.dim_out": lambda T: ((_m(T), [0, 1]), {}),
    "torch.index_add.out": lambda T: ((_m(T), 0, T.tensor([2, 0]), _m(T)[:2]), {}),
    "torch.index_reduce.out": lambda T: ((_m(T), 0, T.tensor([2, 0]), _m(T)[:2], "amax"), {}),
    "torch.scatter.src_out": lambda T: ((_m(T), 1, T.tensor([[2], [0], [1]]), _m(T)), {}),
    "torch.scatter.value_out": lambda T: ((_m(T), 1, T.tensor([[2], [0], [1]]), 1.5), {}),
    "torch.scatter.reduce_out": lambda T: ((_m(T), 1, T.tensor([[2], [0], [1]]), _m(T)), {"reduce": "add"}),
    "torch.scatter.value_reduce_out": lambda T: ((_m(T), 1, T.tensor([[2], [0], [1]]), 1.5),
                                                {"reduce": "multiply"}),
    "torch.scatter_reduce.two_out": lambda T: ((_m(T), 1, T.tensor([[2], [0], [1]]), _m(T), "amax"), {}),
    "torch.bitwise_and.Tensor_out": lambda T: ((T.tensor([5, 6, 7]), T.tensor([3, 3, 1])), {}),
    "torch.bitwise_and.Scalar_out": lambda T: ((T.tensor([5, 6, 7]), 3), {}),
    "torch.bitwise_or.Tensor_out": lambda T: ((T.tensor([5, 6, 7]), T.tensor([3, 3, 1])), {}),
    "torch.bitwise_or.Scalar_out": lambda T: ((T.tensor([5, 6, 7]), 3), {}),
    "torch.bitwise_xor.Tensor_out": lambda T: ((T.tensor([5, 6, 7]), T.tensor([3, 3, 1])), {}),
    "torch.bitwise_xor.Scalar_out": lambda T: ((T.tensor([5, 6, 7]), 3), {}),
    "torch.index_select.out": lambda T: ((_m(T), 1, T.tensor([2, 0])), {}),
    "torch.masked_select.out": lambda T: ((_m(T), _m(T) > 0), {}),
    "torch.cholesky.out": lambda T: ((_m(T, _SPD),), {}),
    "torch.cholesky_solve.out": lambda T: ((_m(T), T.linalg.cholesky(_m(T, _SPD))), {}),
    "torch.cholesky_inverse.out": lambda T: ((T.linalg.cholesky(_m(T, _SPD)),), {}),
    "torch.lu_solve.out": lambda T: ((_m(T),) + tuple(T.linalg.lu_factor(_m(T))), {}),
    "torch.lu_unpack.out": lambda T: (tuple(T.linalg.lu_factor(_m(T))), {}),
    "torch.multinomial.out": lambda T: ((T.tensor([0.2, 0.8]), 1), {}),
    "torch.histogram.bins_tensor_out": lambda T: ((_m(T).flatten(), T.tensor([-1.0, 0.0, 1.0, 3.0])), {}),
    "torch.quantile.out": lambda T: ((_m(T), T.tensor([0.25, 0.5])), {}),
    "torch.nanquantile.out": lambda T: ((_m(T), T.tensor([0.25, 0.5])), {}),
    "torch.sort.values_stable": lambda T: ((_m(T),), {"stable": True}),
    "torch.normal.Tensor_Tensor_out": lambda T: ((_m(T), _m(T).abs()), {}),
    "torch.normal.Tensor_float_out": lambda T: ((_m(T), 0.5), {}),
    "torch.normal.float_Tensor_out": lambda T: ((0.5, _m(T).abs()), {}),
    "torch.normal.float_float_out": lambda T: ((0.0, 1.0, (2, 3)), {}),
    "torch.bucketize.Tensor_out": lambda T: ((_m(T), T.tensor([-1.0, 0.0, 1.0])), {}),
    "torch.searchsorted.Tensor_out": lambda T: ((T.tensor([-1.0, 0.0, 1.0]), _m(T)), {}),
    "torch.searchsorted.Scalar_out": lambda T: ((T.tensor([-1.0, 0.0, 1.0]), 0.5), {}),
    "torch.outer.out": lambda T: ((_m(T)[0], _m(T)[1]), {}),
    "torch.ger.out": lambda T: ((_m(T)[0], _m(T)[1]), {}),
    "torch.addbmm.out": lambda T: ((_m(T), _m(T)[None], _m(T)[None]), {}),
    "torch.sort.values": lambda T: ((_m(T),), {}),
    "linalg.cholesky.out": lambda T: ((_m(T, _SPD),), {}),
    "linalg.cholesky_ex.L": lambda T: ((_m(T, _SPD),), {}),
    "linalg.lu_solve.out": lambda T: (tuple(T.linalg.lu_factor(_m(T))) + (_m(T),), {}),
    "linalg.ldl_solve.out": lambda T: (tuple(T.linalg.ldl_factor(_m(T, _SPD))) + (_m(T),), {}),
    "linalg.householder_product.out": lambda T: ((_m(T), T.tensor([1.2, 0.5])), {}),
    "torch.orgqr.out": lambda T: ((_m(T), T.tensor([1.2, 0.5])), {}),
    "torch.ormqr.out": lambda T: ((_m(T), T.tensor([1.2, 0.5, 0.0]), _m(T, _SPD)), {"transpose": True}),
    "linalg.norm.out": lambda T: ((_m(T), 2, [1]), {}),
    "linalg.norm.ord_str_out": lambda T: ((_m(T), "fro"), {}),
    "linalg.cond.out": lambda T: ((_m(T),), {}),
    "linalg.cond.p_str_out": lambda T: ((_m(T), "fro"), {}),
    "linalg.tensorinv.out": lambda T: ((_m(T),), {"ind": 1}),
    "linalg.tensorsolve.out": lambda T: ((_m(T), _m(T)[0]), {}),
    "linalg.pinv.out_rcond_tensor": lambda T: ((_m(T), T.tensor(1e-5)), {}),
    "linalg.matrix_rank.out_tol_tensor": lambda T: ((_m(T), T.tensor(1e-5)), {}),
    "linalg.lstsq.out": lambda T: ((_m(T, _SPD), _m(T)), {}),
    "linalg.cross.out": lambda T: ((_m(T), _m(T).flip(0)), {}),
    "linalg.polygamma.out": lambda T: ((1, _m(T).abs() + 0.5), {}),
    "special.polygamma.out": lambda T: ((1, _m(T).abs() + 0.5), {}),
    "torch.polygamma.out": lambda T: ((1, _m(T).abs() + 0.5), {}),
    "torch.mm.dtype_out": lambda T: ((_m(T), _m(T), T.float32), {}),
    "torch.bmm.dtype_out": lambda T: ((_m(T)[None], _m(T)[None], T.float32), {}),
    "torch.addmm.dtype_out": lambda T: ((_m(T), _m(T), _m(T), T.float32), {}),
}
# the values are random (only shape and dtype are compared), or uninitialised (torch.empty)
UNCOMPARABLE = {"torch.empty.out", "torch.multinomial.out"} | {
    k for k in GROUPS if k.split(".")[1] in ("rand", "randn", "randint", "randperm", "normal", "bernoulli")}

# Known differences, each run as a strict xfail (so fixing one fails until it is taken off its list); one key a
# line. Empty today: ember applies torch's out= rule of each kernel kind (ember/kernels/out_rules.py).
# values, dtypes or shapes that differ from torch's
VALUE_GAPS = set()
# ops whose refusal of a wrong out dtype says something other than torch's message, or that accept what torch
# refuses
DTYPE_MESSAGE_GAPS = set()
# ops that resize a wrongly sized `out` without torch's warning, or with another one
RESIZE_WARNING_GAPS = set()
# ops that treat an `out` of another dtype the result casts to (float64 for float32, ...) otherwise than torch
CASTABLE_DTYPE_GAPS = {
    # torch 2.13 fails an INTERNAL ASSERT (BatchLinearAlgebra.cpp) for a float64 singular_values with float32
    # input under the default driver gelsy; with gelsd it accepts it, as ember does for every driver
    # (test_lstsq_castable_singular_values_with_gelsd)
    "linalg.lstsq.out",
}


def _keys(gaps, reason):
    return [pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=reason)) if k in gaps else k
            for k in sorted(GROUPS)]


def _namespace(T, module):
    return T if module == "torch" else getattr(T, module, None)


def _function(T, key):
    module, name, _ = GROUPS[key]
    return getattr(_namespace(T, module), name, None)


def _arguments(T, key):
    if key in SAMPLES:
        return SAMPLES[key](T)
    return sample_arguments(GROUPS[key][2], T)


def _torch_result(torch, key):
    """torch's functional result for the sample call (the out= tensors are made to match it), or skip."""
    args = _arguments(torch, key)
    if args is None:
        pytest.skip("no sample for this signature")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = outcome(lambda: _function(torch, key)(*args[0], **args[1]))
    if got[0] == "raise":
        pytest.skip(f"the sample call is not valid in torch: {got[2][:80]}")
    return got[1] if isinstance(got[1], tuple) else (got[1],)


def _outs(T, dtypes, shape=(0,)):
    outs = tuple(T.empty(shape, dtype=getattr(T, str(d).split(".")[-1])) for d in dtypes)
    return outs if len(outs) > 1 else outs[0]


def _call_with_out(T, key, out):
    args = _arguments(T, key)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = outcome(lambda: _function(T, key)(*args[0], **args[1], out=out))
    return got, [str(w.message).split(" (Triggered internally")[0] for w in caught
                 if "resized" in str(w.message)]


def _present(key):
    module, name, _ = GROUPS[key]
    return _function(ember, key) is not None


def _skip_missing(key):
    if not _present(key):
        pytest.skip(f"ember has no {key.rsplit('.', 1)[0]}: {MISSING.get(key.rsplit('.', 1)[0])}")


@pytest.mark.parity
@pytest.mark.parametrize("key", sorted(GROUPS))
def test_function_exists_or_is_listed_missing(key):
    name = key.rsplit(".", 1)[0]
    assert _present(key) or name in MISSING, f"ember lacks {name}, which torch has with out=; add it or list it"


@pytest.mark.parity
def test_missing_list_is_exact(torch):
    if not GROUPS:
        pytest.skip("torchgen not importable")
    names = {k.rsplit(".", 1)[0] for k in GROUPS}
    stale = {n for n in MISSING if n not in names or _present(next(k for k in GROUPS if k.startswith(n + ".")))}
    assert not stale, f"listed missing but now present (or not in torch): {sorted(stale)}"


@pytest.mark.parity
@pytest.mark.parametrize("key", _keys(VALUE_GAPS, "known difference in values"))
def test_out_matches_torch(torch, key):
    _skip_missing(key)
    want = _torch_result(torch, key)
    dtypes = [x.dtype for x in want]
    t_out, e_out = _outs(torch, dtypes), _outs(ember, dtypes)
    t_got, _ = _call_with_out(torch, key, t_out)
    e_got, _ = _call_with_out(ember, key, e_out)
    assert e_got[0] == t_got[0], e_got
    if t_got[0] == "raise":
        assert e_got[1:] == t_got[1:]
        return
    e_outs = e_out if isinstance(e_out, tuple) else (e_out,)
    t_outs = t_out if isinstance(t_out, tuple) else (t_out,)
    results = e_got[1] if isinstance(e_got[1], tuple) else (e_got[1],)
    if t_got[1] is None:                  # a TensorList out (split_copy, unbind_copy): torch returns nothing
        assert e_got[1] is None
    else:
        assert all(r is o for r, o in zip(results, e_outs)), "out= must return the out tensors themselves"
    for e, t in zip(e_outs, t_outs):
        assert (tuple(e.shape), str(e.dtype).split(".")[-1]) == (tuple(t.shape), str(t.dtype).split(".")[-1])
        if key not in UNCOMPARABLE:
            np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-4, atol=1e-5, equal_nan=True)


def _wrong_dtype(d, torch):
    """A dtype torch's out= rules refuse for a result of dtype d (or accept, for bool: both must agree)."""
    if d.is_complex:
        return torch.float32
    if d.is_floating_point:
        return torch.int64
    return torch.bool if d != torch.bool else torch.float32


def _castable_dtype(d, torch):
    """Another dtype a result of dtype d casts to: TensorIterator's kernels accept it, structured kernels and
    the ops with a same-dtype check refuse it."""
    if d.is_complex:
        return torch.complex128 if d != torch.complex128 else torch.complex64
    if d.is_floating_point:
        return torch.float64 if d != torch.float64 else torch.float32
    return torch.uint8 if d == torch.bool else torch.int32 if d != torch.int32 else torch.int64


def _check_out_dtypes_like_torch(torch, key, other_dtype):
    _skip_missing(key)
    if key in UNCOMPARABLE:
        pytest.skip("random or uninitialised values")
    want = _torch_result(torch, key)
    for i in range(len(want)):
        dtypes = [x.dtype if j != i else other_dtype(x.dtype, torch) for j, x in enumerate(want)]
        t_got, _ = _call_with_out(torch, key, _outs(torch, dtypes))
        e_got, _ = _call_with_out(ember, key, _outs(ember, dtypes))
        assert e_got[0] == t_got[0], (i, e_got, t_got)
        if t_got[0] == "raise":
            assert e_got[1:] == t_got[1:], i


@pytest.mark.parity
@pytest.mark.parametrize("key", _keys(DTYPE_MESSAGE_GAPS, "out dtype check differs from torch's"))
def test_wrong_out_dtype_matches_torch(torch, key):
    _check_out_dtypes_like_torch(torch, key, _wrong_dtype)


@pytest.mark.parity
@pytest.mark.parametrize("key", _keys(CASTABLE_DTYPE_GAPS, "castable out dtype treated otherwise than torch"))
def test_castable_out_dtype_matches_torch(torch, key):
    """Refused or accepted as torch does: this separates the exact-dtype rules from the castable one."""
    _check_out_dtypes_like_torch(torch, key, _castable_dtype)


@pytest.mark.parity
@pytest.mark.parametrize("key", _keys(RESIZE_WARNING_GAPS, "resize warning differs from torch's"))
def test_wrongly_sized_out_is_resized_with_torch_warning(torch, key):
    _skip_missing(key)
    want = _torch_result(torch, key)
    dtypes = [x.dtype for x in want]
    t_out, e_out = _outs(torch, dtypes, (7,)), _outs(ember, dtypes, (7,))
    t_got, t_warn = _call_with_out(torch, key, t_out)
    e_got, e_warn = _call_with_out(ember, key, e_out)
    assert e_got[0] == t_got[0]
    assert e_warn == t_warn
    e_outs = e_out if isinstance(e_out, tuple) else (e_out,)
    t_outs = t_out if isinstance(t_out, tuple) else (t_out,)
    assert [tuple(e.shape) for e in e_outs] == [tuple(t.shape) for t in t_outs]


@pytest.mark.parity
def test_lstsq_castable_singular_values_with_gelsd(torch):
    """The castable out torch's default driver trips an internal assert on: gelsd writes it, in both."""
    got = []
    for T in (ember, torch):
        outs = (T.empty(0), T.empty(0), T.empty(0, dtype=T.int32), T.empty(0, dtype=T.float64))
        r = T.linalg.lstsq(_m(T, _SPD), _m(T), driver="gelsd", out=outs)
        assert all(a is b for a, b in zip(r, outs))
        got.append([(str(x.dtype).split(".")[-1], x.numpy()) for x in outs])
    for (ed, ev), (td, tv) in zip(*got):
        assert ed == td
        np.testing.assert_allclose(ev, tv, rtol=1e-4, atol=1e-5)


def test_out_aliasing_an_input_reads_the_input_first():
    a = ember.tensor([[3.0, 1.0], [2.0, 4.0]])
    ember.cumsum(a, 0, out=a)
    assert a.tolist() == [[3.0, 1.0], [5.0, 5.0]]
    b = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert ember.mm(b, b, out=b) is b and b.tolist() == [[7.0, 10.0], [15.0, 22.0]]
    c = ember.tensor([3.0, 1.0, 2.0])
    values, indices = ember.sort(c, out=(c, ember.empty(0, dtype=ember.int64)))
    assert values is c and c.tolist() == [1.0, 2.0, 3.0] and indices.tolist() == [1, 2, 0]
    d = ember.tensor([[1.0, 5.0], [2.0, 0.0]])
    with pytest.warns(UserWarning, match=r"resized since it had shape \[2, 2\]"):
        ember.diff(d, dim=0, out=d)
    assert d.tolist() == [[1.0, -5.0]]


@pytest.mark.parametrize("call", [
    lambda A, outs: ember.linalg.eigh(A, out=outs),
    lambda A, outs: ember.linalg.slogdet(A, out=outs),
    lambda A, outs: ember.linalg.inv_ex(A, out=outs),
])
def test_refused_multi_output_leaves_every_out_unchanged(call):
    """Every `out` is checked before any is resized or written: the second one's wrong dtype refuses the call
    and the first keeps its shape and values."""
    A = ember.tensor([[2.0, 1.0], [1.0, 3.0]])
    first, second = ember.full((3,), 7.0), ember.empty(0, dtype=ember.bool)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        call(A, (first, second))
    assert first.tolist() == [7.0, 7.0, 7.0] and tuple(second.shape) == (0,)


def test_refused_out_is_left_unchanged():
    values, indices = ember.full((2,), 7.0), ember.empty(2, dtype=ember.int32)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype long int, but got int instead"):
        ember.max(ember.ones(3, 4), 1, out=(values, indices))
    assert values.tolist() == [7.0, 7.0] and tuple(values.shape) == (2,)
