"""torch._dynamo.variables.lists + dicts + iter: lists, tuples, dicts and iterators of trackers."""
from .base import VariableTracker


class BaseListVariable(VariableTracker):
    def __init__(self, items, source=None):
        self.items = list(items)
        self.source = source
        self.mutated = False

    def is_python_constant(self):
        return all(i.is_python_constant() for i in self.items)

    def as_python_constant(self):
        return self.python_type()(i.as_python_constant() for i in self.items)


class ListVariable(BaseListVariable):
    def python_type(self):
        return list


class TupleVariable(BaseListVariable):
    def __init__(self, items, source=None, tuple_type=tuple):
        super().__init__(items, source)
        self.tuple_type = tuple_type

    def python_type(self):
        return self.tuple_type

    def as_python_constant(self):
        vals = [i.as_python_constant() for i in self.items]
        return tuple(vals) if self.tuple_type is tuple else self.tuple_type(vals)


class DictVariable(VariableTracker):
    """A dict with constant keys; `items` maps the Python key to a tracker."""

    def __init__(self, items, source=None, dict_type=dict):
        self.items = dict(items)
        self.source = source
        self.dict_type = dict_type
        self.mutated = False

    def python_type(self):
        return self.dict_type


class IteratorVariable(VariableTracker):
    """An iterator over a known list of trackers (lists, tuples, ranges, zip, enumerate, dict keys...)."""

    def __init__(self, items):
        self.items = list(items)
        self.index = 0

    def next(self):
        if self.index >= len(self.items):
            return None
        v = self.items[self.index]
        self.index += 1
        return v

    def remaining(self):
        return self.items[self.index:]


class ResumeIteratorVariable(IteratorVariable):
    """A loop's iterator handed to a resume function (a ResumeIterator read from `source`). Items are read
    lazily, each through a source relative to the iterator's position, and the guards only say how many items
    are left as far as the capture looked (more than k, or exactly k when it ran out): so the resume function
    of a loop that breaks at every iteration matches the same cache entry at each iteration."""

    def __init__(self, source, n_left, wrap_item, guards):
        super().__init__([])
        self.source, self.n_left, self.wrap_item, self.guards = source, n_left, wrap_item, guards

    def _left(self, op, k):
        s = self.source.name()
        self.guards.expr_guard("ITER_LEFT", f"len({s}.items) - {s}.index {op} {k}")

    def _fetch(self, k):
        while len(self.items) <= k < self.n_left:
            self._left(">", len(self.items))
            self.items.append(self.wrap_item(len(self.items)))

    def next(self):
        if self.index >= self.n_left:
            self._left("==", self.index)
            return None
        self._fetch(self.index)
        v = self.items[self.index]
        self.index += 1
        return v

    def remaining(self):
        self._fetch(self.n_left - 1)
        self._left("==", self.n_left)
        return self.items[self.index:]
