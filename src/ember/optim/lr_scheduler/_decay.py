"""Schedules that only ever shrink the rate: at fixed intervals, at milestones, every epoch, or along a
polynomial.  Each chainable rule multiplies the group's current rate by the factor for this epoch; the
closed forms are the same curves written against ``base_lrs``."""
from bisect import bisect_right
from collections import Counter

from ._base import LRScheduler


def _unchanged(scheduler):
    return [group["lr"] for group in scheduler.optimizer.param_groups]


def _scaled(scheduler, factor):
    return [group["lr"] * factor for group in scheduler.optimizer.param_groups]


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` once every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        epoch = self.last_epoch
        if epoch == 0 or epoch % self.step_size != 0:
            return _unchanged(self)
        return _scaled(self, self.gamma)

    def _get_closed_form_lr(self):
        decays = self.last_epoch // self.step_size
        return [base * self.gamma ** decays for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` each time ``last_epoch`` reaches a milestone (repeats count twice)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        hits = self.milestones.get(self.last_epoch, 0)
        if hits == 0:
            return _unchanged(self)
        return _scaled(self, self.gamma ** hits)

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        if self._is_initial:
            return _unchanged(self)
        return _scaled(self, self.gamma)

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay to zero over ``total_iters`` epochs as ``(1 - t / total_iters) ** power``, then hold."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        t, total = self.last_epoch, self.total_iters
        if self._is_initial or t > total:
            return _unchanged(self)
        # ratio of the curve at t to the curve at t - 1
        ratio = ((1.0 - t / total) / (1.0 - (t - 1) / total)) ** self.power
        return _scaled(self, ratio)

    def _get_closed_form_lr(self):
        remaining = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * remaining ** self.power for base in self.base_lrs]
