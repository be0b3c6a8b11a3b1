"""Meta function for _ctc_loss: per-sample negative log likelihood (B,) and log_alpha (B, T, 2*S+1)."""
from ..common import alloc


def ctc_spec(log_probs, targets, input_lengths, target_lengths, blank):
    if log_probs.dim() != 3:
        raise RuntimeError(f"log_probs must be 3-D (batch_size, input length, num_labels), but got: "
                           f"{log_probs.dim()}")
    t, b, c = log_probs._size
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != b:
        raise RuntimeError(f"input_lengths must be of size batch_size, but got: {len(input_lengths)}")
    if len(target_lengths) != b:
        raise RuntimeError(f"target_lengths must be of size batch_size, but got: {len(target_lengths)}")
    for i, il in enumerate(input_lengths):
        if il > t:
            raise RuntimeError(f"Expected input_lengths to have value at most {t}, but got value {il} (while "
                               f"checking arguments for ctc_loss_cpu)")
    s = max([int(x) for x in target_lengths], default=0)
    return (b,), (b, t, 2 * s + 1), log_probs.dtype


def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
    nll, la, dt = ctc_spec(log_probs, targets, input_lengths, target_lengths, blank)
    return alloc(nll, dt, log_probs.device), alloc(la, dt, log_probs.device)


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
