"""The porting suite's `torch` fixture (real torch, or the test is skipped)."""
import pytest


@pytest.fixture
def torch():
    return pytest.importorskip("torch")
