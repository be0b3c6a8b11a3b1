"""torch.export: whole-module capture into an ExportedProgram (a functional aten graph, its signature and state).

`export(mod, args, kwargs)` traces non-strictly (make_fx on fake tensors, functionalized; see `_trace.py`),
`ExportedProgram` (`exported_program.py`) holds the graph and runs it again through `.module()`, the signature's
kinds are in `graph_signature.py`, `Dim` and `dynamic_shapes` in `dynamic_shapes.py`, `run_decompositions` in
`decomp.py`, `save`/`load` in `_serialize.py` (ember's own file format, not torch's .pt2).

Where ember differs from torch 2.13: torch's default export gives the "training IR" (pre-dispatch: composite ops
such as `linear` kept, mutations left in place until `run_decompositions`); ember's graph is what torch's
`ep.run_decompositions({})` gives except that composite ops are decomposed (make_fx decomposes
CompositeImplicitAutograd ops) and BatchNorm's buffer update is written out with plain ops. strict=True,
preserve_module_call_signature, draft_export, and saving dynamic-shape programs raise NotImplementedError.
"""
from ._trace import export
from ._serialize import load, save
from .decomp import default_decompositions
from .dynamic_shapes import Dim, dims
from .exported_program import ExportedProgram
from .graph_signature import ExportGraphSignature, InputKind, InputSpec, OutputKind, OutputSpec  # noqa: F401
from . import graph_signature  # noqa: F401

__all__ = ["export", "save", "load", "default_decompositions", "Dim", "dims", "ExportedProgram", "ExportGraphSignature", "InputKind",
           "InputSpec", "OutputKind", "OutputSpec", "draft_export", "export_for_training", "unflatten"]


def export_for_training(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False,
                        preserve_module_call_signature=()):
    """torch's deprecated alias of export (training IR); ember's export serves both."""
    return export(mod, args, kwargs, dynamic_shapes=dynamic_shapes, strict=strict,
                  preserve_module_call_signature=preserve_module_call_signature)


def draft_export(*args, **kwargs):
    raise NotImplementedError("ember.export.draft_export is not supported; use ember.export.export")


def unflatten(*args, **kwargs):
    raise NotImplementedError("ember.export.unflatten (restoring the module hierarchy) is not supported; "
                              "use ExportedProgram.module()")
