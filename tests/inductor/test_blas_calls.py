"""The generated C entry calls numpy's cblas gemm for mm/bmm externs (ember/_inductor/codegen/blas_calls.py):
a graph of matmuls and kernels is one ctypes call, with eager's results, transposed views read in place."""
import numpy as np
import pytest

import ember
from ember._inductor.codegen import blas_calls, wrapper
from ember.kernels.cpu.runtime import blas

from ._compiled import Compiled, fresh_caches

pytestmark = pytest.mark.skipif(blas.cblas_gemm() is None, reason="numpy's BLAS is not an OpenBLAS")


@pytest.fixture(autouse=True)
def _fresh():
    yield from fresh_caches()


def _t(*shape, dtype=np.float32, seed=0):
    return ember.tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def _python_calls(module):
    """Extern ops the wrapper still calls from Python."""
    return [ln for ln in module.py_source.splitlines() if "_op_" in ln and "# aten." in ln]


def test_mlp_forward_is_one_entry_with_eager_values():
    x, w1, w2 = _t(8, 16), _t(32, 16, seed=1), _t(4, 32, seed=2)

    def f(x, w1, w2):
        return (ember.relu(x @ w1.t()) @ w2.t()).sin()

    c = Compiled(f)
    with ember.no_grad():
        got = c(x, w1, w2)
    m = c.modules[0]
    assert m.c_source.count("ember_sgemm(") == 2
    assert _python_calls(m) == []
    assert len(m.entry_names) == 1                        # kernels and matmuls: one ctypes call
    np.testing.assert_allclose(got.numpy(), f(x, w1, w2).numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_transposed_operands_and_gradients_equal_eager(dtype):
    x = _t(6, 5, dtype=dtype).requires_grad_()
    w = _t(7, 5, dtype=dtype, seed=1).requires_grad_()

    def f(x, w):
        return (ember.tanh(x @ w.t()) * 2.0).sum()

    c = Compiled(f)
    out = c(x, w)
    out.backward()
    gx, gw = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    ref = f(x, w)
    ref.backward()
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out.item(), ref.item(), rtol=tol)
    np.testing.assert_allclose(gx.numpy(), x.grad.numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(gw.numpy(), w.grad.numpy(), rtol=tol, atol=tol)
    src = "".join(m.c_source for m in c.modules)
    assert src.count("ember_sgemm(" if dtype == np.float32 else "ember_dgemm(") >= 3   # forward, two grads
    # the backward's transposed operands are read in place (a transpose flag), not copied
    assert f"{blas_calls.TRANS}," in src



def test_a_returned_permuted_operand_is_computed_once():
    # t is a transposed pointwise value that the matmul reads and the graph returns (as the q, k and v that
    # attention reads are saved for its backward): one buffer, in the output's layout (eager's strides), which
    # the matmul reads with a transpose flag, not its base in its own order and a second kernel for the output
    x, w = _t(6, 5), _t(6, 7, seed=1)

    def f(x, w):
        t = (x * 2 + 1).t()
        return t @ w, t

    c = Compiled(f)
    with ember.no_grad():
        got, got_t = c(x, w)
    ref, ref_t = f(x, w)
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got_t.numpy(), ref_t.numpy())
    assert got_t.stride() == ref_t.stride() == (1, 5)
    assert c.kernels() == [1]

def test_bmm_with_batch_strides_equals_eager():
    a = _t(3, 4, 5)
    b = _t(3, 6, 5, seed=1)

    def f(a, b):
        return ember.bmm(a * 2.0, b.transpose(1, 2)) + 1.0

    c = Compiled(f)
    with ember.no_grad():
        got = c(a, b)
    assert "for (int64_t bi = 0; bi < 3; bi++)" in c.source()
    np.testing.assert_allclose(got.numpy(), f(a, b).numpy(), rtol=1e-5, atol=1e-5)


