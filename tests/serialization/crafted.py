"""Builds hostile torch-format checkpoints byte by byte (the pickle opcodes written by hand, put in
a zip with Python's zipfile), for the tests of what a weights-only load refuses."""
import io
import struct
import zipfile

MARK, TUPLE, REDUCE, BUILD = b"(", b"t", b"R", b"b"
EMPTY_DICT, EMPTY_TUPLE, SETITEMS = b"}", b")", b"u"
BINPERSID, TRUE, FALSE, STOP, PROTO = b"Q", b"\x88", b"\x89", b".", b"\x80\x02"

FOUR_FLOATS = struct.pack("<4f", 1.0, 2.0, 3.0, 4.0)


def glob(module: str, name: str) -> bytes:
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def text(s: str) -> bytes:
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def integer(n: int) -> bytes:
    return b"J" + struct.pack("<i", n)


def tup(*parts: bytes) -> bytes:
    return MARK + b"".join(parts) + TUPLE


def dict_of(**items: bytes) -> bytes:
    if not items:
        return EMPTY_DICT
    return EMPTY_DICT + MARK + b"".join(text(k) + v for k, v in items.items()) + SETITEMS


def empty_ordered_dict() -> bytes:
    return glob("collections", "OrderedDict") + EMPTY_TUPLE + REDUCE


def float_storage(numel: int = 4) -> bytes:
    return tup(text("storage"), glob("torch", "FloatStorage"), text("0"), text("cpu"),
               integer(numel)) + BINPERSID


def v2_args() -> bytes:
    """(storage, 0, (4,), (1,), False, OrderedDict()): a 4-element float tensor."""
    return tup(float_storage(), integer(0), tup(integer(4)), tup(integer(1)), FALSE,
               empty_ordered_dict())


def tensor_v2() -> bytes:
    return glob("torch._utils", "_rebuild_tensor_v2") + v2_args() + REDUCE


def from_type_v2(state: bytes, type_name: str = "Tensor") -> bytes:
    module = "torch" if type_name == "Tensor" else "torch.nn.parameter"
    return (glob("torch._tensor", "_rebuild_from_type_v2")
            + tup(glob("torch._utils", "_rebuild_tensor_v2"), glob(module, type_name), v2_args(),
                  state) + REDUCE)


def parameter_with_state(state: bytes) -> bytes:
    return (glob("torch._utils", "_rebuild_parameter_with_state")
            + tup(tensor_v2(), FALSE, empty_ordered_dict(), state) + REDUCE)


def parameter() -> bytes:
    return (glob("torch._utils", "_rebuild_parameter")
            + tup(tensor_v2(), FALSE, empty_ordered_dict()) + REDUCE)


def pickle_of(obj: bytes) -> bytes:
    return PROTO + obj + STOP


def checkpoint(data_pkl: bytes, storage: bytes = FOUR_FLOATS) -> bytes:
    """A torch-format zip: archive/data.pkl, byteorder, data/0 and version."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", data_pkl)
        z.writestr("archive/byteorder", "little")
        z.writestr("archive/data/0", storage)
        z.writestr("archive/version", "3\n")
    return buf.getvalue()


BIG = tup(integer(1 << 20))

# name -> pickle that tries to rewrite an internal field of a rebuilt tensor/parameter
INTERNAL_FIELD_ATTACKS = {
    "from_type_size": from_type_v2(dict_of(_size=BIG)),
    "from_type_stride": from_type_v2(dict_of(_stride=tup(integer(1 << 20)))),
    "from_type_offset": from_type_v2(dict_of(_offset=integer(1 << 20))),
    "from_type_cached_array": from_type_v2(dict_of(_np=tensor_v2())),
    "from_type_storage": from_type_v2(dict_of(_storage=float_storage())),
    "from_type_dunder_dict": from_type_v2(dict_of(__dict__=dict_of(_size=BIG))),
    "from_type_dunder_class": from_type_v2(dict_of(__class__=glob("torch", "Tensor"))),
    "from_type_dtype": from_type_v2(dict_of(dtype=glob("torch", "float64"))),
    "from_type_data": from_type_v2(dict_of(data=tensor_v2())),
    "from_type_grad_fn": from_type_v2(dict_of(grad_fn=integer(1))),
    "from_type_method": from_type_v2(dict_of(sum=integer(1))),
    "from_type_slots_size": from_type_v2(tup(dict_of(), dict_of(_size=BIG))),
    "parameter_state_size": parameter_with_state(dict_of(_size=BIG)),
    "parameter_from_type_size": from_type_v2(dict_of(_size=BIG), "Parameter"),
    "build_tensor_size": tensor_v2() + dict_of(_size=BIG) + BUILD,
    "build_tensor_plain": tensor_v2() + dict_of(foo=integer(3)) + BUILD,
    "build_parameter_size": parameter() + dict_of(_size=BIG) + BUILD,
}
