"""Schedules driven by user functions of the epoch number.

Only callable *objects* have state worth saving: their ``__dict__`` goes into the state dict, while plain
functions and lambdas are recorded as ``None`` (they are code, not state, and usually cannot be pickled)."""
import types

from ._base import LRScheduler, require_optimizer


class _FunctionSchedule(LRScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        require_optimizer(optimizer)
        count = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != count:
                raise ValueError(f"Expected {count} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * count
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        saved = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, attributes in zip(self.lr_lambdas, saved):
            if attributes is not None:
                fn.__dict__.update(attributes)


class LambdaLR(_FunctionSchedule):
    """``lr = base_lr * lr_lambda(epoch)``."""

    def get_lr(self):
        self._warn_if_outside_step()
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_FunctionSchedule):
    """``lr = previous lr * lr_lambda(epoch)`` on every step after the initial one."""

    def get_lr(self):
        self._warn_if_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return [group["lr"] for group in groups]
        return [group["lr"] * fn(self.last_epoch) for fn, group in zip(self.lr_lambdas, groups)]