def test_nan_and_inf_propagate_as_in_eager():
    x = _t(4, 3)
    x[1, 2] = float("nan")
    x[2, 0] = float("inf")
    w = _t(5, 3, seed=1)

    def f(x, w):
        return (x @ w.t()).exp()

    c = Compiled(f)
    with ember.no_grad():
        got = c(x, w).numpy()
    ref = f(x, w).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got, ref, rtol=1e-5)


def test_python_path_when_turned_off_or_unreadable(monkeypatch):
    x, w = _t(4, 3), _t(5, 3, seed=1)

    def f(x, w):
        return (x @ w.t()).relu()

    monkeypatch.setattr(wrapper, "EXTERN_GEMM_IN_C", False)
    c = Compiled(f)
    with ember.no_grad():
        got = c(x, w)
    m = c.modules[0]
    assert "ember_sgemm(" not in m.c_source and m.blas_bits is None
    assert len(_python_calls(m)) == 1
    np.testing.assert_allclose(got.numpy(), f(x, w).numpy(), rtol=1e-6)


def test_operand_layouts_blas_cannot_read():
    assert blas_calls._operand((4, 3), (3, 1)) == (blas_calls.NO_TRANS, 3)
    assert blas_calls._operand((4, 3), (1, 4)) == (blas_calls.TRANS, 4)
    assert blas_calls._operand((1, 3), (7, 1)) == (blas_calls.NO_TRANS, 3)
    assert blas_calls._operand((4, 3), (0, 1)) is None        # an expanded row
    assert blas_calls._operand((4, 3), (6, 2)) is None        # no unit stride


def test_a_library_for_another_blas_width_is_refused():
    class Lib:
        def __getitem__(self, name):
            raise AssertionError("not reached")
    other = 32 if blas.cblas_gemm()[2] == 64 else 64
    with pytest.raises(RuntimeError, match="cblas_sgemm"):
        blas_calls.bind(Lib(), other)


def test_dynamic_shapes_call_gemm_with_run_time_sizes():
    from ember._dynamo.utils import counters
    from ember._inductor.compile_fx import compile_fx, compile_fx_inner
    calls = []

    def inner(gm, example_inputs):
        c = compile_fx_inner(gm, example_inputs)
        calls.append(c)
        return c
    w = _t(6, 5, seed=1)

    def f(x, w):
        return (x @ w.t()).relu() * 2.0

    cf = ember.compile(f, dynamic=True, backend=lambda gm, ex: compile_fx(gm, ex, inner_compile=inner))
    with ember.no_grad():
        for rows in (3, 7, 4):
            x = _t(2, rows, 5, seed=rows)
            np.testing.assert_allclose(cf(x, w).numpy(), f(x, w).numpy(), rtol=1e-5, atol=1e-6)
    modules = [c._ember_module for c in calls]
    assert counters["inductor"]["dynamic_graphs"] == 1 and len(modules) == 1
    assert "ember_sgemm(" in modules[0].c_source and _python_calls(modules[0]) == []


# matmuls whose operand BLAS cannot read in place: the expanded scalar gradient of a `.sum()` (0 strides), a
# slice with no unit stride. The C entry copies the operand into contiguous scratch first (no Python extern).
_COPY_CASES = ["qk_sum", "masked_attention", "mha", "strided"]


