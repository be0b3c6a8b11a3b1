"""torch.utils.data.distributed.DistributedSampler: each replica's share of the indices, padding and
drop_last as torch computes them; the default replica count needs a process group, as in torch."""
import pytest

import ember
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)


@pytest.mark.parity
@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (2, 5, False), (12, 4, False)])
def test_shares_match_torch(torch, n, replicas, drop_last):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler
    from ember.utils.data.distributed import DistributedSampler
    for rank in range(replicas):
        got = DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        want = TorchSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(got) == list(want) and len(got) == len(want)


def test_shuffle_is_a_partition_fixed_by_seed_and_epoch():
    from ember.utils.data import DistributedSampler
    shares = [DistributedSampler(range(12), 3, r, seed=5) for r in range(3)]
    first = [list(s) for s in shares]
    assert sorted(i for s in first for i in s) == list(range(12))
    assert first == [list(DistributedSampler(range(12), 3, r, seed=5)) for r in range(3)]
    for s in shares:
        s.set_epoch(1)
    assert [list(s) for s in shares] != first
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
        DistributedSampler(range(4), 3, 3)
    loader = ember.utils.data.DataLoader(ember.arange(8), batch_size=2, sampler=DistributedSampler(range(8), 2, 1,
                                                                                                    shuffle=False))
    assert [b.tolist() for b in loader] == [[1, 3], [5, 7]]
