"""Scripts that use complex tensors the way signal-processing and physics code does (conj, .imag of a conj,
Hermitian products, in-place updates through a conjugate view, checkpoints holding one): the same results,
bits and errors as torch."""
import pytest

import ember
from _porting import run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
x = torch.tensor([[1 + 2j, 3 - 1j], [0.5j, -2 + 0j]])
y = x.conj()
bits = [y.is_conj(), y.conj().is_conj(), y.imag.is_neg(), y.real.is_neg(), torch.is_conj(y), y.mH.is_conj()]
shares = y.data_ptr() == x.data_ptr() and y._base is x
power = (x * x.conj()).real.sum().item()
gram = (x.mH @ x).tolist()
y[0, 0] = 5 + 5j                       # writes conj(5 + 5j) into x
y.imag.mul_(2)                         # the neg view: x's imaginary parts double
after = x.tolist()
printed = [repr(y), str(y.imag), repr(y.resolve_conj())]
try:
    y.numpy()
    numpy_error = None
except RuntimeError as e:
    numpy_error = str(e)
try:
    torch.view_as_real(y)
    view_error = None
except RuntimeError as e:
    view_error = str(e)
resolved = torch.view_as_real(y.resolve_conj()).tolist()
w = torch.tensor([1 + 1j, 2 - 3j], requires_grad=True)
loss = (w.conj() * torch.tensor([2j, 1 + 0j])).abs().sum()
loss.backward()
grad = [round(v.real, 5) + 1j * round(v.imag, 5) for v in w.grad.tolist()]
node = type(w.conj().grad_fn).__name__
result = [bits, shares, round(power, 5), gram, after, printed, numpy_error, view_error, resolved, grad, node]
'''


@pytest.mark.parity
def test_conjugate_views_script_matches_torch(torch):
    got = run_script(SCRIPT, ember)["result"]
    want = run_script(SCRIPT, torch)["result"]
    got[5] = [s.replace("ember.", "torch.") for s in got[5]]
    assert got == want


CHECKPOINT = '''
import io
z = torch.tensor([1 + 2j, -3j, 4 + 0j])
buf = io.BytesIO()
torch.save({"z": z, "zc": z.conj()}, buf)
buf.seek(0)
back = torch.load(buf)
shares = back["zc"].untyped_storage().data_ptr() == back["z"].untyped_storage().data_ptr()
back["zc"].add_(1j)
result = [back["zc"].is_conj(), shares, back["z"].tolist(), back["zc"].tolist()]
'''


@pytest.mark.parity
def test_checkpoint_with_a_conjugate_view_script_matches_torch(torch):
    assert run_script(CHECKPOINT, ember)["result"] == run_script(CHECKPOINT, torch)["result"]
