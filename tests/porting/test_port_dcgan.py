"""A DCGAN in the style of pytorch/examples/dcgan on synthetic 16x16 images, run with `torch` bound to ember
and to torch: the examples' weights_init applied with Module.apply (normal_ on .weight.data, matched by
class name), a ConvTranspose2d/BatchNorm2d/ReLU/Tanh generator, a Conv2d/LeakyReLU(inplace)/BatchNorm2d
discriminator, BCEWithLogitsLoss on labels made with torch.full and refilled with fill_, two Adam optimizers
with betas=(0.5, 0.999), the fake batch detached for the discriminator's step, then sampling in eval()."""
import math

import numpy as np
import pytest

import ember
from _porting import WeightSync, run_both, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
nn = torch.nn
torch.manual_seed(0)
rs = np.random.RandomState(0)
nz, ngf, ndf, nc = 8, 8, 8, 1
real_data = torch.from_numpy(np.tanh(rs.randn(32, nc, 16, 16)).astype(np.float32))
noise_bank = torch.from_numpy(rs.randn(6, 16, nz, 1, 1).astype(np.float32))

def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)

class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False), nn.Tanh())
    def forward(self, input):
        return self.main(input)

class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False))
    def forward(self, input):
        return self.main(input).view(-1, 1).squeeze(1)

netG, netD = Generator(), Discriminator()
netG.apply(weights_init); netD.apply(weights_init)
sync(netG); sync(netD)
criterion = nn.BCEWithLogitsLoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
real_label, fake_label = 1., 0.
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(real_data), batch_size=16)
lossesD, lossesG, dx = [], [], []
step = 0
for epoch in range(3):
    for i, (real_cpu,) in enumerate(loader):
        netD.zero_grad()
        b_size = real_cpu.size(0)
        label = torch.full((b_size,), real_label, dtype=torch.float)
        output = netD(real_cpu)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = torch.sigmoid(output).mean().item()
        noise = noise_bank[step]
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach())
        errD_fake = criterion(output, label)
        errD_fake.backward()
        errD = errD_real + errD_fake
        optimizerD.step()
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake)
        errG = criterion(output, label)
        errG.backward()
        optimizerG.step()
        lossesD.append(errD.item()); lossesG.append(errG.item()); dx.append(D_x)
        step += 1
with torch.no_grad():
    netG.eval()
    samples = netG(noise_bank[0])
'''


def _check(env):
    assert len(env["lossesD"]) == 6 and all(math.isfinite(v) for v in env["lossesD"] + env["lossesG"])
    assert all(0 < v < 1 for v in env["dx"])
    assert tuple(env["samples"].shape) == (16, 1, 16, 16)
    assert -1 <= env["samples"].min().item() and env["samples"].max().item() <= 1


def test_dcgan_trains_with_ember():
    _check(run_script(SCRIPT, ember, np=np, sync=WeightSync()))


@pytest.mark.parity
def test_dcgan_matches_torch(torch):
    want, got = run_both(lambda lib, sync: run_script(SCRIPT, lib, np=np, sync=sync), torch)
    _check(want)
    _check(got)
    for key in ("lossesD", "lossesG", "dx"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got["samples"].numpy(), want["samples"].numpy(), rtol=1e-3, atol=1e-5)
