"""``Record``: a tiny frozen-dataclass stand-in.

No PyTorch counterpart (torchgen uses ``@dataclass(frozen=True)``). We hand-roll the same
behaviour -- keyword/positional ``__init__`` with defaults, ``__post_init__`` hook, ``__eq__``,
``__hash__``, ``__repr__``, immutability, ``replace(**changes)`` (also ``copy.replace``) --
because importing ``dataclasses`` (which pulls in ``inspect``) and exec-generating methods for
every class would cost more than this whole package is allowed for its import.

Fields are the class's own annotations, after its bases' fields; a class attribute of the same
name is that field's default.
"""
from __future__ import annotations

__all__ = ["Record", "FrozenInstanceError"]

_MISSING = object()


class FrozenInstanceError(AttributeError):
    """Raised on attribute assignment/deletion (same role as ``dataclasses.FrozenInstanceError``)."""


class Record:
    _fields: tuple = ()
    _defaults: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        own = [n for n in cls.__dict__.get("__annotations__", {}) if not n.startswith("_")]
        fields = tuple(cls._fields) + tuple(n for n in own if n not in cls._fields)
        defaults = dict(cls._defaults)
        for n in own:
            if n in cls.__dict__:
                defaults[n] = cls.__dict__[n]
        cls._fields = fields
        cls._defaults = defaults
        cls.__match_args__ = fields

    def __init__(self, *args, **kwargs):
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__}() takes {len(fields)} arguments, got {len(args)}")
        values = dict(zip(fields, args))
        for k, v in kwargs.items():
            if k not in fields:
                raise TypeError(f"{type(self).__name__}() got an unexpected argument {k!r}")
            if k in values:
                raise TypeError(f"{type(self).__name__}() got multiple values for {k!r}")
            values[k] = v
        d = self.__dict__
        for f in fields:
            v = values.get(f, _MISSING)
            if v is _MISSING:
                v = self._defaults.get(f, _MISSING)
                if v is _MISSING:
                    raise TypeError(f"{type(self).__name__}() missing required argument {f!r}")
            d[f] = v
        post = getattr(self, "__post_init__", None)
        if post is not None:
            post()

    def _values(self) -> tuple:
        d = self.__dict__
        return tuple(d[f] for f in self._fields)

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r} of frozen {type(self).__name__}")

    def __delattr__(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r} of frozen {type(self).__name__}")

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return hash((self.__class__.__name__,) + self._values())

    def __repr__(self):
        inner = ", ".join(f"{f}={v!r}" for f, v in zip(self._fields, self._values()))
        return f"{type(self).__name__}({inner})"

    def replace(self, **changes):
        """A copy with some fields changed (``dataclasses.replace`` equivalent)."""
        values = dict(zip(self._fields, self._values()))
        values.update(changes)
        return type(self)(**values)

    __replace__ = replace  # copy.replace (Python 3.13+)
