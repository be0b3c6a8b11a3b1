"""cpu runtime support, the counterpart of ATen's `Parallel.h` / `cpu/` utilities: what the cpu kernels
run on rather than what they compute.

- `pool.py`: the thread pool (`run_parts`, `split_run`).
- `clib.py`: the C kernels of `kernels/cpu/csrc/`, built by `ember._cc` and handed out as ctypes functions.
- `rowblocks.py`: cache-sized row blocks for the memory-bound row kernels (softmax, norms, losses).
- `blas.py`: OpenBLAS held at one thread while a kernel runs matmuls on the pool.
- `arrays.py`: numpy glue (wrap a result, the array to compute on, a loss reduction).
"""
