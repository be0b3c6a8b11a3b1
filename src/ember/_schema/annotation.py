"""Alias annotations: the ``a!`` in ``Tensor(a!)`` and the ``a -> *`` in ``Tensor(a -> *)``.

PyTorch counterpart: ``Annotation`` in ``torchgen/model.py`` (a flattened ``c10::AliasInfo`` from
``aten/src/ATen/core/alias_info.h``).
"""
from __future__ import annotations

import re
from ._record import Record

__all__ = ["Annotation"]

_SET = r"[a-z][a-z0-9_]*(?:\|[a-z][a-z0-9_]*)*"
_ANNOTATION_RE = re.compile(rf"^(?P<before>{_SET})(?P<write>!?)(?:\s*->\s*(?P<after>\*|{_SET}))?$")


class Annotation(Record):
    """``alias_set`` before the arrow, ``is_write`` (``!``) and ``alias_set_after`` (after ``->``)."""

    alias_set: tuple
    is_write: bool
    alias_set_after: tuple = ()

    @classmethod
    def parse(cls, text: str) -> "Annotation":
        m = _ANNOTATION_RE.match(text.strip())
        if m is None:
            raise ValueError(f"malformed alias annotation {text!r}")
        before = tuple(m.group("before").split("|"))
        is_write = m.group("write") == "!"
        after = tuple(m.group("after").split("|")) if m.group("after") else ()
        if is_write and len(before) > 1:
            raise ValueError(f"a mutable alias annotation must name one alias set, got {text!r}")
        if len(before) > 1 and len(after) > 1:
            raise ValueError(f"alias sets before and after '->' cannot both be unions: {text!r}")
        return cls(before, is_write, after)

    def __str__(self) -> str:
        s = "|".join(self.alias_set) + ("!" if self.is_write else "")
        if self.alias_set_after:
            s += " -> " + "|".join(self.alias_set_after)
        return s
