"""torch.fx.tensor_type (ember.fx.tensor_type) against torch: TensorType, Dyn, consistency and precision."""
import itertools

import pytest

import ember.fx.tensor_type as et

torch = pytest.importorskip("torch")
import torch.fx.tensor_type as tt  # noqa: E402


def _types(m):
    D = m.Dyn
    return [D, int, float, m.TensorType((1, 2, 3)), m.TensorType((1, D, 3)), m.TensorType((D, D, D)),
            m.TensorType((1, 2)), m.TensorType[1, 2, 3], m.TensorType[D, 2], m.TensorType((2, 2, 3))]


@pytest.mark.parity
def test_relations_match_torch_on_every_pair():
    e, t = _types(et), _types(tt)
    for (a1, a2), (b1, b2) in zip(itertools.product(e, e), itertools.product(t, t)):
        assert et.is_consistent(a1, a2) == tt.is_consistent(b1, b2), (b1, b2)
        assert et.is_more_precise(a1, a2) == tt.is_more_precise(b1, b2), (b1, b2)
        assert (a1 == a2) == (b1 == b2)


@pytest.mark.parity
def test_repr_dims_and_class_getitem_match_torch():
    for a, b in zip(_types(et), _types(tt)):
        assert repr(a) == repr(b)
        if isinstance(b, tt.TensorType):
            assert list(map(repr, a.dims)) == list(map(repr, b.dims)) and a.__origin__ is et.TensorType
    assert str(et.Dyn) == str(tt.Dyn) == "Dyn" and et.Dyn.__name__ == "_DynType"
    assert et.__all__ == tt.__all__
    with pytest.raises(TypeError):
        hash(et.TensorType((1,)))
