"""Operator names: ``aten::add_.Tensor`` = namespace ``aten``, base ``add``, inplace, overload ``Tensor``.

PyTorch counterpart: ``BaseOperatorName`` and ``OperatorName`` in ``torchgen/model.py``
(``c10::OperatorName`` in ``aten/src/ATen/core/operator_name.h``).
"""
from __future__ import annotations

import re
from ._record import Record

__all__ = ["BaseOperatorName", "OperatorName", "AUGMENTED_ASSIGNMENT_NAMES"]

# ``__iadd__`` and friends are the in-place forms of these dunder methods (PEP 203).
AUGMENTED_ASSIGNMENT_NAMES = ("add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift", "and", "xor", "or")

_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NAMESPACE_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_OVERLOAD_RE = re.compile(r"[A-Za-z0-9_]+")
_DUNDER_RE = re.compile(r"__([A-Za-z0-9]+(?:_[A-Za-z0-9]+)*)__")
_FUNCTIONAL_SUFFIX = "_functional"


class BaseOperatorName(Record):
    """The operator name without its overload.

    ``base`` has the in-place ``_`` / dunder ``__i..__`` / ``_functional`` decorations removed;
    ``str()`` puts them back. ``namespace`` is ``None`` when the text had no ``ns::`` prefix.
    """

    base: str
    inplace: bool = False
    dunder_method: bool = False
    functional_overload: bool = False
    namespace: "str | None" = None

    @classmethod
    def parse(cls, text: str) -> "BaseOperatorName":
        op = text.strip()
        namespace = None
        if "::" in op:
            namespace, op = op.rsplit("::", 1)
            if not _NAMESPACE_RE.fullmatch(namespace):
                raise ValueError(f"invalid namespace {namespace!r} in operator name {text!r}")
        if not _IDENT_RE.fullmatch(op):
            raise ValueError(f"invalid operator name {text!r}")
        m = _DUNDER_RE.fullmatch(op)
        inplace = False
        functional = False
        if m is not None:
            dunder = True
            base = m.group(1)
            if base[:1] == "i" and base[1:] in AUGMENTED_ASSIGNMENT_NAMES:
                inplace, base = True, base[1:]
        else:
            dunder = False
            base = op
            if base.endswith("_") and len(base) > 1:
                inplace, base = True, base[:-1]
            elif base.endswith(_FUNCTIONAL_SUFFIX) and len(base) > len(_FUNCTIONAL_SUFFIX):
                functional, base = True, base[: -len(_FUNCTIONAL_SUFFIX)]
        r = cls(base, inplace, dunder, functional, namespace)
        if str(r) != (text.strip()):  # e.g. "a__" would print back differently
            raise ValueError(f"operator name {text!r} does not round-trip (got {str(r)!r})")
        return r

    def __str__(self) -> str:
        ns = f"{self.namespace}::" if self.namespace else ""
        if self.dunder_method:
            return f"{ns}__{'i' if self.inplace else ''}{self.base}__"
        suffix = "_" if self.inplace else _FUNCTIONAL_SUFFIX if self.functional_overload else ""
        return f"{ns}{self.base}{suffix}"


class OperatorName(Record):
    """``name`` (a ``BaseOperatorName``) plus ``overload_name`` (``""`` for the default overload)."""

    name: BaseOperatorName
    overload_name: str = ""

    @classmethod
    def parse(cls, text: str) -> "OperatorName":
        s = text.strip()
        # the namespace may itself contain dots only before '::'; the overload follows the last '::'
        ns_end = s.rfind("::") + 2 if "::" in s else 0
        dot = s.find(".", ns_end)
        if dot >= 0:
            name, overload = s[:dot], s[dot + 1:]
            if not _OVERLOAD_RE.fullmatch(overload):
                raise ValueError(f"invalid overload name {overload!r} in {text!r}")
        else:
            name, overload = s, ""
        return cls(BaseOperatorName.parse(name), overload)

    @property
    def namespace(self) -> "str | None":
        return self.name.namespace

    def __str__(self) -> str:
        return f"{self.name}.{self.overload_name}" if self.overload_name else str(self.name)

    def unambiguous_name(self) -> str:
        """``add_Tensor`` style name used for C++/Python symbols (torchgen's naming)."""
        return f"{self.name}_{self.overload_name}" if self.overload_name else str(self.name)

    def remove_inplace(self) -> "OperatorName":
        return self.replace(name=self.name.replace(inplace=False))

    def with_overload(self, overload: str) -> "OperatorName":
        return OperatorName(self.name.replace(inplace=False), overload)
