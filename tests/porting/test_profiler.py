"""torch.profiler / torch.autograd.profiler: a small model run under the profiler records the ops torch's
profiler records (names, call counts, nesting), the table has torch's columns, the Chrome trace is valid
JSON, record_function ranges hold the ops run inside them, and schedules record the steps torch's do."""
import json
import re
import warnings

import pytest

import ember
from _porting import torch_fixture  # noqa: F401  (the `torch` fixture)


def _model(t):
    t.manual_seed(0)
    return t.nn.Sequential(t.nn.Linear(4, 3), t.nn.ReLU(), t.nn.Linear(3, 2))


def _profile(t, x_shape=(5, 4), backward=False, **kw):
    m = _model(t)
    x = t.randn(*x_shape)
    with t.profiler.profile(activities=[t.profiler.ProfilerActivity.CPU], **kw) as prof:
        with t.profiler.record_function("model_inference"):
            y = m(x)
        if backward:
            y.sum().backward()
    return prof


def _counts(prof, names):
    return {e.key: e.count for e in prof.key_averages() if e.key in names}


FORWARD_OPS = {"model_inference", "aten::linear", "aten::t", "aten::addmm", "aten::relu"}


@pytest.mark.parity
@pytest.mark.parametrize("shape", [(5, 4), (2, 5, 4)])
def test_forward_op_names_and_counts_match_torch(torch, shape):
    ours = _profile(ember, shape)
    theirs = _profile(torch, shape)
    watched = FORWARD_OPS | {"aten::view", "aten::matmul", "aten::mm"}
    assert _counts(ours, watched) == _counts(theirs, watched)
    assert _counts(ours, watched)["aten::linear"] == 2


@pytest.mark.parity
def test_nesting_matches_torch(torch):
    def tree(prof):
        top = [e for e in prof.events() if e.cpu_parent is None]
        return [(e.name, [(c.name, [g.name for g in c.cpu_children if g.name in FORWARD_OPS])
                          for c in e.cpu_children]) for e in top]
    assert tree(_profile(ember)) == tree(_profile(torch))


def test_self_time_is_total_minus_children():
    prof = _profile(ember)
    for e in prof.events():
        assert e.self_cpu_time_total == pytest.approx(e.cpu_time_total - sum(c.cpu_time_total
                                                                           for c in e.cpu_children))
        assert e.self_cpu_time_total >= 0
        for c in e.cpu_children:
            assert e.time_range.start <= c.time_range.start <= c.time_range.end <= e.time_range.end
    top = next(e for e in prof.events() if e.name == "model_inference")
    assert {c.name for c in top.cpu_children} == {"aten::linear", "aten::relu"}
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["aten::linear"].cpu_time_total == pytest.approx(sum(
        e.cpu_time_total for e in prof.events() if e.name == "aten::linear"))
    assert avg["aten::linear"].cpu_time == pytest.approx(avg["aten::linear"].cpu_time_total / 2)


@pytest.mark.parity
def test_backward_ops_are_recorded_as_torch(torch):
    watched = {"aten::sum", "aten::linear", "aten::addmm", "aten::mm", "aten::t", "aten::ones_like"}
    ours = _counts(_profile(ember, backward=True), watched)
    assert ours == _counts(_profile(torch, backward=True), watched)
    assert ours["aten::mm"] == 3            # the weight grads of both layers and the first layer's input grad


def _layout(table):
    lines = table.splitlines()
    return lines[0], re.split(r"\s{2,}", lines[1].strip()), lines[-1].split(":")[0]


@pytest.mark.parity
@pytest.mark.parametrize("kw", [{}, {"record_shapes": True}, {"profile_memory": True}])
def test_table_layout_matches_torch(torch, kw):
    group = {"group_by_input_shape": True} if kw.get("record_shapes") else {}
    ours = _profile(ember, **kw).key_averages(**group).table(sort_by="cpu_time_total", row_limit=3)
    theirs = _profile(torch, **kw).key_averages(**group).table(sort_by="cpu_time_total", row_limit=3)
    o_sep, o_head, o_tail = _layout(ours)
    t_sep, t_head, t_tail = _layout(theirs)
    assert o_head == t_head
    assert o_tail == t_tail == "Self CPU time total"
    assert [len(c) for c in o_sep.split()][1:] == [len(c) for c in t_sep.split()][1:]   # column widths
    assert len(ours.splitlines()) == 3 + 3 + 2        # header rows, row_limit rows, closing rule and total
    row = ours.splitlines()[3]
    assert re.search(r"\d+\.\d\d%\s+[\d.]+(us|ms|s)\s+\d+\.\d\d%", row)


def test_table_rows_sorted_and_shapes_grouped():
    prof = _profile(ember, record_shapes=True)
    rows = prof.key_averages().table(sort_by="count", row_limit=10).splitlines()[3:-2]
    counts = [int(r.split()[-1]) for r in rows]
    assert counts == sorted(counts, reverse=True)
    by_shape = prof.key_averages(group_by_input_shape=True)
    linear = [e for e in by_shape if e.key == "aten::linear"]
    assert sorted(str(e.input_shapes) for e in linear) == ["[[5, 3], [2, 3], [2]]", "[[5, 4], [3, 4], [3]]"]
    addmm = next(e for e in by_shape if e.key == "aten::addmm" and e.input_shapes[1] == [5, 4])
    assert addmm.input_shapes == [[3], [5, 4], [4, 3], [], []]       # torch lists beta and alpha too


