"""torch.distributed.checkpoint (DCP): save and load a state_dict from every rank, reshardable, pickle-free.

``save(state_dict, checkpoint_id=dir)``: every rank writes its own file ``__<rank>_0.distcp`` holding its share
of each tensor (the tensor split along dim 0 into world-size row ranges, so replicated tensors are written once
in total, spread over the ranks), and rank 0 writes ``.metadata``: JSON naming, for every key, its dtype, shape
and the (file, first row, rows, byte offset) of each piece; values that are not tensors (numbers, strings,
None, bools, lists of those) are kept in the metadata itself.
``load(state_dict, checkpoint_id=dir)`` fills the given state_dict in place: each tensor is assembled from
whichever pieces cover it, so a checkpoint saved by N ranks loads into M ranks (or one process, ``no_dist=True``
or no process group).  Nothing is unpickled: the files are JSON and raw bytes, unlike torch's DCP.
"""
from .filesystem import FileSystemReader, FileSystemWriter  # noqa: F401
from .state_dict_loader import load, load_state_dict  # noqa: F401
from .state_dict_saver import save, save_state_dict  # noqa: F401

__all__ = ["save", "load", "FileSystemWriter", "FileSystemReader", "save_state_dict", "load_state_dict"]
