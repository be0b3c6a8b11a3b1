"""Graph and graph-break counts of small programs, ember._dynamo.explain against torch._dynamo.explain."""
import pytest


def _programs(lib):
    def item(x):
        y = x * 2
        return y + y.sum().item()

    def printing(x):
        y = x.sin()
        print("between")
        return y.cos()

    def branch(x):
        y = x * 2
        if y.sum() > 0:
            return y + 1
        return y - 1

    def whole(x):
        return (x @ x.T).relu().sum(0)

    return {"item": item, "print": printing, "branch": branch, "whole": whole}


@pytest.mark.parity
@pytest.mark.parametrize("name", ["item", "branch"])
def test_graph_and_break_counts_match_torch(name):
    torch = pytest.importorskip("torch")
    import ember
    torch._dynamo.reset()
    t = torch._dynamo.explain(_programs(torch)[name])(torch.ones(3, 3))
    e = ember._dynamo.explain(_programs(ember)[name])(ember.ones(3, 3))
    assert (e.graph_count, e.graph_break_count) == (t.graph_count, t.graph_break_count)
