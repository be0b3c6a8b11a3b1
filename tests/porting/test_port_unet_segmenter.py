"""A U-Net segmenter in the style of milesial/Pytorch-UNet on synthetic masks, run with `torch` bound to
ember and to torch: ConvTranspose2d and F.interpolate(bilinear, align_corners=True) / nn.Upsample
up-paths with F.pad and torch.cat skips, BCEWithLogitsLoss + Dice on torch.sigmoid, a channels_last model
and input, RMSprop(foreach) with ReduceLROnPlateau, torch.amp.GradScaler("cpu", enabled=False) and
autocast(enabled=False) as the repo's CPU run meets them; then F.interpolate bilinear/bicubic/area/
nearest-exact outputs."""
import math

import numpy as np
import pytest

import ember
from _porting import WeightSync, run_both, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
rs = np.random.RandomState(0)
imgs = torch.from_numpy(rs.rand(8, 3, 16, 16).astype(np.float32))
masks = (imgs.mean(1, keepdim=True) > 0.5).float()

def block(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                         nn.Conv2d(o, o, 3, padding=1), nn.ReLU(inplace=True))

class UNet(nn.Module):
    def __init__(self, bilinear):
        super().__init__()
        self.bilinear = bilinear
        self.inc = block(3, 8)
        self.down1 = nn.Sequential(nn.MaxPool2d(2), block(8, 16))
        self.down2 = nn.Sequential(nn.MaxPool2d(2), block(16, 32))
        self.up1 = nn.ConvTranspose2d(32, 16, kernel_size=2, stride=2)
        self.conv1 = block(32, 16)
        self.conv2 = block(16 + 8, 8)
        self.outc = nn.Conv2d(8, 1, kernel_size=1)
    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        u = self.up1(x3)
        diffY = x2.size()[2] - u.size()[2]
        diffX = x2.size()[3] - u.size()[3]
        u = F.pad(u, [diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2])
        u = self.conv1(torch.cat([x2, u], dim=1))
        if self.bilinear:
            u = F.interpolate(u, scale_factor=2, mode="bilinear", align_corners=True)
        else:
            u = nn.Upsample(size=x1.shape[-2:], mode="bilinear", align_corners=False)(u)
        u = self.conv2(torch.cat([u, x1], dim=1))
        return self.outc(u)

def dice_loss(input, target, epsilon=1e-6):
    sum_dim = (-1, -2)
    inter = 2 * (input * target).sum(dim=sum_dim)
    sets_sum = input.sum(dim=sum_dim) + target.sum(dim=sum_dim)
    sets_sum = torch.where(sets_sum == 0, inter, sets_sum)
    dice = (inter + epsilon) / (sets_sum + epsilon)
    return 1 - dice.mean()

losses, dices = [], []
for bilinear, cl in ((True, False), (False, True)):
    model = UNet(bilinear)
    sync(model)
    if cl:
        model = model.to(memory_format=torch.channels_last)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3, weight_decay=1e-8, momentum=0.9, foreach=True)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, 'max', patience=2)
    grad_scaler = torch.amp.GradScaler("cpu", enabled=False)
    criterion = nn.BCEWithLogitsLoss()
    for step in range(4):
        x = imgs.to(memory_format=torch.channels_last) if cl else imgs
        with torch.autocast("cpu", enabled=False):
            pred = model(x)
            loss = criterion(pred, masks)
            loss = loss + dice_loss(torch.sigmoid(pred), masks)
        optimizer.zero_grad(set_to_none=True)
        grad_scaler.scale(loss).backward()
        grad_scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        grad_scaler.step(optimizer)
        grad_scaler.update()
        losses.append(loss.item())
    model.eval()
    with torch.inference_mode():
        p = (torch.sigmoid(model(imgs)) > 0.5).float()
        dices.append(1 - dice_loss(p, masks).item())
        scheduler.step(dices[-1])
    cl_out = pred.is_contiguous(memory_format=torch.channels_last)
up = F.interpolate(imgs[:1], size=(7, 9), mode="bilinear", align_corners=True)
up2 = F.interpolate(imgs[:1], scale_factor=1.5, mode="bicubic", align_corners=False)
up3 = F.interpolate(imgs[:1], scale_factor=0.5, mode="area")
up4 = F.interpolate(imgs[:1], size=(20, 20), mode="nearest-exact")
'''


def _values(v):
    return v.detach().numpy() if hasattr(v, "detach") else np.asarray(v, dtype=np.float64)


def _check(env):
    assert len(env["losses"]) == 8 and all(math.isfinite(v) for v in env["losses"])
    assert all(0 <= d <= 1 for d in env["dices"]) and env["cl_out"] is True
    assert tuple(env["up"].shape) == (1, 3, 7, 9) and tuple(env["up2"].shape) == (1, 3, 24, 24)


def test_unet_segmenter_runs_with_ember():
    _check(run_script(SCRIPT, ember, np=np, sync=WeightSync()))


@pytest.mark.parity
def test_unet_segmenter_matches_torch(torch):
    want, got = run_both(lambda lib, sync: run_script(SCRIPT, lib, np=np, sync=sync), torch)
    _check(want)
    _check(got)
    for key in ('cl_out',):
        assert got[key] == want[key], key
    for key, rtol, atol in (('losses', 0.001, 1e-05), ('dices', 0, 0.02), ('up', 1e-06, 1e-06), ('up2', 1e-05, 1e-05), ('up3', 1e-06, 1e-06), ('up4', 0, 0)):
        np.testing.assert_allclose(_values(got[key]), _values(want[key]), rtol=rtol, atol=atol, err_msg=key)


def _scaler_session(lib):
    import warnings
    out = {}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s = lib.cuda.amp.GradScaler()             # a CUDA script's scaler on a CPU-only build: disabled, warns
        out["cuda"] = (s.is_enabled(), s.get_scale())
        s2 = lib.amp.GradScaler("cpu")
        out["cpu"] = (s2.is_enabled(), s2.get_scale(), s2.get_growth_factor(), s2.get_backoff_factor(),
                      s2.get_growth_interval())
        out["warnings"] = sorted({(x.category.__name__, str(x.message)) for x in w})
    p = lib.nn.Parameter(lib.ones(3))
    opt = lib.optim.SGD([p], lr=0.1)
    scaled = s2.scale((p * 2).sum())
    scaled.backward()
    out["grads"] = (scaled.item(), p.grad.tolist())
    s2.unscale_(opt)
    out["unscaled"] = p.grad.tolist()
    with pytest.raises(RuntimeError) as e:
        s2.unscale_(opt)
    out["twice"] = str(e.value)
    s2.step(opt)
    s2.update()
    out["after"] = (s2.get_scale(), p.tolist(), s2.state_dict())
    p.grad = lib.tensor([float("inf"), 1.0, 1.0])
    s2.step(opt)
    s2.update()
    out["inf_step_skipped"] = (s2.get_scale(), p.tolist())
    s2.update(new_scale=4.0)
    out["new_scale"] = s2.get_scale()
    return out


@pytest.mark.parity
def test_grad_scalers_as_a_cpu_user_meets_them(torch):
    got, want = _scaler_session(ember), _scaler_session(torch)
    got["warnings"] = [(c, m.replace("ember", "torch")) for c, m in got["warnings"]]
    assert got == want
