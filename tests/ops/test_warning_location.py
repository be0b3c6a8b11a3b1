"""Warnings torch raises from C++ (TORCH_WARN: out= resizes, deprecations, var's degrees of freedom) are
attributed to the Python line that called the op; ember's (kernels/common.warn_user) are too, whatever the
depth of ember's dispatcher and kernels between that line and the warning."""
import json
import os
import subprocess
import sys
import warnings

import pytest

import ember

# (where's uint8-condition warning is TORCH_WARN_ONCE: once per process, so not testable here in any order)
CASES = {
    "add out resize": lambda lib: lib.add(lib.ones(3), 1, out=lib.ones(2)),
    "sum out resize": lambda lib: lib.sum(lib.ones(3, 2), 0, out=lib.ones(5)),
    "matmul out resize": lambda lib: lib.matmul(lib.ones(2, 2), lib.ones(2, 2), out=lib.ones(3)),
    "mul out resize": lambda lib: lib.mul(lib.ones(2), lib.ones(2), out=lib.ones(3)),
    "cat out resize": lambda lib: lib.cat([lib.ones(2)], out=lib.ones(3)),
    "arange out resize": lambda lib: lib.arange(0, 1, 0.3, out=lib.ones(2)),
    "var dof": lambda lib: lib.ones(1).var(),
    "cov dof": lambda lib: lib.cov(lib.ones(1, 1)),
    "cholesky": lambda lib: lib.cholesky(lib.eye(2)),
    "lu_solve": lambda lib: lib.lu_solve(lib.ones(2, 1), *lib.linalg.lu_factor(lib.eye(2))),
    "triangular_solve": lambda lib: lib.triangular_solve(lib.ones(2, 1), lib.eye(2)),
    "cross": lambda lib: lib.cross(lib.ones(3), lib.ones(3)),
    "masked_fill expanded": lambda lib: lib.ones(1).expand(3).masked_fill_(lib.ones(3, dtype=lib.bool), 0.0),
}


def _where(lib, f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f(lib)
    return [(x.category.__name__, x.filename) for x in w]


def _torch_where_fresh(name):
    """torch's warnings for CASES[name] in a new interpreter: cholesky and friends are TORCH_WARN_ONCE, so an
    earlier test of this process that called them leaves nothing to record here."""
    code = ("import json, sys, torch; sys.path.insert(0, {d!r}); import test_warning_location as m; "
            "print(json.dumps(m._where(torch, m.CASES[{n!r}])))").format(d=os.path.dirname(__file__), n=name)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return [tuple(x) for x in json.loads(r.stdout.strip().splitlines()[-1])]


@pytest.mark.parity
@pytest.mark.parametrize("name", CASES)
def test_cpp_warnings_point_at_the_callers_line(name):
    torch = pytest.importorskip("torch")
    got, want = _where(ember, CASES[name]), _where(torch, CASES[name])
    if not want:
        want = _torch_where_fresh(name)
    assert want and all(fn == __file__ for _, fn in want)      # the lambda's line in this file
    assert got == want


DOF_CASES = {"var": lambda lib: lib.ones(1).var(), "std": lambda lib: lib.ones(1).std(),
             "std dim": lambda lib: lib.std(lib.ones(2, 1), 1), "var_mean": lambda lib: lib.var_mean(lib.ones(1)),
             "std_mean": lambda lib: lib.std_mean(lib.ones(1)), "var empty": lambda lib: lib.var(lib.empty(0)),
             "var empty dim": lambda lib: lib.empty(0, 3).var(0)}


@pytest.mark.parity
@pytest.mark.parametrize("name", DOF_CASES)
def test_degrees_of_freedom_warning_names_the_op_like_torch(name):
    """var/std/var_mean/std_mean each name themselves (ember said var() for all), and an empty reduction
    warns only that (numpy's "Mean of empty slice" RuntimeWarning leaked)."""
    torch = pytest.importorskip("torch")

    def messages(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            DOF_CASES[name](lib)
        return [str(x.message).split(" (Triggered")[0] for x in w]
    assert messages(ember) == messages(torch)
