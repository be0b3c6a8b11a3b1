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
    tensors = [ember.from_numpy(np.array(a, copy=True)) for a in sample.arrays()]

    def fn(*ts):
        x, args, kw = sample.bind(ts)       # TensorList arguments get their tensors too
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return op.op(x, *args, **kw)
    return fn, tensors


def flat(r):
    if isinstance(r, (tuple, list)):
        out = []
        for x in r:
            out.extend(flat(x))
        return out
    return [r]


def ops_with_samples():
    return [op for op in op_db if first_sample(op) is not None]
