"""torch.distributed.checkpoint.state_dict_saver: save() (every rank writes its own piece, rank 0 the metadata)."""
from __future__ import annotations

import json
import os

import numpy as np

from .filesystem import FORMAT, META, _dir, _dist_info, _flatten, _is_tensor, _plain

__all__ = ["save", "save_state_dict"]


def save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None, process_group=None, no_dist=False):
    """Write state_dict from every rank (collective when a process group exists); returns the metadata dict."""
    if planner is not None:
        raise NotImplementedError("distributed checkpoint: custom save planners are not supported by ember")
    path = _dir(checkpoint_id, storage_writer)
    rank, world, dist = _dist_info(process_group, no_dist)
    os.makedirs(path, exist_ok=True)
    flat = _flatten(state_dict, "", {})
    fname = f"__{rank}_0.distcp"
    entries = {}
    offset = 0
    with open(os.path.join(path, fname + ".tmp"), "wb") as f:
        for key, v in flat.items():
            if not _is_tensor(v):
                entries[key] = {"kind": "value", "value": _plain(v, key)}
                continue
            t = v.detach()
            a = t._np if t._np.flags.c_contiguous else t._np.copy(order="C")
            shape = list(a.shape)
            rows = shape[0] if shape else 1
            lo, hi = rows * rank // world, rows * (rank + 1) // world
            if not shape:
                lo, hi = (0, 1) if rank == 0 else (0, 0)
            piece = a.reshape(rows, -1)[lo:hi] if shape else a.reshape(1)[lo:hi]
            data = piece.tobytes()
            f.write(data)
            entries[key] = {"kind": "tensor", "dtype": t.dtype.name, "shape": shape,
                            "pieces": [[fname, lo, hi - lo, offset]] if hi > lo else []}
            offset += len(data)
        if storage_writer is None or storage_writer.sync_files:
            f.flush()
            os.fsync(f.fileno())
    os.replace(os.path.join(path, fname + ".tmp"), os.path.join(path, fname))
    if dist is not None:
        gathered = [None] * world
        dist.all_gather_object(gathered, entries, group=process_group)
    else:
        gathered = [entries]
    meta = {"format": FORMAT, "world_size": world, "entries": {}}
    for key in gathered[0]:
        e = dict(gathered[0][key])
        if e["kind"] == "tensor":
            e["pieces"] = [p for g in gathered for p in g[key]["pieces"]]
        meta["entries"][key] = e
    if rank == 0:
        tmp = os.path.join(path, META + ".tmp")
        with open(tmp, "w") as f:
            json.dump(meta, f)
        os.replace(tmp, os.path.join(path, META))
    if dist is not None:
        dist.barrier(group=process_group)
    return meta


def save_state_dict(state_dict, storage_writer, process_group=None, coordinator_rank=0, no_dist=False, planner=None):
    """Deprecated torch name of save()."""
    return save(state_dict, storage_writer=storage_writer, process_group=process_group, no_dist=no_dist,
                planner=planner)


