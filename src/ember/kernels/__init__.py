"""Layer 5: kernels. `meta/` computes output shape, dtype and strides (one truth per op, used by the
Meta backend, by fake tensors and by the cpu kernels to allocate their outputs); `cpu/` does the math
with numpy; `decompositions.py` holds CompositeImplicitAutograd kernels written in ember ops."""
