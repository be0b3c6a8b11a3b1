"""Calling an OpOverloadPacket: pick the first overload whose schema the arguments bind to
(torch's OpOverloadPacket.__call__ resolves overloads the same way, in C++)."""
import numbers

from ._schema import BaseTy, BaseType, ListType, OptionalType


def _fits(v, t):
    if isinstance(t, OptionalType):
        return v is None or _fits(v, t.elem)
    from ._tensor import Tensor
    from ._core.dtype import dtype
    if isinstance(t, ListType):
        if isinstance(v, (list, tuple)):
            return all(_fits(x, t.elem) for x in v)
        return t.size is not None and _fits(v, t.elem)
    if not isinstance(t, BaseType):
        return True
    n = t.name
    if n == BaseTy.Tensor:
        return isinstance(v, Tensor)
    if n in (BaseTy.int, BaseTy.SymInt):
        return isinstance(v, numbers.Integral) and not isinstance(v, bool)
    if n == BaseTy.float:
        return isinstance(v, numbers.Real)
    if n == BaseTy.bool:
        return isinstance(v, bool)
    if n == BaseTy.Scalar:
        return isinstance(v, numbers.Number)
    if n == BaseTy.ScalarType:
        return isinstance(v, dtype)
    if n == BaseTy.str:
        return isinstance(v, str)
    return True


def binds(schema, args, kwargs):
    a = schema.arguments
    pos = a.flat_positional
    if len(args) > len(pos):
        return False
    names = {x.name: x for x in a.flat_all}
    for k in kwargs:
        if k not in names:
            return False
    for x, v in zip(pos, args):
        if x.name in kwargs or not _fits(v, x.type):
            return False
    for x in pos[len(args):] + a.flat_kwarg_only:
        if x.name in kwargs:
            if not _fits(kwargs[x.name], x.type):
                return False
        elif x.default is None and not isinstance(x.type, OptionalType) or (x.default is None and x in a.out):
            if x in a.out or x.default is None and not isinstance(x.type, OptionalType):
                return False
    return True


def bind_packet_call(packet, args, kwargs):
    names = packet.overloads()
    for n in names:
        ov = getattr(packet, n)
        if binds(ov._schema, args, kwargs):
            return ov(*args, **kwargs)
    sigs = "\n".join("  " + str(getattr(packet, n)._schema) for n in names)
    raise RuntimeError(f"{packet._ns}::{packet.__name__}() Expected a value of type matching one of the overloads:\n{sigs}")
