"""``FunctionSchema``: a whole operator signature ``ns::name.overload(args) -> returns``.

PyTorch counterpart: ``FunctionSchema``, ``SchemaKind`` and ``parse_returns`` in
``torchgen/model.py`` (the data model behind ``c10::FunctionSchema`` and
``torch/csrc/jit/frontend/function_schema_parser.cpp``). Parsing tolerates extra whitespace;
``str()`` prints the canonical form, which is exactly what native_functions.yaml uses.
"""
from __future__ import annotations

from ._record import Record
from enum import Enum
from itertools import chain

from ._text import check_balanced, find_top_level, matching_paren, split_top_level
from .arguments import Argument, Arguments, Return, SelfArgument
from .names import BaseOperatorName, OperatorName

__all__ = ["SchemaKind", "FunctionSchema", "parse_returns"]


class SchemaKind(Enum):
    functional = "functional"  # returns fresh outputs, mutates nothing
    inplace = "inplace"        # add_: mutates (and returns) self
    out = "out"                # add.out: writes into keyword-only out= tensors
    mutable = "mutable"        # mutates some positional argument (not self), e.g. _fused_moving_avg_obs_fq_helper
    scratch = "scratch"        # an out= op with _scratch_* out arguments


def parse_returns(text: str) -> "tuple[Return, ...]":
    """``()`` -> (), ``Tensor`` -> one return, ``(Tensor a, Tensor b)`` -> two."""
    s = text.strip()
    if not s:
        raise ValueError("missing return type after '->'")
    if s.startswith("(") and matching_paren(s, 0) == len(s) - 1:
        inner = s[1:-1].strip()
        if not inner:
            return ()
        pieces = split_top_level(inner)
    else:
        find_top_level(s, ",")  # validates bracket balance
        pieces = split_top_level(s)
        if len(pieces) != 1:
            raise ValueError(f"multiple returns must be parenthesized: {text!r}")
    if any(not p for p in pieces):
        raise ValueError(f"empty return in {text!r}")
    return tuple(Return.parse(p) for p in pieces)


class FunctionSchema(Record):
    name: OperatorName
    arguments: Arguments
    returns: "tuple[Return, ...]"

    @classmethod
    def parse(cls, text: str) -> "FunctionSchema":
        s = text.strip()
        check_balanced(s)
        lparen = find_top_level(s, "(")
        if lparen < 0:
            raise ValueError(f"schema {text!r} has no argument list '('")
        rparen = matching_paren(s, lparen)
        rest = s[rparen + 1:].strip()
        if not rest.startswith("->"):
            raise ValueError(f"schema {text!r} must have '-> returns' after the argument list")
        name = OperatorName.parse(s[:lparen])
        arguments = Arguments.parse(s[lparen + 1:rparen])
        returns = parse_returns(rest[2:])
        return cls(name, arguments, returns)

    def __str__(self) -> str:
        if len(self.returns) == 1:
            rets = str(self.returns[0])
        else:
            rets = "(" + ", ".join(map(str, self.returns)) + ")"
        return f"{self.name}({self.arguments}) -> {rets}"

    # --- queries --------------------------------------------------------------------------
    @property
    def namespace(self) -> "str | None":
        return self.name.name.namespace

    def schema_order_arguments(self) -> "list[Argument]":
        """Positional, then keyword-only, then out: the order the dispatcher stack uses."""
        return list(chain(self.arguments.flat_positional, self.arguments.flat_kwarg_only, self.arguments.out))

    def is_mutable(self) -> bool:
        """True when any argument is written to (``c10::FunctionSchema::is_mutable``)."""
        return any(a.is_write for a in self.arguments.flat_all)

    def is_out_fn(self) -> bool:
        """Out functions are DEFINED as having a mutable keyword-only argument."""
        return bool(self.arguments.out)

    def has_symint(self) -> bool:
        return self.arguments.has_symint_arg()

    def kind(self) -> SchemaKind:
        """inplace beats scratch beats out beats mutable beats functional (torchgen's order)."""
        is_out = bool(self.arguments.out)
        if is_out and self.name.name.inplace:
            raise ValueError(f"schema {self} cannot be both out= and inplace")
        if self.name.name.inplace:
            return SchemaKind.inplace
        if any(a.name.startswith("_scratch_") for a in self.arguments.out):
            return SchemaKind.scratch
        if is_out:
            return SchemaKind.out
        if any(a.is_write for a in self.arguments.post_self_positional):
            return SchemaKind.mutable
        return SchemaKind.functional

    def signature(
        self,
        *,
        strip_default: bool = False,
        strip_view_copy_name: bool = False,
        keep_return_names: bool = False,
    ) -> "FunctionSchema":
        """The "core" signature shared by the functional / inplace / out variants of one op.

        Strips the overload name, the in-place marker, out arguments, tensor options (so
        factory functions pair with their out= variants), alias annotations and return names;
        mutated inputs that aren't already returned become extra returns.
        """
        def plain(a: Argument) -> Argument:
            return a.replace(annotation=None, default=None if strip_default else a.default)

        def plain_ret(r: Return) -> Return:
            return Return(r.name if keep_return_names else None, r.type, None)

        base = self.name.name.base
        if strip_view_copy_name:
            if base.endswith("_copy"):
                base = base.replace("_copy", "")
            elif base.endswith("_scatter"):
                base = base.replace("scatter", "inverse")

        a = self.arguments
        self_list = [a.self_arg.argument] if a.self_arg is not None else []
        extra = tuple(
            Return(f"{x.name}_out" if keep_return_names else None, x.type, None)
            for x in chain(self_list, a.out, a.post_self_positional)
            if x.is_write and not any(x.annotation == r.annotation for r in self.returns)
        )
        args = Arguments(
            pre_self_positional=tuple(map(plain, a.pre_self_positional)),
            self_arg=SelfArgument(plain(a.self_arg.argument)) if a.self_arg is not None else None,
            post_self_positional=tuple(map(plain, a.post_self_positional)),
            pre_tensor_options_kwarg_only=tuple(
                map(plain, a.pre_tensor_options_kwarg_only + a.post_tensor_options_kwarg_only)
            ),
        )
        # torchgen quirk (Note [bernoulli.p schema]): bernoulli.p's `p` lacks the default its
        # out/inplace siblings have; give it one so the three variants group together.
        if str(self.name) == "bernoulli.p":
            args = args.replace(post_self_positional=tuple(
                x.replace(default="0.5") if x.name == "p" and x.default is None else x
                for x in args.post_self_positional
            ))
        return FunctionSchema(
            name=OperatorName(
                BaseOperatorName(base, inplace=False, dunder_method=self.name.name.dunder_method),
                "",
            ),
            arguments=args,
            returns=tuple(map(plain_ret, self.returns)) + extra,
        )

    def view_signature(self) -> "FunctionSchema":
        return self.signature(strip_view_copy_name=True)

    def with_name(self, name: OperatorName) -> "FunctionSchema":
        return self.replace(name=name)
