"""Schedulers built from other schedulers that share one optimizer.

* ``SequentialLR`` hands control from one scheduler to the next at milestone epochs.
* ``ChainedScheduler`` steps all of them every time, so their chainable rules compose multiplicatively.

The state dict nests each child's state dict under ``_schedulers``."""
from bisect import bisect_right

from ._base import LRScheduler
from ._plateau import ReduceLROnPlateau


def _validate_children(owner, optimizer, schedulers):
    for index, child in enumerate(schedulers):
        if not hasattr(child, "optimizer"):
            raise TypeError(f"{owner} at index {index} should have `optimizer` as its attribute.")
        if isinstance(child, ReduceLROnPlateau):
            raise ValueError(f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                             f"kwargs to be specified when calling `step`, but got one at index {index} in the "
                             "given schedulers sequence.")
        if optimizer != child.optimizer:
            raise ValueError(f"{owner} expects all schedulers to belong to the same optimizer, but got scheduler "
                             f"{child.__class__.__name__} at index {index} has {child.optimizer}, which is "
                             f"different from {optimizer.__class__.__name__}.")


class _Composite(LRScheduler):
    def state_dict(self):
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [child.state_dict() for child in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        children = state.pop("_schedulers")
        self.__dict__.update(state)
        for child, child_state in zip(self._schedulers, children):
            child.load_state_dict(child_state)


class SequentialLR(_Composite):
    """Use ``schedulers[i]`` between ``milestones[i-1]`` and ``milestones[i]``.  On reaching a milestone
    the next scheduler restarts from its own epoch 0 (closed form where it has one)."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError("SequentialLR expects at least one scheduler, but got no scheduler.")
        _validate_children("SequentialLR", optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer

        # Building the children already stepped each of them once and changed the rates.  Put the rates
        # back, rewind every child by that step, and let only the first child take its initial step.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self._rewind(schedulers)
        schedulers[0]._initial_step()
        self._last_lr = schedulers[0].get_last_lr()

    @classmethod
    def _rewind(cls, schedulers):
        for child in schedulers:
            if isinstance(child, SequentialLR):
                cls._rewind(child._schedulers)
            elif hasattr(child, "last_epoch"):
                child.last_epoch -= 1

    def step(self):
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        active = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            # the incoming scheduler restarts at its own epoch 0 (not counted as one of its steps)
            active._jump_to(0)
        else:
            active.step()
        self._last_lr = active.get_last_lr()


class ChainedScheduler(_Composite):
    """Step every scheduler, in order, on each ``step()``."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError("ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _validate_children("ChainedScheduler", optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = [group["lr"] for group in schedulers[-1].optimizer.param_groups]

    def step(self):
        for child in self._schedulers:
            child.step()
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]
