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
    # matrix products
    "mm": (lambda a, b: a.mm(b), lambda: (rand(2, 3), rand(3, 4, seed=1))),
    "bmm": (lambda a, b: a.bmm(b), lambda: (rand(2, 2, 3), rand(2, 3, 2, seed=1))),
    "mv": (lambda a, b: a.mv(b), lambda: (rand(2, 3), rand(3, seed=1))),
    "dot": (lambda a, b: a.dot(b), lambda: (rand(3), rand(3, seed=1))),
    "matmul_2d": (lambda a, b: a.matmul(b), lambda: (rand(2, 3), rand(3, 2, seed=1))),
    "matmul_1d_1d": (lambda a, b: a.matmul(b), lambda: (rand(3), rand(3, seed=1))),
    "matmul_1d_3d": (lambda a, b: a.matmul(b), lambda: (rand(3), rand(2, 3, 2, seed=1))),
    "matmul_3d_1d": (lambda a, b: a.matmul(b), lambda: (rand(2, 2, 3), rand(3, seed=1))),
    "matmul_bcast": (lambda a, b: a.matmul(b), lambda: (rand(2, 1, 2, 3), rand(3, 3, 2, seed=1))),
    "matmul_2d_3d": (lambda a, b: a @ b, lambda: (rand(2, 3), rand(2, 3, 2, seed=1))),
    "addmm": (lambda c, a, b: ember.addmm(c, a, b, beta=0.5, alpha=2.0),
              lambda: (rand(3, seed=2), rand(2, 3), rand(3, 3, seed=1))),
    "addmm_default": (lambda c, a, b: ember.addmm(c, a, b), lambda: (rand(2, 3, seed=2), rand(2, 2), rand(2, 3, seed=1))),
    # views and shape ops
    "select": (lambda a: a.select(1, -1) * 1, lambda: (rand(2, 3),)),
    "slice": (lambda a: a[:, 1::2] * 1, lambda: (rand(2, 5),)),
    "narrow": (lambda a: a.narrow(0, 1, 2) * 1, lambda: (rand(4, 2),)),
    "getitem_int": (lambda a: a[1] * 1, lambda: (rand(3, 2),)),
    "diagonal": (lambda a: a.diagonal(1) * 1, lambda: (rand(3, 4),)),
    "as_strided": (lambda a: a.as_strided((2, 2), (1, 2), 1) * 1, lambda: (rand(6),)),
    "as_strided_overlap": (lambda a: a.as_strided((3, 2), (1, 1)) * 1, lambda: (rand(4),)),
    "movedim": (lambda a: a.movedim(0, -1) * 1, lambda: (rand(2, 3, 2),)),
    "reshape": (lambda a: a.t().reshape(6) * 1, lambda: (rand(2, 3),)),
    "flatten": (lambda a: a.flatten() * 1, lambda: (rand(2, 3),)),
    "expand_as": (lambda a, b: a.expand_as(b) * b, lambda: (rand(3, 1), rand(3, 2, seed=1))),
    "view_as": (lambda a, b: a.view_as(b) * b, lambda: (rand(6), rand(3, 2, seed=1))),
    "contiguous": (lambda a: a.t().contiguous() * 1, lambda: (rand(2, 3),)),
    "unbind": (lambda a: a.unbind(1)[0] * a.unbind(1)[2], lambda: (rand(2, 3),)),
    "split": (lambda a: a.split(2)[1] * 2, lambda: (rand(5, 2),)),
    "split_with_sizes": (lambda a: a.split([1, 3], 1)[1].sum(1), lambda: (rand(2, 4),)),
    "chunk": (lambda a: a.chunk(3)[0] * a.chunk(3)[2], lambda: (rand(6),)),
    "cat": (lambda a, b: ember.cat([a, b], 1), lambda: (rand(2, 3), rand(2, 1, seed=1))),
    "cat_empty": (lambda a, b, c: ember.cat([a, b, c]), lambda: (rand(2, 3), rand(0, seed=2), rand(1, 3, seed=1))),
    "stack": (lambda a, b: ember.stack([a, b], 1), lambda: (rand(2, 3), rand(2, 3, seed=1))),
    # indexing
    "index_tensor": (lambda a: a[ember.tensor([0, 2, 0])], lambda: (rand(3, 2),)),
    "index_bool": (lambda a: a[a > 0], lambda: (rand(3, 2),)),
    "index_two": (lambda a: a[ember.tensor([0, 1]), ember.tensor([1, 1])], lambda: (rand(3, 2),)),
    "index_put": (lambda a, v: ember.index_put(a, (ember.tensor([0, 2]),), v), lambda: (rand(3, 2), rand(2, 2, seed=1))),
    "index_put_acc": (lambda a, v: ember.index_put(a, (ember.tensor([0, 0]),), v, accumulate=True),
                      lambda: (rand(3, 2), rand(2, seed=1))),
    # reductions
    "mean_dim": (lambda a: a.mean(1), lambda: (rand(2, 3),)),
    "mean_dims": (lambda a: a.mean((0, 2), keepdim=True), lambda: (rand(2, 3, 2),)),
    "prod": (lambda a: a.prod(), lambda: (rand(2, 3),)),
    "prod_dim": (lambda a: a.prod(1), lambda: (rand(2, 3),)),
    "prod_zero": (lambda a: (a * ember.tensor([[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]], dtype=ember.float64)).prod(),
                  lambda: (rand(2, 3),)),
    "prod_zeros_dim": (lambda a: (a * ember.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]], dtype=ember.float64)).prod(1, keepdim=True),
                       lambda: (rand(2, 3),)),
    "amax": (lambda a: a.amax(1), lambda: (rand(2, 3),)),
    "amax_ties": (lambda a: ember.cat([a, a]).amax(0), lambda: (rand(3),)),
    "amin_all": (lambda a: a.amin(), lambda: (rand(2, 3),)),
    "max": (lambda a: a.max(), lambda: (rand(2, 3),)),
    "max_ties": (lambda a: ember.cat([a, a]).max(), lambda: (rand(3),)),
    "min": (lambda a: a.min(), lambda: (rand(2, 3),)),
    "max_dim": (lambda a: a.max(1)[0], lambda: (rand(2, 3),)),
    "min_dim_keepdim": (lambda a: a.min(0, keepdim=True).values, lambda: (rand(2, 3),)),
    # conversions and in-place
    "copy_": (lambda a, b: (a * 1).copy_(b), lambda: (rand(2, 3), rand(3, seed=1))),
    "copy_partial": (lambda a, b: _copy_into_slice(a, b), lambda: (rand(3, 3), rand(3, seed=1))),
    "fill_": (lambda a: (a * 1).fill_(2.0) + a, lambda: (rand(3),)),
    "fill_tensor": (lambda a, v: (a * 1).fill_(v) * a, lambda: (rand(3), rand(seed=1))),
    "zero_": (lambda a: (a * 2).zero_() + a, lambda: (rand(3),)),
    "mul_on_view": (lambda a: _mul_on_view(a), lambda: (rand(3, 2),)),
    "clamp_": (lambda a: (a * 1).clamp_(-0.5, 0.5), lambda: (rand(6),)),
    "abs_": (lambda a: (a * 1).abs_(), lambda: (rand(6),)),
}


def _copy_into_slice(a, b):
    c = a * 1
    c[1].copy_(b)
    return c


def _mul_on_view(a):
    c = a * 1
    v = c[:, 1]
    v.mul_(a[:, 0])
    v.add_(1.5)
    return c
