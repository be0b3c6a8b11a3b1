"""ember.autograd: reverse-mode automatic differentiation (torch/autograd/__init__.py).

Forward ops record Nodes at the Autograd dispatch key (generated from native/derivatives.yaml);
`backward` / `grad` run the engine over the recorded graph."""
from .._core.unimplemented import missing_attribute as _missing_attribute
from .._grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled  # noqa: F401
from .._core.tensor_impl import TensorImpl as Tensor
from . import graph, anomaly_mode  # noqa: F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly, is_anomaly_enabled, is_anomaly_check_nan_enabled  # noqa: F401
from ._backward import backward, grad  # noqa: F401
from .function import Function, once_differentiable, FunctionCtx  # noqa: F401
from .gradcheck import gradcheck, gradgradcheck, GradcheckError  # noqa: F401

Variable = Tensor

__all__ = ["Variable", "Function", "backward", "grad", "gradcheck", "gradgradcheck", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "detect_anomaly", "set_detect_anomaly", "graph"]


from . import functional, grad_mode, variable  # noqa: F401,E402  (torch.autograd.<submodule> paths)
from .grad_mode import set_multithreading_enabled  # noqa: F401,E402


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