def _copy_case(name, lib, dtype=np.float32):
    """(loss function, its arguments, the leaves whose gradients are compared) in `lib` (ember or torch)."""
    rng = np.random.default_rng(0)

    def arr(*shape):
        return lib.tensor(rng.standard_normal(shape).astype(dtype)).requires_grad_()
    if name == "qk_sum":
        q, k = arr(2, 3, 4, 5), arr(2, 3, 4, 5)
        return (lambda q, k: (q @ k.transpose(-1, -2)).sum()), [q, k], [q, k]
    if name == "masked_attention":
        q, k, v = arr(2, 3, 4, 5), arr(2, 3, 4, 5), arr(2, 3, 4, 5)
        mask = lib.tensor(np.tril(np.ones((4, 4), dtype=bool)))

        def attend(q, k, v):
            s = (q @ k.transpose(-1, -2) * 0.5).masked_fill(~mask, float("-inf")).softmax(-1)
            return (s @ v).sum()
        return attend, [q, k, v], [q, k, v]
    if name == "mha":
        mha = lib.nn.MultiheadAttention(8, 2).to(getattr(lib, np.dtype(dtype).name))
        params = [p for _, p in sorted(mha.named_parameters(), key=lambda kv: kv[0])]
        with lib.no_grad():
            for p in params:
                p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(dtype) * 0.3))
        x = arr(4, 3, 8)
        return (lambda x: mha(x, x, x)[0].sum()), [x], [x] + params
    x, w = arr(8, 10), arr(5, 7)
    return (lambda x, w: (x[::2, ::2] @ w).tanh().sum()), [x, w], [x, w]


def _grads(fn, args, leaves):
    for t in leaves:
        t.grad = None
    out = fn(*args)
    out.backward()
    return out.detach().numpy().copy(), [t.grad.numpy().copy() for t in leaves]


def _gemm_python_calls(module):
    return [ln for ln in _python_calls(module) if any(f"# {op}" in ln for op in blas_calls.GEMM_OPS)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", _COPY_CASES)
def test_operand_blas_cannot_read_is_copied_in_c_with_eager_values(case, dtype, monkeypatch):
    fn, args, leaves = _copy_case(case, ember, dtype)
    c = Compiled(fn)
    got, got_grads = _grads(c, args, leaves)
    assert len(c.modules) == 2
    assert all(_gemm_python_calls(m) == [] for m in c.modules)    # every matmul is called from the C entry
    assert "a contiguous copy of the" in c.source()
    # the same graphs with the matmuls called from Python (eager's kernels: np.matmul copies the operand BLAS
    # cannot read, then calls the same gemm): the same values bit for bit
    monkeypatch.setattr(wrapper, "EXTERN_GEMM_IN_C", False)
    ember._dynamo.reset()
    p = Compiled(fn)
    py_out, py_grads = _grads(p, args, leaves)
    assert sum(len(_gemm_python_calls(m)) for m in p.modules) >= 2
    np.testing.assert_array_equal(got, py_out)
    for g, r in zip(got_grads, py_grads):
        np.testing.assert_array_equal(g, r)
    # and eager's, up to the order of the compiled sums and softmax (the same with either path)
    ref, ref_grads = _grads(fn, args, leaves)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, ref, rtol=tol)
    for g, r in zip(got_grads, ref_grads):
        np.testing.assert_allclose(g, r, rtol=tol, atol=tol * max(1.0, np.abs(r).max()))
    if case == "qk_sum":                 # only matmuls and a sum: eager's gradients bit for bit
        for g, r in zip(got_grads, ref_grads):
            np.testing.assert_array_equal(g, r)


@pytest.mark.parity
@pytest.mark.parametrize("case", _COPY_CASES)
def test_copied_operand_parity_with_torch(case):
    """Compiled forward and gradients against torch's (float32: OpenBLAS and torch's BLAS sum in different
    orders)."""
    torch = pytest.importorskip("torch")
    fn, args, leaves = _copy_case(case, ember)
    tfn, targs, tleaves = _copy_case(case, torch)
    c = Compiled(fn)
    got, got_grads = _grads(c, args, leaves)
    assert all(_gemm_python_calls(m) == [] for m in c.modules)
    ref, ref_grads = _grads(tfn, targs, tleaves)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    for g, r in zip(got_grads, ref_grads):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5 * max(1.0, np.abs(r).max()))


