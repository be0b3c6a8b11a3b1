"""A ported script that still imports PyTorch somewhere (`from torch.nn.utils.rnn import ...` after `import
ember as torch` imports the real package) hands ember tensors to PyTorch's functions or PyTorch tensors to
ember's. Each side's __torch_function__ used to call the other back until Python's recursion limit; now
both stop at once with a TypeError that names the mistake."""
import pytest

import ember
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)


def test_ember_tensor_in_a_real_torch_function(torch):
    from torch.nn.utils.rnn import pack_padded_sequence
    cases = [lambda: pack_padded_sequence(ember.ones(3, 2, 1), ember.tensor([3, 2])),
             lambda: torch.nn.functional.relu(ember.ones(2)), lambda: torch.add(ember.ones(2), 1)]
    for call in cases:
        with pytest.raises(TypeError, match=r"of the real `torch` package.*import ember as torch"):
            call()


def test_real_torch_tensor_in_an_ember_function(torch):
    cases = [lambda: ember.ones(2) + torch.ones(2), lambda: ember.add(ember.ones(2), torch.ones(2)),
             lambda: ember.cat([ember.ones(2), torch.ones(2)])]
    for call in cases:
        with pytest.raises(TypeError, match=r"a PyTorch tensor .* was passed to an ember function.*from_dlpack"):
            call()
    assert ember.from_dlpack(torch.ones(2)).tolist() == [1.0, 1.0]      # the way across still works


def test_subclass_overrides_still_work():
    class Sub(ember.Tensor):
        pass
    x = ember.ones(2).as_subclass(Sub)
    assert type(x + 1) is Sub and type(ember.add(x, 1)) is Sub
