"""The 1cycle policy (Smith & Topin, "Super-Convergence"): warm up from ``max_lr / div_factor`` to
``max_lr``, then anneal to ``initial_lr / final_div_factor``; momentum moves the opposite way.

The schedule is a list of phases.  Each phase names the group keys it interpolates between and the
(inclusive) step at which it ends, so the whole plan is plain data and lives in the state dict."""
import math

from ._base import LRScheduler, per_group, require_optimizer
from ._momentum import check_momentum_support, seed_momentum_bounds, set_momentum


def _cosine_interp(start, end, fraction):
    return end + (start - end) / 2.0 * (math.cos(math.pi * fraction) + 1)


def _linear_interp(start, end, fraction):
    return (end - start) * fraction + start


_INTERPOLATORS = {"cos": _cosine_interp, "linear": _linear_interp}


def _phase(end_step, lr_from, lr_to, momentum_from, momentum_to):
    return {"end_step": end_step, "start_lr": lr_from, "end_lr": lr_to,
            "start_momentum": momentum_from, "end_momentum": momentum_to}


def _positive_int(name, value):
    if value <= 0 or not isinstance(value, int):
        raise ValueError(f"Expected positive integer {name}, but got {value}")
    return value


class OneCycleLR(LRScheduler):
    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25.0, final_div_factor=1e4, three_phase=False, last_epoch=-1):
        require_optimizer(optimizer)
        self.optimizer = optimizer

        if total_steps is not None:
            self.total_steps = _positive_int("total_steps", total_steps)
        elif epochs is not None and steps_per_epoch is not None:
            self.total_steps = (_positive_int("epochs", epochs)
                                * _positive_int("steps_per_epoch", steps_per_epoch))
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")

        warmup_end = float(pct_start * self.total_steps) - 1
        last = self.total_steps - 1
        if three_phase:
            self._schedule_phases = [
                _phase(warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr",
                       "base_momentum", "max_momentum"),
                _phase(last, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            self._schedule_phases = [
                _phase(warmup_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(last, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]

        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in _INTERPOLATORS:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy

        peaks = per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for group, peak in zip(optimizer.param_groups, peaks):
                group["initial_lr"] = peak / div_factor
                group["max_lr"] = peak
                group["min_lr"] = group["initial_lr"] / final_div_factor

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = check_momentum_support(optimizer)
            lows = per_group("base_momentum", optimizer, base_momentum)
            highs = per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                seed_momentum_bounds(optimizer, lows, highs, self.use_beta1)

        super().__init__(optimizer, last_epoch)

    def _interpolate(self, start, end, fraction):
        return _INTERPOLATORS[self._anneal_func_type](start, end, fraction)

    def get_lr(self):
        self._warn_if_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is "
                             f"{self.total_steps}")
        phases = self._schedule_phases
        lrs = []
        for group in self.optimizer.param_groups:
            phase_start = 0.0
            for index, phase in enumerate(phases):
                if step <= phase["end_step"] or index == len(phases) - 1:
                    break
                phase_start = phase["end_step"]
            fraction = (step - phase_start) / (phase["end_step"] - phase_start)
            lrs.append(self._interpolate(group[phase["start_lr"]], group[phase["end_lr"]], fraction))
            if self.cycle_momentum:
                momentum = self._interpolate(group[phase["start_momentum"]], group[phase["end_momentum"]],
                                             fraction)
                set_momentum(group, momentum, self.use_beta1)
        return lrs