def test_copy_plan_of_an_expanded_batch_is_one_matrix():
    from types import SimpleNamespace as NS
    expanded = NS(size=(6, 4, 4), stride=(0, 0, 0))
    dense = NS(size=(6, 4, 5), stride=(20, 5, 1))
    op = "aten.bmm.default"
    assert blas_calls._shape_plan(op, expanded, dense, blas_calls._operand, (False, False)) is None
    batch, m, n, k, oa, ob, bs, copies = blas_calls._shape_plan(op, expanded, dense, blas_calls._operand,
                                                                  (True, False))
    assert (batch, m, n, k) == (6, 4, 5, 4) and bs == (0, 20)     # every batch reads the one copied matrix
    assert oa == (blas_calls.NO_TRANS, 4) and copies == (((4, 4), (0, 0)), None)
    strided = NS(size=(3, 4, 5), stride=(60, 10, 2))              # no unit stride: every matrix is copied
    plan = blas_calls._shape_plan(op, dense, NS(size=(6, 5, 3), stride=(0, 1, 10)), blas_calls._operand,
                                  (False, False))
    assert plan[6] == (20, 0) and plan[7] == (None, None)         # a readable 0 batch stride: no copy
    plan = blas_calls._shape_plan("aten.mm.default", NS(size=(4, 5), stride=(20, 2)), NS(size=(5, 3), stride=(3, 1)),
                                  blas_calls._operand, (True, False))
    assert plan[7] == (((4, 5), (20, 2)), None) and plan[4] == (blas_calls.NO_TRANS, 5)
    assert blas_calls._shape_plan(op, strided, dense, blas_calls._operand, (True, False)) is False  # batch 3 != 6


@pytest.mark.parametrize("case", ["nn", "nt", "tn", "f64"])
def test_products_eager_splits_run_as_blocks_over_its_pool_at_two_threads(case):
    """At 2 threads a product eager's runtime/gemm.py would split runs in the entry as the same blocks of rows or
    columns over ember's C pool (OpenBLAS held at one thread): the single call's bits, so eager's."""
    from ember._inductor import config
    from ember.kernels.cpu.runtime import gemm
    from ember.kernels.cpu.runtime.flat import pool_stats
    if not gemm.available():
        pytest.skip("ember's C gemm blocks are not available")
    dt = np.float64 if case == "f64" else np.float32
    a, b = _t(256, 384, dtype=dt), _t(384, 320, seed=1, dtype=dt)
    f = {"nn": lambda a, b: (a @ b).relu(), "nt": lambda a, b: (a @ b.t()[:, :384].t()).relu(),
         "tn": lambda a, b: (a.t().t() @ b).relu(), "f64": lambda a, b: (a @ b).relu()}[case]
    if case == "nt":
        b = _t(320, 384, seed=1, dtype=dt).t()
        f = lambda a, b: (a @ b).relu()      # noqa: E731  (b: the transpose of a contiguous matrix)
    if case == "tn":
        a = _t(384, 256, dtype=dt).t()
    old = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        with config.patch({"cpp.threads": 2}):
            c = Compiled(f)
            with ember.no_grad():
                pool_stats(reset=True)
                got = c(a, b)
                stats = pool_stats()
        want = f(a, b)
    finally:
        ember.set_num_threads(old)
    src = c.modules[0].c_source
    assert "blocks of" in src and "over the pool" in src
    assert blas.held() and blas.get_num_threads() == 1
    assert stats is None or stats["jobs"] >= 1
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(got.numpy(), np.maximum(a.numpy() @ b.numpy(), 0))


def test_products_stay_one_call_at_one_thread():
    from ember._inductor import config
    a, b = _t(256, 384), _t(384, 320, seed=1)
    with config.patch({"cpp.threads": 1}):
        c = Compiled(lambda a, b: a @ b)
        with ember.no_grad():
            got = c(a, b)
    assert "over the pool" not in c.modules[0].c_source
    np.testing.assert_array_equal(got.numpy(), a.numpy() @ b.numpy())
