import numpy as np

import ember


def rand(*shape, low=-1.0, high=1.0, seed=0, rg=True):
    a = np.random.default_rng(seed + sum(shape)).uniform(low, high, shape)
    return ember.tensor(a.tolist() if shape else float(a), dtype=ember.float64, requires_grad=rg)


def pos(*shape, seed=0):
    return rand(*shape, low=0.5, high=2.0, seed=seed)


# name -> (function, input factory); inputs are float64 tensors requiring grad (or numbers)
OPS = {
    "add": (lambda a, b: a + b, lambda: (rand(2, 3), rand(3, seed=1))),
    "add_alpha": (lambda a, b: ember.add(a, b, alpha=2.5), lambda: (rand(2, 3), rand(2, 3, seed=1))),
    "add_scalar": (lambda a: a + 3.0, lambda: (rand(2, 3),)),
    "sub": (lambda a, b: a - b, lambda: (rand(2, 3), rand(1, 3, seed=1))),
    "sub_alpha": (lambda a, b: ember.sub(a, b, alpha=-1.5), lambda: (rand(3), rand(3, seed=1))),
    "rsub": (lambda a, b: ember.rsub(a, b, alpha=2), lambda: (rand(3), rand(3, seed=1))),
    "rsub_number": (lambda a: 2.0 - a, lambda: (rand(3),)),
    "mul": (lambda a, b: a * b, lambda: (rand(2, 3), rand(2, 1, seed=1))),
    "mul_scalar": (lambda a: a * 1.7, lambda: (rand(4),)),
    "div": (lambda a, b: a / b, lambda: (rand(2, 3), pos(3, seed=1))),
    "div_scalar": (lambda a: a / 1.7, lambda: (rand(4),)),
    "rdiv_number": (lambda a: 2.0 / a, lambda: (pos(4),)),
    "remainder": (lambda a, b: ember.remainder(a, b), lambda: (rand(4, low=0.1, high=0.9), pos(4, seed=1))),
    "pow_tensor": (lambda a, b: a ** b, lambda: (pos(3), rand(3, seed=1))),
    "pow_scalar": (lambda a: a ** 3, lambda: (rand(3),)),
    "pow_frac": (lambda a: a ** 0.5, lambda: (pos(3),)),
    "rpow": (lambda b: 2.0 ** b, lambda: (rand(3),)),
    "neg": (lambda a: -a, lambda: (rand(3),)),
    "abs": (lambda a: a.abs(), lambda: (rand(5),)),
    "exp": (lambda a: a.exp(), lambda: (rand(2, 2),)),
    "log": (lambda a: a.log(), lambda: (pos(3),)),
    "sqrt": (lambda a: a.sqrt(), lambda: (pos(3),)),
    "rsqrt": (lambda a: a.rsqrt(), lambda: (pos(3),)),
    "sin": (lambda a: a.sin(), lambda: (rand(3),)),
    "cos": (lambda a: a.cos(), lambda: (rand(3),)),
    "tanh": (lambda a: a.tanh(), lambda: (rand(3),)),
    "sigmoid": (lambda a: a.sigmoid(), lambda: (rand(3),)),
    "relu": (lambda a: a.relu(), lambda: (rand(6),)),
    "clamp": (lambda a: a.clamp(-0.5, 0.5), lambda: (rand(6),)),
    "clamp_min": (lambda a: ember.clamp_min(a, 0.1), lambda: (rand(6),)),
    "clamp_max": (lambda a: ember.clamp_max(a, 0.1), lambda: (rand(6),)),
    "clamp_tensor": (lambda a, lo, hi: ember.ops.aten.clamp.Tensor(a, lo, hi),
                     lambda: (rand(6), rand(6, low=-1, high=-0.2, seed=1), rand(6, low=0.2, high=1, seed=2))),
    "where": (lambda a, b: ember.where(a > 0, a, b), lambda: (rand(5), rand(5, seed=1))),
    "sum": (lambda a: a.sum(), lambda: (rand(2, 3),)),
    "sum_dim": (lambda a: a.sum(1), lambda: (rand(2, 3),)),
    "sum_dims_keepdim": (lambda a: a.sum((0, 2), keepdim=True), lambda: (rand(2, 3, 2),)),
    "mean": (lambda a: a.mean(), lambda: (rand(2, 3),)),
    "view": (lambda a: a.view(3, 2) * 2, lambda: (rand(2, 3),)),
    "expand": (lambda a: a.expand(2, 3) * 1, lambda: (rand(1, 3),)),
    "transpose": (lambda a: a.transpose(0, 1) * 1, lambda: (rand(2, 3),)),
    "permute": (lambda a: a.permute(2, 0, 1) * 1, lambda: (rand(2, 3, 2),)),
    "t": (lambda a: a.t() * 1, lambda: (rand(2, 3),)),
    "unsqueeze": (lambda a: a.unsqueeze(1) * 1, lambda: (rand(2, 3),)),
    "clone": (lambda a: a.clone(), lambda: (rand(2, 3),)),
    "chain": (lambda a, b: ((a * b).sin() + b.exp() / (1 + a * a)).tanh(), lambda: (rand(3), rand(3, seed=1))),
}
