"""torch.fx.tensor_type: the gradual tensor types of fx's type checker (TensorType, Dyn) and their relations.

`TensorType((1, Dyn, 3))` is a tensor type by its dims, each an int or `Dyn` (unknown). `is_consistent` (~) and
`is_more_precise` (<=) are the relations of gradual typing. torch also treats unification variables
(torch.fx.experimental.unification.Var) as consistent with anything; ember has no unification package, so
there are none to meet here.
"""

__all__ = ["Dyn", "TensorType", "is_consistent", "is_more_precise"]


class TensorType:
    """A type for tensors: a sequence of dims (ints or Dyn). `TensorType[1, 2, Dyn]` builds one too."""

    def __init__(self, dim):
        self.__origin__ = TensorType
        self.__args__ = dim

    @property
    def dims(self):
        return self.__args__

    def __repr__(self):
        return f"TensorType[{self.dims}]"

    def __eq__(self, other):
        return isinstance(other, self.__class__) and list(self.dims) == list(other.dims)

    __hash__ = None            # mutable-looking value type, unhashable as torch's (it defines __eq__ only)

    @staticmethod
    def __class_getitem__(*args):
        if len(args) == 1 and isinstance(args[0], tuple):
            args = args[0]
        return TensorType(tuple(args))


class _DynType:
    """The absence of type information (a dim or a whole type that is not known)."""

    def __init__(self):
        self.__name__ = "_DynType"

    def __eq__(self, other):
        return isinstance(other, self.__class__)

    __hash__ = None

    def __str__(self):
        return "Dyn"

    def __repr__(self):
        return "Dyn"


Dyn = _DynType()


def is_consistent(t1, t2):
    """t1 ~ t2: equal, or either is Dyn, or tensor types of one rank whose dims are pairwise consistent
    (reflexive and symmetric, not transitive)."""
    if t1 == t2 or t1 == Dyn or t2 == Dyn:
        return True
    if isinstance(t1, TensorType) and isinstance(t2, TensorType):
        return len(t1.dims) == len(t2.dims) and all(is_consistent(a, b) for a, b in zip(t1.dims, t2.dims))
    return False


def is_more_precise(t1, t2):
    """t1 <= t2: equal, or t2 is Dyn, or tensor types of one rank whose dims are pairwise more precise
    (reflexive and transitive)."""
    if t1 == t2 or isinstance(t2, _DynType):
        return True
    if isinstance(t1, TensorType) and isinstance(t2, TensorType):
        return len(t1.dims) == len(t2.dims) and all(is_more_precise(a, b) for a, b in zip(t1.dims, t2.dims))
    return False
