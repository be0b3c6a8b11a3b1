"""torch.Size: a tuple of ints (or SymInts, under dynamic shapes) with a torch-style repr."""
from .symint import SymInt


class Size(tuple):
    __slots__ = ()

    def __new__(cls, seq=()):
        return tuple.__new__(cls, (s if s.__class__ is SymInt else int(s) for s in seq))

    def __repr__(self):
        return f"ember.Size([{', '.join(str(s) for s in self)}])"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __reduce__(self):
        return (Size, (tuple(self),))