@pytest.mark.parity
def test_input_shapes_match_torch(torch):
    def shapes(prof):
        return sorted((e.key, str(e.input_shapes)) for e in prof.key_averages(group_by_input_shape=True)
                      if e.key in FORWARD_OPS)
    assert shapes(_profile(ember, record_shapes=True)) == shapes(_profile(torch, record_shapes=True))


def test_chrome_trace_is_valid_json(tmp_path):
    prof = _profile(ember, record_shapes=True)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    xs = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(xs) == len(prof.events())
    for e in xs:
        assert {"name", "ts", "dur", "pid", "tid", "cat"} <= set(e)
        assert e["dur"] >= 0
    ann = next(e for e in xs if e["name"] == "model_inference")
    assert ann["cat"] == "user_annotation"
    lin = next(e for e in xs if e["name"] == "aten::linear")
    assert lin["cat"] == "cpu_op" and lin["args"]["Input Dims"] == [[5, 4], [3, 4], [3]]
    assert ann["ts"] <= lin["ts"] and lin["ts"] + lin["dur"] <= ann["ts"] + ann["dur"] + 1e-3


def test_record_function_as_decorator_and_outside_profiling():
    @ember.profiler.record_function("my_fn")
    def f(x):
        return ember.relu(x)

    f(ember.ones(2))                         # no profiler on: nothing happens
    with ember.autograd.profiler.profile() as prof:
        f(ember.ones(2))
        f(ember.ones(2))
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["my_fn"].count == 2
    mine = [e for e in prof.events() if e.name == "my_fn"]
    assert all([c.name for c in e.cpu_children] == ["aten::relu"] for e in mine)


def test_with_stack_names_the_calling_line():
    with ember.profiler.profile(with_stack=True) as prof:
        ember.relu(ember.ones(2))
    relu = next(e for e in prof.events() if e.name == "aten::relu")
    assert any("test_profiler.py" in f and "test_with_stack_names_the_calling_line" in f for f in relu.stack)
    assert "Source Location" in prof.key_averages(group_by_stack_n=2).table()


def _scheduled(t, trace_dir=None, **sched):
    handled = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = t.profiler.schedule(**sched)
    x = t.ones(3)
    with t.profiler.profile(activities=[t.profiler.ProfilerActivity.CPU], schedule=s,
                            on_trace_ready=lambda p: handled.append(
                                sorted((e.key, e.count) for e in p.key_averages() if e.key in ("ProfilerStep*", "aten::relu")))) as prof:
        for i in range(8):
            for _ in range(i + 1):
                t.relu(x)
            prof.step()
    return handled


@pytest.mark.parity
@pytest.mark.parametrize("sched", [dict(wait=1, warmup=1, active=2), dict(wait=1, warmup=1, active=2, repeat=1),
                                   dict(wait=0, warmup=0, active=3, skip_first=2)])
def test_schedule_records_the_steps_torch_records(torch, sched):
    assert _scheduled(ember, **sched) == _scheduled(torch, **sched)


@pytest.mark.parity
def test_schedule_function_matches_torch(torch):
    for kw in (dict(wait=2, warmup=1, active=3, repeat=2, skip_first=1), dict(wait=3, warmup=1, active=1,
                                                                               skip_first_wait=1)):
        ours, theirs = ember.profiler.schedule(**kw), torch.profiler.schedule(**kw)
        assert [ours(i).name for i in range(20)] == [theirs(i).name for i in range(20)]
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        ember.profiler.schedule(wait=0, warmup=0, active=0)


def test_tensorboard_trace_handler_writes_traces(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = ember.profiler.schedule(wait=0, warmup=1, active=1, repeat=2)
    with ember.profiler.profile(schedule=s, on_trace_ready=ember.profiler.tensorboard_trace_handler(
            str(tmp_path / "tb"), worker_name="w0")) as prof:
        for _ in range(5):
            ember.relu(ember.ones(2))
            prof.step()
    files = sorted((tmp_path / "tb").iterdir())
    assert len(files) == 2 and all(re.fullmatch(r"w0\.\d+\.pt\.trace\.json", f.name) for f in files)
    for f in files:
        names = [e["name"] for e in json.loads(f.read_text())["traceEvents"]]
        assert "aten::relu" in names and any(n.startswith("ProfilerStep#") for n in names)


@pytest.mark.parity
def test_profiler_namespace_matches_torch(torch):
    for name in torch.profiler.__all__:
        if name != "ExecutionTraceObserver":
            assert hasattr(ember.profiler, name), name
    assert ember.profiler.supported_activities() == {ember.profiler.ProfilerActivity.CPU}
    for name in ("profile", "record_function", "emit_nvtx", "emit_itt", "EventList", "FunctionEvent"):
        assert hasattr(ember.autograd.profiler, name)
    assert ember.autograd.profiler_legacy.profile


@pytest.mark.parity
def test_emit_nvtx_raises_as_torch_without_cuda(torch):
    for t in (ember, torch):
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            with t.autograd.profiler.emit_nvtx():
                pass
    with ember.autograd.profiler.emit_itt():
        pass


def test_profiler_leaves_dispatch_unobserved_after_exit():
    from ember import _ops
    with ember.profiler.profile():
        ember.relu(ember.ones(2))
    assert _ops._observer is None
    with pytest.raises(RuntimeError, match="Profiler didn't finish running"):
        ember.autograd.profiler.profile().key_averages()
