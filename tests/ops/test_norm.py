"""The normalisations (layer/batch/group/instance/rms norm, normalize, local_response_norm) against torch."""
import pytest
import ember
from ._nn_util import DTYPES, arr, close, meta_matches, pair
import ember.nn.functional as EF


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,ns,affine", [((2, 3, 4), [4], True), ((2, 3, 4), [3, 4], False), ((5, 6), [6], True)])
def test_layer_norm(dtype, shape, ns, affine):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    w, tw = pair(torch, arr(*ns, dtype=dtype) if affine else None)
    b, tb = pair(torch, arr(*ns, dtype=dtype) if affine else None)
    close(ember.layer_norm(x, ns, w, b, 1e-5), torch.layer_norm(tx, ns, tw, tb, 1e-5))
    for e, t in zip(ember.native_layer_norm(x, ns, w, b, 1e-3), torch.native_layer_norm(tx, ns, tw, tb, 1e-3)):
        close(e, t)
    meta_matches(ember.native_layer_norm, x, ns, w, b, 1e-5)


@pytest.mark.parity
def test_layer_norm_errors():
    torch = pytest.importorskip("torch")
    for ns in ([5], [2, 4]):
        with pytest.raises(RuntimeError) as te:
            torch.layer_norm(torch.randn(2, 3, 4), ns)
        with pytest.raises(RuntimeError) as ee:
            ember.layer_norm(ember.randn(2, 3, 4), ns)
        assert str(ee.value) == str(te.value)
    for edt, tdt in ((ember.int64, torch.int64), (ember.complex64, torch.complex64)):
        with pytest.raises(NotImplementedError) as te:
            torch.layer_norm(torch.ones(2, 3, dtype=tdt), [3])
        with pytest.raises(NotImplementedError) as ee:
            ember.layer_norm(ember.ones(2, 3, dtype=edt), [3])
        assert str(ee.value) == str(te.value)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 5), (2, 3, 4, 4)])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm(dtype, shape, affine):
    torch = pytest.importorskip("torch")
    c = shape[1]
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    w, tw = pair(torch, arr(c, dtype=dtype) if affine else None)
    b, tb = pair(torch, arr(c, dtype=dtype) if affine else None)
    rm, trm = pair(torch, arr(c, dtype=dtype))
    rv, trv = pair(torch, arr(c, dtype=dtype, low=0.5, high=2))
    close(ember.batch_norm(x, w, b, rm, rv, True, 0.2, 1e-5, False),
          torch.nn.functional.batch_norm(tx, trm, trv, tw, tb, True, 0.2, 1e-5))
    close(rm, trm)
    close(rv, trv)
    close(ember.batch_norm(x, w, b, rm, rv, False, 0.2, 1e-5, False),
          torch.nn.functional.batch_norm(tx, trm, trv, tw, tb, False, 0.2, 1e-5))
    for e, t in zip(ember.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-3),
                    torch.native_batch_norm(tx, tw, tb, None, None, True, 0.1, 1e-3)):
        close(e, t)
    meta_matches(ember.native_batch_norm, x, w, b, None, None, True, 0.1, 1e-5)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,g", [((2, 6, 5), 3), ((2, 4, 3, 3), 2), ((3, 4), 4), ((1, 6, 2, 2, 2), 1)])
def test_group_norm(dtype, shape, g):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    w, tw = pair(torch, arr(shape[1], dtype=dtype))
    b, tb = pair(torch, arr(shape[1], dtype=dtype))
    close(ember.group_norm(x, g, w, b), torch.nn.functional.group_norm(tx, g, tw, tb))
    close(ember.group_norm(x, g), torch.nn.functional.group_norm(tx, g))
    meta_matches(ember.group_norm, x, g, w, b)


@pytest.mark.parity
def test_group_norm_error():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as te:
        torch.nn.functional.group_norm(torch.randn(2, 5, 3), 2)
    with pytest.raises(RuntimeError) as ee:
        ember.group_norm(ember.randn(2, 5, 3), 2)
    assert str(ee.value) == str(te.value)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("stats", [True, False])
def test_instance_norm(dtype, stats):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 3, 4, 5, dtype=dtype))
    w, tw = pair(torch, arr(3, dtype=dtype))
    b, tb = pair(torch, arr(3, dtype=dtype))
    rm, trm = pair(torch, arr(3, dtype=dtype))
    rv, trv = pair(torch, arr(3, dtype=dtype, low=0.5, high=2))
    close(ember.instance_norm(x, w, b, rm, rv, stats, 0.1, 1e-5, False),
          torch.instance_norm(tx, tw, tb, trm, trv, stats, 0.1, 1e-5, False))
    close(rm, trm)
    close(rv, trv)
    close(ember.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
          torch.nn.functional.instance_norm(tx))


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,ns,eps", [((2, 3, 4), [4], None), ((2, 3, 4), [3, 4], 1e-3), ((5,), [5], 1e-6)])
def test_rms_norm(dtype, shape, ns, eps):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(*shape, dtype=dtype))
    w, tw = pair(torch, arr(*ns, dtype=dtype))
    close(ember.rms_norm(x, ns, w, eps), torch.nn.functional.rms_norm(tx, ns, tw, eps))
    close(ember.rms_norm(x, ns), torch.nn.functional.rms_norm(tx, ns))
    with pytest.raises(RuntimeError) as te:
        torch.nn.functional.rms_norm(tx, [7])
    with pytest.raises(RuntimeError) as ee:
        ember.rms_norm(x, [7])
    assert str(ee.value) == str(te.value)


@pytest.mark.parity
@pytest.mark.parametrize("dtype", DTYPES)
def test_normalize_lrn(dtype):
    torch = pytest.importorskip("torch")
    x, tx = pair(torch, arr(2, 5, 4, 3, dtype=dtype))
    close(EF.normalize(x), torch.nn.functional.normalize(tx))
    close(EF.normalize(x, p=1, dim=-1), torch.nn.functional.normalize(tx, p=1, dim=-1))
    close(EF.local_response_norm(x, 3), torch.nn.functional.local_response_norm(tx, 3))
    close(EF.local_response_norm(x[:, :, 0], 2), torch.nn.functional.local_response_norm(tx[:, :, 0], 2))
