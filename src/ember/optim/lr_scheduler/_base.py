"""The scheduler protocol every ember learning-rate schedule follows.

A scheduler owns a counter, ``last_epoch``, and a rule that turns the counter into one learning rate per
parameter group.  Construction performs one "initial" step so that the optimizer starts on the first value
of the schedule; every later ``step()`` advances the counter by one and writes the new rates into
``optimizer.param_groups``.

Two kinds of rule exist, and torch's numbers depend on which one a schedule uses:

* ``get_lr()`` is the *chainable* rule.  Most schedules express it as "take the rate currently in the
  group and adjust it", so several schedulers can act on one optimizer and compose.
* ``_get_closed_form_lr()`` (optional) computes the rate straight from ``base_lrs`` and ``last_epoch``.  It
  is used only when the caller passes an explicit epoch to ``step(epoch)``.

During the construction step ``_is_initial`` is True.  Rules that adjust the current rate
(exponential, polynomial, cosine, multiplicative, and linear after epoch 0) leave the rate untouched then,
so resuming with ``last_epoch=k`` does not apply epoch k+1's factor twice; event rules (step, multi-step,
constant) apply their plain rule.  ``SequentialLR`` restarts a child through ``_jump_to(0)``, which is not
an initial step and is not counted in ``_step_count``.

The persistent state is simply the instance ``__dict__`` minus the optimizer, which keeps the key set
identical to torch's so a ``state_dict()`` can travel between the two libraries.
"""
import contextlib
import functools
import warnings
import weakref

from ..._tensor import Tensor
from ..optimizer import Optimizer

__all__ = ["LRScheduler", "_LRScheduler"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from "
    "None, the closed form is used instead of the new chainable form, where available. Please open an issue "
    "if you are unable to replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose."
)

_ORDER_DOCS = "See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
_STEP_REPLACED = ("Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                  "initialization. Please, make sure to call `optimizer.step()` before `lr_scheduler.step()`. "
                  + _ORDER_DOCS)
_STEPPED_TOO_EARLY = ("Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
                      "later, you should call them in the opposite order: `optimizer.step()` before "
                      "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
                      "value of the learning rate schedule. " + _ORDER_DOCS)
_USE_GET_LAST_LR = "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."


# ----------------------------------------------------------------------------------------------- helpers
def require_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def per_group(name, optimizer, value):
    """Broadcast a scalar hyper-parameter to every param group, or validate a per-group list."""
    count = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != count:
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has {count}.")
        return list(value)
    return [value] * count


def as_number(value):
    return value.item() if isinstance(value, Tensor) else value


def write_group(group, key, value):
    """Store ``value`` under ``key``; a tensor-valued entry is updated in place so references stay valid."""
    if isinstance(group.get(key), Tensor):
        group[key].fill_(as_number(value))
    else:
        group[key] = value


def snapshot(value):
    return value.clone() if isinstance(value, Tensor) else value


def current_lrs(optimizer):
    return [snapshot(group["lr"]) for group in optimizer.param_groups]


def _track_optimizer_steps(optimizer):
    """Replace ``optimizer.step`` (on this instance only) with a version that records that it ran.

    The flag lets the first ``scheduler.step()`` notice the classic mistake of stepping the scheduler
    before the optimizer.  The replacement holds the optimizer weakly so no reference cycle is created.
    """
    original = optimizer.step
    if getattr(original, "_wrapped_by_lr_sched", False):
        return
    if getattr(original, "__self__", None) is optimizer:
        func, owner = original.__func__, weakref.ref(optimizer)

        def counted(*args, **kwargs):
            opt = owner()
            opt._opt_called = True
            return func(opt, *args, **kwargs)
    else:
        def counted(*args, **kwargs):
            optimizer._opt_called = True
            return original(*args, **kwargs)
    functools.update_wrapper(counted, original)
    counted._wrapped_by_lr_sched = True
    optimizer.step = counted


# ------------------------------------------------------------------------------------------- the base
class LRScheduler:
    """Base class: subclasses provide ``get_lr()`` and optionally ``_get_closed_form_lr()``."""

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        require_optimizer(optimizer)
        self.optimizer = optimizer
        groups = optimizer.param_groups
        if last_epoch == -1:
            for group in groups:
                group.setdefault("initial_lr", snapshot(group["lr"]))
        else:
            for index, group in enumerate(groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{index}] when resuming scheduler "
                        "with last_epoch >= 0.\nThis typically happens when:\n1. You're trying to resume "
                        "training from a checkpoint but haven't properly loaded the optimizer state\n2. You're "
                        "using last_epoch >= 0 for a fresh training run (not recommended)")
        self.base_lrs = [group["initial_lr"] for group in groups]
        self.last_epoch = last_epoch
        _track_optimizer_steps(optimizer)
        self._initial_step()

    # -- the initial step ------------------------------------------------------------------------------
    def _initial_step(self):
        """Move the optimizer onto the schedule's first value (``last_epoch`` -1 -> 0, or resume + 1)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    @contextlib.contextmanager
    def _computing_lr(self):
        self._get_lr_called_within_step = True
        try:
            yield
        finally:
            self._get_lr_called_within_step = False

    def _warn_if_outside_step(self):
        # (stacklevel 2: the warning names the scheduler's get_lr, as torch's, whose helper warns with stacklevel 2
        # from lr_scheduler.py; not the user's line)
        if not self._get_lr_called_within_step:
            warnings.warn(_USE_GET_LAST_LR, UserWarning, stacklevel=2)

    # -- public API ----------------------------------------------------------------------------------
    def get_lr(self):
        """The chainable rule: the rates for the current ``last_epoch``."""
        raise NotImplementedError

    def get_last_lr(self):
        """The rates written by the most recent ``step()``."""
        return self._last_lr

    def _check_call_order(self):
        if not getattr(self.optimizer.step, "_wrapped_by_lr_sched", False):
            warnings.warn(_STEP_REPLACED, UserWarning, stacklevel=3)
        elif not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(_STEPPED_TOO_EARLY, UserWarning, stacklevel=3)

    def step(self, epoch=None):
        if self._step_count == 1:
            self._check_call_order()
        self._step_count += 1
        if epoch is None:
            with self._computing_lr():
                self.last_epoch += 1
                new_lrs = self.get_lr()
            self._apply(new_lrs)
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
            self._jump_to(epoch)

    def _jump_to(self, epoch):
        """Set ``last_epoch`` and apply that epoch's rates (closed form when the schedule has one).

        No call-order bookkeeping happens here; SequentialLR uses this to restart a child at epoch 0."""
        with self._computing_lr():
            self.last_epoch = epoch
            closed_form = getattr(self, "_get_closed_form_lr", None)
            new_lrs = closed_form() if closed_form is not None else self.get_lr()
        self._apply(new_lrs)

    def _apply(self, new_lrs):
        for group, lr in zip(self.optimizer.param_groups, new_lrs):
            write_group(group, "lr", lr)
        self._last_lr = current_lrs(self.optimizer)

    def state_dict(self):
        """Everything the scheduler holds except the optimizer it drives."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


class _LRScheduler(LRScheduler):
    """Old name kept for code that still subclasses it."""
