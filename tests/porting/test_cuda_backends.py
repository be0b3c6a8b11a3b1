"""torch.cuda, torch.backends, torch.version on a machine without a GPU: scripts choose their device and
set their flags before the first tensor op; ember answers as torch's CPU build does."""
import pytest

import ember
from _porting import outcome, run_script

SCRIPT = """
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
torch.cuda.manual_seed(0)
torch.cuda.manual_seed_all(0)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
n_gpu = torch.cuda.device_count()
use_mps = torch.backends.mps.is_available()
torch.cuda.empty_cache()
x = torch.ones(2, 3, device=device)
result = (device, n_gpu, use_mps, tuple(x.shape), str(x.device), x.is_cuda,
          torch.backends.cudnn.deterministic, torch.backends.cuda.matmul.allow_tf32, torch.version.cuda,
          torch.cuda.is_initialized(), torch.cuda.memory_allocated(), torch.cuda.get_rng_state_all())
"""


@pytest.mark.parity
def test_device_selection_script_matches_torch(torch):
    assert run_script(SCRIPT, ember)["result"] == run_script(SCRIPT, torch)["result"]


CALLS = [
    "cuda.is_available()", "cuda.device_count()", "cuda.is_initialized()", "cuda.manual_seed(1)",
    "cuda.manual_seed_all(1)", "cuda.manual_seed('a')", "cuda.seed()", "cuda.seed_all()", "cuda.empty_cache()",
    "cuda.memory_allocated()", "cuda.max_memory_allocated()", "cuda.memory_reserved()", "cuda.max_memory_reserved()",
    "cuda.is_bf16_supported()", "cuda.get_arch_list()", "cuda.get_rng_state_all()", "cuda.set_rng_state_all([])",
    "cuda.synchronize()", "cuda.current_device()", "cuda.get_device_name()", "cuda.get_device_name(0)",
    "cuda.get_device_properties(0)", "cuda.get_device_capability()", "cuda.init()", "cuda.initial_seed()",
    "cuda.get_rng_state()", "cuda.current_stream()", "cuda.mem_get_info()", "cuda.ipc_collect()",
    "cuda.set_device('cpu')", "cuda.device(0).idx", "cuda.device(None).idx", "cuda.device('cuda:1').idx",
    "cuda.device(0).__enter__()", "cuda.device(-1).__enter__()", "cuda.stream(None).__enter__()", "cuda.Stream()",
    "cuda.Event()", "cuda.FloatTensor(2)", "cuda.LongTensor([1])", "cuda.nvtx.range_push('a')",
    "cuda.set_per_process_memory_fraction(0.5)", "cuda._is_compiled()", "cuda.default_generators",
    "backends.cudnn.is_available()", "backends.cudnn.version()", "backends.cudnn.enabled",
    "backends.cudnn.benchmark", "backends.cudnn.deterministic", "backends.cudnn.allow_tf32",
    "backends.cuda.is_built()", "backends.cuda.matmul.allow_tf32",
    "backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
    "backends.cuda.matmul.allow_bf16_reduced_precision_reduction", "backends.cuda.matmul.unknown_flag",
    "backends.cuda.flash_sdp_enabled()", "backends.cuda.math_sdp_enabled()",
    "backends.cuda.mem_efficient_sdp_enabled()", "backends.mps.is_available()", "backends.mps.is_built()",
    "backends.mkldnn.enabled", "backends.mha.get_fastpath_enabled()", "version.cuda", "version.hip",
]


@pytest.mark.parity
@pytest.mark.parametrize("expr", CALLS)
def test_cuda_and_backends_calls_match_torch(torch, expr):
    got = outcome(lambda: eval("m." + expr, {"m": ember}))
    want = outcome(lambda: eval("m." + expr, {"m": torch}))
    if want[0] == "ok" and not isinstance(want[1], (bool, int, float, str, list, tuple, type(None))):
        want = ("ok", type(want[1]).__name__)       # a context object or OrderedDict: compare kinds only
        got = ("ok", type(got[1]).__name__) if got[0] == "ok" else got
    assert got == want


def test_flags_are_settable_and_context_managers_restore_them():
    cudnn = ember.backends.cudnn
    before = (cudnn.enabled, cudnn.benchmark, cudnn.deterministic)
    with cudnn.flags(enabled=False, benchmark=True, deterministic=True):
        assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (False, True, True)
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == before
    old = ember.backends.cuda.matmul.allow_tf32
    ember.backends.cuda.matmul.allow_tf32 = True
    try:
        assert ember.backends.cuda.matmul.allow_tf32 is True
    finally:
        ember.backends.cuda.matmul.allow_tf32 = old
    with pytest.raises(AttributeError, match="Unknown attribute nonsense"):
        ember.backends.cuda.matmul.nonsense = 1
    with pytest.raises(TypeError, match="expects a bool"):
        ember.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = 3
    ember.backends.mkldnn.set_flags(False)
    assert ember.backends.mkldnn.enabled is False
    ember.backends.mkldnn.set_flags(True)
    assert ember.backends.cpu.get_cpu_capability() in ("DEFAULT", "AVX2", "AVX512", "VSX", "SVE256")


def test_module_cuda_raises_torch_assertion():
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        ember.nn.Linear(2, 2).cuda()
