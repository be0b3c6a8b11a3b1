"""Warm-up schedules: start from a fraction of the base rate and return to (a multiple of) it."""
from ._base import LRScheduler


class ConstantLR(LRScheduler):
    """Run at ``factor * base_lr`` until ``total_iters``, then at the full rate."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in groups]
        if self.last_epoch == self.total_iters:
            return [group["lr"] * (1.0 / self.factor) for group in groups]
        return [group["lr"] for group in groups]

    def _get_closed_form_lr(self):
        finished = self.last_epoch >= self.total_iters
        return [base * (self.factor + finished * (1 - self.factor)) for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Move the multiplier linearly from ``start_factor`` to ``end_factor`` over ``total_iters`` epochs."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        groups = self.optimizer.param_groups
        t = self.last_epoch
        if t == 0:
            return [group["lr"] * self.start_factor for group in groups]
        if self._is_initial or t > self.total_iters:
            return [group["lr"] for group in groups]
        # multiplier(t) / multiplier(t - 1), with multiplier(t) = start + (end - start) * t / total
        span = self.end_factor - self.start_factor
        ratio = 1.0 + span / (self.total_iters * self.start_factor + (t - 1) * span)
        return [group["lr"] * ratio for group in groups]

    def _get_closed_form_lr(self):
        progress = min(self.total_iters, self.last_epoch) / self.total_iters
        multiplier = self.start_factor + (self.end_factor - self.start_factor) * progress
        return [base * multiplier for base in self.base_lrs]
