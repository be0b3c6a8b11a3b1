"""CompositeImplicitAutograd kernels of the fft family (torch's SpectralOps.cpp: stft, istft), written over the
three transforms of native/fft.yaml so autograd differentiates them through those."""

from ..common import _tname, warn_user
from ..._ops import ops

aten = ops.aten

_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2
_WARNED = set()          # torch's TORCH_WARN_ONCE: each of stft's warnings once per process


def _warn_once(key, msg):
    if key not in _WARNED:
        _WARNED.add(key)
        warn_user(msg)


def _type_repr(t):
    """torch's Tensor::toString: `torch.FloatTensor` for real dtypes, `CPUComplexFloatType` for complex ones."""
    return f"CPU{_tname(t.dtype)}Type" if t.dtype.is_complex else f"torch.{_tname(t.dtype)}Tensor"


def _window_repr(window):
    return "None" if window is None else f"{_type_repr(window)}{{{list(window.shape)}}}"


def _centered_window(window, win_length, n_fft, dtype, device):
    """A window of win_length < n_fft centred in n_fft zeros (a rectangular one when none is given)."""
    left = (n_fft - win_length) // 2
    if window is None:
        window = aten.ones.default([win_length], dtype=dtype, device=device)
    return aten.constant_pad_nd.default(window, [left, n_fft - win_length - left], 0)


