import warnings

import pytest

import ember


@pytest.fixture(autouse=True)
def _fresh_caches():
    ember._dynamo.reset()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*backend 'inductor' is not built.*")
        yield
    ember._dynamo.reset()
