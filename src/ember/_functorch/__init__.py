"""torch._functorch: ahead-of-time autograd (aot_autograd), the graph partitioners and functionalization."""
