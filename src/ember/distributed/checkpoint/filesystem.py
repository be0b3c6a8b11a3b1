"""torch.distributed.checkpoint.filesystem: the on-disk layout of ember's distributed checkpoints.

A checkpoint directory holds ``.metadata`` (JSON: per key, the dtype, shape and the pieces that cover it, or the
plain value) and one ``__<rank>_0.distcp`` file of raw bytes per saving rank.  Nothing in it is pickled.
"""
from __future__ import annotations

import os

import numpy as np

META = ".metadata"
FORMAT = "ember-dcp-1"


class FileSystemWriter:
    """torch.distributed.checkpoint.FileSystemWriter: where save() writes (a directory)."""

    def __init__(self, path, single_file_per_rank=True, sync_files=True, thread_count=1, per_thread_copy_ahead=0,
                 cache_staged_state_dict=False, overwrite=True):
        self.path = os.fspath(path)
        self.sync_files = sync_files


class FileSystemReader:
    """torch.distributed.checkpoint.FileSystemReader: where load() reads (a directory)."""

    def __init__(self, path):
        self.path = os.fspath(path)


def _flatten(obj, prefix, out):
    if isinstance(obj, dict):
        for k, v in obj.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out)
    elif isinstance(obj, (list, tuple)) and any(_is_tensor(v) or isinstance(v, (dict, list, tuple)) for v in obj):
        for i, v in enumerate(obj):
            _flatten(v, f"{prefix}.{i}" if prefix else str(i), out)
    else:
        out[prefix] = obj
    return out


def _is_tensor(v):
    import ember
    return isinstance(v, ember.Tensor)


def _plain(v, key):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_plain(x, key) for x in v]
    raise TypeError(f"distributed checkpoint: value at {key!r} of type {type(v).__name__} is neither a tensor nor "
                    "plain data (number, string, bool, None, list)")


def _dist_info(process_group, no_dist):
    if no_dist:
        return 0, 1, None
    import ember.distributed as dist
    if not dist.is_initialized():
        return 0, 1, None
    return dist.get_rank(process_group), dist.get_world_size(process_group), dist


def _dir(checkpoint_id, io):
    if io is not None:
        return io.path
    if checkpoint_id is None:
        raise ValueError("distributed checkpoint: give checkpoint_id (a directory) or a storage writer/reader")
    return os.fspath(checkpoint_id)


def _read_tensor(path, e, key):
    import ember
    from ..._core import dtype as D  # noqa: N812
    dt = getattr(D, e["dtype"] if e["dtype"] != "bool" else "bool_", None)
    if not isinstance(dt, ember.dtype):
        raise RuntimeError(f"distributed checkpoint: unknown dtype {e['dtype']!r} for {key!r}")
    shape = tuple(e["shape"])
    rows = shape[0] if shape else 1
    row = int(np.prod(shape[1:])) if shape else 1
    out = np.empty((rows, row), dtype=dt._np)
    covered = 0
    for fname, lo, n, off in e["pieces"]:
        if os.sep in fname or fname.startswith(".."):
            raise RuntimeError(f"distributed checkpoint: bad file name {fname!r} in the metadata")
        with open(os.path.join(path, fname), "rb") as f:
            f.seek(off)
            raw = f.read(n * row * out.itemsize)
        if len(raw) != n * row * out.itemsize:
            raise RuntimeError(f"distributed checkpoint: {fname} is truncated (reading {key!r})")
        out[lo:lo + n] = np.frombuffer(raw, dtype=dt._np).reshape(n, row)
        covered += n
    if covered != rows:
        raise RuntimeError(f"distributed checkpoint: the pieces of {key!r} cover {covered} of {rows} rows")
    return out.reshape(shape)


