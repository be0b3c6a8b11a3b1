"""ember's protocol-2 pickler writes exactly what CPython's C pickler writes."""
import collections
import math
import pickle

import pytest
from hypothesis import given, settings, strategies as st

import ember
from ember.serialization._pickler import GlobalRef, Pickler, dumps

scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(1 << 70), max_value=1 << 70),
    st.sampled_from([0, 255, 256, 65535, 65536, -1, 2**31 - 1, 2**31, -2**31, -2**31 - 1,
                     2**63, -2**63, 2**64 - 1]),
    st.floats(allow_nan=True), st.text(max_size=8), st.binary(max_size=8),
    st.complex_numbers(allow_nan=False),
)


def _containers(children):
    return st.one_of(
        st.lists(children, max_size=5),
        st.tuples(children), st.tuples(children, children), st.tuples(children, children, children),
        st.lists(children, min_size=4, max_size=6).map(tuple),
        st.dictionaries(st.one_of(st.text(max_size=4), st.integers(-5, 300)), children, max_size=5),
        st.dictionaries(st.text(max_size=3), children, max_size=4).map(collections.OrderedDict),
        st.lists(st.integers(-3, 3), max_size=5).map(set),
        st.binary(max_size=5).map(bytearray),
        st.dictionaries(st.text(max_size=3), st.integers(0, 9), max_size=4).map(collections.Counter),
    )


objects = st.recursive(scalars, _containers, max_leaves=25)


@settings(max_examples=400, deadline=None)
@given(objects)
def test_matches_cpython(obj):
    assert dumps(obj) == pickle.dumps(obj, protocol=2)


def test_shared_and_recursive_objects():
    s = "shared string"
    inner = [1, 2, s]
    od = collections.OrderedDict(a=inner)
    od.note = {"x": s}
    obj = {"a": inner, "b": (inner, inner, s), "c": od, "d": od, "e": b"ab", "f": b""}
    rec = [1]
    rec.append(rec)
    obj["rec"] = rec
    rt = ([],)
    rt[0].append(rt)
    obj["rt"] = rt
    big = (rec, rec, rec, rec)
    obj["big"] = big
    assert dumps(obj) == pickle.dumps(obj, protocol=2)


def test_batches():
    for n in (999, 1000, 1001, 2000, 2001):
        obj = {"l": list(range(n)), "d": {i: i for i in range(n)},
               "o": collections.OrderedDict((i, i) for i in range(n))}
        assert dumps(obj) == pickle.dumps(obj, protocol=2), n


def test_memo_beyond_256():
    obj = [str(i) * 2 for i in range(600)]
    obj = obj + obj
    assert dumps(obj) == pickle.dumps(obj, protocol=2)


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


def test_plain_classes_and_globals():
    obj = [Point(1, 2), Point, math.sqrt, len, collections.OrderedDict, type(None), float("nan")]
    assert dumps(obj) == pickle.dumps(obj, protocol=2)


def test_global_ref_memoized():
    ref = GlobalRef("torch", "float16")
    assert GlobalRef("torch", "float16") is ref
    out = dumps([ref, ref])
    assert out == b"\x80\x02]q\x00(ctorch\nfloat16\nq\x01h\x01e."


def test_persistent_id_and_override():
    import io

    class Thing:
        pass
    t = Thing()

    def pid(o):
        return ("storage", "k", 3) if o is t else None

    class Ref(pickle.Pickler):
        def persistent_id(self, o):
            return pid(o)

    buf = io.BytesIO()
    Ref(buf, protocol=2).dump([t, "k", t])
    assert dumps([t, "k", t], persistent_id=pid) == buf.getvalue()

    out = dumps({"a": t}, reducer_override=lambda o: (GlobalRef("m", "f"), (1,)) if o is t else NotImplemented)
    assert out == b"\x80\x02}q\x00X\x01\x00\x00\x00aq\x01cm\nf\nq\x02K\x01\x85q\x03Rq\x04s."


def _local_function():
    def inner():
        pass
    return inner


@pytest.mark.parity
def test_unpicklable_functions_raise_as_torch_save():
    """A local function (a lambda hook saved with its module) is the C pickler's AttributeError "Can't
    pickle local object", an unreachable name its PicklingError "attribute lookup ... failed", as with
    torch.save."""
    import io
    torch = pytest.importorskip("torch")
    anon = eval("lambda: 0")
    for obj in (_local_function(), {"hook": _local_function()}, anon):
        got, want = [], []
        for lib, out in ((ember, got), (torch, want)):
            with pytest.raises(Exception) as e:
                lib.save(obj, io.BytesIO())
            out.append((type(e.value).__name__, str(e.value).split(" at 0x")[0]))
        assert got == want
