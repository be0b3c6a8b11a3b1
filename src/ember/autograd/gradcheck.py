"""gradcheck / gradgradcheck (torch/autograd/gradcheck.py, slow mode): compare the Jacobian from
central finite differences with the one autograd computes, column by column; complex outputs as their real
and imaginary parts, complex inputs through Wirtinger derivatives."""
import warnings

import numpy as np

from .._core.tensor_impl import TensorImpl as Tensor
from ._backward import grad as _grad


class GradcheckError(RuntimeError):
    pass


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _diff_inputs(tupled):
    return [t for t in tupled if isinstance(t, Tensor) and t.requires_grad]


def _out_arrays(func, tupled):
    """The differentiable outputs' values, flat (float64: the complex ones were split into real and imaginary
    functions before)."""
    outs = _as_tuple(func(*tupled))
    return [np.array(o._logical_np(), dtype=np.complex128 if o.dtype.is_complex else np.float64).reshape(-1)
            for o in outs if isinstance(o, Tensor) and o.requires_grad]


def _numerical(func, tupled, inputs, eps):
    """jac[i][o]: (numel of input i, numel of output o) by central differences. A complex input's column is
    ds/dx + 1j ds/dy (torch's: the conjugate Wirtinger derivative times 2, what backward computes for a real
    output)."""
    jac = []
    for x in inputs:
        a = x._np
        cols = []

        def diff(step):
            orig = a[idx].copy()
            a[idx] = orig - step
            lo = _out_arrays(func, tupled)
            a[idx] = orig + step
            hi = _out_arrays(func, tupled)
            a[idx] = orig
            return [(h - l) / (2 * eps) for h, l in zip(hi, lo)]
        for idx in np.ndindex(*a.shape):
            ds_dx = diff(eps)
            if x.dtype.is_complex:
                cols.append([dx + 1j * dy for dx, dy in zip(ds_dx, diff(1j * eps))])
            else:
                cols.append(ds_dx)
        n_out = len(_out_arrays(func, tupled))
        jac.append([np.array([c[o] for c in cols]).reshape(a.size, -1) if cols else np.zeros((0, 0))
                    for o in range(n_out)])
    return jac


def _analytical(outputs, inputs):
    """The same Jacobians from backward, one unit grad_output per output element (outputs are real here)."""
    jac = [[None] * len(outputs) for _ in inputs]
    for o, out in enumerate(outputs):
        n = out.numel()
        cols = [np.zeros((x.numel(), n), np.complex128 if x.dtype.is_complex else np.float64) for x in inputs]
        for k in range(n):
            g = np.zeros(n, out.dtype._np)
            g[k] = 1
            go = Tensor._wrap_np(g.reshape(out._size), out.dtype)
            grads = _grad(out, inputs, go, retain_graph=True, allow_unused=True)
            for i, gi in enumerate(grads):
                if gi is not None:
                    cols[i][:, k] = np.asarray(gi._logical_np(), dtype=cols[i].dtype).reshape(-1)
        for i in range(len(inputs)):
            jac[i][o] = cols[i]
    return jac


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _differentiable(outs):
    return [o for o in _as_tuple(outs) if isinstance(o, Tensor) and o.requires_grad]


def _real_and_imag_output(func):
    """func with ember.real / ember.imag applied to its complex outputs (torch's _real_and_imag_output)."""
    def apply(part):
        def wrapped(*inputs):
            outs = _as_tuple(func(*inputs))
            return tuple(getattr(o, part) if isinstance(o, Tensor) and o.dtype.is_complex else o for o in outs)
        return wrapped
    return apply("real"), apply("imag")


def _slow_gradcheck(func, tupled, diff, eps, atol, rtol, nondet_tol, raise_exception, complex_indices=(),
                    test_imag=False):
    outs = _differentiable(func(*tupled))
    num = _numerical(func, tupled, diff, eps)
    ana = _analytical(outs, diff)
    for o in range(len(outs)):
        for i in range(len(diff)):
            a, n = ana[i][o], num[i][o]
            if a.size and not np.all(np.abs(a - n) <= atol + rtol * np.abs(n)):
                prefix = (f"While considering the {'imaginary' if test_imag else 'real'} part of complex outputs "
                          "only, ") if o in complex_indices else ""
                return _fail(f"{prefix}Jacobian mismatch for output {o} with respect to input {i},\n"
                             f"numerical:{n}\nanalytical:{a}\n", raise_exception)
    # reentrancy: a second backward must give the same result
    ana2 = _analytical(outs, diff)
    for i in range(len(diff)):
        for o in range(len(outs)):
            if ana[i][o].size and not np.all(np.abs(ana[i][o] - ana2[i][o]) <= nondet_tol):
                return _fail(f"Backward is not reentrant, i.e., running backward with same input and grad_output "
                             f"multiple times gives different values, although analytical gradient matches "
                             f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}.",
                             raise_exception)
    return True


def gradcheck(func, inputs, *, eps=1e-06, atol=1e-05, rtol=0.001, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """torch's slow-mode gradcheck. Complex outputs are checked as their imaginary and real parts (two real
    functions); complex inputs by Wirtinger calculus: the numerical column ds/dx + 1j ds/dy against backward's
    gradient, as torch.autograd.gradcheck does."""
    tupled = _as_tuple(inputs)
    diff = _diff_inputs(tupled)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    for i, t in enumerate(tupled):
        if isinstance(t, Tensor) and t.requires_grad and t.dtype.name not in ("float64", "complex128"):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating "
                          "point or complex. ")
    func_out = _as_tuple(func(*tupled))
    if not check_backward_ad:
        return True
    complex_indices = [i for i, o in enumerate(_differentiable(func_out)) if o.dtype.is_complex]
    if any(isinstance(o, Tensor) and o.dtype.is_complex for o in func_out):
        real_fn, imag_fn = _real_and_imag_output(func)
        return (_slow_gradcheck(imag_fn, tupled, diff, eps, atol, rtol, nondet_tol, raise_exception,
                                complex_indices, test_imag=True)
                and _slow_gradcheck(real_fn, tupled, diff, eps, atol, rtol, nondet_tol, raise_exception,
                                    complex_indices))
    return _slow_gradcheck(func, tupled, diff, eps, atol, rtol, nondet_tol, raise_exception)


def _random_like(rng, o):
    v = rng.standard_normal(o._size)
    if o.dtype.is_complex:
        v = v + 1j * rng.standard_normal(o._size)
    return np.asarray(v).astype(o.dtype._np)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-06, atol=1e-05, rtol=0.001,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0, check_undefined_grad=True,
                  check_grad_dtypes=False, check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True,
                  fast_mode=False, masked=False):
    tupled = _as_tuple(inputs)
    if grad_outputs is None:
        outs = [o for o in _as_tuple(func(*tupled)) if isinstance(o, Tensor) and o.requires_grad]
        rng = np.random.default_rng(0)
        grad_outputs = tuple(Tensor._wrap_np(_random_like(rng, o), o.dtype).requires_grad_() for o in outs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_in = len(tupled)

    def new_func(*all_inputs):
        ins = all_inputs[:n_in]
        gos = all_inputs[n_in:]
        outs = [o for o in _as_tuple(func(*ins)) if isinstance(o, Tensor) and o.requires_grad]
        diff = _diff_inputs(ins)
        gr = _grad(outs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gr if g is not None)

    return gradcheck(new_func, tupled + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol)
