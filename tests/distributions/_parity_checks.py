"""Shared checks of an ember distribution against the torch distribution built with the same arguments:
densities, moments, cdf/icdf, shapes, expand, sample support and moments, and rsample gradients checked by
the implicit reparameterisation identity dx/dtheta = -(dF/dtheta)(x) / p(x) evaluated by torch."""
import numpy as np

import ember


def conv(mod, x):
    return mod.tensor(x) if isinstance(x, np.ndarray) else x


def make(mod, name, args, kw):
    return getattr(mod.distributions, name)(*[conv(mod, a) for a in args], **{k: conv(mod, v) for k, v in kw.items()})


def close(a, b, rtol=1e-6, atol=1e-9):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True)


def _try(fn):
    try:
        return fn(), None
    except NotImplementedError as exc:
        return None, exc


def check_against_torch(torch, name, args, kw, value, probs=None, rtol=1e-6, moments=("mean", "variance", "mode")):
    """Everything torch computes deterministically must agree; what torch leaves unimplemented must be so in
    ember too."""
    e, t = make(ember, name, args, kw), make(torch, name, args, kw)
    assert tuple(e.batch_shape) == tuple(t.batch_shape) and tuple(e.event_shape) == tuple(t.event_shape)
    assert repr(e).replace("ember.", "torch.") == repr(t)
    assert e.has_rsample == t.has_rsample and e.has_enumerate_support == t.has_enumerate_support
    close(e.log_prob(ember.tensor(value)), t.log_prob(torch.tensor(value)), rtol)
    for attr in moments:
        close(getattr(e, attr), getattr(t, attr), rtol)
    tv, texc = _try(t.entropy)
    ev, eexc = _try(e.entropy)
    assert (texc is None) == (eexc is None)
    if tv is not None:
        close(ev, tv, rtol)
    tv, texc = _try(lambda: t.cdf(torch.tensor(value)))
    if texc is None:
        close(e.cdf(ember.tensor(value)), tv, rtol)
    if probs is not None:
        tv, texc = _try(lambda: t.icdf(torch.tensor(probs)))
        if texc is None:
            close(e.icdf(ember.tensor(probs)), tv, max(rtol, 1e-5))
    ex, tx = e.expand((4,) + tuple(e.batch_shape)), t.expand((4,) + tuple(t.batch_shape))
    assert type(ex) is type(e) and tuple(ex.batch_shape) == tuple(tx.batch_shape)
    v = t.sample().numpy()
    close(ex.log_prob(ember.tensor(v)), tx.log_prob(torch.tensor(v)), rtol)
    s = e.sample((7,))
    assert tuple(s.shape) == tuple(t.sample((7,)).shape) and s.dtype == e.sample().dtype
    assert bool(e.support.check(s).all()) and bool(ember.isfinite(e.log_prob(s)).all())
    return e, t


def check_sample_moments(name, args, kw, n=20000, tol=0.05):
    """Sample mean and variance agree with the distribution's own (already checked against torch)."""
    ember.manual_seed(0)
    d = make(ember, name, args, kw)
    s = d.sample((n,)).numpy()
    mean, var = d.mean.numpy(), d.variance.numpy()
    se = np.sqrt(var / n)
    assert np.all(np.abs(s.mean(0) - mean) < 5 * se + 1e-3), (s.mean(0), mean)
    np.testing.assert_allclose(s.var(0), var, rtol=tol * 3, atol=1e-3)


def check_rsample_gradient(torch, name, params, fixed=None, rtol=1e-4):
    """ember's rsample gradient d x / d theta for each parameter equals -(d cdf / d theta) / pdf at that x,
    evaluated in torch (the implicit reparameterisation gradient every monotone reparameterisation obeys)."""
    fixed = fixed or {}
    ember.manual_seed(1)
    eparams = {k: ember.tensor(v, requires_grad=True) for k, v in params.items()}
    d = getattr(ember.distributions, name)(**eparams, **fixed)
    x = d.rsample()
    x.sum().backward()
    tparams = {k: torch.tensor(v, requires_grad=True) for k, v in params.items()}
    td = getattr(torch.distributions, name)(**tparams, **fixed)
    tx = torch.tensor(x.detach().numpy())
    cdf = td.cdf(tx)
    grads = torch.autograd.grad(cdf.sum(), list(tparams.values()))
    pdf = td.log_prob(tx).exp()
    for (k, p), g in zip(eparams.items(), grads):
        np.testing.assert_allclose(p.grad.numpy(), (-g / pdf).detach().numpy(), rtol=rtol, atol=1e-8,
                                   err_msg=f"gradient of rsample wrt {k}")


def check_log_prob_gradients(torch, name, args, kw, value, rtol=1e-6):
    """Gradients of sum(log_prob) (+ sum(entropy) where torch has it) wrt every floating tensor argument agree
    with torch's."""
    def leaves(mod):
        conv_args = [mod.tensor(a, requires_grad=a.dtype.kind == "f") if isinstance(a, np.ndarray) else a
                     for a in args]
        conv_kw = {k: mod.tensor(v, requires_grad=v.dtype.kind == "f") if isinstance(v, np.ndarray) else v
                   for k, v in kw.items()}
        return conv_args, conv_kw

    if not any(isinstance(a, np.ndarray) and a.dtype.kind == "f" for a in list(args) + list(kw.values())):
        return                                       # only number parameters: nothing to differentiate
    ea, ekw = leaves(ember)
    ta, tkw = leaves(torch)
    e = getattr(ember.distributions, name)(*ea, **ekw)
    t = getattr(torch.distributions, name)(*ta, **tkw)
    t_obj = t.log_prob(torch.tensor(value)).sum()
    e_obj = e.log_prob(ember.tensor(value)).sum()
    try:
        t_obj = t_obj + t.entropy().sum()
        e_obj = e_obj + e.entropy().sum()
    except NotImplementedError:
        pass
    t_obj.backward()
    e_obj.backward()
    e_leaves = [x for x in list(ea) + list(ekw.values()) if isinstance(x, ember.Tensor) and x.requires_grad]
    t_leaves = [x for x in list(ta) + list(tkw.values()) if isinstance(x, torch.Tensor) and x.requires_grad]
    for el, tl in zip(e_leaves, t_leaves):
        assert (el.grad is None) == (tl.grad is None)
        if tl.grad is not None:
            close(el.grad, tl.grad, rtol, 1e-8)
