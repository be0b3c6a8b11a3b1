"""Fixture projects for the runner's tests are generated into ``tmp_path`` (see runner_helpers),
never committed, so the real suite's default selection cannot pick them up."""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_TOOLS = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "tools")
for _p in (_HERE, _TOOLS):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import pytest  # noqa: E402


@pytest.fixture
def project(tmp_path):
    """``project({path: source})`` writes a fixture project into tmp_path and returns its root."""
    from runner_helpers import write_project

    def make(files):
        return write_project(tmp_path, files)

    return make
