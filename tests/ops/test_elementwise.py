"""Element-wise ops beyond the OpInfo test: erf/erfinv accuracy, add/sub/rsub's alpha rules against torch."""
import math
import numpy as np
import pytest
import ember
import warnings


def test_erf_erfc_float64_accuracy():
    x = np.concatenate([np.linspace(-7, 7, 4001), [0.0, 1e-300, 26.0, -26.0]])
    want = np.array([math.erf(v) for v in x])
    wantc = np.array([math.erfc(v) for v in x])
    t = ember.from_numpy(x.copy())
    np.testing.assert_allclose(ember.erf(t).numpy(), want, rtol=4e-15, atol=1e-300)
    np.testing.assert_allclose(ember.erfc(t).numpy(), wantc, rtol=2e-14, atol=1e-300)


def test_erfinv_roundtrip_and_edges():
    y = np.linspace(-0.999999, 0.999999, 2001)
    x = ember.erfinv(ember.from_numpy(y.copy())).numpy()
    np.testing.assert_allclose(np.array([math.erf(v) for v in x]), y, rtol=1e-14, atol=1e-16)
    e = ember.erfinv(ember.tensor([1.0, -1.0, 1.5, 0.0])).numpy()
    assert e[0] == np.inf and e[1] == -np.inf and np.isnan(e[2]) and e[3] == 0


def test_numpy_erf_fallback_accuracy():
    """The pure-numpy erf/erfc (used when scipy is absent) stay accurate to a few float64 ulps."""
    import math
    from ember.kernels.cpu import elementwise_special
    x = np.linspace(-6, 6, 4001)
    ref = np.array([math.erf(v) for v in x])
    refc = np.array([math.erfc(v) for v in x])
    assert np.max(np.abs(elementwise_special._erf_numpy(x) - ref)) < 4e-15
    assert np.max(np.abs(elementwise_special._erfc_numpy(x) - refc) / refc) < 1e-13


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
    "subtract(f, 2, 3)", "subtract(f, i, alpha=0.5)", "subtract(f, i, 2)", "subtract(i, i, alpha=True)",
    "subtract(b, b)", "subtract(c, f, alpha=2j)",
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


def test_subtract_is_sub():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    assert x.subtract(2, 3).tolist() == [-5.0, -4.0]
    y = x.detach().clone()
    assert y.subtract_(ember.ones(2), alpha=2) is y and y.tolist() == [-1.0, 0.0]
    out = ember.zeros(2)
    assert ember.subtract(x.detach(), 1, out=out) is out and out.tolist() == [0.0, 1.0]
    ember.subtract(x, x.detach(), alpha=2).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


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


