"""RemovableHandle (torch/utils/hooks.py): removes a hook from the OrderedDict(s) it was registered in."""
import weakref
from collections import OrderedDict


# The module-mutation epoch: bumped by every nn.Module change a compiled graph can depend on (setattr/delattr,
# registrations, hooks and their removal, train()/eval(), _apply, load_state_dict). ember._dynamo guards a
# module tree with one `EPOCH[0] == e` check instead of one check per attribute read.
MUTATION_EPOCH = [0]


class RemovableHandle:
    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        MUTATION_EPOCH[0] += 1
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        MUTATION_EPOCH[0] += 1
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra = ref()
            if extra is not None and self.id in extra:
                del extra[self.id]

    def __getstate__(self):
        if self.extra_dict_ref is None:
            return (self.hooks_dict_ref(), self.id)
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state):
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        self.extra_dict_ref = () if len(state) < 3 else tuple(
            weakref.ref(OrderedDict() if d is None else d) for d in state[2])

    def __enter__(self):
        return self

    def __exit__(self, type, value, tb):
        self.remove()


def add_hook(hooks_dict, hook):
    """Register `hook` in `hooks_dict` and return the handle that removes it."""
    handle = RemovableHandle(hooks_dict)
    hooks_dict[handle.id] = hook
    return handle
