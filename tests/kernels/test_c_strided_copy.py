"""The copy behind reshape()/contiguous() of permuted views (csrc/strided_copy.c through kernels/cpu/copy.py's
_row_copy): exact bits against torch for every float dtype, grads, zero-size and 0-stride sources, the numpy
path against the C one, and the C kernel actually in use at the attention shapes."""
import numpy as np
import pytest

import ember
from ember import _cc
from ember.kernels.cpu import copy as cpu_copy
from ember.kernels.cpu.runtime import clib

needs_c = pytest.mark.skipif(not _cc.available(), reason="no C compiler")

DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64", "int64"]

# (shape, view) pairs: transposed heads, a general permutation, a sliced last dim, a 3-d and a 2-d transpose
VIEWS = [
    ((8, 4, 32, 16), lambda t: t.transpose(1, 2)),
    ((4, 8, 64, 32), lambda t: t.permute(2, 0, 1, 3)),
    ((6, 40, 12, 24), lambda t: t.transpose(0, 1)[..., 3:19]),
    ((40, 24, 12), lambda t: t.transpose(0, 1)),
    ((800, 24), lambda t: t[::2]),
]


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.dtype(f"u{a.itemsize}")) if a.dtype.kind != "c" else a.view(np.uint64)


def _source(lib, shape, dtype):
    x = np.random.default_rng(0).standard_normal(shape) * 3
    flat = x.reshape(-1)
    flat[:4] = [np.nan, -0.0, np.inf, -np.inf]
    if dtype == "bfloat16":     # the float64 -> bfloat16 cast of NaN differs (torch 0xffff); not this copy's
        flat[0] = 1.5
    if dtype != "complex64":    # values exact in the dtype: the float64 -> float16 casts differ by an ulp at times
        x = ember.tensor(x).to(getattr(ember, dtype)).to(ember.float64).numpy()
    return lib.tensor(x).to(getattr(lib, dtype))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(VIEWS)))
def test_copy_of_view_matches_torch_bits(dtype, case):
    torch = pytest.importorskip("torch")
    shape, view = VIEWS[case]
    if dtype == "int64":
        src = {lib: lib.arange(int(np.prod(shape))).reshape(shape) for lib in (ember, torch)}
    else:
        src = {lib: _source(lib, shape, dtype) for lib in (ember, torch)}
    for op in (lambda v: v.contiguous(), lambda v: v.reshape(-1), lambda v: v.clone(memory_format=None)):
        e, t = op(view(src[ember])), op(view(src[torch]))
        assert tuple(e.shape) == tuple(t.shape) and tuple(e.stride()) == tuple(t.stride())
        assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
        tn = t.view(torch.int16).numpy() if dtype == "bfloat16" else t.numpy()
        en = e.view(ember.int16).numpy() if dtype == "bfloat16" else e.numpy()
        np.testing.assert_array_equal(_bits(en), _bits(tn))


@needs_c
def test_c_kernel_in_use_at_attention_shape(monkeypatch):
    calls = []
    real = cpu_copy._row_copy
    monkeypatch.setattr(cpu_copy, "_row_copy", lambda a, out: calls.append(a.shape) or real(a, out))
    x = ember.randn(8, 4, 32, 16)
    y = x.transpose(1, 2).reshape(8, 32, 64)
    assert calls == [(8, 32, 4, 16)]
    np.testing.assert_array_equal(y.numpy(), x.numpy().transpose(0, 2, 1, 3).reshape(8, 32, 64))
    assert real(x.numpy().transpose(0, 2, 1, 3), np.empty((8, 32, 4, 16), np.float32))


@needs_c
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex128, np.int8, np.bool_])
def test_c_path_matches_numpy_path(dtype):
    rng = np.random.default_rng(1)
    for shape, perm in [((3, 5, 40, 7), (2, 0, 1, 3)), ((2, 50, 9, 33), (1, 2, 0, 3)), ((70, 11, 5), (1, 0, 2))]:
        a = (rng.standard_normal(shape) * 4).astype(dtype).transpose(perm)
        out = np.full(a.shape, 7, dtype)
        assert cpu_copy._row_copy(a, out) == (a.shape[-1] * a.itemsize >= 16)
        if a.shape[-1] * a.itemsize >= 16:
            np.testing.assert_array_equal(_bits(out), _bits(a))
    with clib.use_c(False):
        assert not cpu_copy._row_copy(a, out)


