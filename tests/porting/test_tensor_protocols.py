"""Python protocols and warnings a ported script meets: `x in t` (Tensor.__contains__), `t.T` on a tensor that is
not a matrix (torch's deprecation warnings, once per process), `t.H` (matrices only), torch.tensor(a_tensor)'s
copy-construct warning, torch.tensor(list of ndarrays)'s slowness warning (once), against torch."""
import os
import subprocess
import sys
import warnings

import pytest

import ember


def _contains(lib):
    t = lib.tensor([[1.5, 2.25], [3.0, 4.125]])
    out = [2.25 in t, 7 in t, lib.tensor(3.0) in t, 3 in lib.tensor([1, 2]), True in lib.tensor([True])]
    try:
        "a" in t        # noqa: B015
    except RuntimeError as e:
        out.append(str(e))
    return out


@pytest.mark.parity
def test_contains_matches_torch():
    torch = pytest.importorskip("torch")
    assert _contains(ember) == _contains(torch)


def _h(lib):
    out = []
    for x in (lib.ones(3), lib.ones(2, 3, 4), lib.ones(2, 3), lib.tensor([[1 + 2j, 3j]])):
        try:
            out.append(x.H.tolist())
        except RuntimeError as e:
            out.append(str(e))
    return out


@pytest.mark.parity
def test_H_matches_torch():
    torch = pytest.importorskip("torch")
    assert _h(ember) == _h(torch)


_SCRIPT = """
import warnings, sys
import numpy as np
lib = __import__(sys.argv[1])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    x = lib.ones(3)
    x.T; x.T; lib.ones(2, 3, 4).T; lib.ones(2, 2).T; lib.tensor(1.0).T; lib.tensor(1.0).T; lib.tensor(2.0).H
    lib.tensor(x); lib.tensor(lib.nn.Parameter(x)); lib.as_tensor(x)
    lib.tensor([np.zeros(2), np.ones(2)]); lib.tensor((np.zeros(2),)); lib.tensor([np.float32(1)])
print([(str(m.message).split(" (Triggered")[0], m.category.__name__, m.lineno) for m in w])
"""


@pytest.mark.parity
def test_T_and_copy_construct_warnings_match_torch(tmp_path):
    pytest.importorskip("torch")
    script = tmp_path / "warn_script.py"
    script.write_text(_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ember.__file__)))     # this ember
    runs = [subprocess.run([sys.executable, str(script), lib], capture_output=True, text=True, timeout=120, env=env)
            for lib in ("ember", "torch")]
    assert runs[0].returncode == 0, runs[0].stderr
    assert runs[0].stdout == runs[1].stdout


def test_tensor_of_a_tensor_warns_at_the_callers_line():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ember.tensor(ember.ones(2))
    assert len(w) == 1 and w[0].filename == __file__


@pytest.mark.parity
def test_from_numpy_negative_strides_message_matches_torch():
    torch = pytest.importorskip("torch")
    import numpy as np
    msgs = []
    for lib in (ember, torch):
        with pytest.raises(ValueError) as ei:
            lib.from_numpy(np.arange(3)[::-1])
        msgs.append(str(ei.value))
    assert msgs[0] == msgs[1]
