"""CompositeImplicitAutograd kernels, torch's `CompositeImplicitAutograd` entries of native_functions.yaml
(the C++ functions in aten/src/ATen/native/*.cpp that call other at:: ops) and, for the Python side,
torch/_decomp/decompositions.py: each op here is written in other aten ops, so autograd, modes and the
Meta backend see the underlying ops and no derivative formula is needed.

One module per family (the family names of every tree: native/<family>.yaml, kernels/*/<family>.py, ...).
Every module reaches the op namespace the same way:

    from ..._ops import ops
    aten = ops.aten

and calls `aten.<op>.<overload>(...)` (or the packet `aten.<op>(...)`, which picks the overload whose
schema binds, as torch's OpOverloadPacket does). No module here imports the public `ember` namespace.
"""
