"""One sample per op of ember.testing.op_db, as a function of its tensor inputs (for make_fx and AOT sweeps)."""
import warnings

import numpy as np

import ember
from ember.testing import op_db


def first_sample(op, dtype=None):
    dtype = dtype or op.dtypes[0]
    samples = op.sample_inputs(dtype)
    return samples[0] if samples else None


def as_function(op, sample):
    """(fn, tensors): fn(*tensors) calls the op on the sample with these tensors in place of its arrays."""
    x, args, kw = sample.convert(lambda a: ember.from_numpy(np.array(a, copy=True)))
    leaves = [x, *args, *kw.values()]
    tidx = [i for i, leaf in enumerate(leaves) if isinstance(leaf, ember.Tensor)]
    keys = list(kw)

    def fn(*ts):
        ls = list(leaves)
        for i, t in zip(tidx, ts):
            ls[i] = t
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return op.op(ls[0], *ls[1:1 + len(args)], **dict(zip(keys, ls[1 + len(args):])))
    return fn, [leaves[i] for i in tidx]


def flat(r):
    if isinstance(r, (tuple, list)):
        out = []
        for x in r:
            out.extend(flat(x))
        return out
    return [r]


def ops_with_samples():
    return [op for op in op_db if first_sample(op) is not None]
