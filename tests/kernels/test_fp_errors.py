"""kernels/cpu/runtime/fp_errors.py: np.errstate's effect around a kernel's ufunc calls, cheaply."""
import warnings

import numpy as np
import pytest

import ember
from ember.kernels.cpu.runtime.fp_errors import quiet


def test_quiet_silences_only_inside_and_restores_the_state():
    run = quiet(divide="ignore", invalid="ignore", over="ignore")
    before = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = run(np.exp, np.float32(1000.0))
        assert np.isinf(r)
        assert np.isnan(run(np.log, np.float64(-1.0)))
        with pytest.raises(RuntimeWarning):
            np.exp(np.float32(1000.0))          # outside: numpy's own setting again
    assert np.geterr() == before


def test_quiet_keeps_the_settings_it_does_not_name_and_follows_changes():
    run = quiet(over="ignore")
    with np.errstate(divide="raise"):
        assert run(np.geterr)["divide"] == "raise"
        assert run(np.geterr)["over"] == "ignore"
    with np.errstate(divide="ignore"):
        assert run(np.geterr)["divide"] == "ignore"


def test_quiet_restores_the_state_when_the_call_raises():
    run = quiet(invalid="ignore")
    before = np.geterr()

    def boom():
        raise ValueError("x")

    with pytest.raises(ValueError):
        run(boom)
    assert np.geterr() == before


def test_unary_and_division_kernels_warn_nothing():
    x = ember.tensor([1000.0, -1.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.exp().tolist()[0] == float("inf")
        assert np.isnan(x.log().tolist()[1])
        assert (x / 0).tolist()[:2] == [float("inf"), float("-inf")]
        assert ember.div(x, 0, rounding_mode="floor").tolist()[:2] == [float("inf"), float("-inf")]
        assert np.isnan(x.rsqrt().tolist()[1])
        assert (x ** 1000).tolist()[0] == float("inf")


_SCRIPT = """
import sys
import numpy as np
lib = __import__(sys.argv[1])
inf = lib.full((3,), float("inf"))
inf - inf; inf * 0; lib.full((3,), 1e38) * lib.full((3,), 10.0); lib.full((4,), 3e38).sum()
lib.full((2, 2), float("inf")) @ lib.zeros(2, 2); lib.full((100,), 1e10).cumprod(0)
lib.addmm(lib.zeros(2, 2), lib.full((2, 2), float("inf")), lib.zeros(2, 2))
lib.nn.functional.mse_loss(lib.tensor([float("inf")]), lib.tensor([float("inf")]))
np.float32(1e38) * np.float32(10)       # the program's own numpy: warns with either library
"""


@pytest.mark.parity
def test_no_numpy_fp_warning_from_ember_ops_under_default_filters(tmp_path):
    """Small-path arithmetic, sum, matmul, cumprod, addmm and mse_loss on inf/overflow print nothing, as in
    torch (the warnings filter of fp_errors.py); the program's own numpy call still warns."""
    pytest.importorskip("torch")
    import os
    import subprocess
    import sys
    script = tmp_path / "fp_script.py"
    script.write_text(_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ember.__file__)))
    err = {lib: subprocess.run([sys.executable, str(script), lib], capture_output=True, text=True, timeout=120,
                               env=env).stderr for lib in ("ember", "torch")}
    assert err["ember"] == err["torch"]
    assert "overflow encountered in scalar multiply" in err["ember"]
