import pytest

import ember


@pytest.fixture(autouse=True)
def _fresh_caches():
    ember._dynamo.reset()
    yield
    ember._dynamo.reset()
