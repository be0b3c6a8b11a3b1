"""SparseAdam (torch/optim/sparse_adam.py): Adam for sparse gradients (only the rows a gradient touches are
updated, moments included).

ember has no sparse layouts, so every gradient it makes is dense, and torch's SparseAdam refuses dense gradients:
the constructor's checks, the state layout and step()'s RuntimeError for a dense gradient are torch's; the sparse
update itself has no input in ember until sparse COO tensors exist (nn.Embedding(sparse=True) gives a dense
gradient in ember, so a script pairing it with SparseAdam stops at step() with torch's message).
"""
from .optimizer import Optimizer, _closure_loss, _use_grad

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        sparse_params, complex_params = [], []
        for index, group in enumerate(self.param_groups):
            for d_index, p in enumerate(group["params"]):
                if p.is_sparse:
                    sparse_params.append([index, d_index])
                if p.is_complex():
                    complex_params.append([index, d_index])
        if sparse_params:
            raise ValueError(f"Sparse params at indices {sparse_params}: SparseAdam requires dense parameter tensors")
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not support complex "
                             "parameters")

    @_use_grad
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if not p.grad.is_sparse:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
                raise NotImplementedError("SparseAdam's update of sparse gradients: ember has no sparse tensors")
        return loss
