"""In-place ops on views whose creation torch tracks (CreationMeta): a view made in no_grad mode of a tensor
needing grad, a view of such a view (made in either mode: the meta propagates), outputs of multi-output view
ops (unbind, split, chunk) and views of them. Each chain either runs or raises torch's RuntimeError text."""
import pytest

import ember

from _porting import outcome, torch_fixture  # noqa: F401  (the `torch` fixture)

pytestmark = pytest.mark.parity


def _no_grad_then_grad(L, a):
    with L.no_grad():
        v = a[:2]
    return v[:1]


def _no_grad_twice(L, a):
    with L.no_grad():
        return a[:2][:1]


def _grad_then_no_grad(L, a):
    v = a[:2]
    with L.no_grad():
        return v[:1]


def _no_grad_view_then_two_views(L, a):
    with L.no_grad():
        v = a[:2]
    return v.view(2)[1:]


def _no_grad_select(L, a):
    with L.no_grad():
        v = a.unbind(0)[0]
    return v


def _no_grad_split_then_slice(L, a):
    with L.no_grad():
        v = a.split(2)[0]
    return v[:1]


def _split_then_no_grad_slice(L, a):
    v = a.split(2)[0]
    with L.no_grad():
        return v[:1]


CHAINS = {
    "no_grad_then_grad": _no_grad_then_grad,
    "no_grad_twice": _no_grad_twice,
    "grad_then_no_grad": _grad_then_no_grad,
    "no_grad_view_then_two_views": _no_grad_view_then_two_views,
    "no_grad_unbind": _no_grad_select,
    "no_grad_split_then_slice": _no_grad_split_then_slice,
    "split_then_no_grad_slice": _split_then_no_grad_slice,
    "unbind_output": lambda L, a: a.unbind(0)[1],
    "view_of_unbind_output": lambda L, a: a.unbind(0)[0].view(()),
    "slice_of_split_output": lambda L, a: a.split(2)[0][:1],
    "unsqueeze_of_chunk_output": lambda L, a: a.chunk(2)[1].unsqueeze(0),
    "transpose_of_no_grad_view": lambda L, a: _no_grad_twice(L, a.view(2, 2)).t(),
    "grad_mode_chain": lambda L, a: a[:2][:1].view(1),
}


@pytest.mark.parametrize("name", sorted(CHAINS))
@pytest.mark.parametrize("inplace_mode", ["grad", "no_grad"])
def test_inplace_on_tracked_views_as_torch(torch, name, inplace_mode):
    res = []
    for L in (ember, torch):
        a = L.ones(4, requires_grad=True).clone()
        w = CHAINS[name](L, a)
        if inplace_mode == "grad":
            res.append(outcome(lambda: w.mul_(2).tolist()))
        else:
            with L.no_grad():
                res.append(outcome(lambda: w.mul_(2).tolist()))
    assert res[0] == res[1]


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_views_of_tensors_not_needing_grad_are_free_to_change(torch, name):
    res = []
    for L in (ember, torch):
        a = L.ones(4)
        w = CHAINS[name](L, a)
        res.append(outcome(lambda: (w.mul_(2), a.tolist())[1]))
    assert res[0] == res[1]
