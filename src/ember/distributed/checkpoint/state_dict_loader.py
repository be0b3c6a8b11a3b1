"""torch.distributed.checkpoint.state_dict_loader: load() (reassembles each tensor from any ranks' pieces)."""
from __future__ import annotations

import json
import os

from .filesystem import FORMAT, META, _dir, _read_tensor

__all__ = ["load", "load_state_dict"]


def load(state_dict, *, checkpoint_id=None, storage_reader=None, planner=None, process_group=None, no_dist=False):
    """Fill state_dict in place from a checkpoint saved by any number of ranks."""
    if planner is not None:
        raise NotImplementedError("distributed checkpoint: custom load planners are not supported by ember")
    path = _dir(checkpoint_id, storage_reader)
    with open(os.path.join(path, META)) as f:
        meta = json.load(f)
    if meta.get("format") != FORMAT:
        raise RuntimeError(f"distributed checkpoint: {path} is not an ember checkpoint (format "
                           f"{meta.get('format')!r})")
    entries = meta["entries"]
    _fill(state_dict, "", entries, path)


def _fill(obj, prefix, entries, path):
    import ember
    items = obj.items() if isinstance(obj, dict) else enumerate(obj)
    for k, v in list(items):
        key = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict) or (isinstance(v, list) and key not in entries):
            _fill(v, key, entries, path)
            continue
        if key not in entries:
            raise RuntimeError(f"Missing key in checkpoint state_dict: {key}.")
        e = entries[key]
        if isinstance(v, ember.Tensor):
            if e["kind"] != "tensor":
                raise RuntimeError(f"distributed checkpoint: {key!r} is a tensor here but not in the checkpoint")
            arr = _read_tensor(path, e, key)
            if tuple(v.shape) != arr.shape:
                raise RuntimeError(f"Size mismatch for {key}: copying a param with shape {arr.shape} from the "
                                   f"checkpoint, the shape in the current state_dict is {tuple(v.shape)}.")
            with ember.no_grad():
                v.copy_(ember.from_numpy(arr))
        else:
            obj[k] = ember.from_numpy(_read_tensor(path, e, key)) if e["kind"] == "tensor" else e["value"]


def load_state_dict(state_dict, storage_reader, process_group=None, coordinator_rank=0, no_dist=False, planner=None):
    """Deprecated torch name of load()."""
    return load(state_dict, storage_reader=storage_reader, process_group=process_group, no_dist=no_dist,
                planner=planner)
