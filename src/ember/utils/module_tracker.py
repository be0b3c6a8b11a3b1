"""torch.utils.module_tracker: ModuleTracker, which knows, at any point of a forward or backward pass, which
modules (by fully qualified name, `Sequential.0`) the running code is inside: `tracker.parents`.

Forward: global module pre/post forward hooks add and remove the module's name. Backward: a hook on the
module's outputs adds the name when their gradient arrives (backward enters the module), a hook on its inputs
that require grad removes it when theirs is computed (backward leaves it). torch resets `parents` when the
backward pass ends (an engine callback); ember's engine has no callbacks, so a module whose inputs need no
gradient (the first layer) is left in `parents` until the next forward starts or the tracker exits.
"""
import logging
import weakref

__all__ = ["ModuleTracker"]

logger = logging.getLogger(__name__)


def _tensors_requiring_grad(tree):
    from .._tensor import Tensor
    out, stack = [], [tree]
    while stack:
        v = stack.pop()
        if isinstance(v, Tensor):
            if v.requires_grad:
                out.append(v)
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
    return out


class _AnyGradHook:
    """Calls fn() once, when the first of `tensors` gets its gradient (torch's register_multi_grad_hook
    in mode "any"); removable."""

    def __init__(self, tensors, fn):
        self._fired = False
        self._fn = fn
        self._handles = [t.register_hook(self._hook) for t in tensors]

    def _hook(self, grad):
        if not self._fired:
            self._fired = True
            self._fn()
        return None

    def remove(self):
        for h in self._handles:
            h.remove()
        self._handles = []


class ModuleTracker:
    """`with ModuleTracker() as tracker:` ... `tracker.parents` is the set of the names of the modules the
    current op runs in, "Global" always included."""

    def __init__(self):
        self.parents = {"Global"}
        self._known_modules = weakref.WeakKeyDictionary()
        self._seen_modules = weakref.WeakSet()
        self._hooks = []
        self._in_bw = False

    @property
    def is_bw(self):
        """Whether the last module event was the backward pass's (a gradient hook) rather than a forward."""
        return self._in_bw

    def _get_mod_name(self, mod):
        if mod not in self._known_modules:
            self._known_modules[mod] = type(mod).__name__
        name = self._known_modules[mod]
        if mod not in self._seen_modules:
            for child_name, child in mod.named_children():
                self._known_modules[child] = f"{name}.{child_name}"
                self._get_mod_name(child)
            self._seen_modules.add(mod)
        return name

    def _get_append_fn(self, name, is_bw):
        def fn(*args):
            self._in_bw = is_bw
            if name in self.parents:
                logger.info("The module hierarchy tracking seems to be broken as this Module was already entered. "
                            "%s during %s", name, "backward" if is_bw else "forward")
            self.parents.add(name)
        return fn

    def _get_pop_fn(self, name, is_bw):
        def fn(*args):
            self._in_bw = is_bw
            if name in self.parents:
                self.parents.remove(name)
            else:
                logger.info("The Module hierarchy tracking is confused as we're exiting a Module that was never "
                            "entered. %s during %s", name, "backward" if is_bw else "forward")
        return fn

    def _fw_pre_hook(self, mod, input):
        if self._in_bw:             # a new forward after a backward: what backward left behind is stale
            self.parents = {"Global"}
            self._in_bw = False
        name = self._get_mod_name(mod)
        self._get_append_fn(name, False)()
        tensors = _tensors_requiring_grad(input)
        if tensors:
            self._hooks.append(_AnyGradHook(tensors, self._get_pop_fn(name, True)))

    def _fw_post_hook(self, mod, input, output):
        name = self._get_mod_name(mod)
        self._get_pop_fn(name, False)()
        tensors = _tensors_requiring_grad(output)
        if tensors:
            self._hooks.append(_AnyGradHook(tensors, self._get_append_fn(name, True)))

    def __enter__(self):
        from ..nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
        self._fw_pre_handle = register_module_forward_pre_hook(self._fw_pre_hook)
        self._fw_post_handle = register_module_forward_hook(self._fw_post_hook)
        return self

    def __exit__(self, *args):
        self._fw_pre_handle.remove()
        self._fw_post_handle.remove()
        for h in self._hooks:
            h.remove()
        self._hooks.clear()
