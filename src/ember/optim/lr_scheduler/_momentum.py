"""Momentum cycling shared by CyclicLR and OneCycleLR.

When the learning rate is high the momentum is lowered, and vice versa.  SGD-like optimizers expose it as
``group["momentum"]``; Adam-like ones as the first coefficient of ``group["betas"]`` ("beta1")."""


def check_momentum_support(optimizer):
    """Return True when the optimizer keeps momentum in ``betas`` rather than ``momentum``."""
    defaults = optimizer.defaults
    if "momentum" not in defaults and "betas" not in defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    return "betas" in defaults


def set_momentum(group, value, use_beta1):
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def seed_momentum_bounds(optimizer, base_momentums, max_momentums, use_beta1):
    """Start every group at its maximum momentum and remember both bounds in the group."""
    for group, low, high in zip(optimizer.param_groups, base_momentums, max_momentums):
        set_momentum(group, high, use_beta1)
        group["max_momentum"] = high
        group["base_momentum"] = low