def test_large_binary_ops_split_over_the_pool_match_numpy():
    """From SPLIT_ELEMS elements a same-shape (or tensor-scalar) binary op is shared out over the pool."""
    from ember.kernels.cpu.elementwise import SPLIT_ELEMS
    old = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        rng = np.random.default_rng(0)
        a, b = (rng.standard_normal((SPLIT_ELEMS // 64 + 3, 64)).astype(np.float32) for _ in range(2))
        x, y = ember.from_numpy(a), ember.from_numpy(b)
        np.testing.assert_array_equal((x + y).numpy(), a + b)
        np.testing.assert_array_equal((x * 2.5).numpy(), a * np.float32(2.5))
        r = x > y
        assert r.dtype is ember.bool and r.shape == x.shape and r.is_contiguous()
        np.testing.assert_array_equal(r.numpy(), a > b)
    finally:
        ember.set_num_threads(old)


def _split_counting(monkeypatch):
    """Counts the splits the elementwise kernels ask for, as the threads per split: Python's pool (run_parts
    calls, parts per call) and ember's C pool (runtime/flat.py: calls with more than one chunk and thread)."""
    from ember.kernels.cpu import elementwise
    from ember.kernels.cpu.runtime import flat, pool
    calls = []

    def counting(fn, k):
        calls.append(k)
        pool.run_parts(fn, k)
    monkeypatch.setattr(elementwise, "run_parts", counting)
    par = flat._parallel_for()
    if par is not None:
        def counting_c(fn, p0, p1, p2, p3, s0, s1, n, grain, k):
            if k > 1 and n > grain:
                calls.append(k)
            return par(fn, p0, p1, p2, p3, s0, s1, n, grain, k)
        monkeypatch.setattr(flat, "_PAR", [counting_c])
        monkeypatch.setattr(flat, "_FAST", [False])     # the pool through _PAR (ctypes), not the CPython entry
    return calls


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_big_elementwise_ops_split_bit_identical_to_one_thread(monkeypatch, dtype):
    """Big float add/sub/mul/div (functional and in-place), relu (forward, in-place, backward) and the
    common unary math run in parts over the pool, with results bit-identical to the one-thread path."""
    from ember.kernels.cpu.elementwise import SPLIT_ELEMS
    calls = _split_counting(monkeypatch)
    rng = np.random.default_rng(0)
    n = 3 * SPLIT_ELEMS + 37                   # parts that do not fall on the alignment by themselves
    a = rng.standard_normal(n).astype(dtype)
    b = rng.standard_normal(n).astype(dtype)
    a[:5] = [0.0, -0.0, np.nan, np.inf, -np.inf]
    b[:5] = [0.0, 0.0, 1.0, np.inf, 0.0]

    def run():
        x, y = ember.from_numpy(a.copy()), ember.from_numpy(b.copy())
        out = {"add": x + y, "sub": x - y, "mul": x * y, "div": x / y, "div_s": x / 3.0, "mul_s": x * 0.1,
               "relu": ember.relu(x), "exp": x.exp(), "log": x.abs().log(), "sqrt": x.abs().sqrt(),
               "rsqrt": x.abs().rsqrt(), "sin": x.sin(), "cos": x.cos(), "tanh": x.tanh(), "neg": -x}
        z = x.clone()
        z.add_(y)
        z.mul_(y)
        z.div_(y)
        z.sub_(1.5)
        z.relu_()
        z.exp_()
        out["inplace"] = z
        g = ember.from_numpy(b.copy()).requires_grad_()
        ember.relu(g).backward(ember.from_numpy(a.copy()))
        out["relu_backward"] = g.grad
        return {k: v.detach().numpy().copy() for k, v in out.items()}

    old = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        one = run()
        assert calls == []
        ember.set_num_threads(2)
        two = run()
    finally:
        ember.set_num_threads(old)
    assert len(calls) >= len(one) + 5 and all(k == 2 for k in calls)
    for k in one:
        np.testing.assert_array_equal(two[k].view(np.uint8), one[k].view(np.uint8), err_msg=k)
    np.testing.assert_array_equal(one["add"], a + b)
    np.testing.assert_array_equal(one["relu"], np.where(a < 0, dtype(0), a))


def test_small_and_integer_elementwise_ops_do_not_split(monkeypatch):
    from ember.kernels.cpu.elementwise import SPLIT_ELEMS
    from ember.kernels.cpu.runtime import flat
    calls = _split_counting(monkeypatch)
    old = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        x = ember.ones(min(SPLIT_ELEMS, flat.GRAIN) - 1)       # below both pools' thresholds
        (x + x, x.exp(), ember.relu(x), x / 2, x.add_(1), x.exp_(), x > 0, x.tanh(), ember.where(x > 0, x, x))
        assert calls == []
        i = ember.ones(2 * SPLIT_ELEMS, dtype=ember.int32)
        r = i / i                               # true division of ints: torch's float32, not numpy's float64
        assert r.dtype is ember.float32 and (r.numpy() == 1).all()
        assert (-i).dtype is ember.int32 and i.abs().dtype is ember.int32
    finally:
        ember.set_num_threads(old)


@pytest.mark.parity
def test_zero_dim_operands_fast_path():
    # 0-d op 0-d gave a numpy scalar as the result's array (in-place ops on it then failed); a 0-d other
    # broadcasts through the same fast path
    torch = pytest.importorskip("torch")
    r = ember.tensor(1.5) + ember.tensor(2.0)
    r.add_(1)
    assert float(r) == 4.5 and r.shape == ()
    r = ember.tensor(1.5) * 2.0
    r.mul_(2)
    assert float(r) == 6.0
    x = [[1.0, -2.0, 3.0], [0.5, 2.0, -1.0]]
    for op in ("add", "sub", "mul", "lt", "eq"):
        got = getattr(ember, op)(ember.tensor(x), ember.tensor(2.0))
        want = getattr(torch, op)(torch.tensor(x), torch.tensor(2.0))
        assert got.dtype == getattr(ember, str(want.dtype).split(".")[1]) and got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parity
@pytest.mark.parametrize("sa,sb", [((1, 5), (5, 5)), ((5,), (5, 5)), ((5, 1), (1, 5)), ((3, 1, 4), (2, 4)),
                                   ((2, 3, 4), (4,)), ((), (3,)), ((0, 3), (1, 3))])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_broadcasting_binary_ops_match_torch_values_and_layout(sa, sb, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(sa) * 3).astype(dtype), (rng.standard_normal(sb) * 3).astype(dtype)
    for op in ("add", "sub", "mul", "maximum", "lt"):
        for x, y in ((a, b), (b, a)):
            got = getattr(ember, op)(ember.tensor(x), ember.tensor(y))
            want = getattr(torch, op)(torch.tensor(x), torch.tensor(y))
            assert tuple(got.shape) == tuple(want.shape) and got.stride() == want.stride()
            np.testing.assert_array_equal(got.numpy(), want.numpy())


_WRAP_CASES = ["L.tensor([0], dtype=L.int32) == 2**40", "L.tensor([44], dtype=L.uint8) == 300",
               "L.tensor([100], dtype=L.int8) < 1000", "300 + L.tensor([1], dtype=L.uint8)",
               "300 - L.tensor([1], dtype=L.uint8)", "L.tensor([1], dtype=L.uint8).sub(300)",
               "L.tensor([1], dtype=L.uint8).bitwise_and(300)", "L.tensor([1], dtype=L.int32) + 2**40",
               "L.tensor([1], dtype=L.int8) * 1000", "L.tensor([1], dtype=L.int8) - (-200)",
               "L.tensor([5], dtype=L.int16) // 70000", "L.tensor([1], dtype=L.int32).add_(2**33)",
               "L.tensor([3], dtype=L.int8) % 300", "L.tensor([1], dtype=L.int64) + 2**63",
               "L.tensor([7], dtype=L.int16) / 70000", "L.tensor([7]) + 2**64",
               # clamp converts its bounds with c10's check instead (uint8 wraps negatives)
               "L.tensor([1], dtype=L.int8).clamp(max=1000)", "L.tensor([1], dtype=L.int8).clamp_(min=-1000)",
               "L.tensor([1], dtype=L.uint8).clamp(-5, 3)", "L.tensor([1], dtype=L.int32).clamp(max=2**40)"]


@pytest.mark.parity
@pytest.mark.parametrize("code", _WRAP_CASES)
def test_python_int_beyond_an_integer_dtype_wraps_as_torch(code):
    """A Python int operand beyond an integer tensor's dtype is wrapped to it as torch converts the scalar
    (uint8 [1] + 300 is [45]); numpy 2 raised OverflowError. Beyond int64/uint64: torch's OverflowError."""
    torch = pytest.importorskip("torch")

    def run(L):
        try:
            r = eval(code, {"L": L})
        except Exception as e:      # noqa: BLE001 - the exception type and message are what is compared
            return type(e).__name__, str(e)
        return r.tolist(), str(r.dtype).split(".")[-1]
    assert run(ember) == run(torch)


ALPHA_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "complex64", "bool"]
ALPHAS = [2, -2, 127, 128, -128, -129, 255, 256, -255, -256, 70000, 2 ** 31, -2 ** 63, 2 ** 63, 2 ** 64 - 1, 2 ** 64,
          2.5, 1e39, float("inf"), 1j, True]


def _alpha_outcome(lib, dt, alpha, op, other):
    d = getattr(lib, dt)
    a = lib.full((2,), 1 if dt == "bool" else 3, dtype=d)
    b = lib.full((2,), 1 if dt == "bool" else 7, dtype=d) if other == "t" else other
    try:
        r = getattr(lib, op)(a, b, alpha=alpha)
    except Exception as e:      # noqa: BLE001 - the exception type and message are what is compared
        return type(e).__name__, str(e).splitlines()[0]
    return str(r.dtype).split(".")[-1], [str(x) for x in r.tolist()]


@pytest.mark.parity
@pytest.mark.parametrize("dt", ALPHA_DTYPES)
def test_alpha_converted_to_common_dtype_matches_torch(dt):
    # alpha is converted to the op's common dtype with c10's overflow check (RuntimeError "value cannot be
    # converted to type int8_t without overflow"), sub negating it first as a c10 Scalar (int8 alpha=-128
    # overflows, int64 alpha=-2**63 wraps); products with a Python number wrap in integer dtypes
    torch = pytest.importorskip("torch")
    for alpha in ALPHAS:
        for op in ("add", "sub", "rsub"):
            for other in ("t", 100):
                got = _alpha_outcome(ember, dt, alpha, op, other)
                want = _alpha_outcome(torch, dt, alpha, op, other)
                assert got == want, (dt, alpha, op, other)


@pytest.mark.parity
def test_alpha_overflow_in_place_and_out_match_torch():
    torch = pytest.importorskip("torch")
    for lib in (ember, torch):
        a = lib.ones(2, dtype=lib.int8)
        with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
            a.add_(a, alpha=1000)
        with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
            lib.add(a, a, alpha=1000, out=lib.zeros(2, dtype=lib.int64))
        with pytest.raises(RuntimeError, match="value cannot be converted to type c10::Half without overflow"):
            lib.ones(2, dtype=lib.float16).sub_(1, alpha=1e6)
        assert a.tolist() == [1, 1]


POW_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "complex64", "bool"]
POW_EXPONENTS = [0, 2, 127, 128, 255, 256, 1000, 70000, 2 ** 31, 2 ** 40, 2 ** 62 + 1, 2 ** 63, 2 ** 64 - 1, 2 ** 64,
                 -1, -128, -2 ** 40, 2.5, 1e5, 1e39, float("inf"), True, 2 + 0j]


def _pow_outcome(lib, dt, exp, form):
    d = getattr(lib, dt)
    a = lib.full((2,), 1 if dt == "bool" else 2, dtype=d)
    try:
        if form == "pow":
            r = lib.pow(a, exp)
        elif form == "pow_":
            r = a.pow_(exp)
        elif form == "out":
            r = lib.pow(a, exp, out=lib.zeros(2, dtype=lib.complex128))
        else:
            r = a ** exp
    except Exception as e:      # noqa: BLE001 - the exception type and message are what is compared
        return type(e).__name__, str(e).splitlines()[0]
    return str(r.dtype).split(".")[-1], [str(x) for x in r.tolist()]


@pytest.mark.parity
@pytest.mark.parametrize("dt", POW_DTYPES)
def test_pow_scalar_exponent_checked_like_torch(dt):
    # an integral or float16/bfloat16 result converts the exponent with c10's overflow check (pow(int8, 1000):
    # RuntimeError "value cannot be converted to type int8_t without overflow", not numpy's wrapped exponent),
    # a negative int exponent of an integer tensor is refused first; a number base is not checked
    torch = pytest.importorskip("torch")
    for exp in POW_EXPONENTS:
        for form in ("pow", "pow_", "out", "**"):
            got, want = _pow_outcome(ember, dt, exp, form), _pow_outcome(torch, dt, exp, form)
            assert got == want, (dt, exp, form)
    for base in (1000, 2 ** 40, 2 ** 63, -129, 300):
        if dt not in ("uint8", "int8", "int16", "int32", "int64"):
            continue        # an integer base wraps into an integer tensor's dtype (torch checks nothing here)
        e = ember.full((2,), 2, dtype=getattr(ember, dt))
        t = torch.full((2,), 2, dtype=getattr(torch, dt))
        assert [str(x) for x in ember.pow(base, e).tolist()] == [str(x) for x in torch.pow(base, t).tolist()]


BOOL_SUB_CALLS = ["b - 1", "b - 1.5", "b - True", "b - b", "1 - b", "True - b", "1.5 - b", "lib.sub(b, 1)",
                  "b.sub(1)", "lib.rsub(b, 1)", "lib.rsub(b, 2.5, alpha=2)", "b.clone().sub_(1)", "b.__rsub__(1)",
                  "b.__isub__(1)", "lib.sub(b, 1, alpha=2)", "lib.rsub(b, b)", "lib.rsub(b, i)", "i - b", "b - i",
                  "lib.sub(b, 1, out=lib.empty(2, dtype=lib.int64))", "lib.subtract(b, 3)", "b - np.bool_(True)",
                  "lib.sub(lib.tensor(1), b)", "b - lib.tensor(1.0)", "f - b", "lib.rsub(f, True)"]


@pytest.mark.parity
@pytest.mark.parametrize("call", BOOL_SUB_CALLS)
def test_bool_sub_raises_like_torch(call):
    """torch's sub_check: a bool operand (a Python bool counting as a bool tensor) is refused whatever the
    other operand, with "two bool tensors" when both are bool (ember computed `b - 1` and `1 - b`)."""
    torch = pytest.importorskip("torch")

    def outcome(lib):
        env = dict(_inputs(lib), np=np, lib=lib)
        try:
            r = eval(call, env)
        except Exception as e:      # noqa: BLE001 - the exception type and message are what is compared
            return type(e).__name__, str(e)
        return str(r.dtype).split(".")[-1], r.tolist()
    assert outcome(ember) == outcome(torch)


COMPLEX_ALPHA_CALLS = ["add(c, 100, alpha=inf)", "sub(c, 100, alpha=inf)", "add(c, 0, alpha=inf)",
                       "add(c, 100, alpha=nan)", "rsub(c, 100, alpha=inf)", "add(c, 2.5, alpha=inf)",
                       "add(c, lib.tensor(100), alpha=inf)", "add(f, 1j, alpha=inf)", "add(c, 3, alpha=1e38)",
                       "add(c, 100, alpha=1j)", "add(c, 0.1, alpha=3)", "add(c.to(lib.complex128), 7, alpha=inf)",
                       "mul(c, 1).add_(100, alpha=inf)", "add(c, 100, alpha=inf, out=lib.empty(2, dtype=lib.complex64))"]


@pytest.mark.parity
@pytest.mark.parametrize("call", COMPLEX_ALPHA_CALLS)
def test_complex_alpha_multiplies_as_a_complex_number(call):
    """alpha times a number other is a complex product in the op's precision when the result is complex:
    inf * (100 + 0j) is inf + nanj, so add(c, 100, alpha=inf) is inf+nanj as in torch (ember gave inf+0j)."""
    torch = pytest.importorskip("torch")

    def outcome(lib):
        env = dict(_inputs(lib), np=np, lib=lib, inf=float("inf"), nan=float("nan"))
        r = eval("lib." + call, env)
        return str(r.dtype).split(".")[-1], [str(x) for x in r.tolist()]
    assert outcome(ember) == outcome(torch)


@pytest.mark.parity
@pytest.mark.parametrize("dt", ["uint8", "int8", "int16", "int32", "int64"])
def test_integer_pow_tensor_exponent_wraps_like_torch(dt):
    """A tensor exponent of an integral pow is converted to the result dtype (wrapping) and taken through
    c10's powi: negative exponents give 1, +-1 or 0 instead of an error, big ones wrap modulo 2**bits
    (ember raised "negative powers" for pow(int8, tensor(1000)), whose int8 exponent is -24)."""
    torch = pytest.importorskip("torch")
    bases = [2, 3, 1, 0, -1, -2, 127, -128, 7] if dt != "uint8" else [2, 3, 1, 0, 255, 128, 7]
    exps = [1000, 127, 128, 255, 256, 70000, 2 ** 31 + 1, 2 ** 40, 2 ** 62 + 3, -1, -2, -3, 0, 1, 63]

    def outcome(lib, f):
        try:
            r = f(lib)
        except Exception as e:      # noqa: BLE001 - the exception type and message are what is compared
            return type(e).__name__, str(e)
        return str(r.dtype).split(".")[-1], r.tolist()
    forms = [lambda lib, e: lib.pow(lib.tensor(bases, dtype=getattr(lib, dt)), lib.tensor(e)),
             lambda lib, e: lib.tensor(bases, dtype=getattr(lib, dt)) ** lib.tensor([e] * len(bases)),
             lambda lib, e: lib.tensor(bases, dtype=getattr(lib, dt)).pow_(lib.tensor(e)),
             lambda lib, e: lib.pow(lib.tensor(bases, dtype=getattr(lib, dt)), lib.tensor(e),
                                    out=lib.empty(len(bases), dtype=lib.int64)),
             lambda lib, e: lib.pow(-1 if dt != "uint8" else 3, lib.tensor([e, e - 1]).to(getattr(lib, dt)))]
    for e in exps:
        for f in forms:
            assert outcome(ember, lambda lib: f(lib, e)) == outcome(torch, lambda lib: f(lib, e)), (dt, e)
    mixed = lambda lib: lib.pow(lib.tensor(bases, dtype=getattr(lib, dt)),      # noqa: E731
                                lib.tensor([100, -100, 127, -128, 5, 7, -1, 0, 3][:len(bases)], dtype=lib.int8))
    assert outcome(ember, mixed) == outcome(torch, mixed)


COMPLEX_HALF_POW = ["h ** 1j", "h ** (2 + 0j)", "lib.pow(h, 1j)", "h.clone().pow_(1j)", "1j ** h", "lib.pow(1j, h)",
                    "h ** lib.tensor(1j)", "h ** lib.tensor([1j])", "lib.pow(h, 1j, out=lib.empty(2, dtype=lib.complex64))",
                    "lib.pow(h, 1j, out=lib.empty(2))", "h.clone().pow_(lib.tensor(2j))", "h[0] ** lib.tensor([1j])",
                    "h.to(lib.bfloat16) ** 1j", "h ** 2.5", "lib.pow(2j, h[0])"]


@pytest.mark.parity
@pytest.mark.parametrize("call", COMPLEX_HALF_POW)
def test_pow_with_a_complex_half_result_raises_like_torch(call):
    """torch's result dtype for float16 with a complex number (or 0-dim complex tensor) is complex32, which
    has no pow kernel: NotImplementedError '"pow" not implemented for 'ComplexHalf'', or the cast error naming
    ComplexHalf for a real in-place/out= target (ember computed these in complex64)."""
    torch = pytest.importorskip("torch")

    def outcome(lib):
        env = dict(_inputs(lib), lib=lib)
        try:
            r = eval(call, env)
        except Exception as e:      # noqa: BLE001 - the exception type and message are what is compared
            return type(e).__name__, str(e)
        return str(r.dtype).split(".")[-1], [str(x) for x in r.tolist()]
    assert outcome(ember) == outcome(torch)


FMA_FORMS = {
    "add": lambda lib, x, y, al: lib.add(x, y, alpha=al),
    "sub": lambda lib, x, y, al: lib.sub(x, y, alpha=al),
    "rsub": lambda lib, x, y, al: lib.rsub(x, y, alpha=al),
    "add_": lambda lib, x, y, al: x.clone().add_(y, alpha=al),
    "sub_": lambda lib, x, y, al: x.clone().sub_(y, alpha=al),
    "add out": lambda lib, x, y, al: lib.add(x, y, alpha=al, out=lib.empty(0, dtype=x.dtype)),
    "add bcast": lambda lib, x, y, al: lib.add(x.reshape(-1, 1), y[:7], alpha=al),
    "add strided": lambda lib, x, y, al: lib.add(x[1::2], y[1::2], alpha=al),
    "add T": lambda lib, x, y, al: lib.add(x.repeat(36)[:36].reshape(6, 6).t(), y.repeat(36)[:36].reshape(6, 6),
                                           alpha=al),
    "add int alpha": lambda lib, x, y, al: lib.add(x, y, alpha=3),
    "add int other": lambda lib, x, y, al: lib.add(x, y.round().long(), alpha=al),
}


@pytest.mark.parity
@pytest.mark.parametrize("form", FMA_FORMS)
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_add_sub_alpha_rounded_once_like_torch(form, dt):
    """torch computes a + alpha * b with one rounding (Vectorized::fmadd); ember rounded alpha * b first, and
    ~30% of elements differed by an ulp."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    for n in (3, 8, 17, 100, 1000):
        xn, yn = (rng.standard_normal(n).astype(dt) for _ in range(2))
        for al in (0.3, 1.7, -2.1, 1e-3):
            got = FMA_FORMS[form](ember, ember.from_numpy(xn.copy()), ember.from_numpy(yn.copy()), al).numpy()
            want = FMA_FORMS[form](torch, torch.from_numpy(xn.copy()), torch.from_numpy(yn.copy()), al).numpy()
            assert got.dtype == want.dtype and got.shape == want.shape
            got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
            assert (got.view(np.uint8) == want.view(np.uint8)).all(), (form, dt, n, al)
