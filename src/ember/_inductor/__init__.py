"""torch._inductor: the C code generator behind ember.compile's default backend ("inductor")."""
