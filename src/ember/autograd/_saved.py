"""SavedVariable: a tensor saved for backward, with a version check (torch/csrc/autograd/saved_variable.cpp)."""
from .._tensor import INFERENCE_VC, Tensor
from . import graph as _graph

ERR_INFERENCE = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                 "mode in computation tracked by autograd. To work around this, you can make a clone to get a normal "
                 "tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")


class SavedVariable:
    __slots__ = ("data", "version", "is_output", "packed", "unpack_hook", "released", "leaf_rg", "name")

    def __init__(self, t, is_output=False):
        self.data = t
        self.is_output = is_output
        self.released = False
        self.packed = None
        self.unpack_hook = None
        self.name = None
        if not isinstance(t, Tensor):
            self.version = 0
            return
        vc = t._vc
        if vc is None:
            self.version = 0          # a counter not made yet starts at 0 when it is (no need to make it now)
        elif vc is INFERENCE_VC:
            raise RuntimeError(ERR_INFERENCE)
        else:
            self.version = vc.value
        stack = _graph.hook_state.stack
        if stack:
            pack, unpack = stack[-1]
            self.packed = pack(t)
            self.unpack_hook = unpack
            self.data = t if is_output else None
            if not is_output:
                self.leaf_rg = None

    def unpack(self, node=None):
        if self.released:
            raise RuntimeError(_graph.ERR_SECOND_BACKWARD)
        t = self.data
        if self.unpack_hook is not None:
            out = self.unpack_hook(self.packed)
            if not isinstance(out, Tensor):
                raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                                f"{type(out).__name__}")
            return out
        if not isinstance(t, Tensor):
            return t
        vc = t._vc
        cur = 0 if vc is None else vc.value
        if cur != self.version:
            fn = t.grad_fn
            where = ""
            if fn is not None:
                n = fn.name()
                where = f", which is output {t._output_nr} of {n[:-len('Backward0')] if n.endswith('Backward0') else n},"
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[{_type_str(t)} {list(t._size)}]{where} is at version {cur}; expected version "
                f"{self.version} instead. Hint: enable anomaly detection to find the operation that failed to "
                "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
        return t

    def release(self):
        self.released = True
        self.data = None
        self.packed = None


def _type_str(t):
    names = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "bfloat16": "BFloat16Tensor",
             "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor"}
    return "ember." + names.get(t.dtype.name, t.dtype.name)
