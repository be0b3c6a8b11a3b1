"""torch._inductor: ember's code generator for CPU, the default backend of `ember.compile`.

An aten graph from AOT autograd is lowered to a loop-level IR (`ir.py`, `lowering.py`, `graph.py`), its
buffers are grouped into fused loop nests (`scheduler.py`), each group becomes a C function
(`codegen/cpp.py`) and the graph a Python wrapper that allocates buffers, calls one C entry per run of
kernels and the extern ops between them (`codegen/wrapper.py`); `compile_fx.py` ties it to AOT autograd and
falls back to the fx interpreter, with a warning, when gcc fails. `EMBER_LOGS=output_code` prints the C and
the wrapper of every compiled graph.
"""
