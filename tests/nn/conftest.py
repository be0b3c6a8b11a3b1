import numpy as np
import pytest


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def arr(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)
