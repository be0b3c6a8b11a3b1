"""Distribution tests compare against torch with argument validation at its default (on): torch.compile's first
use in a process turns torch's default off for good (torch._dynamo disables distribution validation), so a
dynamo test run earlier in the same pytest process would make torch accept what the tests expect it to refuse."""
import pytest


@pytest.fixture(autouse=True)
def _torch_validates_distribution_args():
    try:
        import torch
    except ImportError:
        yield
        return
    dist = torch.distributions.Distribution
    before = dist._validate_args
    dist.set_default_validate_args(True)
    try:
        yield
    finally:
        dist.set_default_validate_args(before)
