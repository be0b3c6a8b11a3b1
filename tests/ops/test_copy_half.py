"""Casts to and from float16 / bfloat16 give torch's bits (kernels/cpu/copy_half.py): wider types rounded
through float32, float16 NaNs quieted, bfloat16 NaNs 0xffff or 0x7fc0 as torch's vectorised or scalar loop
writes them, across layouts, sizes and thread counts."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.parity


def _bits(t, lib):
    return t.contiguous().view(lib.int16).numpy().copy()


def _near_midpoints():
    """float64 values at, and just either side of, every float16 midpoint and bfloat16 midpoints."""
    h = np.arange(65536, dtype=np.uint16).view(np.float16)
    h = h[np.isfinite(h)]
    with np.errstate(all="ignore"):
        nxt = np.nextafter(h, np.float16(np.inf)).astype(np.float64)
    mid = ((h.astype(np.float64) + nxt) / 2)[np.isfinite(nxt)]
    b = (np.arange(0, 1 << 16, 7, dtype=np.uint32) << 16 | 0x8000).view(np.float32)
    b = b[np.isfinite(b)].astype(np.float64)
    return np.concatenate([mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf),
                           b, b * (1 + 2.0 ** -40), b * (1 - 2.0 ** -40)])


@pytest.mark.filterwarnings("ignore:Casting complex values")
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("src", ["float64", "complex128", "int64", "int32"])
@pytest.mark.parametrize("n", [5, 1000, 200000])
def test_wider_types_round_through_float32(name, src, n):
    x = _near_midpoints()
    if src.startswith("int"):
        x = np.concatenate([np.arange(-70000, 70000), (np.arange(1, 100000) << 24) + (1 << 23) + 1])
        x = x.astype(src)
    x = np.resize(x.astype(src) if src.startswith("complex") else x, n)
    with np.errstate(all="ignore"):
        want = _bits(torch.from_numpy(x).to(getattr(torch, name)), torch)
        got = _bits(ember.from_numpy(x).to(getattr(ember, name)), ember)
    np.testing.assert_array_equal(got, want)


_F32_NANS = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF812345, 0x7FA00000, 0x7FFFFFFF],
                     np.uint32).view(np.float32)
_F64_NANS = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFF0123456789ABC,
                      0x7FF4000000000000], np.uint64).view(np.float64)


def _layouts(lib, a):
    """The same NaN-laden data in layouts that take torch's vectorised loop or its scalar one."""
    t = lib.from_numpy(a)
    n = a.shape[0]
    yield "flat", t
    if n < 60:
        return
    yield "rows of 17", t[: (n // 40) * 40].view(-1, 40)[:, :17]
    yield "transposed", t[: (n // 40) * 40].view(-1, 40)[:, :17].t()
    yield "step 2", t[::2]
    yield "expanded", t[:17].view(1, 17).expand(3, 17)
    yield "3-d", t[: (n // 60) * 60].view(-1, 3, 20)[:, 1:, :19]


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("src", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 15, 17, 100, 40001, 100003])
@pytest.mark.parametrize("threads", [1, 2])
def test_nan_bits_match_torch(name, src, n, threads):
    nans = _F32_NANS if src == "float32" else _F64_NANS
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(src)
    pick = rng.random(n) < 0.3
    a[pick] = rng.choice(nans, n)[pick]
    a[-1] = nans[1]
    old_t, old_e = torch.get_num_threads(), ember.get_num_threads()
    torch.set_num_threads(threads)
    ember.set_num_threads(threads)
    try:
        for (what, t), (_, e) in zip(_layouts(torch, a), _layouts(ember, a)):
            want = _bits(t.to(getattr(torch, name)), torch)
            got = _bits(e.to(getattr(ember, name)), ember)
            np.testing.assert_array_equal(got, want, err_msg=what)
            if t.dim() == 2:
                dst_t = torch.empty(t.shape[::-1], dtype=getattr(torch, name)).t()     # a strided output
                dst_e = ember.empty(e.shape[::-1], dtype=getattr(ember, name)).t()
                np.testing.assert_array_equal(_bits(dst_e.copy_(e), ember), _bits(dst_t.copy_(t), torch),
                                              err_msg=what + " copy_ into a transposed output")
    finally:
        torch.set_num_threads(old_t)
        ember.set_num_threads(old_e)


@pytest.mark.parametrize("to", ["float32", "float64", "bfloat16", "complex64"])
def test_float16_nans_quieted_on_the_way_up(to):
    h = np.tile(np.array([0x7C01, 0xFE00, 0x7D00, 0x7E01, 0xFFFF, 0x3C00], np.uint16), 700).view(np.int16)
    for n in (6, h.size):
        want = torch.from_numpy(h[:n]).view(torch.float16).to(getattr(torch, to))
        got = ember.from_numpy(h[:n]).view(ember.float16).to(getattr(ember, to))
        if to == "bfloat16":
            np.testing.assert_array_equal(_bits(got, ember), _bits(want, torch))
        else:
            w = want.numpy()
            np.testing.assert_array_equal(got.numpy().view(w.real.dtype), w.view(w.real.dtype))
