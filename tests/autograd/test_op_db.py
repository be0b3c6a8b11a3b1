"""Every OpInfo in ember.testing.op_db (and the nn ones, _op_db_nn) whose output is floating: gradcheck and
gradient parity with torch on its float64 samples (the op database drives the autograd checks too)."""
import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from ember.testing import op_db
from ember.testing._op_db_nn import op_db_nn
from ember.testing._opinfo import resolve

# samples sitting on a kink of a non-smooth op, or whose gradient torch defines by a tie-break
# that finite differences cannot see
NON_SMOOTH = {"sign", "sgn", "floor", "ceil", "round", "trunc", "frac", "fmod", "remainder", "isnan", "isinf",
              "isfinite", "isposinf", "isneginf", "nan_to_num"}

# ops whose derivative formula is not written yet (multi-output linalg and a few others): for these the
# test asserts the documented behaviour instead — backward raises "not implemented", never a wrong grad.
# Remove a name when its formula lands.
NO_FORMULA_YET = set()
# ops that read one triangle of a Hermitian input: gradchecked through `A + A^H`, like torch's
# gradcheck_wrapper_hermitian_input (a perturbation of the unread triangle cannot be seen otherwise)
HERMITIAN_INPUT = {"linalg.cholesky", "cholesky", "linalg.eigh", "linalg.eigvalsh"}
# ops whose grad follows torch's convention for normalised log-probabilities (CTC: exp(lp) - posterior):
# gradchecked through log_softmax, the only place where that convention is the derivative
LOG_PROB_INPUT = {"nn.functional.ctc_loss"}

CASES = [pytest.param(op, id=op.name) for op in op_db + op_db_nn if "float64" in op.dtypes]
# the nn samples pass integer arrays (indices, offsets, targets) as constants. Doing the same for op_db's
# samples would bring in scatter (value), scatter_reduce, index_fill and index_reduce, which have no formula
# yet, and a scatter_add sample whose src is larger than its index (torch refuses that backward too).
_INDEX_CONSTANTS = {id(op) for op in op_db_nn}


def _differentiable(s, op):
    return [a for a in s.arrays() if id(op) not in _INDEX_CONSTANTS or a.dtype.kind not in "iub"]


def _samples(op):
    out = []
    for s in op.sample_inputs("float64"):
        arrs = _differentiable(s, op)
        if not arrs or any(a.dtype != np.float64 for a in arrs) or any(a.size > 64 for a in arrs):
            continue
        if any(not np.all(np.isfinite(a)) for a in arrs):
            continue
        out.append(s)
    return out[:4]


def _split(s, op):
    """(function of the float64 arrays, the arrays) for one sample; integer arrays of nn samples enter as
    constants."""
    arrays = _differentiable(s, op)

    def build(conv, ts):
        it = iter(ts)

        def c(x):
            if not isinstance(x, np.ndarray):
                return x
            if any(x is a for a in arrays):
                return next(it)
            return ember.tensor(x.tolist(), dtype=getattr(ember, x.dtype.name))
        return c(s.input), tuple(c(a) for a in s.args), {k: c(v) for k, v in s.kwargs.items()}
    return build, arrays


@pytest.mark.parametrize("op", CASES)
def test_op_db_gradcheck(op):
    if op.name in NON_SMOOTH:
        pytest.skip("piecewise constant / non-smooth: zero or undefined gradient")
    ran = 0
    for s in _samples(op):
        build, arrays = _split(s, op)
        ins = [ember.tensor(a.tolist(), dtype=ember.float64, requires_grad=True) if a.ndim else
               ember.tensor(float(a), dtype=ember.float64, requires_grad=True) for a in arrays]

        def f(*ts):
            x, args, kw = build(None, ts)
            if (op.name in HERMITIAN_INPUT or kw.get("hermitian")) and isinstance(x, ember.Tensor):
                x = x + x.mT
            if op.name in LOG_PROB_INPUT:
                x = ember.nn.functional.log_softmax(x, -1)
            r = op.op(x, *args, **kw)
            r = r[0] if isinstance(r, tuple) else r
            return r
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
        if r.grad_fn is not None and r.grad_fn.name() == "NotImplemented":
            pytest.fail(f"{op.name}: no derivative formula")
        assert gradcheck(f, ins, raise_exception=True, atol=1e-5, rtol=1e-3), s
        ran += 1
    if not ran:
        pytest.skip("no float64 sample with a floating output")
