"""Arguments and returns of a schema, grouped the way torchgen groups them.

PyTorch counterpart: ``Argument``, ``Return``, ``SelfArgument``, ``TensorOptionsArguments`` and
``Arguments`` in ``torchgen/model.py``. ``Arguments`` splits the flat argument list into
``pre_self_positional | self | post_self_positional | * | pre_tensor_options_kwarg_only |
(dtype, layout, device, pin_memory) | post_tensor_options_kwarg_only | out``. Out arguments are
the mutable (``Tensor(a!)``) keyword-only arguments.
"""
from __future__ import annotations

import re
from ._record import Record

from ._text import find_top_level, matching_paren, rfind_top_level, split_top_level
from .annotation import Annotation
from .types import BaseTy, BaseType, OptionalType, Type

__all__ = ["Argument", "Return", "SelfArgument", "TensorOptionsArguments", "Arguments"]

_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _parse_annotated_type(text: str) -> "tuple[Type, Annotation | None]":
    """``Tensor(a!)[]`` -> (ListType(Tensor), Annotation(('a',), True, ()))."""
    paren = find_top_level(text, "(")
    if paren < 0:
        return Type.parse(text), None
    head = text[:paren].strip()
    if head != "Tensor":
        raise ValueError(f"alias annotation on non-Tensor type {text!r}")
    close = matching_paren(text, paren)
    annotation = Annotation.parse(text[paren + 1:close])
    return Type.parse("Tensor" + text[close + 1:].strip()), annotation


def _format_annotated_type(type: Type, annotation: "Annotation | None") -> str:
    s = str(type)
    if annotation is None:
        return s
    assert s.startswith("Tensor")
    return f"Tensor({annotation}){s[len('Tensor'):]}"


def _check_annotation(type: Type, annotation: "Annotation | None", text: str) -> None:
    if annotation is not None and not type.is_tensor_like():
        raise ValueError(f"alias annotation on non-Tensor type in {text!r}")


class Argument(Record):
    """One formal argument: ``Tensor(a!) out``, ``int[2] stride=1``, ``str reduction="mean"``.

    ``default`` is the raw default text (``None`` when absent); use ``parse_default`` for a value.
    """

    name: str
    type: Type
    default: "str | None" = None
    annotation: "Annotation | None" = None

    @classmethod
    def parse(cls, text: str) -> "Argument":
        s = text.strip()
        eq = find_top_level(s, "=")
        default = None
        if eq >= 0:
            default = s[eq + 1:].strip()
            s = s[:eq].strip()
            if not default:
                raise ValueError(f"empty default value in argument {text!r}")
        space = rfind_top_level(s, " ")
        if space < 0:
            raise ValueError(f"argument {text!r} needs both a type and a name")
        type_text, name = s[:space].strip(), s[space + 1:]
        if not _IDENT_RE.fullmatch(name):
            raise ValueError(f"invalid argument name {name!r} in {text!r}")
        type, annotation = _parse_annotated_type(type_text)
        _check_annotation(type, annotation, text)
        return cls(name, type, default, annotation)

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    def __str__(self) -> str:
        s = f"{_format_annotated_type(self.type, self.annotation)} {self.name}"
        return s if self.default is None else f"{s}={self.default}"


class Return(Record):
    """One return: ``Tensor``, ``Tensor(a!)``, ``Tensor values``, ``Tensor(a)[]``."""

    name: "str | None"
    type: Type
    annotation: "Annotation | None" = None

    @classmethod
    def parse(cls, text: str) -> "Return":
        s = text.strip()
        name = None
        space = rfind_top_level(s, " ")
        if space >= 0:
            s, name = s[:space].strip(), s[space + 1:]
            if not _IDENT_RE.fullmatch(name):
                raise ValueError(f"invalid return name {name!r} in {text!r}")
        type, annotation = _parse_annotated_type(s)
        _check_annotation(type, annotation, text)
        return cls(name, type, annotation)

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and self.annotation.is_write

    def __str__(self) -> str:
        s = _format_annotated_type(self.type, self.annotation)
        return s if self.name is None else f"{s} {self.name}"


class SelfArgument(Record):
    """The positional argument named ``self`` (what becomes the method receiver)."""

    argument: Argument


class TensorOptionsArguments(Record):
    """``ScalarType? dtype, Layout? layout, Device? device, bool? pin_memory`` kept together."""

    dtype: Argument
    layout: Argument
    device: Argument
    pin_memory: Argument

    def all(self) -> "tuple[Argument, ...]":
        return (self.dtype, self.layout, self.device, self.pin_memory)


_TENSOR_OPTIONS = (
    ("dtype", BaseTy.ScalarType),
    ("layout", BaseTy.Layout),
    ("device", BaseTy.Device),
    ("pin_memory", BaseTy.bool),
)


def _is_tensor_option(arg: Argument, name: str, ty: BaseTy) -> bool:
    base = BaseType(ty)
    return arg.name == name and arg.type in (base, OptionalType(base))


