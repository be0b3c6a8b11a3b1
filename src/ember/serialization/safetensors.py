"""The safetensors format (the ``safetensors.torch`` API, exported as ``ember.utils.safetensors``):
read/write without the safetensors package (FORMAT.md section 7).

Layout: u64 little-endian header length N, N bytes of JSON (padded with spaces so the data
starts at a multiple of 8), then the tensors' bytes back to back.  API mirrors
``safetensors.torch``: :func:`save`, :func:`save_file`, :func:`load`, :func:`load_file` and
:func:`safe_open`.  Loading from a file maps it (copy-on-write) and views every tensor in place.
"""
from __future__ import annotations

import json
import os

import numpy as np

from ._atomic import atomic_write

__all__ = ["save", "save_file", "load", "load_file", "safe_open", "SafetensorError"]

MAX_HEADER = 100_000_000

# dtype code -> ember dtype name, in safetensors' sort order (rank = position)
_CODES = [
    ("BOOL", "bool"), ("U8", "uint8"), ("I8", "int8"), ("F8_E5M2", "float8_e5m2"),
    ("F8_E4M3", "float8_e4m3fn"), ("I16", "int16"), ("U16", "uint16"), ("F16", "float16"),
    ("BF16", "bfloat16"), ("I32", "int32"), ("U32", "uint32"), ("F32", "float32"),
    ("C64", "complex64"), ("F64", "float64"), ("I64", "int64"), ("U64", "uint64"),
]
_CODE_TO_NAME = dict(_CODES)
_NAME_TO_CODE = {n: c for c, n in _CODES}
_RANK = {c: i for i, (c, _) in enumerate(_CODES)}


class SafetensorError(RuntimeError):
    """A malformed safetensors file or an unsupported tensor."""


def _dtype(name: str):
    from ember._core.dtype import dtype_from_name
    return dtype_from_name(name)


# -- writing ----------------------------------------------------------------------------------

