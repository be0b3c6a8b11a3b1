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


def entry_key(op):
    """The op's name, or `name#i` (its index among the entries of that name) when the op database has several
    entries of that name, so that an expected-failure list can name the one entry that fails."""
    same = [o for o in op_db if o.name == op.name]
    return op.name if len(same) == 1 else f"{op.name}#{next(i for i, o in enumerate(same) if o is op)}"


def run_listed(op, listed, check, raised=None):
    """check() for one op-db entry. An entry listed in `listed` (entry_key -> (exception types, reason)) must
    fail with those exceptions, and is then an xfail; strict: a listed entry that passes fails the test, so a
    stale entry cannot stay in the list. `raised(exc_types, fn)` may replace plain try/except (inductor's
    checks look through the exception chain)."""
    import pytest
    key = entry_key(op)
    if key not in listed:
        check()
        return
    exc, reason = listed[key]
    if raised is None:
        try:
            check()
        except exc:
            pytest.xfail(reason)
    elif raised(exc, check):
        pytest.xfail(reason)
    pytest.fail(f"{key} is listed as failing ({reason}) but passes: drop its entry")


def assert_listed_entries_exist(listed):
    keys = {entry_key(op) for op in op_db}
    assert set(listed) <= keys, sorted(set(listed) - keys)
