"""Loading checkpoints written by PyTorch 2.13 (shared/fixtures/torch_checkpoints) the way a ported script
does, run with `torch` bound to ember and to torch: torch.load's weights_only=True default on a state_dict,
a training-checkpoint dict and an AdamW state; load_state_dict's strict report (_IncompatibleKeys) and
errors; map_location as a string, a device, a dict and a function, and the error without one for CUDA
storages; the refusal of a pickled global outside the allowlist (and of a malicious file) by default, with
weights_only=True, its acceptance with weights_only=False or under serialization.safe_globals; a
DataParallel checkpoint's 'module.' prefix stripped with consume_prefix_in_state_dict_if_present."""
import fractions
import io
from pathlib import Path

import numpy as np
import pytest

import ember
from _porting import outcome, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

# beside the repository (../shared); a worktree under /work/wt/<branch> finds it one level further up
FIXTURES = next((p / "shared/fixtures/torch_checkpoints" for p in Path(__file__).resolve().parents[3:5]
                 if (p / "shared/fixtures/torch_checkpoints/manifest.json").exists()), Path("/nonexistent"))

SCRIPT = '''
nn = torch.nn
FIX = str(FIXTURES) + "/"

class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.conv = nn.Conv2d(1, 2, 3)
        self.bn = nn.BatchNorm2d(2)
        self.head = nn.Sequential(nn.Linear(12, 6), nn.LayerNorm(6))

class Other(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.extra = nn.Linear(2, 2)
        self.head = nn.Sequential(nn.Linear(12, 6))

sd = torch.load(FIX + "model_state_dict.pt")
keys = list(sd.keys())
metadata = dict(sd._metadata)
net = SmallNet()
strict = str(net.load_state_dict(sd))
weights = {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}
report = Other().load_state_dict(sd, strict=False)
nonstrict = (report.missing_keys, report.unexpected_keys, repr(report))
strict_error = outcome(lambda: Other().load_state_dict(sd))
bad = dict(sd)
bad["emb.weight"] = torch.zeros(3, 4)
shape_error = outcome(lambda: SmallNet().load_state_dict(bad, strict=False))

ckpt = torch.load(FIX + "training_checkpoint.pt", map_location="cpu")
ckpt_types = {k: type(v).__name__ for k, v in ckpt.items()}
resumed = SmallNet()
resumed.load_state_dict(ckpt["model"])
opt = torch.optim.AdamW(resumed.parameters(), lr=1e-2, weight_decay=0.01)
opt.load_state_dict(torch.load(FIX + "optimizer_adamw.pt"))
opt_state = sorted((k, tuple(v.shape)) for k, v in opt.state[opt.param_groups[0]["params"][0]].items())
out = resumed.head(resumed.conv(torch.ones(1, 1, 4, 4)).flatten(1)[:, :12].repeat(1, 2)[:, :12])
out.sum().backward()
opt.step()
stepped = {k: v.detach().numpy().copy() for k, v in resumed.state_dict().items()}

locations = [sorted(torch.load(FIX + "cuda_location.pt", map_location=ml))
             for ml in ("cpu", torch.device("cpu"), {"cuda:0": "cpu"}, lambda storage, loc: storage)]
cuda_error = outcome(lambda: torch.load(FIX + "cuda_location.pt"))
malicious = outcome(lambda: torch.load(FIX + "malicious_reduce_eval.pt"))
malicious_wo = outcome(lambda: torch.load(FIX + "malicious_reduce_eval.pt", weights_only=True))

buf = io.BytesIO()
torch.save({"ratio": fractions.Fraction(1, 3), "t": torch.ones(2)}, buf)
def load_buf(**kw):
    buf.seek(0)
    return torch.load(buf, **kw)
custom_default = outcome(load_buf)
custom_unsafe = outcome(lambda: str(load_buf(weights_only=False)["ratio"]))
with torch.serialization.safe_globals([fractions.Fraction]):
    custom_allowed = outcome(lambda: str(load_buf()["ratio"]))

wrapper = nn.Module()
wrapper.module = SmallNet()
dp = wrapper.state_dict()
nn.modules.utils.consume_prefix_in_state_dict_if_present(dp, "module.")
dp_keys, dp_metadata = list(dp), dict(dp._metadata)
dp_load = str(SmallNet().load_state_dict(dp))
mmap_keys = len(torch.load(FIX + "mmap_aligned.pt", mmap=True))
'''


def _run(lib):
    if not (FIXTURES / "manifest.json").exists():
        pytest.skip("shared/fixtures/torch_checkpoints is not present")
    return run_script(SCRIPT, lib, FIXTURES=FIXTURES, outcome=outcome, io=io, fractions=fractions)


def test_torch_checkpoints_load_into_ember_models():
    env = _run(ember)
    assert env["strict"] == "<All keys matched successfully>"
    assert env["nonstrict"][0] == ["extra.weight", "extra.bias"]
    assert env["strict_error"][:2] == ("raise", "RuntimeError")
    assert env["cuda_error"][:2] == ("raise", "RuntimeError")
    for key in ("malicious", "malicious_wo", "custom_default"):
        assert env[key][:2] == ("raise", "UnpicklingError")
    assert "fractions.Fraction" in env["custom_default"][2] and "weights_only" in env["custom_default"][2]
    assert env["custom_unsafe"] == env["custom_allowed"] == ("ok", "1/3")
    assert env["dp_keys"] == env["keys"] and env["dp_load"] == "<All keys matched successfully>"


def _same(got, want):
    if isinstance(want, tuple) and want and want[0] == "raise":
        # same type; the message names ember where torch names torch
        assert got[:2] == want[:2]
        return
    assert got == want


@pytest.mark.parity
def test_torch_checkpoints_load_like_torch(torch):
    want, got = _run(torch), _run(ember)
    for key in ("keys", "metadata", "strict", "nonstrict", "ckpt_types", "opt_state", "locations", "dp_keys",
                "dp_metadata", "dp_load", "mmap_keys", "custom_unsafe", "custom_allowed", "cuda_error", "malicious",
                "malicious_wo", "custom_default"):
        _same(got[key], want[key])
    for key in ("strict_error", "shape_error"):
        assert got[key][:2] == want[key][:2]
        assert got[key][2].replace("ember.", "torch.") == want[key][2]
    for name in want["weights"]:
        np.testing.assert_array_equal(got["weights"][name], want["weights"][name])
        np.testing.assert_allclose(got["stepped"][name], want["stepped"][name], rtol=1e-4, atol=1e-5)
