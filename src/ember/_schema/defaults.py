"""Turn a schema default's raw text into a Python value.

PyTorch counterpart: the default-value half of ``torch/csrc/jit/frontend/function_schema_parser.cpp``
(``parseDefaultValue``), which turns ``int[2] stride=1`` into the IValue ``[1, 1]``.

Mapping (``text`` -> value):

==========================================  =================================================
``None``                                    ``None``; but for a non-optional ``int`` argument
                                            (``int reduction=None``) it is ``at::Reduction::None`` -> ``0``
``True`` / ``False``                        ``True`` / ``False``
``1``, ``-100``                             ``int`` (``float`` when the type is ``float``)
``1e-05``, ``0.5``, ``inf``, ``-inf``, ``nan``  ``float``
``"mean"``, ``'same'``                      ``str`` (backslash escapes ``\\\\ \\' \\" \\n \\t`` decoded)
``[]``, ``[0,1]``                           ``list``, each element parsed with the element type
scalar text for a fixed-size list           broadcast: ``int[2] stride=1`` -> ``[1, 1]``
``Mean`` / ``Sum``                          ``1`` / ``2`` (``at::Reduction`` enum values)
``contiguous_format``, ``preserve_format``, the identifier as a ``str`` (MemoryFormat name)
``channels_last``, ``channels_last_3d``
``long``, ``float``, ``int`` ... for a      the identifier as a ``str`` (ScalarType name)
``ScalarType``; ``strided`` for ``Layout``
any other bare identifier                   the identifier as a ``str``
==========================================  =================================================
"""
from __future__ import annotations

import re

from ._text import split_top_level
from .types import BaseTy, BaseType, ListType, OptionalType, Type

__all__ = ["parse_default", "REDUCTION_VALUES"]

#: ``at::Reduction`` (aten/src/ATen/core/Reduction.h): None = 0, Mean = 1, Sum = 2.
REDUCTION_VALUES = {"None": 0, "Mean": 1, "Sum": 2}

_INT_RE = re.compile(r"[+-]?[0-9]+")
_FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|nan)")
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "n": "\n", "t": "\t", "r": "\r", "0": "\0"}


def _unquote(text: str) -> str:
    body = text[1:-1]
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _strip_optional(type: Type) -> Type:
    while isinstance(type, OptionalType):
        type = type.elem
    return type


def parse_default(text: str, type: "Type | str"):
    """Return the Python value of default ``text`` for an argument of ``type`` (see module doc)."""
    if isinstance(type, str):
        type = Type.parse(type)
    s = text.strip()
    if not s:
        raise ValueError(f"empty default value {text!r}")
    inner = _strip_optional(type)
    if s == "None":
        if not type.is_nullable() and inner == BaseType(BaseTy.int):
            return REDUCTION_VALUES["None"]
        return None
    if isinstance(inner, ListType):
        if s.startswith("[") and s.endswith("]"):
            body = s[1:-1].strip()
            if not body:
                return []
            return [parse_default(p, inner.elem) for p in split_top_level(body)]
        if inner.size is not None:
            return [parse_default(s, inner.elem)] * inner.size
        raise ValueError(f"default {text!r} is not a list for list type {type}")
    if len(s) >= 2 and s[0] == s[-1] and s[0] in ("'", '"'):
        return _unquote(s)
    if s == "True":
        return True
    if s == "False":
        return False
    if _INT_RE.fullmatch(s):
        value = int(s)
        return float(value) if inner == BaseType(BaseTy.float) else value
    if _FLOAT_RE.fullmatch(s):
        return float(s)
    if s in REDUCTION_VALUES:
        return REDUCTION_VALUES[s]
    if _IDENT_RE.fullmatch(s):
        return s
    raise ValueError(f"cannot parse default value {text!r} for type {type}")
