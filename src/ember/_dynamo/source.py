"""torch._dynamo.source: where a value came from, as a Python expression over the frame.

`L[i]` (a local, by position), `G['name']` (a global), `C[i].cell_contents` (a closure cell), and attribute /
item reads on top of those. A source marked `epoch_covered` was reached from a guarded nn.Module through module
attributes only, so its guards are re-checked only when the module-mutation epoch moved (guards.py).
"""
import sys

from .exc import Unsupported


class Source:
    epoch_covered = False      # reached from a guarded module through module attributes only

    def name(self):
        raise NotImplementedError

    def __repr__(self):
        return self.name()

    def __eq__(self, other):
        return type(self) is type(other) and self.name() == other.name()

    def __hash__(self):
        return hash(self.name())


class LocalSource(Source):
    def __init__(self, index, local_name):
        self.index, self.local_name = index, local_name

    def name(self):
        return f"L[{self.index}]"


class GlobalSource(Source):
    def __init__(self, global_name):
        self.global_name = global_name

    def name(self):
        return f"G[{self.global_name!r}]"


class ClosureSource(Source):
    def __init__(self, index):
        self.index = index

    def name(self):
        return f"C[{self.index}].cell_contents"


class AttrSource(Source):
    def __init__(self, base, attr, epoch_covered=False):
        self.base, self.attr, self.epoch_covered = base, attr, epoch_covered

    def name(self):
        return f"{self.base.name()}.{self.attr}"


def is_literal_key(key):
    """Whether `key`'s repr is a Python literal that evaluates back to an equal key (an int, a string, ...)."""
    if type(key) in (int, str, bool, float, bytes, type(None)):
        return True
    return type(key) is tuple and all(is_literal_key(k) for k in key)


def nth_value(d, i):
    """The i-th value of dict `d` (used for keys such as tensors that have no literal form; the dict's keys are
    guarded by identity and order, so position i is that key)."""
    for j, v in enumerate(d.values()):
        if j == i:
            return v
    raise KeyError(i)


class ItemSource(Source):
    """`base[key]`; for a dict key with no literal form (a tensor, an object) `base`'s i-th value, where
    `position` is the key's place in the (guarded) key order."""

    def __init__(self, base, key, epoch_covered=False, position=None):
        self.base, self.key, self.epoch_covered = base, key, epoch_covered
        self.position = position

    def name(self):
        if self.position is not None and not is_literal_key(self.key):
            return f"___modules['ember._dynamo.source'].nth_value({self.base.name()}, {self.position})"
        return f"{self.base.name()}[{self.key!r}]"


class ParamSource(ItemSource):
    """A parameter or buffer of a module: `<module>._parameters['w']` (read once per epoch)."""


class TypeSource(Source):
    def __init__(self, base):
        self.base = base
        self.epoch_covered = base.epoch_covered

    def name(self):
        return f"type({self.base.name()})"


class IterItemSource(Source):
    """The k-th item still to come of a ResumeIterator, relative to where it stands:
    `<it>.items[<it>.index + k]` (a loop resumed at every iteration reads the same sources each time)."""

    def __init__(self, base, k):
        self.base, self.k = base, k

    def name(self):
        b = self.base.name()
        return f"{b}.items[{b}.index + {self.k}]"


class ClosureItemSource(AttrSource):
    """A closure cell of an inlined function read through the function's source."""

    def __init__(self, fn_source, index):
        self.base, self.index, self.epoch_covered = fn_source, index, fn_source.epoch_covered

    def name(self):
        return f"{self.base.name()}.__closure__[{self.index}].cell_contents"


class CoveredSource(AttrSource):
    """A module read from an unguarded source, pinned by ID_MATCH: reads through it are epoch-covered."""

    def __init__(self, inner):
        self.inner = inner
        self.epoch_covered = False

    def name(self):
        return self.inner.name()


class ForeignGlobalSource(GlobalSource):
    """A global of another Python module (an inlined function's module): `__import__(mod).__dict__[name]`."""

    def __init__(self, f_globals, name):
        super().__init__(name)
        self.module_name = f_globals.get("__name__")
        if self.module_name not in sys.modules or sys.modules[self.module_name].__dict__ is not f_globals:
            raise Unsupported(f"globals of {self.module_name!r} are not a module's")

    def name(self):
        return f"___modules[{self.module_name!r}].__dict__[{self.global_name!r}]"


_LIBRARY_ROOTS = frozenset(sys.stdlib_module_names) | {"ember", "numpy", "ml_dtypes"}


def from_library_module(source):
    """Whether `source` reads a name from a library's module (ember, the standard library, numpy): such reads
    are not guarded (libraries are not patched between calls). Functions and classes read from the user's
    modules are guarded by identity, so patching `helpers.act = other` recompiles."""
    name = getattr(source, "module_name", None)
    return name is not None and name.split(".")[0] in _LIBRARY_ROOTS
