"""Parity: every schema in PyTorch's own native_functions.yaml.

The yaml ships inside the torch wheel at ``torchgen/packaged/ATen/native/native_functions.yaml``.
Only the test looks for it (and, optionally, imports torchgen / torch to compare); the library
never does.
"""
import importlib.util
import os

import pytest

from ember._schema import FunctionSchema, parse_default

pytestmark = pytest.mark.parity


def _yaml_path():
    try:
        spec = importlib.util.find_spec("torchgen")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    path = os.path.join(os.path.dirname(spec.origin), "packaged", "ATen", "native", "native_functions.yaml")
    return path if os.path.exists(path) else None


@pytest.fixture(scope="module")
def funcs():
    path = _yaml_path()
    if path is None:
        pytest.skip("torchgen's native_functions.yaml is not installed")
    yaml = pytest.importorskip("yaml")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path) as f:
        entries = yaml.load(f, Loader=loader)
    out = [e["func"] for e in entries if isinstance(e, dict) and "func" in e]
    assert len(out) > 2000
    return out


def test_round_trip_all(funcs):
    bad = [f for f in funcs if str(FunctionSchema.parse(f)) != f]
    assert bad == []


def test_defaults_parse_all(funcs):
    for f in funcs:
        for a in FunctionSchema.parse(f).arguments.flat_all:
            if a.default is not None:
                parse_default(a.default, a.type)


def test_kind_and_signature_match_torchgen(funcs):
    try:
        import torchgen.model as tm
    except Exception as e:  # pragma: no cover - depends on environment
        pytest.skip(f"torchgen.model not importable: {e}")
    mismatches = []
    for f in funcs:
        ours, theirs = FunctionSchema.parse(f), tm.FunctionSchema.parse(f)
        if ours.kind().name != theirs.kind().name:
            mismatches.append(("kind", f, ours.kind().name, theirs.kind().name))
        if str(ours.signature()) != str(theirs.signature()):
            mismatches.append(("signature", f, str(ours.signature()), str(theirs.signature())))
        if ours.is_out_fn() != theirs.is_out_fn() or ours.is_mutable() != theirs.is_mutable:
            mismatches.append(("mutability", f))
        if [a.name for a in ours.arguments.out] != [a.name for a in theirs.arguments.out]:
            mismatches.append(("out", f))
        if (ours.arguments.tensor_options is None) != (theirs.arguments.tensor_options is None):
            mismatches.append(("tensor_options", f))
    assert mismatches == []


# Enum-valued defaults: torch's C++ parser yields the enum's integer, we keep the identifier.
_ENUM_DEFAULTS = {"contiguous_format", "preserve_format", "channels_last", "long"}


def test_defaults_match_torch_parse_schema(funcs):
    try:
        import torch
    except Exception as e:  # pragma: no cover
        pytest.skip(f"torch not importable: {e}")
    mismatches = []
    for f in funcs:
        ours = FunctionSchema.parse(f)
        theirs = torch._C.parse_schema("aten::" + f)
        assert [a.name for a in ours.schema_order_arguments()] == [a.name for a in theirs.arguments]
        for a, b in zip(ours.schema_order_arguments(), theirs.arguments):
            if a.default is None or a.default in _ENUM_DEFAULTS:
                continue
            mine = parse_default(a.default, a.type)
            if mine != b.default_value or type(mine) is not type(b.default_value):
                mismatches.append((f, a.name, mine, b.default_value))
    assert mismatches == []
