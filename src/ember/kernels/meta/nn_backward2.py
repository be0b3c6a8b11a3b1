"""Meta functions of the nn backward kernels in nn_backward2.yaml (_ctc_loss_backward)."""
from ..common import alloc


def ctc_backward_spec(grad, log_probs, log_alpha):
    if log_probs.dim() != 3:
        raise RuntimeError(f"log_probs must be 3-D (input length, batch_size, num_labels), but got: "
                           f"{log_probs.dim()}")
    b = log_probs._size[1]
    if tuple(grad._size) != (b,):
        raise RuntimeError(f"_ctc_loss_backward: grad must have shape [{b}] (one per batch element), "
                           f"but got {list(grad._size)}")
    if log_alpha.dim() != 3 or log_alpha._size[:2] != (b, log_probs._size[0]):
        raise RuntimeError(f"_ctc_loss_backward: log_alpha must be (batch, input length, 2*max target length+1), "
                           f"but got {list(log_alpha._size)}")
    return log_probs._size, log_probs.dtype


def _ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha,
                       blank, zero_infinity=False):
    shape, dt = ctc_backward_spec(grad, log_probs, log_alpha)
    return alloc(shape, dt, log_probs.device)
