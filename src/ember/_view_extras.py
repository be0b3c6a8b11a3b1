"""Python-level view conveniences torch also writes by hand (torch/_tensor.py, torch/functional.py):
split with a list of sizes, unbind and chunk returning tuples."""
import sys

from . import _argcheck as _chk
from ._bind_helpers import _is_int
from ._ops import ops
from ._tensor import Tensor

_aten = ops.aten


def split(tensor, split_size_or_sections, dim=0):
    if _is_int(split_size_or_sections):
        return tuple(_aten.split.Tensor(tensor, int(split_size_or_sections), dim))
    _chk.tensor("split", "tensor", 1, tensor)
    _chk.int_list("split_with_sizes", "split_sizes", 2, split_size_or_sections)
    _chk.integer("split_with_sizes", "dim", 3, dim)
    return tuple(_aten.split_with_sizes.default(tensor, list(split_size_or_sections), dim))


def _split_method(self, split_size, dim=0):
    return split(self, split_size, dim)


def _unbind_method(self, dim=0):
    return tuple(_aten.unbind.int(self, dim))


def _chunk_method(self, chunks, dim=0):
    return tuple(_aten.chunk.default(self, chunks, dim))


Tensor.split = _split_method
Tensor.unbind = _unbind_method
Tensor.chunk = _chunk_method

_ember = sys.modules["ember"]
_ember.split = split


def unbind(input, dim=0):
    _chk.tensor("unbind", "input", 1, input)
    _chk.integer("unbind", "dim", 2, dim)
    return tuple(_aten.unbind.int(input, dim))


def chunk(input, chunks, dim=0):
    _chk.tensor("chunk", "input", 1, input)
    _chk.integer("chunk", "chunks", 2, chunks)
    _chk.integer("chunk", "dim", 3, dim)
    return tuple(_aten.chunk.default(input, chunks, dim))


_ember.unbind = unbind
_ember.chunk = chunk
