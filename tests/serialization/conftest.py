import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared/fixtures/torch_checkpoints"


@pytest.fixture(scope="session")
def fixtures_dir():
    if not (FIXTURES / "manifest.json").exists():
        pytest.skip(f"torch checkpoint fixtures not found at {FIXTURES}")
    return FIXTURES


@pytest.fixture(scope="session")
def manifest(fixtures_dir):
    return json.loads((fixtures_dir / "manifest.json").read_text())
