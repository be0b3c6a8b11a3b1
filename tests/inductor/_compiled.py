"""Helpers of the inductor tests: compile a function with the "inductor" backend and keep what was generated."""
import ember
from ember._inductor.compile_fx import compile_fx, compile_fx_inner


class Compiled:
    """ember.compile(fn) through compile_fx, recording every compiled graph's module (C, wrapper, counts)."""

    def __init__(self, fn, **compile_kwargs):
        """compile_kwargs: more arguments of ember.compile (dynamic=True)."""
        self.calls = []

        def inner(gm, example_inputs):
            c = compile_fx_inner(gm, example_inputs)
            self.calls.append(c)
            return c
        self.fn = ember.compile(fn, backend=lambda gm, ex: compile_fx(gm, ex, inner_compile=inner), **compile_kwargs)

    def __call__(self, *args):
        return self.fn(*args)

    @property
    def modules(self):
        return [c._ember_module for c in self.calls if hasattr(c, "_ember_module")]

    def kernels(self):
        """Kernels per compiled graph."""
        return [m.n_kernels for m in self.modules]

    def source(self):
        return "\n".join(m.c_source for m in self.modules)


def fresh_caches():
    """Body of each test module's autouse fixture: compiled-code caches of ember.compile start empty, and the
    graph-level disk cache is off (a test counting lowered graphs or kernels must see them lowered, whatever an
    earlier run stored); test_fxgraph_cache.py turns it on where it tests it."""
    from ember._inductor import config
    ember._dynamo.reset()
    with config.patch(fx_graph_cache=False):
        yield
    ember._dynamo.reset()
