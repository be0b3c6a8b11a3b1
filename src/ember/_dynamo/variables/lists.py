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
