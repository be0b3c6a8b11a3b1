"""Every torch-written fixture loads and matches manifest.json; every malicious/broken one is
refused with the documented exception and executes nothing."""
import os
import pickle

import pytest

import ember
from ember.serialization import load

from .manifest_check import Checker


def _good(manifest):
    return sorted(n for n, e in manifest["fixtures"].items()
                  if e["expect"] == "load" and e["kind"] in ("torch_zip", "torch_legacy"))


def _bad(manifest):
    return sorted(n for n, e in manifest["fixtures"].items() if e["expect"] == "reject")


def _kwargs(entry):
    kw = dict(entry.get("load_kwargs") or {})
    kw.pop("weights_only", None)
    return kw


def test_fixture_lists(manifest):
    assert len(_good(manifest)) == 15
    assert len(_bad(manifest)) == 12


@pytest.mark.parametrize("as_path", [True, False], ids=["path", "fileobj"])
def test_good_fixtures_match_manifest(fixtures_dir, manifest, as_path):
    for name in _good(manifest):
        entry = manifest["fixtures"][name]
        kw = _kwargs(entry)
        if as_path:
            obj = load(fixtures_dir / name, **kw)
        else:
            kw.pop("mmap", None)
            with open(fixtures_dir / name, "rb") as f:
                obj = load(f, **kw)
        Checker().check(obj, entry["root"], name)


def test_good_fixtures_with_mmap(fixtures_dir, manifest):
    for name in _good(manifest):
        entry = manifest["fixtures"][name]
        if entry["kind"] != "torch_zip":
            continue
        kw = _kwargs(entry)
        kw["mmap"] = True
        obj = load(str(fixtures_dir / name), **kw)
        Checker().check(obj, entry["root"], name)


def test_good_fixtures_weights_only_false(fixtures_dir, manifest):
    for name in _good(manifest):
        entry = manifest["fixtures"][name]
        obj = load(fixtures_dir / name, weights_only=False, **_kwargs(entry))
        Checker().check(obj, entry["root"], name)


_EXPECTED = {
    "malicious_global_os_system.pt": (pickle.UnpicklingError, "os.system whose module os is blocked"),
    "malicious_global_posix_system.pt": (pickle.UnpicklingError, "posix.system whose module posix is blocked"),
    "malicious_reduce_eval.pt": (pickle.UnpicklingError, "GLOBAL eval was not an allowed global"),
    "malicious_stack_global.pt": (pickle.UnpicklingError, "Unsupported operand 147"),
    "malicious_inst.pt": (pickle.UnpicklingError, "Unsupported operand 105"),
    "malicious_legacy_os_system.pt": (pickle.UnpicklingError, "os.system whose module os is blocked"),
    "malicious_persid_not_storage.pt": (pickle.UnpicklingError, "Only persistent_load of storage"),
    "truncated.pt": (RuntimeError, "central directory"),
    "missing_storage_record.pt": (RuntimeError, "data/1"),
    "short_storage_record.pt": (RuntimeError, r"record size \(32 bytes\) does not match expected size \(64 bytes"),
    "out_of_bounds_view.pt": (RuntimeError, "not resizable"),
    "random_bytes.bin": (pickle.UnpicklingError, "Unsupported operand"),
}


@pytest.mark.parametrize("name", sorted(_EXPECTED))
@pytest.mark.parametrize("weights_only", [None, True])
def test_malicious_fixtures_are_refused(fixtures_dir, manifest, name, weights_only):
    entry = manifest["fixtures"][name]
    marker = entry.get("marker_path")
    if marker and os.path.exists(marker):
        os.remove(marker)
    exc, msg = _EXPECTED[name]
    kw = {} if weights_only is None else {"weights_only": weights_only}
    with pytest.raises(exc, match=msg):
        load(fixtures_dir / name, **kw)
    with open(fixtures_dir / name, "rb") as f:
        with pytest.raises(exc, match=msg):
            load(f, **kw)
    if marker:
        assert not os.path.exists(marker), f"{name}: payload was executed"


def test_malicious_fixtures_cover_manifest(manifest):
    assert sorted(_EXPECTED) == _bad(manifest)


def test_safetensors_dispatch(fixtures_dir, manifest):
    entry = manifest["fixtures"]["model_state_dict.safetensors"]
    sd = load(fixtures_dir / "model_state_dict.safetensors")
    assert sorted(sd) == sorted(entry["tensors"])
    for k, node in entry["tensors"].items():
        Checker()._tensor(sd[k], dict(node, storage=k), k)


def test_cuda_location_needs_map_location(fixtures_dir):
    with pytest.raises(RuntimeError, match="map_location='cpu'"):
        load(fixtures_dir / "cuda_location.pt")
    obj = load(fixtures_dir / "cuda_location.pt", map_location={"cuda:0": "cpu"})
    assert obj


def test_map_location_meta_and_callable(fixtures_dir, manifest):
    obj = load(fixtures_dir / "model_state_dict.pt", map_location="meta")
    t = next(iter(obj.values()))
    assert t.device.type == "meta"
    seen = []
    obj2 = load(fixtures_dir / "model_state_dict.pt",
                map_location=lambda storage, loc: seen.append(loc) or storage)
    assert seen and set(seen) == {"cpu"}
    obj3 = load(fixtures_dir / "model_state_dict.pt", map_location=ember.device("cpu"))
    assert list(obj3) == list(obj2)
