"""torch._dynamo.backends.inductor: the "inductor" backend (ember.compile's default), which compiles each
captured graph to C through ember._inductor (imported on first use, so importing ember._dynamo stays cheap)."""
from .registry import register_backend


@register_backend(name="inductor")
def inductor(gm, example_inputs, **kwargs):
    from ember._inductor.compile_fx import compile_fx
    return compile_fx(gm, example_inputs, **kwargs)
