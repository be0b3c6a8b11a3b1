"""Tuple helpers and the DDP state-dict prefix helper (torch/nn/modules/utils.py)."""
import collections.abc
from itertools import repeat


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")


def _reverse_repeat_tuple(t, n):
    """(1, 2) , 2 -> (2, 2, 1, 1): the F.pad layout of per-dim conv padding."""
    return tuple(x for x in reversed(t) for _ in range(n))


def consume_prefix_in_state_dict_if_present(state_dict, prefix):
    """Strip `prefix` from every key of `state_dict` that starts with it, in place (a checkpoint saved from a
    DataParallel/DistributedDataParallel wrapper has 'module.' in front of each key). The `_metadata` that
    state_dict() attaches is renamed the same way; its entry named like the prefix without its dots (the
    wrapped module's own, e.g. 'module') becomes the root entry '', replacing the wrapper's."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata.keys()):
            if key and (key == prefix.replace(".", "") or key.startswith(prefix)):
                metadata[key[len(prefix):]] = metadata.pop(key)
