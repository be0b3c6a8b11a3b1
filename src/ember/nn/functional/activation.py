"""nn.functional's activations (torch/nn/functional.py): thin wrappers over ember's activation ops."""


import ember
from ..._core import torch_function as _tf  # noqa: E402

_TF = False      # the __torch_function__ check: kept current by _tf.register (see _core/torch_function.py)
_tf.register(globals())

__all__ = ["relu", "relu_", "sigmoid", "tanh", "gelu", "silu", "mish", "selu", "relu6", "hardsigmoid",
           "hardswish", "selu_", "softplus", "elu", "elu_", "celu", "celu_", "leaky_relu", "leaky_relu_",
           "hardtanh", "hardtanh_", "logsigmoid", "softsign", "tanhshrink", "softshrink", "hardshrink",
           "threshold", "threshold_", "glu", "prelu", "rrelu", "rrelu_"]


def relu(input, inplace=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.relu
        _r = _tf.handle_locals(relu, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember.relu_(input) if inplace else ember.relu(input)


def relu_(input):
    return ember.relu_(input)


def sigmoid(input):
    return ember.sigmoid(input)


def tanh(input):
    return ember.tanh(input)


def _act(op, op_, name):
    def f(input, inplace=False):
        if _TF:      # torch's has_torch_function check: a mode or subclass sees F.<name>
            _r = _tf.handle_locals(f, locals())
            if _r is not _tf.NOT_HANDLED:
                return _r
        return op_(input) if inplace else op(input)
    f.__name__ = f.__qualname__ = name
    return f


def gelu(input, approximate="none"):
    return ember._nn.gelu(input, approximate=approximate)


silu = _act(ember._nn.silu, ember._nn.silu_, "silu")


mish = _act(ember._nn.mish, ember._nn.mish_, "mish")


selu = _act(ember.selu, ember.selu_, "selu")


relu6 = _act(ember._nn.relu6, ember._nn.relu6_, "relu6")


hardsigmoid = _act(ember._nn.hardsigmoid, ember._nn.hardsigmoid_, "hardsigmoid")


hardswish = _act(ember._nn.hardswish, ember._nn.hardswish_, "hardswish")


selu_ = ember.selu_


for _f, _n in [(silu, "silu"), (mish, "mish"), (selu, "selu"), (relu6, "relu6"), (hardsigmoid, "hardsigmoid"),
               (hardswish, "hardswish")]:
    _f.__name__ = _f.__qualname__ = _n


def softplus(input, beta=1.0, threshold=20.0):
    return ember._nn.softplus(input, beta, threshold)


def elu(input, alpha=1.0, inplace=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.elu
        _r = _tf.handle_locals(elu, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember._nn.elu_(input, alpha) if inplace else ember._nn.elu(input, alpha)


def elu_(input, alpha=1.0):
    return ember._nn.elu_(input, alpha)


def celu(input, alpha=1.0, inplace=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.celu
        _r = _tf.handle_locals(celu, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember.celu_(input, alpha) if inplace else ember.celu(input, alpha)


def celu_(input, alpha=1.0):
    return ember.celu_(input, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.leaky_relu
        _r = _tf.handle_locals(leaky_relu, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember._nn.leaky_relu_(input, negative_slope) if inplace else ember._nn.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return ember._nn.leaky_relu_(input, negative_slope)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.hardtanh
        _r = _tf.handle_locals(hardtanh, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return ember._nn.hardtanh_(input, min_val, max_val) if inplace else ember._nn.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def logsigmoid(input):
    return ember._nn.log_sigmoid(input)


def softsign(input):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.softsign
        _r = _tf.handle_locals(softsign, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return input / (input.abs() + 1)


def tanhshrink(input):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.tanhshrink
        _r = _tf.handle_locals(tanhshrink, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return input - input.tanh()


def softshrink(input, lambd=0.5):
    return ember._nn.softshrink(input, lambd)


def hardshrink(input, lambd=0.5):
    return ember.hardshrink(input, lambd)


def threshold(input, threshold, value, inplace=False):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.threshold
        _r = _tf.handle_locals(_threshold_api, locals())   # (the parameter `threshold` hides it)
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember.threshold_(input, threshold, value) if inplace else ember.threshold(input, threshold, value)


_threshold_api = threshold
threshold.__name__ = threshold.__qualname__ = "_threshold"     # torch's F.threshold is its _threshold


def threshold_(input, threshold, value):
    return ember.threshold_(input, threshold, value)


def glu(input, dim=-1):
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.glu
        _r = _tf.handle_locals(glu, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return ember._nn.glu(input, dim)


def prelu(input, weight):
    return ember.prelu(input, weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: in training each element <= 0 gets its own slope drawn from U(lower, upper), in eval
    the slope is their mean (torch.rrelu / torch.rrelu_, one rrelu_with_noise op)."""
    if _TF:      # torch's has_torch_function check: a mode or subclass sees F.rrelu
        _r = _tf.handle_locals(rrelu, locals())
        if _r is not _tf.NOT_HANDLED:
            return _r
    return ember.rrelu_(input, lower, upper, training) if inplace else ember.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return ember.rrelu_(input, lower, upper, training, generator)
