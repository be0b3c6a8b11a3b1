"""torch/_inductor/codegen: the C kernel generator (`cpp.py`) and the Python wrapper generator (`wrapper.py`)."""