@needs_c
@pytest.mark.parity
def test_zero_size_and_zero_stride_sources(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(cpu_copy, "_ROWS_MIN", 0)
    for lib in (ember, torch):
        lib.manual_seed(0)
    base = {lib: lib.tensor(np.arange(64 * 8, dtype=np.float32).reshape(64, 8)) for lib in (ember, torch)}
    cases = [
        lambda t, lib: t[:, None].expand(64, 30, 8).transpose(0, 1),        # 0-stride dim, last contiguous
        lambda t, lib: t[None].expand(5, 64, 8).permute(1, 0, 2),
        lambda t, lib: lib.zeros(0, 4, 6, 8).transpose(1, 2),                 # zero-size
        lambda t, lib: lib.zeros(3, 4, 0, 8).transpose(1, 2),
    ]
    for make in cases:
        e, t = make(base[ember], ember).contiguous(), make(base[torch], torch).contiguous()
        assert tuple(e.shape) == tuple(t.shape)
        if t.numel():           # torch's contiguous() returns an empty view itself (strides kept); ember copies
            assert tuple(e.stride()) == tuple(t.stride())
        np.testing.assert_array_equal(e.numpy(), t.numpy())
        assert e.reshape(-1).shape == t.reshape(-1).shape


@pytest.mark.parametrize("rows_min", [0, cpu_copy._ROWS_MIN])
def test_gradcheck_reshape_and_contiguous_of_permuted(monkeypatch, rows_min):
    monkeypatch.setattr(cpu_copy, "_ROWS_MIN", rows_min)      # 0: the C copy on gradcheck's small inputs
    x = ember.randn(2, 3, 4, 5, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: t.transpose(1, 2).reshape(2, 4, 15), (x,))
    assert ember.autograd.gradcheck(lambda t: t.permute(2, 0, 1, 3).contiguous() * 2, (x,))
    assert ember.autograd.gradcheck(lambda t: t[:, :, 1:, 1:3].transpose(0, 3).contiguous(), (x,))


@needs_c
@pytest.mark.parametrize("threads", [2, 3])
def test_row_copy_split_over_the_pool_is_the_same_copy(monkeypatch, threads):
    """From copy._ROWS_SPLIT elements with 2+ threads the row copy's groups run as csrc/strided_copy.c's part on
    ember's C pool: byte for byte the one-thread copy, at a GPT's attention shapes and ragged group counts."""
    from ember.kernels.cpu.runtime import cparts
    runs = []
    real = cparts.run
    monkeypatch.setattr(cparts, "run", lambda *a, **k: runs.append(a[1]) or real(*a, **k))
    old = ember.get_num_threads()
    try:
        for shape, perm in (((16, 64, 4, 32), (0, 2, 1, 3)), ((16, 4, 64, 32), (0, 2, 1, 3)),
                            ((3, 70, 5, 40), (0, 2, 1, 3)), ((64, 64, 32), (1, 0, 2)), ((5, 64, 4, 100), (2, 1, 0, 3))):
            a = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
            a.reshape(-1)[:3] = [np.nan, -0.0, np.inf]
            ember.set_num_threads(1)
            one = ember.from_numpy(a).permute(*perm).contiguous().numpy()
            ember.set_num_threads(threads)
            n = len(runs)
            got = ember.from_numpy(a).permute(*perm).contiguous().numpy()
            assert len(runs) == n + 1                     # the pool part ran
            np.testing.assert_array_equal(_bits(got), _bits(one))
            np.testing.assert_array_equal(_bits(got), _bits(np.ascontiguousarray(a.transpose(perm))))
    finally:
        ember.set_num_threads(old)