def _prepare(tensors: dict, metadata: dict | None):
    from . import _tensors as T
    if not isinstance(tensors, dict):
        raise SafetensorError("expected a dict of name -> tensor")
    if metadata is not None:
        if not isinstance(metadata, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise SafetensorError("metadata must be a dict of str -> str")
    entries = []
    spans: dict[int, list] = {}
    for name, t in tensors.items():
        if not isinstance(name, str):
            raise SafetensorError(f"tensor names must be str, got {name!r}")
        if name == "__metadata__":
            raise SafetensorError("'__metadata__' is reserved")
        if not T.is_tensor(t):
            raise SafetensorError(f"{name}: expected a tensor, got {type(t).__name__}")
        if t.device.type != "cpu":
            raise SafetensorError(f"{name}: only cpu tensors can be saved (got {t.device})")
        code = _NAME_TO_CODE.get(t.dtype.name)
        if code is None:
            raise SafetensorError(f"{name}: dtype {t.dtype.name} has no safetensors code")
        if not t.is_contiguous():
            raise SafetensorError(
                f"You are trying to save a non contiguous tensor: `{name}` which is not allowed. "
                "Call `.contiguous()` on it first.")
        nbytes = t.numel() * t.dtype.itemsize
        st = t.untyped_storage()
        start = t.storage_offset() * t.dtype.itemsize
        if nbytes:
            for other, (s0, s1) in spans.get(id(st), []):
                if start < s1 and s0 < start + nbytes:
                    raise SafetensorError(
                        f"Some tensors share memory, this will lead to duplicate memory on disk "
                        f"and potential differences when loading them again: [{other!r}, {name!r}]")
            spans.setdefault(id(st), []).append((name, (start, start + nbytes)))
        entries.append((name, code, [int(s) for s in t.size()], t, nbytes))
    entries.sort(key=lambda e: (-_RANK[e[1]], e[0]))
    header: dict = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    offset = 0
    for name, code, shape, _, nbytes in entries:
        header[name] = {"dtype": code, "shape": shape, "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    raw = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    raw += b" " * ((8 - (8 + len(raw)) % 8) % 8)
    return len(raw).to_bytes(8, "little") + raw, entries


def _tensor_bytes(t):
    from . import _tensors as T
    n = t.numel() * t.dtype.itemsize
    data = T.storage_array(t.untyped_storage())
    start = t.storage_offset() * t.dtype.itemsize
    return data[start:start + n]


def save(tensors: dict, metadata: dict | None = None) -> bytes:
    head, entries = _prepare(tensors, metadata)
    return head + b"".join(_tensor_bytes(e[3]).tobytes() for e in entries)


def save_file(tensors: dict, filename, metadata: dict | None = None) -> None:
    """Write ``tensors`` to ``filename`` (atomically: temp file + rename)."""
    head, entries = _prepare(tensors, metadata)

    def write(f):
        f.write(head)
        for e in entries:
            if e[4]:
                f.write(_tensor_bytes(e[3]))
    atomic_write(os.fspath(filename), write)


# -- reading ----------------------------------------------------------------------------------

def _parse(buf: np.ndarray):
    """Validate the header of a safetensors buffer; returns (header dict, data start)."""
    n = buf.shape[0]
    if n < 8:
        raise SafetensorError("file too small to be a safetensors file")
    hlen = int.from_bytes(buf[:8].tobytes(), "little")
    if hlen > MAX_HEADER:
        raise SafetensorError(f"header too large ({hlen} bytes)")
    if 8 + hlen > n:
        raise SafetensorError("header length points past the end of the file")
    try:
        header = json.loads(buf[8:8 + hlen].tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise SafetensorError(f"invalid header JSON: {e}") from None
    except RecursionError:
        raise SafetensorError("invalid header JSON: nested too deeply (a safetensors header is "
                              "an object of objects)") from None
    if not isinstance(header, dict):
        raise SafetensorError("header must be a JSON object")
    start = 8 + hlen
    size = n - start
    spans = []
    for name, info in header.items():
        if name == "__metadata__":
            if not isinstance(info, dict) or not all(isinstance(v, str) for v in info.values()):
                raise SafetensorError("__metadata__ must map str to str")
            continue
        if not isinstance(info, dict):
            raise SafetensorError(f"{name}: entry must be an object")
        code, shape, offs = info.get("dtype"), info.get("shape"), info.get("data_offsets")
        if code not in _CODE_TO_NAME:
            raise SafetensorError(f"{name}: unsupported dtype {code!r}")
        if (not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape)
                or not isinstance(offs, list) or len(offs) != 2
                or not all(type(o) is int and o >= 0 for o in offs) or offs[0] > offs[1]):
            raise SafetensorError(f"{name}: malformed shape or data_offsets")
        numel = 1
        for s in shape:
            numel *= s
        if numel * _dtype(_CODE_TO_NAME[code]).itemsize != offs[1] - offs[0]:
            raise SafetensorError(f"{name}: data_offsets do not match shape {shape} and {code}")
        if offs[1] > size:
            raise SafetensorError(f"{name}: data_offsets {offs} reach past the end of the data")
        spans.append((offs[0], offs[1], name))
    spans.sort()
    pos = 0
    for b, e, name in spans:
        if b != pos:
            raise SafetensorError(f"{name}: tensors' data must cover the buffer without gaps or "
                                  f"overlaps (expected offset {pos}, got {b})")
        pos = e
    if pos != size:
        raise SafetensorError(f"the data buffer has {size - pos} bytes not covered by any tensor")
    return header, start


def _build(buf: np.ndarray, device: str = "cpu") -> dict:
    import ember
    from . import _tensors as T
    header, start = _parse(buf)
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        d = _dtype(_CODE_TO_NAME[info["dtype"]])
        b, e = info["data_offsets"]
        shape = tuple(info["shape"])
        strides = T._contiguous_strides(shape)
        if device == "meta":
            st = T.meta_storage(e - b)
        else:
            st = T.storage_from_buffer(buf[start + b:start + e])
        out[name] = ember.Tensor._from_storage(st, 0, shape, strides, d)
    return out


def load(data: bytes) -> dict:
    """Tensors from safetensors bytes (copied into memory owned by the tensors)."""
    return _build(np.frombuffer(bytearray(data), dtype=np.uint8))


def _map(filename) -> np.ndarray:
    path = os.fspath(filename)
    if os.path.getsize(path) == 0:
        raise SafetensorError("empty file")
    return np.memmap(path, dtype=np.uint8, mode="c")


def load_file(filename, device="cpu") -> dict:
    """Tensors of a .safetensors file, viewing a copy-on-write map of it (zero-copy; pages are
    read on first touch, writes stay private)."""
    dev = str(device).split(":", 1)[0]
    if dev not in ("cpu", "meta"):
        raise SafetensorError(f"ember cannot load tensors to device {device!r}")
    return _build(_map(filename), dev)


class safe_open:
    """``with safe_open(path, framework="pt") as f: f.keys(); f.get_tensor(name); f.metadata()``"""

    def __init__(self, filename, framework: str = "pt", device="cpu"):
        self._buf = _map(filename)
        self._header, self._start = _parse(self._buf)
        self._device = device

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def keys(self):
        return [k for k in self._header if k != "__metadata__"]

    def metadata(self):
        return self._header.get("__metadata__")

    def get_tensor(self, name: str):
        if name not in self._header or name == "__metadata__":
            raise SafetensorError(f"no tensor named {name!r}")
        import ember
        from . import _tensors as T
        info = self._header[name]
        b, e = info["data_offsets"]
        shape = tuple(info["shape"])
        return ember.Tensor._from_storage(
            T.storage_from_buffer(self._buf[self._start + b:self._start + e]), 0, shape,
            T._contiguous_strides(shape), _dtype(_CODE_TO_NAME[info["dtype"]]))
