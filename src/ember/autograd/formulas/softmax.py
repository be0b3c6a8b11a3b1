"""Backward helpers of softmax/log_softmax (torch's FunctionsManual.cpp): the derivatives of
_softmax_backward_data and _log_softmax_backward_data (double backward)."""

__all__ = ["log_softmax_double_backward_grad_output", "log_softmax_double_backward_output",
           "softmax_backward_data_", "softmax_double_backward"]


def softmax_double_backward(grad, grad_output, output, dim):
    """d/d(output) of <grad, output * (grad_output - sum(grad_output * output))>."""
    s = (grad_output * output).sum(dim, keepdim=True)
    return grad * (grad_output - s) - grad_output * (grad * output).sum(dim, keepdim=True)


def softmax_backward_data_(grad, output, dim):
    """The softmax Jacobian is symmetric: the grad_output derivative is the same backward."""
    return output * (grad - (grad * output).sum(dim, keepdim=True))


def log_softmax_double_backward_grad_output(grad, output, dim):
    """d/d(grad_output) of <grad, grad_output - exp(output) * sum(grad_output)>."""
    return grad - (grad * output.exp()).sum(dim, keepdim=True)


def log_softmax_double_backward_output(grad, grad_output, output, dim):
    """d/d(output) of <grad, grad_output - exp(output) * sum(grad_output)>."""
    return -(grad * output.exp()) * grad_output.sum(dim, keepdim=True)
