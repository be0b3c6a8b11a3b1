"""nn.AdaptiveLogSoftmaxWithLoss (torch/nn/modules/adaptive.py): the adaptive softmax of Grave et al. A head
Linear scores the `cutoffs[0]` frequent classes plus one logit per tail cluster; each cluster's classes are
scored by a low-rank projection (in_features -> in_features // div_value**(i+1) -> cluster size). A class's
log-probability is the head's log-softmax at the class (shortlist) or at its cluster plus the cluster's own
log-softmax at the class."""
from collections import namedtuple

import ember
from .. import functional as F
from ..functional._common import _torch_size
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """forward(input, target) -> (output, loss): the target classes' log-probabilities and their mean negative;
    log_prob(input) the full (N, n_classes) log-distribution; predict(input) its argmax per row."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **factory),
                                        Linear(hidden, self.cutoffs[i + 1] - self.cutoffs[i], bias=False, **factory)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        tdim = target_.dim()
        if tdim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{_torch_size(input_)}")
        elif tdim == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{_torch_size(input_)}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = tdim > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        batch = target.size(0)
        output = input.new_zeros(batch)
        gather = target.new_empty(batch)        # per row: the head column it reads (class or cluster)
        used = 0
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            lo, hi = bounds[i], bounds[i + 1]
            mask = (target >= lo) & (target < hi)
            rows = mask.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            if i == 0:
                gather.index_copy_(0, rows, target[mask])
            else:
                rel = target[mask] - lo
                logits = self.tail[i - 1](input.index_select(0, rows))
                gather.index_fill_(0, rows, self.shortlist_size + i - 1)
                local = F.log_softmax(logits, dim=1).gather(1, rel.unsqueeze(1))
                output.index_copy_(0, rows, local.squeeze(1))
            used += rows.numel()
        if used != batch:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output += head_logprob.gather(1, gather.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        """The (N, n_classes) log-distribution from the input and the head's logits."""
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
        for i, (start, stop) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
            cluster = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = cluster + head_logprob[:, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input):
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class per row; the full distribution is computed only for rows whose head argmax
        is a cluster."""
        head_output = self.head(input)
        output = ember.argmax(head_output, dim=1)
        outside = output >= self.shortlist_size
        if not outside.any():
            return output
        if outside.all():
            return ember.argmax(self._get_full_log_prob(input, head_output), dim=1)
        output[outside] = ember.argmax(self._get_full_log_prob(input[outside], head_output[outside]), dim=1)
        return output
