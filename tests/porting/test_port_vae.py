"""A VAE in the style of pytorch/examples/vae on synthetic binary data, run with `torch` bound to ember and to
torch: F.binary_cross_entropy(reduction='sum') + the closed-form KL, checked against torch.distributions'
kl_divergence(Normal, Normal), Adam with ReduceLROnPlateau, then sampling through Bernoulli, Independent and
MixtureSameFamily. And binary_cross_entropy's own refusals, which the example's inputs never hit: a target
outside [0, 1] or NaN (per element, input checked before target), and a target of another dtype."""
import math

import pytest

import ember
from _porting import outcome, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
F, D = torch.nn.functional, torch.distributions
torch.manual_seed(1)
data = (torch.rand(128, 20) > 0.5).float()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data), batch_size=32, shuffle=True)

class VAE(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc21, self.fc22 = torch.nn.Linear(20, 16), torch.nn.Linear(16, 4), torch.nn.Linear(16, 4)
        self.fc3, self.fc4 = torch.nn.Linear(4, 16), torch.nn.Linear(16, 20)
    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)
    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + torch.randn_like(std) * std
    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))
    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 20))
        return self.decode(self.reparameterize(mu, logvar)), mu, logvar

kl_gaps = []
def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 20), reduction='sum')
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    kl = D.kl_divergence(D.Normal(mu, torch.exp(0.5 * logvar)), D.Normal(torch.zeros_like(mu), torch.ones_like(mu)))
    kl_gaps.append(abs(KLD.item() - kl.sum().item()))
    return BCE + KLD

model = VAE()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, 'min', patience=1)
epoch_losses = []
for epoch in range(4):
    model.train()
    train_loss = 0
    for (x,) in loader:
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(x)
        loss = loss_function(recon_batch, x, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    scheduler.step(train_loss)
    epoch_losses.append(train_loss / len(loader.dataset))
with torch.no_grad():
    sample = model.decode(torch.randn(8, 4))
    dist = D.Bernoulli(probs=sample)
    draws = dist.sample((3,))
    shapes = (tuple(sample.shape), tuple(draws.shape), tuple(dist.log_prob(draws).shape),
              tuple(D.Independent(D.Normal(torch.zeros(4), torch.ones(4)), 1).log_prob(torch.zeros(2, 4)).shape),
              tuple(D.MixtureSameFamily(D.Categorical(torch.ones(3)), D.Normal(torch.zeros(3), torch.ones(3)))
                    .log_prob(torch.zeros(5)).shape))
    entropy = D.Independent(D.Normal(torch.zeros(4), torch.ones(4)), 1).entropy().item()
'''


def test_vae_trains_like_torch(torch):
    for lib in (torch, ember):
        env = run_script(SCRIPT, lib)
        assert max(env["kl_gaps"]) < 1e-3
        assert all(math.isfinite(v) for v in env["epoch_losses"])
        assert env["epoch_losses"][-1] < env["epoch_losses"][0]
        assert env["shapes"] == ((8, 20), (3, 8, 20), (3, 8, 20), (2,), (5,))
        assert abs(env["entropy"] - 2 * math.log(2 * math.pi * math.e)) < 1e-5


BCE_CASES = {
    "target above 1": ("[.2, .5]", "[0., 1.5]", "float32"),
    "target below 0": ("[.2, .5]", "[-0.5, 1.]", "float32"),
    "NaN input": ("[float('nan'), .5]", "[0., 1.]", "float32"),
    "NaN target": ("[.2, .5]", "[float('nan'), 1.]", "float32"),
    "input first at one element": ("[1.5, .2]", "[1., 2.]", "float32"),
    "target first at one element": ("[.2, 1.5]", "[2., 1.]", "float32"),
    "double target": ("[.2, .5]", "[0., 1.]", "float64"),
    "in range": ("[.2, .5]", "[0., 1.]", "float32"),
}


@pytest.mark.parity
@pytest.mark.parametrize("case", sorted(BCE_CASES))
def test_binary_cross_entropy_checks_like_torch(torch, case):
    x, t, tdt = BCE_CASES[case]

    def run(lib):
        inp = lib.tensor(eval(x), requires_grad=True)
        return round(lib.nn.functional.binary_cross_entropy(inp, lib.tensor(eval(t), dtype=getattr(lib, tdt))).item(), 5)
    assert outcome(lambda: run(ember)) == outcome(lambda: run(torch))
