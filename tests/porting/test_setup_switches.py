"""The switches scripts flip in their setup code: set_printoptions (checked by printing against torch),
use_deterministic_algorithms and set_float32_matmul_precision (recorded and read back as torch does)."""
import numpy as np
import pytest

import ember
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)

VALUES = [[1.123456, 2.5, -3.25], [1e-5, 1.0], list(range(2000)), [[1.5, 2.25], [3, 4]], [1 + 2.123j, 3 - 1j]]
OPTIONS = [dict(precision=2), dict(sci_mode=True), dict(sci_mode=False), dict(profile="short"),
           dict(edgeitems=1, linewidth=40), dict(profile="full", threshold=10)]


@pytest.mark.parity
@pytest.mark.parametrize("opts", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_set_printoptions_matches_torch(torch, opts):
    try:
        torch.set_printoptions(**opts)
        ember.set_printoptions(**opts)
        for v in VALUES:
            got = repr(ember.tensor(np.array(v, dtype=np.complex64 if isinstance(v[0], complex) else np.float32)))
            want = repr(torch.tensor(np.array(v, dtype=np.complex64 if isinstance(v[0], complex) else np.float32)))
            assert got.replace("ember.", "torch.") == want
    finally:
        torch.set_printoptions(profile="default")
        ember.set_printoptions(profile="default")


@pytest.mark.parity
def test_deterministic_and_matmul_precision_switches_match_torch(torch):
    for t in (ember, torch):
        assert t.get_float32_matmul_precision() == "highest"
        try:
            t.set_float32_matmul_precision("high")
            assert t.get_float32_matmul_precision() == "high"
            with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
                t.set_float32_matmul_precision("bad")
            assert t.get_float32_matmul_precision() == "high"
            with pytest.raises(RuntimeError, match="expects a str, but got int"):
                t.set_float32_matmul_precision(1)
        finally:
            t.set_float32_matmul_precision("highest")
        try:
            assert not t.are_deterministic_algorithms_enabled()
            t.use_deterministic_algorithms(True, warn_only=True)
            assert t.are_deterministic_algorithms_enabled() and t.is_deterministic_algorithms_warn_only_enabled()
            assert t.get_deterministic_debug_mode() == 1
            with pytest.raises(TypeError, match="must be bool, not str"):
                t.use_deterministic_algorithms("x")
        finally:
            t.use_deterministic_algorithms(False)
        assert t.get_deterministic_debug_mode() == 0
