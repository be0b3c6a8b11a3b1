"""torch.utils.benchmark: Timer runs its statement with `torch` bound to ember and returns Measurements whose
statistics, repr and Compare tables are torch's for the same times (compared on fixed times, since timings
differ run to run)."""
import re

import numpy as np
import pytest

import ember
from ember.utils import benchmark
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)


def _measurements(B, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for threads in (1, 4):
        for sub in ("add", "mul long name"):
            for desc in ("[1, 2]", "[100, 200]"):
                spec = B.TaskSpec(stmt="x + y", setup="x = torch.ones(3)", label="Binary", sub_label=sub,
                                  description=desc, num_threads=threads)
                out.append(B.Measurement(number_per_run=100, task_spec=spec,
                                         raw_times=list(rng.uniform(1e-4, 3e-4, 7) * (1 + threads))))
    return out


@pytest.mark.parity
def test_measurement_statistics_and_repr_match_torch(torch):
    import torch.utils.benchmark as tb
    for ours, theirs in zip(_measurements(benchmark), _measurements(tb)):
        for attr in ("mean", "median", "iqr", "times", "significant_figures", "has_warnings", "title",
                     "as_row_name", "env"):
            assert getattr(ours, attr) == pytest.approx(getattr(theirs, attr)), attr
        assert repr(ours).splitlines()[1:] == repr(theirs).splitlines()[1:]
    single = dict(number_per_run=1000, raw_times=[2.5e-3])
    assert repr(benchmark.Measurement(**single, task_spec=benchmark.TaskSpec("pass", "pass"))).splitlines()[1:] \
        == repr(tb.Measurement(**single, task_spec=tb.TaskSpec("pass", "pass"))).splitlines()[1:]


@pytest.mark.parity
@pytest.mark.parametrize("options", [(), ("trim_significant_figures",), ("trim_significant_figures",
                                                                         "highlight_warnings"), ("colorize",)])
def test_compare_table_matches_torch(torch, options):
    import torch.utils.benchmark as tb
    ours, theirs = benchmark.Compare(_measurements(benchmark)), tb.Compare(_measurements(tb))
    for o in options:
        getattr(ours, o)()
        getattr(theirs, o)()
    assert str(ours) == str(theirs)


@pytest.mark.parity
def test_unit_helpers_match_torch(torch):
    import torch.utils.benchmark as tb
    for t in (3e-10, 3e-7, 4.5e-5, 2e-3, 7.0):
        assert benchmark.select_unit(t) == tb.select_unit(t)
    assert benchmark.trim_sigfig(3.14159, 2) == pytest.approx(tb.trim_sigfig(3.14159, 2), rel=1e-6)


def test_timer_runs_the_statement_with_torch_as_ember():
    calls = []
    t = benchmark.Timer(stmt="calls.append(torch.add(x, y))", setup="y = torch.ones(3)",
                        globals={"x": ember.ones(3), "calls": calls}, label="add", sub_label="ones",
                        description="3", num_threads=1)
    m = t.timeit(50)
    assert len(calls) == 50 + 2                     # the warm-up runs number // 100 (at least 2)
    assert ember.equal(calls[0], ember.full((3,), 2.0))
    assert isinstance(m, benchmark.Measurement) and m.number_per_run == 50 and len(m.times) == 1
    assert m.mean == m.median == m.times[0] > 0
    assert re.search(r"add: ones\n3\nsetup: y = torch.ones\(3\)\n  [\d.]+ (ns|us|ms|s)\n  1 measurement, 50 runs ,"
                     r" 1 thread", repr(m))


def test_blocked_and_adaptive_autorange():
    t = benchmark.Timer("x * 2", globals={"x": ember.ones(4)})
    seen = []
    m = t.blocked_autorange(callback=lambda number, spent: seen.append(number), min_run_time=0.02)
    assert sum(m.raw_times) >= 0.02 and len(m.raw_times) == len(seen) >= 1
    assert m.times == [r / m.number_per_run for r in m.raw_times]
    a = t.adaptive_autorange(threshold=0.5, min_run_time=0.01, max_run_time=0.5)
    assert len(a.times) >= 4 or sum(a.raw_times) > 0.5
    assert a.iqr >= 0 and a.median > 0
    print(benchmark.Compare([m, a]))


def test_timer_rejects_what_torch_rejects():
    with pytest.raises(ValueError, match="only a `str` stmt"):
        benchmark.Timer(stmt=lambda: None)
    with pytest.raises(ValueError, match="global_setup is C\\+\\+ only"):
        benchmark.Timer("pass", global_setup="int x;")
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        benchmark.Timer().autorange()
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        benchmark.Compare([1])
