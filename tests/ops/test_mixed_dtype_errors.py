"""Operands of different dtypes in convolutions and the cpu norm kernels, against torch 2.13: conv checks the
bias first ("Input type (double) and bias type (float) should be the same"), then the weight ("expected scalar
type Double but found Float"; mkldnn's message for a bfloat16 input); layer/batch/group norm take float32
parameters with a float16/bfloat16 input and refuse any other mix ("mixed dtype (CPU): ..."). Ember computed
several of these (a float64 input with float32 norm weights, a float32 conv with a float64 bias) and worded the
conv ones as mkldnn does."""
import pytest

import ember

DTS = ["float32", "float64", "float16", "bfloat16"]


def _outcome(f):
    try:
        r = f()
    except Exception as e:      # noqa: BLE001 - the exception type and message are what is compared
        return type(e).__name__, str(e)
    return str(r.dtype).split(".")[-1]


def _conv_cases(lib):
    F = lib.nn.functional
    x, w, b = lib.zeros(1, 1, 4, 4), lib.zeros(2, 1, 3, 3), lib.zeros(2)
    d = {"double": lib.float64, "half": lib.float16, "bf": lib.bfloat16, "long": lib.int64, "c64": lib.complex64}
    return {
        "x64 w32 b32": lambda: F.conv2d(x.double(), w, b), "x64 w32": lambda: F.conv2d(x.double(), w),
        "x32 w64 b32": lambda: F.conv2d(x, w.double(), b), "x32 w32 b64": lambda: F.conv2d(x, w, b.double()),
        "x64 w64 b32": lambda: F.conv2d(x.double(), w.double(), b), "x16 w32 b32": lambda: F.conv2d(x.half(), w, b),
        "x16 w32": lambda: F.conv2d(x.half(), w), "x32 w16": lambda: F.conv2d(x, w.half()),
        "xbf w32": lambda: F.conv2d(x.to(d["bf"]), w), "xbf w32 b32": lambda: F.conv2d(x.to(d["bf"]), w, b),
        "x32 wbf": lambda: F.conv2d(x, w.to(d["bf"])), "xc64 w32": lambda: F.conv2d(x.to(d["c64"]), w),
        "xc64 w32 b32": lambda: F.conv2d(x.to(d["c64"]), w, b), "x32 wc64": lambda: F.conv2d(x, w.to(d["c64"])),
        "xl w32 b32": lambda: F.conv2d(x.long(), w, b),
        "conv1d": lambda: F.conv1d(lib.zeros(1, 1, 5).double(), lib.zeros(2, 1, 3), lib.zeros(2)),
        "conv3d": lambda: F.conv3d(lib.zeros(1, 1, 3, 3, 3).double(), lib.zeros(2, 1, 2, 2, 2), lib.zeros(2)),
        "transposed": lambda: F.conv_transpose2d(x.double(), lib.zeros(1, 2, 3, 3), lib.zeros(2)),
        "transposed b64": lambda: F.conv_transpose2d(x.double(), lib.zeros(1, 2, 3, 3), lib.zeros(2).double()),
        "transposed w64 b32": lambda: F.conv_transpose2d(x.double(), lib.zeros(1, 2, 3, 3).double(), lib.zeros(2)),
        "grouped": lambda: F.conv2d(lib.zeros(1, 2, 4, 4).double(), lib.zeros(2, 1, 3, 3), groups=2),
        "module": lambda: lib.nn.Conv2d(1, 2, 3)(x.double()),
        "module no bias": lambda: lib.nn.Conv2d(1, 2, 3, bias=False)(x.double()),
    }


@pytest.mark.parity
def test_conv_dtype_mismatch_errors_match_torch():
    torch = pytest.importorskip("torch")
    ours, theirs = _conv_cases(ember), _conv_cases(torch)
    for name in ours:
        assert _outcome(ours[name]) == _outcome(theirs[name]), name


def _norm_cases(lib, xd, pd):
    F = lib.nn.functional
    X, P = lib.zeros(2, 3).to(getattr(lib, xd)), getattr(lib, pd)
    return {
        "layer_norm": lambda: F.layer_norm(X, (3,), lib.ones(3, dtype=P), lib.zeros(3, dtype=P)),
        "layer_norm weight": lambda: F.layer_norm(X, (3,), lib.ones(3, dtype=P)),
        "batch_norm": lambda: F.batch_norm(X, lib.zeros(3, dtype=P), lib.ones(3, dtype=P), lib.ones(3, dtype=P),
                                           lib.zeros(3, dtype=P)),
        "batch_norm train": lambda: F.batch_norm(X, lib.zeros(3, dtype=P), lib.ones(3, dtype=P),
                                                 lib.ones(3, dtype=P), lib.zeros(3, dtype=P), training=True),
        "batch_norm no stats": lambda: F.batch_norm(X, None, None, lib.ones(3, dtype=P), lib.zeros(3, dtype=P),
                                                    training=True),
        "group_norm": lambda: F.group_norm(X.view(2, 3, 1), 1, lib.ones(3, dtype=P), lib.zeros(3, dtype=P)),
        "LayerNorm module": lambda: lib.nn.LayerNorm(3).to(P)(X),
        "batch_norm stats only": lambda: F.batch_norm(X, X[0].detach().clone(), lib.ones(3, dtype=P), training=True),
        "layer_norm bias only": lambda: F.layer_norm(X, (3,), lib.ones(3, dtype=X.dtype), lib.zeros(3, dtype=P)),
    }


@pytest.mark.parity
@pytest.mark.parametrize("xd", DTS)
@pytest.mark.parametrize("pd", DTS)
def test_norm_mixed_dtype_rules_match_torch(xd, pd):
    torch = pytest.importorskip("torch")
    ours, theirs = _norm_cases(ember, xd, pd), _norm_cases(torch, xd, pd)
    for name in ours:
        assert _outcome(ours[name]) == _outcome(theirs[name]), name


def _norm_split_cases(lib, xd, wd, sd):
    """Weights of one dtype, running stats (or the bias) of another: the first parameter decides whether the
    call is mixed; when it is not, a parameter of another dtype fails the kernel's typed read."""
    F = lib.nn.functional
    X, W, S = lib.zeros(2, 3).to(getattr(lib, xd)), getattr(lib, wd), getattr(lib, sd)
    return {
        "batch_norm": lambda: F.batch_norm(X, lib.zeros(3, dtype=S), lib.ones(3, dtype=S), lib.ones(3, dtype=W),
                                           lib.zeros(3, dtype=W), training=True),
        "batch_norm eval": lambda: F.batch_norm(X, lib.zeros(3, dtype=S), lib.ones(3, dtype=S),
                                                lib.ones(3, dtype=W), lib.zeros(3, dtype=W)),
        "layer_norm bias": lambda: F.layer_norm(X, (3,), lib.ones(3, dtype=W), lib.zeros(3, dtype=S)),
        "group_norm bias": lambda: F.group_norm(X.view(2, 3, 1), 1, lib.ones(3, dtype=W), lib.zeros(3, dtype=S)),
    }


@pytest.mark.parity
@pytest.mark.parametrize("xd", DTS)
@pytest.mark.parametrize("wd", DTS)
@pytest.mark.parametrize("sd", ["float32", "float64", "bfloat16"])
def test_norm_params_of_two_dtypes_match_torch(xd, wd, sd):
    torch = pytest.importorskip("torch")
    ours, theirs = _norm_split_cases(ember, xd, wd, sd), _norm_split_cases(torch, xd, wd, sd)
    for name in ours:
        assert _outcome(ours[name]) == _outcome(theirs[name]), name
