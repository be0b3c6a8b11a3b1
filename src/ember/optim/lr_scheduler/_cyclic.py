"""Cyclical learning rates (Smith, 2017): the rate bounces between ``base_lr`` and ``max_lr`` on a
triangle wave whose height may shrink per cycle or per iteration.  Meant to be stepped every batch."""
import math
import types
from functools import partial

from ._base import LRScheduler, per_group, require_optimizer, write_group
from ._momentum import check_momentum_support, seed_momentum_bounds, set_momentum

_BUILTIN_MODES = ("triangular", "triangular2", "exp_range")


def _constant_height(x):
    return 1.0


def _halving_height(x):
    return 1 / (2.0 ** (x - 1))


def _exponential_height(gamma, x):
    return gamma ** x


class CyclicLR(LRScheduler):
    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1):
        require_optimizer(optimizer)
        lower = per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for group, lr in zip(optimizer.param_groups, lower):
                write_group(group, "lr", lr)
        self.max_lrs = per_group("max_lr", optimizer, max_lr)

        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size

        if mode not in _BUILTIN_MODES and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._choose_height_fn()

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = check_momentum_support(optimizer)
            self.base_momentums = per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                seed_momentum_bounds(optimizer, self.base_momentums, self.max_momentums, self.use_beta1)

        # The initial step runs against the groups' initial_lr; only afterwards do the given lower
        # bounds become base_lrs (this matters when resuming or when initial_lr was already set).
        super().__init__(optimizer, last_epoch)
        self.base_lrs = lower

    def _choose_height_fn(self):
        """Pick the amplitude-scaling function of a built-in mode (kept out of the state dict)."""
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._height_fn, self.scale_mode = _constant_height, "cycle"
        elif self.mode == "triangular2":
            self._height_fn, self.scale_mode = _halving_height, "cycle"
        elif self.mode == "exp_range":
            self._height_fn, self.scale_mode = partial(_exponential_height, self.gamma), "iterations"

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._height_fn(x)

    def get_lr(self):
        self._warn_if_outside_step()
        t = self.last_epoch
        cycle = math.floor(1 + t / self.total_size)
        position = 1.0 + t / self.total_size - cycle          # in [0, 1) within the current cycle
        if position <= self.step_ratio:
            fraction = position / self.step_ratio             # rising edge
        else:
            fraction = (position - 1) / (self.step_ratio - 1)  # falling edge
        height = self.scale_fn(cycle if self.scale_mode == "cycle" else t)

        lrs = [low + (high - low) * fraction * height for low, high in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, low, high in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                set_momentum(group, high - (high - low) * fraction * height, self.use_beta1)
        return lrs

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items()
                 if key not in ("optimizer", "_height_fn", "_scale_fn_custom")}
        custom = self._scale_fn_custom
        state["_scale_fn_custom"] = (custom.__dict__.copy()
                                     if custom is not None and not isinstance(custom, types.FunctionType)
                                     else None)
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        custom_attributes = state.pop("_scale_fn_custom", None)
        self.__dict__.update(state)
        if custom_attributes is not None and self._scale_fn_custom is not None:
            self._scale_fn_custom.__dict__.update(custom_attributes)
        self._choose_height_fn()
