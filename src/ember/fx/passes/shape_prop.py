"""torch.fx.passes.shape_prop: ShapeProp, which runs a GraphModule and records each node's TensorMetadata."""
from typing import Any, NamedTuple

from ..interpreter import Interpreter
from ..node import map_aggregate


class TensorMetadata(NamedTuple):
    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result):
    import ember
    from ember._core.strides import is_channels_last, is_contiguous
    shape, stride = result.shape, result.stride()
    memory_format = None
    if is_contiguous(tuple(shape), tuple(stride)):
        memory_format = ember.contiguous_format
    elif len(shape) == 4 and is_channels_last(tuple(shape), tuple(stride)):
        memory_format = ember.channels_last
    return TensorMetadata(shape, result.dtype, result.requires_grad, stride, memory_format, False, {})


class ShapeProp(Interpreter):
    """Run the module on example inputs; each node gets meta['tensor_meta'] (shape, dtype, stride...)
    and meta['type']. Pass `fake_mode` to propagate with fake tensors instead of real data."""

    def __init__(self, gm, fake_mode=None):
        super().__init__(gm)
        self.fake_mode = fake_mode
        self.real_module = gm

    def run_node(self, n):
        result = super().run_node(n)
        from ember import Tensor
        found = [False]

        def extract(obj):
            if isinstance(obj, Tensor):
                found[0] = True
                return _extract_tensor_metadata(obj)
            return obj
        meta = map_aggregate(result, extract)
        if found[0]:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        if self.fake_mode is not None:
            args = [self.fake_mode.from_tensor(a) if _is_tensor(a) else a for a in args]
            with self.fake_mode:
                return super().run(*args)
        return super().run(*args)


def _is_tensor(a):
    from ember import Tensor
    return isinstance(a, Tensor)
