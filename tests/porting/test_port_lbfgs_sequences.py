"""Two programs driven by torch.optim.LBFGS, run with `torch` bound to ember and to torch: pytorch/examples'
time_sequence_prediction (two LSTMCells and a Linear in float64 on sine waves, LBFGS(lr=0.8) with a closure,
then a future-prediction rollout under no_grad), and the style-transfer tutorial's pattern (an image tensor
optimised directly, a Gram-matrix loss, the closure clamping the image in place) with
line_search_fn="strong_wolfe" and max_iter small: torch 2.13 lets the line search spend only what is left of
max_eval, so the closure runs as many times per step as in torch."""
import math
import warnings

import numpy as np
import pytest

import ember
from _porting import WeightSync, run_both, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
nn, F = torch.nn, torch.nn.functional
torch.manual_seed(0)
rs = np.random.RandomState(2)
T, L, N = 20, 40, 6
x = np.empty((N, L), "int64")
x[:] = np.array(range(L)) + rs.randint(-4 * T, 4 * T, N).reshape(N, 1)
data = np.sin(x / 1.0 / T).astype("float64")
input, target = torch.from_numpy(data[2:, :-1]), torch.from_numpy(data[2:, 1:])
test_input, test_target = torch.from_numpy(data[:2, :-1]), torch.from_numpy(data[:2, 1:])

class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTMCell(1, 16)
        self.lstm2 = nn.LSTMCell(16, 16)
        self.linear = nn.Linear(16, 1)
    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), 16, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 16, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 16, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 16, dtype=torch.double)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        return torch.cat(outputs, dim=1)

seq = Sequence()
seq.double()
sync(seq)
criterion = nn.MSELoss()
optimizer = torch.optim.LBFGS(seq.parameters(), lr=0.8, max_iter=4)
seq_losses, seq_evals = [], []
for i in range(2):
    calls = [0]
    def closure():
        optimizer.zero_grad()
        out = seq(input)
        loss = criterion(out, target)
        loss.backward()
        calls[0] += 1
        return loss
    seq_losses.append(optimizer.step(closure).item())
    seq_evals.append(calls[0])
with torch.no_grad():
    future = 10
    pred = seq(test_input, future=future)
    test_loss = criterion(pred[:, :-future], test_target).item()

rs2 = np.random.RandomState(0)
content = torch.from_numpy(rs2.rand(1, 3, 8, 8).astype(np.float32))
style = torch.from_numpy(rs2.rand(1, 3, 8, 8).astype(np.float32))
def gram_matrix(input):
    a, b, c, d = input.size()
    features = input.view(a * b, c * d)
    G = torch.mm(features, features.t())
    return G.div(a * b * c * d)
input_img = content.clone().requires_grad_(True)
img_opt = torch.optim.LBFGS([input_img], max_iter=5, line_search_fn="strong_wolfe")
style_losses, style_evals = [], []
for step in range(3):
    calls = [0]
    def closure():
        with torch.no_grad():
            input_img.clamp_(0, 1)
        img_opt.zero_grad()
        loss = 1e3 * F.mse_loss(gram_matrix(input_img), gram_matrix(style)) + F.mse_loss(input_img, content)
        loss.backward()
        calls[0] += 1
        return loss
    img_opt.step(closure)
    style_evals.append(calls[0])
    style_losses.append(closure().item())
state_keys = sorted(img_opt.state_dict()["state"][0])
func_evals = img_opt.state_dict()["state"][0]["func_evals"]
'''


def _run(lib, sync):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = run_script(SCRIPT, lib, np=np, sync=sync)
    env["warned"] = [str(w.message)[:50] for w in caught]
    return env


def _check(env):
    assert all(math.isfinite(v) for v in env["seq_losses"] + env["style_losses"] + [env["test_loss"]])
    assert env["seq_losses"][1] < env["seq_losses"][0]
    assert env["style_losses"][-1] < env["style_losses"][0]
    assert env["func_evals"] == sum(env["style_evals"])
    assert env["warned"] == []           # LBFGS's float(loss) runs outside grad mode: no requires_grad warning


def test_lbfgs_programs_with_ember():
    _check(_run(ember, WeightSync()))


@pytest.mark.parity
def test_lbfgs_programs_match_torch(torch):
    want, got = run_both(_run, torch)
    _check(want)
    _check(got)
    assert got["seq_evals"] == want["seq_evals"] and got["style_evals"] == want["style_evals"]
    assert got["state_keys"] == want["state_keys"]
    np.testing.assert_allclose(got["seq_losses"], want["seq_losses"], rtol=1e-9, atol=1e-12)
    assert got["test_loss"] == pytest.approx(want["test_loss"], rel=1e-8)
    np.testing.assert_allclose(got["style_losses"], want["style_losses"], rtol=1e-4, atol=1e-6)
