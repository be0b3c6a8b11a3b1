"""torch._dynamo.backends.debugging: the "eager" and "aot_eager" backends.

"eager" runs the captured GraphModule as it is. "aot_eager" runs it through AOT autograd with the nop
compiler: the forward and backward aten graphs (functionalized, partitioned) execute as generated Python.
"""
from .registry import register_backend


@register_backend(name="eager", tags=("debug",))
def eager(gm, fake_tensor_inputs, **kwargs):
    if kwargs:
        raise TypeError(f"eager backend: unexpected options {sorted(kwargs)}")
    return gm.forward


@register_backend(name="aot_eager", tags=("debug",))
def aot_eager(gm, fake_tensor_inputs, fw_compiler=None, bw_compiler=None, **kwargs):
    from ember._functorch.aot_autograd import aot_module_simplified, nop
    return aot_module_simplified(gm, fake_tensor_inputs, fw_compiler=fw_compiler or nop,
                                 bw_compiler=bw_compiler or nop, **kwargs)