def stft(self, n_fft, hop_length=None, win_length=None, window=None, normalized=False, onesided=None,
         return_complex=None, align_to_window=None):
    """torch's stft (no centring: torch.stft pads in Python before calling this): frames of n_fft samples every
    hop_length samples, windowed, each transformed along its samples; (batch?, freq, frames)."""
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length

    def fail(msg):
        raise RuntimeError(f"stft({_type_repr(self)}{list(self.shape)}, n_fft={n_fft}, hop_length={hop}, "
                           f"win_length={win}, window={_window_repr(window)}, normalized={int(bool(normalized))}, "
                           f"onesided={'None' if onesided is None else int(onesided)}, return_complex="
                           f"{'None' if return_complex is None else int(return_complex)}, align_to_window="
                           f"{'None' if align_to_window is None else int(align_to_window)}) : {msg}")
    if window is None:
        _warn_once("window", "A window was not provided. A rectangular window will be applied,which is known to cause "
                      "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                      "recommended to reduce spectral leakage.To suppress this warning and use a rectangular window, "
                      "explicitly set `window=torch.ones(n_fft, device=<device>)`.")
    want_complex = return_complex if return_complex is not None else (
        self.dtype.is_complex or (window is not None and window.dtype.is_complex))
    if not want_complex:
        if return_complex is None:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                               "require that return_complex=True in a future PyTorch release.")
        _warn_once("real", "stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
                      "complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you can "
                      "still call torch.view_as_real on the complex output to recover the old return format.")
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        fail("expected a tensor of floating point or complex values")
    if self.dim() not in (1, 2):
        fail("expected a 1D or 2D tensor")
    x = aten.unsqueeze.default(self, 0) if self.dim() == 1 else self
    length = x.shape[1]
    if n_fft <= 0 or n_fft > length:
        fail(f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        fail(f"expected a 1D window tensor of size equal to win_length={win}, but got window with size "
             f"{list(window.shape)}")
    if win < n_fft:
        window = _centered_window(window, win, n_fft, self.dtype.to_real() if self.dtype.is_complex else self.dtype,
                                  self.device)
    n_frames = 1 + (length - n_fft) // hop
    if align_to_window:                   # frames laid from where the window starts, not where n_fft starts
        left = (n_fft - win) // 2
        x = aten.constant_pad_nd.default(x, [left, left], 0)
        n_frames = 1 + (length - win) // hop
        if (n_frames - 1) * hop + n_fft > x.shape[1]:
            raise RuntimeError(f"setStorage: sizes [{x.shape[0]}, {n_frames}, {n_fft}], strides [{x.shape[1]}, {hop}, "
                               f"1], storage offset 0, and itemsize {x.element_size()} requiring a storage size of "
                               f"{x.element_size() * (x.shape[0] * x.shape[1] - x.shape[1] + (n_frames - 1) * hop + n_fft)}"
                               f" are out of bounds for storage of size {x.element_size() * x.numel()}")
    frames = aten.unfold.default(x, 1, n_fft, hop)[:, :n_frames]        # (batch, n_frames, n_fft)
    if window is not None:
        frames = aten.mul.Tensor(frames, window)
    norm = _BY_ROOT_N if normalized else _NONE
    if frames.dtype.is_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = aten._fft_c2c.default(frames, [2], norm, True)
    else:
        out = aten._fft_r2c.default(frames, [2], norm, True if onesided is None else onesided)
    out = aten.transpose.int(out, 1, 2)
    if self.dim() == 1:
        out = aten.squeeze_.dim(out, 0)                  # in place, as torch (its grad_fn: SqueezeBackward4)
    return out if want_complex else aten.view_as_real.default(out)


def _overlap_add(frames, hop, total):
    """(batch, n_frames, n_fft) frames summed at offsets 0, hop, 2 hop, ... into (batch, total): torch's
    unfold_backward, here col2im over a 1 x n_fft kernel."""
    n_fft = frames.shape[2]
    cols = aten.transpose.int(frames, 1, 2)
    if cols.dtype.is_complex:
        parts = aten.view_as_real.default(cols)
        re = _overlap_add_real(aten.select.int(parts, -1, 0), n_fft, hop, total)
        im = _overlap_add_real(aten.select.int(parts, -1, 1), n_fft, hop, total)
        return aten.complex.default(re, im)
    return _overlap_add_real(cols, n_fft, hop, total)


def _overlap_add_real(cols, n_fft, hop, total):
    y = aten.col2im.default(cols, [1, total], [1, n_fft], [1, 1], [0, 0], [1, hop])   # (batch, 1, 1, total)
    return aten.reshape.default(y, [y.shape[0], total])


def istft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False, onesided=None,
          length=None, return_complex=False):
    """torch's istft: the inverse of stft by windowed overlap-add, divided by the summed squared window."""
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not self.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")

    def fail(msg, sep=" : "):
        raise RuntimeError(f"istft(CPU{_tname(self.dtype)}Type{list(self.shape)}, n_fft={n_fft}, hop_length={hop}, "
                           f"win_length={win}, window={_window_repr(window)}, center={int(bool(center))}, "
                           f"normalized={int(bool(normalized))}, onesided="
                           f"{'None' if onesided is None else int(onesided)}, length={length}, "
                           f"return_complex={int(bool(return_complex))}){sep}{msg}")
    if self.numel() == 0:
        fail("input tensor cannot be empty.")
    if self.dim() not in (2, 3):
        fail(f"expected a tensor with 3 or 4 dimensions, but got {self.dim() + 1}")
    x = aten.unsqueeze.default(self, 0) if self.dim() == 2 else self          # (channel, fft_size, n_frames)
    fft_size, n_frames = x.shape[1], x.shape[2]
    expected_len = n_fft + hop * (n_frames - 1)
    one_sided = onesided if onesided is not None else fft_size != n_fft
    if one_sided:
        if n_fft // 2 + 1 != fft_size:
            fail("expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 when "
                 f"onesided=True, but got {fft_size}")
    elif n_fft != fft_size:
        fail("expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
             f"onesided=False, but got {fft_size}")
    if not 0 < hop <= win:
        fail("expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        fail("expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        fail("Invalid window shape. window has to be 1D and length of `win_length`")
    real_dtype = self.dtype.to_real()
    w = window if window is not None else aten.ones.default([win], dtype=real_dtype, device=self.device)
    if win != n_fft:
        left = (n_fft - win) // 2
        w = aten.constant_pad_nd.default(w, [left, n_fft - win - left], 0)
    x = aten.transpose.int(x, 1, 2)                                          # (channel, n_frames, fft_size)
    norm = _BY_ROOT_N if normalized else _BY_N
    if return_complex:
        if one_sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        y = aten._fft_c2c.default(x, [2], norm, False)
    else:
        if window is not None and window.dtype.is_complex:
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not one_sided:
            x = aten.narrow.default(x, -1, 0, n_fft // 2 + 1)
        y = aten._fft_c2r.default(x, [2], norm, n_fft)
    y = aten.mul.Tensor(y, aten.view.default(w, [1, 1, n_fft]))
    y = _overlap_add(y, hop, expected_len)
    envelope = _overlap_add(aten.expand.default(aten.view.default(aten.pow.Tensor_Scalar(w, 2), [1, 1, n_fft]),
                                                [1, n_frames, n_fft]), hop, expected_len)
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = expected_len - n_fft // 2 if center else expected_len
    stop = min(end, expected_len)
    y = aten.slice.Tensor(y, 1, start, stop)
    envelope = aten.slice.Tensor(envelope, 1, start, stop)
    if envelope.device.type != "meta" and bool(aten.lt.Scalar(aten.min.default(aten.abs.default(envelope)),
                                                              1e-11).item()):
        fail("1\n[ CPUBoolType{} ]", sep=" window overlap add min: ")
    y = aten.div.Tensor(y, envelope)
    if self.dim() == 2:
        y = aten.squeeze.dim(y, 0)
    if end > expected_len:
        warn_user("The length of signal is shorter than the length parameter. Result is being padded with zeros "
                  "in the tail. Please check your center and hop_length settings.")
        y = aten.constant_pad_nd.default(y, [0, end - expected_len], 0)
    return y


def stft_center(self, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
                normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """torch's stft.center: the centred form, the signal padded by n_fft // 2 on each side with pad_mode first."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        ndim = self.dim()
        pad = n_fft // 2
        x = aten.view.default(self, [1] * (3 - ndim) + list(self.shape))
        x = aten.pad.default(x, [pad, pad], pad_mode)
        self = aten.view.default(x, list(x.shape[-ndim:]))
    return aten.stft.default(self, n_fft, hop_length, win_length, window, normalized, onesided, return_complex,
                             align_to_window)
