"""torch.fx.operator_schemas: call signatures of operators and the normalization of a call's args / kwargs.

`get_signature_for_torch_op(op)` gives an OpOverload (or each overload of an OpOverloadPacket) as an
inspect.Signature built from its schema (`self` named `input`, kwarg-only arguments keyword-only, schema
defaults parsed). `normalize_function` binds a call to its target's signature (an op's single matching
overload, or a Python function's own signature), fills in defaults and returns an ArgsKwargsPair;
`normalize_module` does the same for a call to an nn submodule's forward. Not here yet: signatures for the
`ember.*` facade functions (torch finds torch.add's schemas through TorchScript's builtin table; here they give
None), overload selection by `arg_types`, `type_matches`, `create_type_hint` and `check_for_mutable_operation`.
"""
import inspect
import numbers
import typing
from typing import Any, NamedTuple

from .._core.unimplemented import missing_attribute as _missing_attribute
from .._ops import OpOverload, OpOverloadPacket

__all__ = ["ArgsKwargsPair", "get_signature_for_torch_op", "normalize_function", "normalize_module"]


class ArgsKwargsPair(NamedTuple):
    """Simple named tuple for wrapping args/kwargs pairs."""
    args: tuple
    kwargs: dict


def _python_type(t):
    """The Python annotation torch gives a schema type (Tensor, int, float, bool, str, Number, Optional, List)."""
    from .._schema.types import BaseType, ListType, OptionalType
    from .._tensor import Tensor
    if isinstance(t, OptionalType):
        return typing.Optional[_python_type(t.elem)]
    if isinstance(t, ListType):
        return typing.List[_python_type(t.elem)]                       # noqa: UP006 (torch's annotation)
    if isinstance(t, BaseType):
        return {"Tensor": Tensor, "int": int, "SymInt": int, "float": float, "bool": bool, "str": str,
                "Scalar": numbers.Number}.get(t.name.name, Any)
    return Any


_SIGNATURES = {}


def _schema_to_signature(op):
    sig = _SIGNATURES.get(op)
    if sig is not None:
        return sig
    from .._schema.defaults import parse_default
    P = inspect.Parameter
    schema = op._schema
    kwarg_only = {a.name for a in schema.arguments.flat_kwarg_only} | {a.name for a in schema.arguments.out}
    params = []
    for a in schema.arguments.flat_all:
        name = "input" if a.name == "self" else a.name
        kind = P.KEYWORD_ONLY if a.name in kwarg_only else P.POSITIONAL_OR_KEYWORD
        default = parse_default(a.default, a.type) if a.default is not None else P.empty
        if name == "from":       # a Python keyword: it and everything before it become positional-only (torch's)
            kind = P.POSITIONAL_ONLY
            params = [p.replace(kind=P.POSITIONAL_ONLY) for p in params]
        params.append(P(name, kind, default=default, annotation=_python_type(a.type)))
    rets = [_python_type(r.type) for r in schema.returns]
    ret = None if not rets else rets[0] if len(rets) == 1 else tuple(rets)
    sig = _SIGNATURES[op] = inspect.Signature(params, return_annotation=ret)
    return sig


def get_signature_for_torch_op(op, return_schemas=False):
    """inspect.Signatures for the overloads of `op` (an OpOverload or OpOverloadPacket); None for others."""
    if isinstance(op, OpOverload):
        ops = [op]
    elif isinstance(op, OpOverloadPacket):
        ops = [getattr(op, o) for o in op.overloads()]
    else:
        return (None, None) if return_schemas else None
    sigs = [_schema_to_signature(o) for o in ops]
    return (sigs, [o._schema for o in ops]) if return_schemas else sigs


def _normalized(sig, args, kwargs, only_kwargs):
    kinds = {inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY}
    if any(p.kind not in kinds for p in sig.parameters.values()) \
            and list(sig.parameters) != ["input", "from", "to", "generator"]:
        return None              # positional-only or *args / **kwargs signatures are not normalized (torch's)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    new_args, new_kwargs = [], {}
    for i, name in enumerate(sig.parameters):
        if not only_kwargs and i < len(args):
            new_args.append(bound.arguments[name])
        else:
            new_kwargs[name] = bound.arguments[name]
    return ArgsKwargsPair(tuple(new_args), new_kwargs)


def normalize_function(target, args, kwargs=None, arg_types=None, kwarg_types=None,
                       normalize_to_only_use_kwargs=False):
    """args / kwargs of a call to `target` matched to its signature, defaults filled in (all as kwargs with
    normalize_to_only_use_kwargs=True); None when it cannot be normalized."""
    kwargs = kwargs or {}
    if not isinstance(target, (OpOverload, OpOverloadPacket)):
        if not callable(target):
            raise AssertionError(f"target must be callable, got {type(target)}")
        try:
            sig = inspect.signature(inspect.unwrap(target))
        except (TypeError, ValueError):
            return None
        return _normalized(sig, args, kwargs, normalize_to_only_use_kwargs)
    matched = []
    for sig, schema in zip(*get_signature_for_torch_op(target, return_schemas=True)):
        try:
            sig.bind(*args, **kwargs)
            matched.append((sig, schema))
        except TypeError:
            continue
    if not matched:
        return None
    if len(matched) == 1:
        return _normalized(matched[0][0], args, kwargs, normalize_to_only_use_kwargs)
    if arg_types is not None or kwarg_types is not None:
        raise NotImplementedError("torch.fx.operator_schemas.normalize_function: choosing an overload by arg_types "
                                  "/ kwarg_types (type_matches) is not supported by ember")
    schemas = "\n".join(str(sig) for sig, _ in matched)
    name = f"{type(target).__module__}.{type(target).__qualname__}"     # torch.typename(target)
    raise RuntimeError(f"Tried to normalize arguments to {name} but the schema match was ambiguous! Please "
                       f"provide argument types to the normalize_arguments() call. Available schemas:\n{schemas}")


def normalize_module(root, target, args, kwargs=None, normalize_to_only_use_kwargs=False):
    """normalize_function for a call to submodule `target` of `root` (only torch.nn's own module classes)."""
    import ember.nn
    try:
        submod = root.get_submodule(target)
    except AttributeError as e:
        raise RuntimeError(f"Tried to normalize node with target {target} but root did not have that target!") from e
    classname = submod.__class__.__name__
    if getattr(ember.nn, classname, None) == submod.__class__:
        sig = inspect.signature(inspect.unwrap(submod.forward))
        return _normalized(sig, args, kwargs or {}, normalize_to_only_use_kwargs)
    return None


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
