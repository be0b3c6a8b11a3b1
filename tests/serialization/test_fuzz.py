"""Byte-level mutations of good checkpoints: load succeeds or raises a documented exception
(pickle.UnpicklingError / RuntimeError), never anything else, never hangs."""
import io
import pickle
import signal
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ember.serialization import load
from ember.utils import safetensors as sft

DOCUMENTED = (pickle.UnpicklingError, RuntimeError)
SOURCES = ["views.pt", "pickle_primitives.pt", "params_and_meta.pt", "legacy_format.pt",
           "optimizer_adamw.pt", "special_shapes.pt", "repacked_by_zipfile.pt"]


@pytest.fixture(scope="module")
def originals(fixtures_dir):
    return {n: (fixtures_dir / n).read_bytes() for n in SOURCES}


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _load_bounded(data: bytes, **kw):
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, 2.0)
    try:
        return load(io.BytesIO(data), **kw)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


mutation = st.tuples(
    st.sampled_from(SOURCES),
    st.lists(st.tuples(st.sampled_from(["set", "flip", "delete", "insert"]),
                       st.floats(0, 1, exclude_max=True), st.integers(0, 255)),
             min_size=1, max_size=4),
    st.sampled_from(["any", "pickle"]),
)


def _apply(data: bytes, ops, where: str, originals_name: str):
    b = bytearray(data)
    lo, hi = 0, len(b)
    if where == "pickle" and originals_name != "legacy_format.pt" and b[:2] == b"PK":
        # aim at data.pkl: it starts at the first 64-aligned offset of a torch archive
        lo, hi = 64, min(len(b), 64 + 900)
    for op, pos, val in ops:
        i = lo + int(pos * max(hi - lo, 1))
        if i >= len(b):
            i = len(b) - 1
        if op == "set":
            b[i] = val
        elif op == "flip":
            b[i] ^= 1 << (val % 8)
        elif op == "delete":
            del b[i]
        else:
            b.insert(i, val)
    return bytes(b)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(mutation)
def test_mutated_checkpoints(originals, m):
    name, ops, where = m
    data = _apply(originals[name], ops, where, name)
    t0 = time.perf_counter()
    try:
        _load_bounded(data)
    except DOCUMENTED:
        pass
    except _Timeout:
        pytest.fail(f"load hung on a mutation of {name}: {ops}")
    assert time.perf_counter() - t0 < 2.0


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes(data):
    try:
        _load_bounded(data)
    except DOCUMENTED:
        pass


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 1495), st.integers(0, 255))
def test_mutated_safetensors(fixtures_dir, i, v):
    b = bytearray((fixtures_dir / "model_state_dict.safetensors").read_bytes())
    b[i % len(b)] = v
    try:
        sft.load(bytes(b))
    except sft.SafetensorError:
        pass
