"""A ResNet-style CIFAR classifier in the style of the official examples (kuangliu's pytorch-cifar, the
torchvision ResNet recipe) on synthetic 16x16 images, run with `torch` bound to ember and to torch:
BasicBlocks with BatchNorm2d and 1x1 shortcuts, kaiming_normal_ init, AdaptiveAvgPool2d, CrossEntropyLoss
with label smoothing, Nesterov SGD with weight decay under OneCycleLR stepped per batch, eval()/no_grad()
accuracy, and a checkpoint dict (model, optimizer, scheduler, RNG state) saved with torch.save mid-training
and loaded back with torch.load's default weights_only=True: the resumed run repeats the losses exactly."""
import math

import numpy as np
import pytest

import ember
from _porting import WeightSync, run_both, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
import io
nn, F = torch.nn, torch.nn.functional
torch.manual_seed(0)
rs = np.random.RandomState(0)
X = torch.from_numpy(rs.randn(64, 3, 16, 16).astype(np.float32))
Y = torch.from_numpy(rs.randint(0, 10, size=64)).long()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, Y), batch_size=16, shuffle=False)

class BasicBlock(nn.Module):
    expansion = 1
    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(nn.Conv2d(in_planes, planes, kernel_size=1, stride=stride, bias=False),
                                          nn.BatchNorm2d(planes))
    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        return F.relu(out)

class ResNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.layer1 = nn.Sequential(BasicBlock(8, 8), BasicBlock(8, 8))
        self.layer2 = nn.Sequential(BasicBlock(8, 16, 2))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16 * BasicBlock.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer2(self.layer1(x))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)

model = ResNet()
sync(model)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4, nesterov=True)
EPOCHS = 4
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=EPOCHS, steps_per_epoch=len(loader))

def train_epoch():
    model.train()
    losses = []
    for inputs, targets in loader:
        optimizer.zero_grad(set_to_none=True)
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return losses

def evaluate():
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for inputs, targets in loader:
            _, predicted = model(inputs).max(1)
            total += targets.size(0)
            correct += predicted.eq(targets).sum().item()
    return 100. * correct / total

losses = train_epoch() + train_epoch()
buf = io.BytesIO()
torch.save({"epoch": 2, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(), "rng": torch.get_rng_state()}, buf)
rest = train_epoch() + train_epoch()
accuracy = evaluate()
final_lr = scheduler.get_last_lr()[0]
lrs_seen = optimizer.param_groups[0]["lr"], optimizer.param_groups[0]["momentum"]
buf.seek(0)
ckpt = torch.load(buf)
model.load_state_dict(ckpt["model"])
optimizer.load_state_dict(ckpt["optimizer"])
scheduler.load_state_dict(ckpt["scheduler"])
torch.set_rng_state(ckpt["rng"])
resumed = train_epoch() + train_epoch()
ckpt_epoch = ckpt["epoch"]
'''


def _check(env):
    assert len(env["losses"]) == 8 and len(env["rest"]) == 8
    assert all(math.isfinite(v) for v in env["losses"] + env["rest"])
    assert env["resumed"] == env["rest"]          # bit-identical after resuming from the checkpoint
    assert env["ckpt_epoch"] == 2
    assert 0 <= env["accuracy"] <= 100
    assert env["final_lr"] < 0.01                  # OneCycleLR annealed down after its 16 steps


def test_resnet_trains_checkpoints_and_resumes_with_ember():
    _check(run_script(SCRIPT, ember, np=np, sync=WeightSync()))


@pytest.mark.parity
def test_resnet_matches_torch(torch):
    want, got = run_both(lambda lib, sync: run_script(SCRIPT, lib, np=np, sync=sync), torch)
    _check(want)
    _check(got)
    np.testing.assert_allclose(got["losses"] + got["rest"], want["losses"] + want["rest"], rtol=2e-3, atol=2e-3)
    assert got["final_lr"] == pytest.approx(want["final_lr"], rel=1e-12)
    assert got["lrs_seen"] == pytest.approx(want["lrs_seen"], rel=1e-12)
    assert got["accuracy"] == want["accuracy"]