class Arguments(Record):
    pre_self_positional: "tuple[Argument, ...]" = ()
    self_arg: "SelfArgument | None" = None
    post_self_positional: "tuple[Argument, ...]" = ()
    pre_tensor_options_kwarg_only: "tuple[Argument, ...]" = ()
    tensor_options: "TensorOptionsArguments | None" = None
    post_tensor_options_kwarg_only: "tuple[Argument, ...]" = ()
    out: "tuple[Argument, ...]" = ()

    def __post_init__(self) -> None:
        if self.self_arg is None and self.pre_self_positional:
            raise ValueError("pre_self_positional is non-empty but there is no self argument")
        if self.tensor_options is None and self.post_tensor_options_kwarg_only:
            raise ValueError("post_tensor_options_kwarg_only is non-empty but tensor_options is None")

    # --- flat views -----------------------------------------------------------------------
    @property
    def flat_positional(self) -> "list[Argument]":
        self_list = [self.self_arg.argument] if self.self_arg is not None else []
        return [*self.pre_self_positional, *self_list, *self.post_self_positional]

    @property
    def flat_kwarg_only(self) -> "list[Argument]":
        """Keyword-only arguments, NOT including ``out``."""
        opts = list(self.tensor_options.all()) if self.tensor_options is not None else []
        return [*self.pre_tensor_options_kwarg_only, *opts, *self.post_tensor_options_kwarg_only]

    @property
    def flat_non_out(self) -> "list[Argument]":
        return self.flat_positional + self.flat_kwarg_only

    @property
    def flat_all(self) -> "list[Argument]":
        return self.flat_positional + self.flat_kwarg_only + list(self.out)

    @property
    def post_self_positional_mutable(self) -> "list[Argument]":
        return [a for a in self.post_self_positional if a.is_write]

    def mutable_arg_names(self) -> "list[str]":
        return [a.name for a in self.flat_all if a.is_write]

    def has_tensor_arg(self) -> bool:
        return any(a.type.is_tensor_like() for a in self.flat_non_out)

    def has_symint_arg(self) -> bool:
        return any(a.type.is_symint_like() for a in self.flat_non_out)

    def has_generator_arg(self) -> bool:
        return any(a.type.is_generator_like() for a in self.flat_non_out)

    # --- parsing --------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> "Arguments":
        """Parse the text between the schema's parentheses, e.g. ``Tensor self, *, int dim=0``."""
        positional: list[Argument] = []
        kwarg_only: list[Argument] = []
        out: list[Argument] = []
        acc = positional
        seen: set = set()
        pieces = split_top_level(text)
        if pieces == [""]:
            pieces = []
        for piece in pieces:
            if not piece:
                raise ValueError(f"empty argument in argument list {text!r}")
            if piece == "*":
                if acc is not positional:
                    raise ValueError(f"keyword-only marker '*' appears more than once in {text!r}")
                acc = kwarg_only
                continue
            arg = Argument.parse(piece)
            if arg.name in seen:
                raise ValueError(f"duplicate argument name {arg.name!r} in {text!r}")
            seen.add(arg.name)
            if arg.is_write and acc is kwarg_only:
                acc = out
            elif not arg.is_write and acc is out:
                raise ValueError(f"non-mutable argument {piece!r} cannot follow out arguments in {text!r}")
            if acc is out and arg.default is not None:
                raise ValueError(f"out argument {piece!r} cannot have a default value")
            acc.append(arg)

        self_ix = next((i for i, a in enumerate(positional) if a.name == "self"), None)
        if self_ix is None:
            pre_self, self_arg, post_self = [], None, positional
        else:
            pre_self = positional[:self_ix]
            self_arg = SelfArgument(positional[self_ix])
            post_self = positional[self_ix + 1:]

        pre_opts: list[Argument] = []
        post_opts: list[Argument] = []
        tensor_options = None
        target = pre_opts
        n = len(_TENSOR_OPTIONS)
        i = 0
        while i < len(kwarg_only):
            window = kwarg_only[i:i + n]
            if len(window) == n and all(
                _is_tensor_option(a, name, ty) for a, (name, ty) in zip(window, _TENSOR_OPTIONS)
            ):
                if tensor_options is not None:
                    raise ValueError(f"tensor options arguments appear more than once in {text!r}")
                tensor_options = TensorOptionsArguments(*window)
                target = post_opts
                i += n
                continue
            target.append(kwarg_only[i])
            i += 1

        return cls(
            pre_self_positional=tuple(pre_self),
            self_arg=self_arg,
            post_self_positional=tuple(post_self),
            pre_tensor_options_kwarg_only=tuple(pre_opts),
            tensor_options=tensor_options,
            post_tensor_options_kwarg_only=tuple(post_opts),
            out=tuple(out),
        )

    def __str__(self) -> str:
        parts = [str(a) for a in self.flat_positional]
        kw = self.flat_kwarg_only + list(self.out)
        if kw:
            parts.append("*")
            parts.extend(str(a) for a in kw)
        return ", ".join(parts)
