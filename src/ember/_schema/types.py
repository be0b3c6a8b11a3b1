"""The schema type system: ``Tensor``, ``int[2]``, ``Tensor?[]``, ``SymInt[]?`` ...

PyTorch counterpart: the ``Type`` / ``BaseType`` / ``OptionalType`` / ``ListType`` /
``CustomClassType`` part of ``torchgen/model.py`` (itself a simplified ``c10::Type`` from
``aten/src/ATen/core/jit_type.h``). Alias annotations such as ``Tensor(a!)`` are *not* part of
the type; they live on ``Argument``/``Return`` (see ``annotation.py``).
"""
from __future__ import annotations

import re
from ._record import Record
from enum import Enum

__all__ = ["BaseTy", "Type", "BaseType", "OptionalType", "ListType", "CustomClassType"]


class BaseTy(Enum):
    """Atomic schema types. The member name is exactly the spelling used in schema text."""

    Tensor = "Tensor"
    int = "int"
    SymInt = "SymInt"
    float = "float"
    complex = "complex"
    bool = "bool"
    SymBool = "SymBool"
    str = "str"
    Scalar = "Scalar"
    ScalarType = "ScalarType"
    Layout = "Layout"
    Device = "Device"
    DeviceIndex = "DeviceIndex"
    MemoryFormat = "MemoryFormat"
    QScheme = "QScheme"
    Generator = "Generator"
    Dimname = "Dimname"
    DimVector = "DimVector"
    Storage = "Storage"
    Stream = "Stream"
    GraphModule = "GraphModule"
    Any = "Any"


_CUSTOM_CLASS_PREFIX = "__torch__.torch.classes."
_CUSTOM_CLASS_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_LIST_RE = re.compile(r"^(?P<elem>.+)\[(?P<size>[0-9]*)\]$")


class Type(Record):
    """Base class; never instantiated directly. ``Type.parse`` returns a concrete subclass."""

    @classmethod
    def parse(cls, text: str) -> "Type":
        t = text.strip()
        if not t:
            raise ValueError(f"empty type in schema text {text!r}")
        if t.endswith("?"):
            return OptionalType(Type.parse(t[:-1]))
        m = _LIST_RE.match(t)
        if m is not None:
            size = int(m.group("size")) if m.group("size") else None
            return ListType(Type.parse(m.group("elem")), size)
        if t.startswith(_CUSTOM_CLASS_PREFIX):
            name = t[len(_CUSTOM_CLASS_PREFIX):]
            if _CUSTOM_CLASS_RE.fullmatch(name):
                return CustomClassType(name)
            raise ValueError(f"malformed custom class type {text!r}")
        try:
            return BaseType(BaseTy[t])
        except KeyError:
            raise ValueError(f"unknown type {t!r}") from None

    # --- queries (semantics follow torchgen) -------------------------------------------------
    def is_base_ty_like(self, base_ty: BaseTy) -> bool:
        raise NotImplementedError

    def is_tensor_like(self) -> bool:
        """True for Tensor, Tensor?, Tensor[], Tensor?[] ..."""
        return self.is_base_ty_like(BaseTy.Tensor)

    def is_symint_like(self) -> bool:
        return self.is_base_ty_like(BaseTy.SymInt)

    def is_generator_like(self) -> bool:
        return self.is_base_ty_like(BaseTy.Generator)

    def is_nullable(self) -> bool:
        """True when ``None`` is a valid value (``T?``; also a list of nullable elements)."""
        raise NotImplementedError

    def is_list_like(self) -> "ListType | None":
        """The ``ListType`` inside this type (looking through ``?``), or ``None``."""
        raise NotImplementedError


class BaseType(Type):
    name: BaseTy

    def __str__(self) -> str:
        return self.name.value

    def is_base_ty_like(self, base_ty: BaseTy) -> bool:
        return self.name is base_ty

    def is_nullable(self) -> bool:
        return False

    def is_list_like(self) -> "ListType | None":
        return None


class OptionalType(Type):
    elem: Type

    def __str__(self) -> str:
        return f"{self.elem}?"

    def is_base_ty_like(self, base_ty: BaseTy) -> bool:
        return self.elem.is_base_ty_like(base_ty)

    def is_nullable(self) -> bool:
        return True

    def is_list_like(self) -> "ListType | None":
        return self.elem.is_list_like()


class ListType(Type):
    elem: Type
    size: "int | None" = None

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.size is None else self.size}]"

    def is_base_ty_like(self, base_ty: BaseTy) -> bool:
        return self.elem.is_base_ty_like(base_ty)

    def is_nullable(self) -> bool:
        return self.elem.is_nullable()

    def is_list_like(self) -> "ListType | None":
        return self


class CustomClassType(Type):
    """A TorchScript custom class, spelled ``__torch__.torch.classes.<ns>.<Name>``."""

    class_name: str

    def __str__(self) -> str:
        return f"{_CUSTOM_CLASS_PREFIX}{self.class_name}"

    def is_base_ty_like(self, base_ty: BaseTy) -> bool:
        return False

    def is_nullable(self) -> bool:
        return False

    def is_list_like(self) -> "ListType | None":
        return None
