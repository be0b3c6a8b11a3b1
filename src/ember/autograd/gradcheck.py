"""gradcheck / gradgradcheck (torch/autograd/gradcheck.py, slow mode): compare the Jacobian from
central finite differences with the one autograd computes, column by column."""
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
    outs = _as_tuple(func(*tupled))
    return [np.array(o._logical_np(), dtype=np.float64 if not o.dtype.is_complex else np.complex128).reshape(-1)
            for o in outs if isinstance(o, Tensor)]


def _numerical(func, tupled, inputs, outputs_mask, eps):
    jac = []
    for x in inputs:
        a = x._np
        cols = []
        for idx in np.ndindex(*a.shape):
            orig = a[idx].copy()
            a[idx] = orig - eps
            lo = _out_arrays(func, tupled)
            a[idx] = orig + eps
            hi = _out_arrays(func, tupled)
            a[idx] = orig
            cols.append([(h - l) / (2 * eps) for h, l in zip(hi, lo)])
        # jac[i][o]: (numel_in, numel_out)
        n_out = len(outputs_mask)
        jac.append([np.array([c[o] for c in cols]).reshape(a.size, -1) if cols else np.zeros((0, 0))
                    for o in range(n_out)])
    return jac


def _analytical(outputs, inputs, nondet_tol):
    jac = [[None] * len(outputs) for _ in inputs]
    for o, out in enumerate(outputs):
        n = out.numel()
        cols = [np.zeros((x.numel(), n)) for x in inputs]
        if out.requires_grad:
            for k in range(n):
                g = np.zeros(n, out.dtype._np)
                g[k] = 1
                go = Tensor._wrap_np(g.reshape(out._size), out.dtype)
                grads = _grad(out, inputs, go, retain_graph=True, allow_unused=True)
                for i, gi in enumerate(grads):
                    if gi is not None:
                        cols[i][:, k] = np.asarray(gi._logical_np(), dtype=np.float64).reshape(-1)
        for i in range(len(inputs)):
            jac[i][o] = cols[i]
    return jac


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def gradcheck(func, inputs, *, eps=1e-06, atol=1e-05, rtol=0.001, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    tupled = _as_tuple(inputs)
    diff = _diff_inputs(tupled)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    for i, t in enumerate(tupled):
        if isinstance(t, Tensor) and t.requires_grad and t.dtype.name != "float64":
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating "
                          "point or complex. ")
    outs = _as_tuple(func(*tupled))
    outs = [o for o in outs if isinstance(o, Tensor)]
    if not check_backward_ad:
        return True
    num = _numerical(func, tupled, diff, outs, eps)
    ana = _analytical(outs, diff, nondet_tol)
    for i in range(len(diff)):
        for o in range(len(outs)):
            a, n = ana[i][o], num[i][o]
            if a.size and not np.all(np.abs(a - n) <= atol + rtol * np.abs(n)):
                return _fail(f"Jacobian mismatch for output {o} with respect to input {i},\n"
                             f"numerical:{n}\nanalytical:{a}\n", raise_exception)
    # reentrancy: a second backward must give the same result
    ana2 = _analytical(outs, diff, nondet_tol)
    for i in range(len(diff)):
        for o in range(len(outs)):
            if ana[i][o].size and not np.all(np.abs(ana[i][o] - ana2[i][o]) <= nondet_tol):
                return _fail(f"Backward is not reentrant, i.e., running backward with same input and grad_output "
                             f"multiple times gives different values, although analytical gradient matches "
                             f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}.",
                             raise_exception)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-06, atol=1e-05, rtol=0.001,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0, check_undefined_grad=True,
                  check_grad_dtypes=False, check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True,
                  fast_mode=False, masked=False):
    tupled = _as_tuple(inputs)
    if grad_outputs is None:
        outs = [o for o in _as_tuple(func(*tupled)) if isinstance(o, Tensor) and o.requires_grad]
        rng = np.random.default_rng(0)
        grad_outputs = tuple(Tensor._wrap_np(rng.standard_normal(o._size).astype(o.dtype._np), o.dtype)
                             .requires_grad_() for o in outs)
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
