"""What a text-classifier or graph port meets at the edges, against torch: embedding_bag's checks of the offsets
and indices (torch's RuntimeErrors, not a numpy message or embedding's IndexError), and scatter_reduce's
"max"/"min" spellings (the forward takes them for amax/amin, the backward refuses them, as torch's)."""
import pytest

import ember
from _porting import outcome, torch_fixture  # noqa: F401  (the `torch` fixture)

pytestmark = pytest.mark.parity


def _bag(lib, idx, off, **kw):
    w = lib.arange(12.0, dtype=getattr(lib, kw.pop("dw", "float32"))).reshape(4, 3)
    return lib.nn.functional.embedding_bag(lib.tensor(idx), w, lib.tensor(off, dtype=kw.pop("dt", lib.int64)), **kw)


@pytest.mark.parametrize("idx,off,kw", [
    ([1, 2, 3], [1], {}), ([1, 2, 3], [2, 3], {"mode": "sum"}), ([1, 2], [1], {"dt": "int32"}),
    ([1, 2, 3], [0, 5], {}), ([1, 2, 3], [0, 5], {"include_last_offset": True}),
    ([1, 9], [0], {}), ([1, -1, 2], [0, 2], {"mode": "max"}), ([0, 4], [0, 1], {"mode": "sum"}),
    ([1, 2, 3], [0, 3], {"include_last_offset": True}), ([1, 2, 3], [0, 3, 3], {"mode": "max"}),
    ([2, 7], [0], {"mode": "sum"}), ([2, 7], [0], {"mode": "max"}), ([2, 5], [0], {"dw": "float64"})])
def test_embedding_bag_offset_and_index_errors(torch, idx, off, kw):
    def run(lib):
        k = dict(kw)
        if k.get("dt") == "int32":
            k["dt"] = lib.int32
        return _bag(lib, idx, off, **k)
    got, want = outcome(lambda: run(ember)), outcome(lambda: run(torch))
    if want[0] == "ok":
        assert got[0] == "ok" and got[1].tolist() == want[1].tolist()
    elif "index_size" in want[2]:       # fbgemm's message for a bad index before the last bag: type only
        assert got[:2] == want[:2] and "not in the valid range" in got[2]
    else:
        assert got == want


@pytest.mark.parametrize("reduce", ["max", "min"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_takes_max_min_forward_only(torch, reduce, include_self):
    def run(lib):
        s = lib.tensor([1.0, 5.0, -3.0], requires_grad=True)
        y = lib.zeros(2).scatter_reduce(0, lib.tensor([0, 0, 1]), s, reduce=reduce, include_self=include_self)
        ints = lib.zeros(2, dtype=lib.int64).scatter_reduce_(0, lib.tensor([0, 0, 1]), lib.tensor([3, -2, -5]),
                                                             reduce, include_self=include_self)
        return y.tolist(), ints.tolist(), type(y.grad_fn).__name__, outcome(lambda: y.sum().backward())
    assert run(ember) == run(torch)


def test_scatter_reduce_other_names_still_refused(torch):
    for reduce in ("add", "multiply", "foo"):
        got = outcome(lambda: ember.ones(3).scatter_reduce(0, ember.tensor([0]), ember.tensor([2.0]), reduce))
        want = outcome(lambda: torch.ones(3).scatter_reduce(0, torch.tensor([0]), torch.tensor([2.0]), reduce))
        assert got == want
