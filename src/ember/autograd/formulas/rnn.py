"""Backward helpers of the fused recurrent cells (torch's derivatives.yaml entries of _thnn_fused_lstm_cell and
_thnn_fused_gru_cell): the fused backward kernel when nothing records, the differentiable composite under
create_graph."""
from ..._grad_mode import is_grad_enabled
from ...kernels.decompositions.rnn import rnn_layer_differentiable_backward
from ._common import _aten

__all__ = ["fused_gru_cell_backward_", "fused_lstm_cell_backward_", "mkldnn_rnn_layer_backward_"]


def fused_lstm_cell_backward_(grads, input_gates, hidden_gates, input_bias, hidden_bias, cx, cy, workspace):
    grad_hy, grad_cy = grads[0], grads[1]
    if is_grad_enabled():
        return _aten()._thnn_differentiable_lstm_cell_backward.default(grad_hy, grad_cy, input_gates, hidden_gates,
                                                                        input_bias, hidden_bias, cx, cy)
    return _aten()._thnn_fused_lstm_cell_backward.default(grad_hy, grad_cy, cx, cy, workspace, input_bias is not None)


def fused_gru_cell_backward_(grad, input_gates, hidden_gates, hx, input_bias, hidden_bias, workspace):
    if grad is None:
        return None, None, None, None, None
    if is_grad_enabled():
        return _aten()._thnn_differentiable_gru_cell_backward.default(grad, input_gates, hidden_gates, hx,
                                                                       input_bias, hidden_bias)
    return _aten()._thnn_fused_gru_cell_backward.default(grad, workspace, input_bias is not None)


def mkldnn_rnn_layer_backward_(grads, input, weight0, weight1, weight2, weight3, hx_, cx_, output, hy, cy, workspace,
                               reverse, batch_sizes, mode, hidden_size, num_layers, has_biases, bidirectional,
                               batch_first, train):
    """The layer's backward kernel; under create_graph the same backward written step by step in ember ops (the
    fused cells' differentiable backwards), so it can be differentiated again."""
    grad_output, grad_hy, grad_cy = grads[0], grads[1], grads[2]
    if grad_output is None and grad_hy is None and grad_cy is None:
        return (None,) * 7
    if is_grad_enabled():
        return rnn_layer_differentiable_backward(input, weight0, weight1, weight2, weight3, hx_, cx_,
                                                         grad_output, grad_hy, grad_cy, reverse, mode,
                                                         has_biases, batch_first)
    return _aten().mkldnn_rnn_layer_backward.default(input, weight0, weight1, weight2, weight3, hx_, cx_, output, hy,
                                                     cy, grad_output, grad_hy, grad_cy, reverse, mode, hidden_size,
                                                     num_layers, has_biases, train, bidirectional, batch_sizes,
                                                     batch_first, workspace)
