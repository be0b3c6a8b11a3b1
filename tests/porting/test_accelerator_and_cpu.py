"""torch.accelerator and torch.cpu as scripts use them to pick a device (`torch.accelerator.current_accelerator()
if torch.accelerator.is_available() else "cpu"`), and the deprecated torch.cpu.amp spellings: every answer, error
and warning compared with torch on a machine without an accelerator."""
import warnings

import pytest

import ember
from _porting import outcome, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

pytestmark = pytest.mark.parity

_ACCEL_CALLS = ["current_accelerator()", "current_accelerator(True)", "is_available()", "device_count()",
                "current_device_index()", "current_device_idx()", "set_device_index(0)", "set_device_idx(None)",
                "synchronize()", "synchronize(0)", "empty_cache()", "empty_host_cache()", "memory_allocated()",
                "max_memory_allocated(0)", "memory_reserved()", "max_memory_reserved()", "memory_stats()",
                "reset_peak_memory_stats()", "reset_accumulated_memory_stats()", "get_memory_info()",
                "get_device_capability()", "current_stream()", "Graph()", "device_index(None).__enter__()",
                "device_index(0).__enter__()"]


@pytest.mark.parametrize("call", _ACCEL_CALLS)
def test_accelerator_answers_as_torch_without_an_accelerator(torch, call):
    got = []
    for L in (torch, ember):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            res = outcome(lambda: eval("L.accelerator." + call, {"L": L}))
        got.append((res, [(c.category, str(c.message)) for c in w]))
    assert got[0] == got[1]


def test_accelerator_names_match_torch(torch):
    assert sorted(ember.accelerator.__all__) == sorted(torch.accelerator.__all__)


SCRIPT = """
device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
x = torch.ones(2, device=device) * 3
with torch.accelerator.device_index(None):
    y = x + 1
picked = (device, y.tolist())
"""


def test_the_device_picking_idiom_runs_as_in_torch(torch):
    assert run_script(SCRIPT, ember)["picked"] == run_script(SCRIPT, torch)["picked"] == ("cpu", [4.0, 4.0])


@pytest.mark.parametrize("call", ["is_available()", "is_initialized()", "device_count()", "current_device()",
                                  "synchronize()", "set_device('cpu')", "current_stream() is current_stream(0)",
                                  "Event().query()", "Stream().wait_stream(None)", "Event().record()"])
def test_cpu_module_answers_as_torch(torch, call):
    assert outcome(lambda: eval("L.cpu." + call, {"L": ember})) == outcome(lambda: eval("L.cpu." + call, {"L": torch}))


def test_cpu_stream_context_switches_the_current_stream_as_torch(torch):
    got = []
    for L in (torch, ember):
        default, s = L.cpu.current_stream(), L.cpu.Stream()
        with L.cpu.stream(s):
            inside = L.cpu.current_stream() is s
        with L.cpu.stream(None):
            untouched = L.cpu.current_stream() is default
        got.append((inside, untouched, L.cpu.current_stream() is default,
                    sorted(set(L.cpu.__all__) - {"get_capabilities"})))   # (ember lacks the cpuid report)
    assert got[0] == got[1]


def test_cpu_amp_spellings_warn_and_autocast_as_torch(torch):
    got = []
    for L in (torch, ember):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with L.cpu.amp.autocast():
                inner = (L.get_autocast_dtype("cpu"), L.is_autocast_enabled("cpu"),
                         (L.ones(2, 3) @ L.ones(3, 2)).dtype)
            with L.cpu.amp.autocast(dtype=L.float16, enabled=False):
                off = L.is_autocast_enabled("cpu")
            scaler = L.cpu.amp.GradScaler(init_scale=8.0)
        got.append(([str(d).split(".")[1] for d in inner[::2]], inner[1], off, scaler.get_scale(),
                    scaler.is_enabled(), [(c.category, str(c.message)) for c in w]))
    assert got[0] == got[1]
