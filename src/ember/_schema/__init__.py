"""ember's FunctionSchema parser: ``ns::name.overload(args) -> returns`` as frozen records.

PyTorch counterpart: the schema data model of ``torchgen/model.py`` (``FunctionSchema``,
``OperatorName``, ``Arguments``, ``Type`` ...), used at runtime by ``ember.library.define`` and
by the code generator in ``tools/codegen``. Pure Python, stdlib only, cheap to import.

Every class is a frozen, hashable record (dataclass-like; see ``_record.py``) with a ``parse(text)`` classmethod and a ``__str__`` that prints the canonical text;
for every schema in PyTorch's native_functions.yaml ``str(FunctionSchema.parse(s)) == s``.
Malformed text raises ``ValueError`` whose message quotes the offending text.
"""
from .annotation import Annotation
from .arguments import Argument, Arguments, Return, SelfArgument, TensorOptionsArguments
from .defaults import parse_default
from .names import BaseOperatorName, OperatorName
from .schema import FunctionSchema, SchemaKind, parse_returns
from .types import BaseTy, BaseType, CustomClassType, ListType, OptionalType, Type

__all__ = [
    "Annotation", "Argument", "Arguments", "Return", "SelfArgument", "TensorOptionsArguments",
    "parse_default", "BaseOperatorName", "OperatorName", "FunctionSchema", "SchemaKind",
    "parse_returns", "BaseTy", "BaseType", "CustomClassType", "ListType", "OptionalType", "Type",
]
