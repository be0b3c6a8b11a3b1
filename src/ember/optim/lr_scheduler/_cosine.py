"""Cosine annealing (SGDR, Loshchilov & Hutter): the rate follows half a cosine from ``base_lr`` down to
``eta_min``.  ``CosineAnnealingLR`` keeps going (the curve rises again after ``T_max``), computed
recursively from the group's current rate; ``CosineAnnealingWarmRestarts`` jumps back to ``base_lr`` at the
end of each period, computed in closed form."""
import math

from ._base import LRScheduler


def _half_cosine(eta_min, eta_max, fraction):
    return eta_min + (eta_max - eta_min) * (1 + math.cos(math.pi * fraction)) / 2


class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        groups = self.optimizer.param_groups
        t, period, floor = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return [group["lr"] for group in groups]
        if (t - 1 - period) % (2 * period) == 0:
            # the previous epoch sat exactly at the bottom of the curve, where the ratio below is 0 / 0;
            # climb by the closed form's first increment instead
            rise = (1 - math.cos(math.pi / period)) / 2
            return [group["lr"] + (base - floor) * rise for base, group in zip(self.base_lrs, groups)]
        ratio = (1 + math.cos(math.pi * t / period)) / (1 + math.cos(math.pi * (t - 1) / period))
        return [floor + (group["lr"] - floor) * ratio for group in groups]

    def _get_closed_form_lr(self):
        return [_half_cosine(self.eta_min, base, self.last_epoch / self.T_max) for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Periods of ``T_0``, ``T_0 * T_mult``, ``T_0 * T_mult**2``, ...; ``T_cur`` counts epochs (possibly
    fractional when ``step(epoch)`` is given a float) since the last restart, ``T_i`` is the current period."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        return [_half_cosine(self.eta_min, base, self.T_cur / self.T_i) for base in self.base_lrs]

    def _locate(self, epoch):
        """Set ``T_i`` and ``T_cur`` for an absolute (possibly fractional) epoch."""
        if epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            # periods grow geometrically: restart k happens at T_0 * (T_mult**k - 1) / (T_mult - 1)
            k = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult ** k - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult ** k

    def step(self, epoch=None):
        """Advance one epoch, or jump to ``epoch`` (fractions allowed, e.g. ``epoch + batch / n_batches``)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            self._locate(epoch)
        self.last_epoch = math.floor(epoch)
        with self._computing_lr():
            new_lrs = self.get_lr()
        self._apply(new_lrs)
