"""ReduceLROnPlateau: watch a metric and cut the rate by ``factor`` once it stops improving for more than
``patience`` steps.  It is driven by ``step(metric)`` rather than by the epoch count, so it shares only the
``get_last_lr`` / state-dict conventions of the other schedulers, not their initial step."""
import math
import warnings

from ._base import EPOCH_DEPRECATION_WARNING, LRScheduler, as_number, current_lrs, require_optimizer, write_group


class ReduceLROnPlateau(LRScheduler):
    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        require_optimizer(optimizer)
        self.optimizer = optimizer

        group_count = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != group_count:
                raise ValueError(f"expected {group_count} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * group_count

        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = current_lrs(optimizer)
        self._set_comparison(mode, threshold, threshold_mode)
        self._reset()

    # -- improvement test ----------------------------------------------------------------------------
    def _set_comparison(self, mode, threshold, threshold_mode):
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        # the worst possible value, so that the first metric always counts as an improvement
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def is_better(self, a, best):
        if self.mode == "min":
            bar = best * (1.0 - self.threshold) if self.threshold_mode == "rel" else best - self.threshold
            return a < bar
        bar = best * (self.threshold + 1.0) if self.threshold_mode == "rel" else best + self.threshold
        return a > bar

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    # -- stepping --------------------------------------------------------------------------------------
    def step(self, metrics, epoch=None):
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch

        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0   # bad epochs during cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = current_lrs(self.optimizer)

    def _reduce_lr(self, epoch):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs from when "
                    f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new param "
                    "group being added to the optimizer. Please modify the `min_lrs` field to match the length "
                    "of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, floor in zip(groups, self.min_lrs):
            old = float(as_number(group["lr"]))
            new = max(old * self.factor, floor)
            if old - new > self.eps:   # ignore reductions too small to matter
                write_group(group, "lr", new)

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_comparison(self.mode, self.threshold, self.threshold_mode)
