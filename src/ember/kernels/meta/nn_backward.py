"""Meta functions for the nn backward ops: every gradient has the shape/dtype of the tensor it is
the gradient of (output_mask=False entries are undefined -> None)."""
from ..common import alloc


def _like(t):
    return alloc(t._size, t.dtype, t.device)


def _softmax_backward_data(grad_output, output, dim, input_dtype):
    return _like(grad_output)


_log_softmax_backward_data = _softmax_backward_data


def convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):
    gb = alloc(tuple(bias_sizes), grad_output.dtype, grad_output.device) if bias_sizes is not None and \
        output_mask[2] else None
    return (_like(input) if output_mask[0] else None, _like(weight) if output_mask[1] else None, gb)


def native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask):
    return (_like(input) if output_mask[0] else None,
            _like(weight) if output_mask[1] and weight is not None else None,
            _like(bias) if output_mask[2] and bias is not None else None)


def native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train,
                               eps, output_mask):
    c = input._size[1]
    return (_like(input) if output_mask[0] else None,
            alloc((c,), input.dtype, input.device) if output_mask[1] else None,
            alloc((c,), input.dtype, input.device) if output_mask[2] else None)


def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    return _like(self)


def avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                        divisor_override):
    return _like(self)


def _adaptive_avg_pool2d_backward(grad_output, self):
    return _like(self)


def embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    return alloc((num_weights, grad_output._size[-1]), grad_output.dtype, grad_output.device)


def nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight):
    return _like(self)


nll_loss2d_backward = nll_loss_backward


def mse_loss_backward(grad_output, self, target, reduction):
    return _like(self)


def native_dropout_backward(grad_output, mask, scale):
    return _like(grad_output)


def native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask):
    return (_like(input) if output_mask[0] else None,
            alloc((C,), input.dtype, input.device) if output_mask[1] else None,
            alloc((C,), input.dtype, input.device) if output_mask[2] else None)
