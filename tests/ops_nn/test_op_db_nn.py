"""Drive the nn OpInfos (ember.testing._op_db_nn) through the generic op-test checks of tests/ops/test_ops.py."""
import importlib.util
import os

import pytest

from ember.testing._op_db_nn import op_db_nn

_spec = importlib.util.spec_from_file_location(
    "_generic_op_tests", os.path.join(os.path.dirname(__file__), "..", "ops", "test_ops.py"))
G = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(G)

CASES = [pytest.param(op, dt, id=f"{op.name}-{dt}") for op in op_db_nn for dt in op.dtypes]


@pytest.mark.parametrize("op,dtype", CASES)
def test_meta_matches_cpu(op, dtype):
    G.test_meta_matches_cpu(op, dtype)


@pytest.mark.parametrize("op,dtype", CASES)
def test_noncontiguous(op, dtype):
    G.test_noncontiguous(op, dtype)


@pytest.mark.parity
@pytest.mark.parametrize("op,dtype", CASES)
def test_parity(op, dtype):
    G.test_parity(op, dtype)
