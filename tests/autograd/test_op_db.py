"""Every OpInfo in ember.testing.op_db whose output is floating: gradcheck and gradient parity with
torch on its float64 samples (the op database drives the autograd checks too)."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from ember.testing import op_db
from ember.testing._opinfo import resolve

# samples sitting on a kink of a non-smooth op, or whose gradient torch defines by a tie-break
# that finite differences cannot see
NON_SMOOTH = {"sign", "sgn", "floor", "ceil", "round", "trunc", "frac", "fmod", "remainder", "isnan", "isinf",
              "isfinite", "isposinf", "isneginf", "nan_to_num",
              "nextafter"}   # (its samples hold equal pairs, where the gradient is 0 but the step is 1)

# ops whose derivative formula is not written yet (multi-output linalg and a few others): for these the
# test asserts the documented behaviour instead — backward raises "not implemented", never a wrong grad.
# Remove a name when its formula lands.
NO_FORMULA_YET = set()
# ops that read one triangle of a Hermitian input: gradchecked through `A + A^H`, like torch's
# gradcheck_wrapper_hermitian_input (a perturbation of the unread triangle cannot be seen otherwise)
HERMITIAN_INPUT = {"linalg.cholesky", "linalg.cholesky_ex", "cholesky", "linalg.eigh", "linalg.eigvalsh"}
# ops whose grad follows torch's convention for normalised log-probabilities (CTC: exp(lp) - posterior):
# gradchecked through log_softmax, the only place where that convention is the derivative
LOG_PROB_INPUT = {"nn.functional.ctc_loss"}

# a real wrong gradient today (strict xfail: fixing it must remove the entry)
KNOWN_GRAD_BUGS = {}
# the differentiated output where the op's first output is not all gauge-free: like torch's
# output_process_fn_grad, svd's U is cut to its first min(m, n) columns (full_matrices pads it with an arbitrary basis)
GRAD_OUTPUT = {"linalg.svd": lambda r, x: r[..., :min(x.shape[-2:])]}

# random ops are checked by tests/ops/test_ops.py (seeding, moments); dropout's grad through a fixed mask is
# checked in tests/ops_nn, and its deterministic forms (p=0, eval) have their own op_db entry
CASES = [pytest.param(op, id=op.name, marks=[pytest.mark.xfail(strict=True, reason=KNOWN_GRAD_BUGS[op.name])]
                      if op.name in KNOWN_GRAD_BUGS else [])
         for op in op_db if "float64" in op.dtypes and not op.randomness]


def _samples(op):
    """float64 samples with small arrays; integer arrays (indices, targets, lengths) ride along as constants."""
    out = []
    for s in op.sample_inputs("float64"):
        arrs = s.arrays()
        floats = [a for a in arrs if a.dtype.kind == "f"]
        if not floats or any(a.dtype != np.float64 for a in floats) or any(a.size > 64 for a in floats):
            continue
        if any(not np.all(np.isfinite(a)) for a in arrs):
            continue
        out.append(s)
    return out


def _differentiable(s, op=None):
    """The sample's floating arrays (integer arrays are indices, targets, lengths)."""
    return [a for a in s.arrays() if a.dtype.kind not in "iub"]


def _split(s, op=None):
    """(function of the sample's arrays, the arrays) for one sample. With `op` (the gradgrad test), only the
    floating arrays are arguments of the function and the integer ones enter as constants."""
    arrays = s.arrays() if op is None else _differentiable(s, op)

    def build(conv, ts):
        it = iter(ts)
        return s.convert(lambda x: next(it) if any(x is a for a in arrays) else (conv or ember.from_numpy)(x.copy()))
    return build, arrays


def _prepare(op, x, kw):
    if (op.name in HERMITIAN_INPUT or kw.get("hermitian")) and hasattr(x, "mT"):
        return x + x.mT
    if op.name in LOG_PROB_INPUT:
        return x.log_softmax(-1)
    return x


def _first(op, r, x):
    r = r[0] if isinstance(r, tuple) else r
    return GRAD_OUTPUT[op.name](r, x) if op.name in GRAD_OUTPUT else r


def _torch_refusal(op, s):
    """torch's error message when differentiating this sample raises (a non-differentiable argument requiring
    grad, a backward it rejects, or a bug of torch's), else None."""
    torch = pytest.importorskip("torch")
    conv = lambda a: torch.tensor(a).requires_grad_() if a.dtype.kind == "f" else torch.from_numpy(a.copy())  # noqa: E731
    x, args, kw = s.convert(conv)
    try:
        r = _first(op, resolve(torch, op.torch_name)(_prepare(op, x, kw), *args, **kw), x)
        r.sum().backward()
    except RuntimeError as e:
        return str(e)
    return None


def _ember_refuses(f, ins):
    try:
        f(*ins).sum().backward()
    except RuntimeError:
        return True
    return False


@pytest.mark.parametrize("op", CASES)
def test_op_db_gradcheck(op):
    if op.name in NON_SMOOTH or op.aten_name in NON_SMOOTH:   # (Tensor.__mod__ is remainder)
        pytest.skip("piecewise constant / non-smooth: zero or undefined gradient")
    ran = 0
    for s in _samples(op):
        if ran == 4:
            break                         # four checked samples per op (error / nan samples don't count)
        build, arrays = _split(s)
        ins = [ember.tensor(a.tolist(), dtype=ember.float64, requires_grad=True) if a.dtype.kind == "f" else
               ember.from_numpy(a.copy()) for a in arrays]

        def f(*ts):
            x, args, kw = build(None, ts)
            return _first(op, op.op(_prepare(op, x, kw), *args, **kw), x)
        try:
            r = f(*ins)
        except (RuntimeError, IndexError, ValueError, TypeError):
            continue                      # an error sample
        if not isinstance(r, ember.Tensor) or not r.dtype.is_floating_point or np.isnan(r.detach().numpy()).any():
            continue
        if op.name in NO_FORMULA_YET:
            outs = [o for o in (r if isinstance(r, tuple) else (r,)) if isinstance(o, ember.Tensor) and o.requires_grad]
            try:
                if outs:
                    sum(o.sum() for o in outs).backward()
            except RuntimeError:
                ran += 1
                continue          # refused, as it must be without a formula
            # this sample took a differentiable path (e.g. matrix_power with n > 0): check it for real
        refusal = _torch_refusal(op, s)
        if refusal is not None and "not differentiable with respect to argument" in refusal:
            assert _ember_refuses(f, ins), (s, f"torch refuses ({refusal}); ember must too")
            ran += 1
            continue
        if refusal is not None and _ember_refuses(f, ins):
            ran += 1
            continue                # refused like torch (scatter's src larger than index...)
        # else: ember differentiates where torch raises (a bug of torch's: narrow_copy's negative start,
        # batched linalg.cond): gradcheck tells whether ember's gradient is right
        if r.grad_fn is not None and r.grad_fn.name().endswith("NotImplemented"):
            pytest.fail(f"{op.name}: no derivative formula")
        assert gradcheck(f, ins, raise_exception=True, atol=1e-5, rtol=1e-3), s
        ran += 1
    if not ran:
        pytest.skip("no float64 sample with a floating output")
