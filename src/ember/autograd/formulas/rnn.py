"""Backward helpers of the fused recurrent cells (torch's derivatives.yaml entries of _thnn_fused_lstm_cell and
_thnn_fused_gru_cell): the fused backward kernel when nothing records, the differentiable composite under
create_graph."""
from ..._grad_mode import is_grad_enabled
from ._common import _aten

__all__ = ["fused_gru_cell_backward_", "fused_lstm_cell_backward_"]


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
