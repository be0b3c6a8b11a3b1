"""The argument parser (torch/csrc/utils/python_arg_parser.cpp): the one answer to "does value v fit
parameter type T", and torch's TypeError messages when it does not.

Three callers share these rules:
- the generated bindings (`_generated/functions.py`, `tensor_methods.py`, ...) inline the cheap
  exact-class tests and call the predicates below (`_is_int`, `_is_intlist`, ...) for the rest;
- hand-written public functions (`ember/functional.py`, `nn.functional`, ...) call the `check_*`
  functions, which raise the same TypeError a binding would;
- calling an OpOverloadPacket (`ember.ops.aten.add(a, b)`) picks an overload with `bind_packet_call`,
  which scores each schema with `fits`: 0 for an exact fit, 1 for a conversion torch's parser also
  makes (a 0-dim tensor for an int or a Scalar), None for no fit.

The rules (torch's): an `int` is a Python int (not bool), an object with `__index__`, or a 0-dim
integral tensor; an unsized `int[]` is a list or tuple of ints, a sized one (`int[2]`) also a lone int;
a `float` is any real number (bool included) or a 0-dim tensor; a `Scalar` is any number or a 0-dim
tensor; a `bool` is a bool or numpy.bool_; a `ScalarType` is an ember.dtype or one of the Python types
float, int, bool, complex; a `Tensor[]` is a list or tuple of tensors.
"""
import numbers

from ._core.dtype import dtype as _dtype
from ._core.tensor_impl import TensorImpl as _Tensor, TENSOR_TYPES as _TENSOR_TYPES
from ._schema import BaseTy, BaseType, ListType, OptionalType

# ------------------------------------------------------------------ predicates (the rule set)


def _is_num(v):
    """A Python or numpy number (what may stand for a Tensor where torch allows numbers; numpy.bool_ too, which
    torch's parser takes as a number: the kernels read numpy scalars with kernels.common.as_py_number)."""
    return isinstance(v, (int, float, complex)) or isinstance(v, numbers.Number) or _is_np_bool(v)


def _is_np_bool(v):
    return v.__class__.__module__ == "numpy" and v.__class__.__name__ in ("bool", "bool_")


def _is_real(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) or (isinstance(v, numbers.Real)
                                                                        and not isinstance(v, bool))


def _is_int(v):
    return (isinstance(v, int) and not isinstance(v, bool)) or (
        isinstance(v, _Tensor) and v.dim() == 0 and not v.dtype.is_floating_point and not v.dtype.is_complex
        and v.dtype.name != "bool") or (hasattr(v, "__index__") and not isinstance(v, (bool, _Tensor, float)))


def _is_intseq(v):
    """An unsized int[] argument: a list or tuple of ints (a lone int is refused, as torch does). torch's parser
    tests the first element only (`_first_int`: an int, an index, an integral one-element tensor) and unpacks the
    others as any index: a bool or a one-element integral tensor passes after the first (`x.view(24, True)`,
    `zeros(2, tensor([3]))`); `_bad_intseq` raises torch's errors for the rest."""
    if isinstance(v, (list, tuple)):
        for x in v:
            if x.__class__ is not int and not _is_int(x):
                return _is_odd_intseq(v)
        return True
    return False


def _is_odd_intseq(v):
    """_is_intseq for a list holding something other than ints and 0-dim integral tensors: True when torch takes
    it (see _is_intseq); the caller's error path (_bad_arg -> _bad_intseq) raises torch's error otherwise."""
    if not v or not _first_int(v[0]):
        return False
    for x in v:
        if isinstance(x, _Tensor):
            if x.numel() != 1 or x.dtype.is_floating_point or x.dtype.is_complex or x.dtype.name == "bool":
                return False
        elif not (x.__class__ is bool or _first_int(x)):
            return False
    return True


def _is_intlist(v):
    """A sized int[N] argument: an int sequence or a lone int (stride=2)."""
    return _is_intseq(v) or _is_int(v)


def _is_double(v):
    """What torch binds to a `float` parameter: any real number (bool included) or a 0-dim tensor."""
    if isinstance(v, (int, float)):
        return True
    if isinstance(v, _Tensor):
        return v.dim() == 0
    return isinstance(v, numbers.Real)


def _is_scalar(v):
    """What torch binds to a `Scalar` parameter: any Python/numpy number or a 0-dim tensor."""
    if isinstance(v, (int, float, complex)):
        return True
    if isinstance(v, _Tensor):
        return v.dim() == 0
    return isinstance(v, numbers.Number) or _is_np_bool(v)


def _is_bool(v):
    return isinstance(v, bool) or _is_np_bool(v)


def _is_tensorlist(v):
    c = v.__class__
    if c is not list and c is not tuple and not isinstance(v, (list, tuple)):
        return False
    for x in v:
        if x.__class__ not in _TENSOR_TYPES and not isinstance(x, _Tensor):
            return False
    return True


def _is_dtype(v):
    return isinstance(v, _dtype) or v in (float, int, bool, complex)


# ------------------------------------------------------------------ torch's error messages


def _tp_name(v):
    """What torch's messages print for a value's type (its C type's tp_name): the class name, `ember.`-qualified for
    ember's own C-level types (dtype, device, Size, memory_format, layout), numpy's scalars `numpy.`-qualified."""
    t = type(v)
    if isinstance(v, _Tensor):
        return "Tensor" if t.__name__ in ("Tensor", "TensorImpl") else t.__name__
    if t.__module__ == "numpy":
        return "numpy." + t.__name__
    if t.__module__.startswith("ember._core") or t.__module__ == "ember" and t.__name__ in ("memory_format", "layout"):
        return "ember." + t.__name__
    return t.__name__


def _argtype(v):
    """The type name torch's argument errors print: the class name (numpy's qualified), Tensor for tensors."""
    if isinstance(v, _Tensor):
        return "Tensor"
    t = type(v)
    return f"numpy.{t.__name__}" if t.__module__ == "numpy" else t.__name__


# torch/csrc/utils/invalid_arguments.cpp: the "invalid combination of arguments" message. Each signature string is
# parsed back the way torch parses it (split at ", ", the type before the last space), quirks included: a
# defaulted parameter "bool keepdim = False" reads as type "bool keepdim =" named "False", and "*" counts as a
# parameter, so a "didn't match because" line follows only the signatures whose piece count is the call's.

def _parse_option(sig):
    """(arguments [(name, type, nullable)], variadic) of one printed signature."""
    if sig == "no arguments":
        return [], False
    inner = sig[1:-1]
    arguments = []
    for arg in inner.split(", "):
        start, nullable = 0, False
        if arg[start:start + 1] == "#":
            start += 1
        if arg[start:start + 1] == "[":
            nullable, start = True, start + 1
            arg = arg[:len(arg) - len(" or None]")]
        end = arg.rfind(" ")
        name = arg[end + 1:]
        if "..." in arg and end >= 0:
            end -= 4
        arguments.append((name, arg[start:] if end < start else arg[start:end], nullable))
    return arguments, "..." in inner


def _type_matches(type_name, nullable, v):
    if nullable and v is None:
        return True
    tp = _tp_name(v)
    if type_name == "float":
        return tp in ("float", "int", "long")
    if type_name == "int":
        return tp in ("int", "long")
    return tp == type_name


def _seq_desc(v):
    tps = ", ".join(_tp_name(x) for x in v)
    if isinstance(v, tuple):
        return f"tuple of ({tps}{',' if len(v) == 1 else ''})"
    return f"list of [{tps}]"


def _formatted_arg_desc(arguments, variadic, args, kwargs):
    """The call's types, the ones not fitting this signature between '!' marks (torch's colour-free form)."""
    parts = []
    for i in range(len(args) + len(kwargs)):
        is_kw = i >= len(args)
        name = arguments[i][0] if i < len(arguments) else ""
        v = kwargs.get(name) if is_kw else args[i]
        if i < len(arguments):
            ok = _type_matches(arguments[i][1], arguments[i][2], v)
        else:
            ok = variadic and bool(arguments) and _type_matches(arguments[-1][1], arguments[-1][2], v)
        d = _seq_desc(v) if isinstance(v, (tuple, list)) else _tp_name(v)
        d = (name + "=" if is_kw else "") + d
        parts.append(d if ok else f"!{d}!")
    return "(" + ", ".join(parts) + (", " if not args and kwargs else "") + ")"


def _unmatched_kwargs(arguments, kwargs):
    start = max(len(arguments) - len(kwargs), 0)
    names = {a[0] for a in arguments[start:]}
    return [k for k in kwargs if k not in names]


def _no_match(name, args, kwargs, sigs, method):
    """torch's TypeError for a call matching none of an op's signatures (`args` include self for a method)."""
    if method:
        args = args[1:]
    args = list(args)
    e = _unpack_error(name, args, sigs)
    if e is not None:
        return e
    got = "(" + ", ".join([_tp_name(a) for a in args] + [f"{k}={_tp_name(v)}" for k, v in kwargs.items()])
    got += (", " if not args and kwargs else "") + ")"
    msg = [f"{name}() received an invalid combination of arguments - got {got}, but expected one of:\n"]
    for sig in sigs:
        msg.append(f" * {sig}\n")
        arguments, variadic = _parse_option(sig)
        n = len(args) + len(kwargs)
        if n == len(arguments) or variadic and n > len(arguments):
            bad = _unmatched_kwargs(arguments, kwargs) if kwargs else []
            if bad:
                msg.append("      didn't match because some of the keywords were incorrect: " + ", ".join(bad) + "\n")
            else:
                msg.append("      didn't match because some of the arguments have invalid types: "
                           + _formatted_arg_desc(arguments, variadic, args, kwargs) + "\n")
    return TypeError("".join(msg))


def _unpack_error(name, args, sigs):
    """The error of the first signature torch's parser takes for an int[] list whose first element is an int but a
    later one is not (`view(24, 1.0)`, `sum((0, 1.))`, `randn(2, 3.)`): the list fails when unpacked, after the
    overload was chosen, so torch names the element rather than listing the signatures."""
    if not args:
        return None
    for sig in sigs:
        arguments, _ = _parse_option(sig)
        if not arguments or arguments[0][1] != "tuple of ints":
            continue
        npos = next((i for i, a in enumerate(arguments) if a[0] == "*"), len(arguments))
        seq = args[0]
        if npos == 1 and len(args) > 1 or not isinstance(seq, (list, tuple)):
            if npos != 1:
                continue
            seq = args          # a lone int[] parameter takes the positional arguments as its list
        elif len(args) > npos:
            continue
        if seq and _first_int(seq[0]):
            e = _bad_intseq(name, arguments[0][0], 1, seq)
            if e is not None:
                return e
    return None


_NO_DEFAULT = object()


def _at_default(v, d):
    return v is d or d is not _NO_DEFAULT and type(v) is type(d) and isinstance(v, (int, float, str, tuple)) and v == d


def _no_match_named(name, pos, kw, sigs):
    """_no_match for a binding whose arguments arrived as named parameters: `pos` holds (value, default) of the
    positional parameters, `kw` (name, value, default) of the keyword-only ones; the call is taken to be the
    positional ones up to the last not at its default, then the keyword-only ones not at theirs."""
    n = len(pos)
    while n and _at_default(*pos[n - 1]):
        n -= 1
    return _no_match(name, [v for v, _ in pos[:n]], {k: v for k, v, d in kw if not _at_default(v, d)}, sigs, False)


def _unbound_call(fname, fn, args, kwargs, message):
    """torch's TypeError for a call that cannot bind its one plausible signature, from Python's `message` about
    binding `fn` (that signature's generated error function). torch checks the positional count, then missing
    arguments, then unknown keywords; Python reports unknown keywords before missing arguments."""
    import inspect
    if "positional argument" not in message or "but" not in message:
        params = [p for p in inspect.signature(fn).parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
        missing = [p.name for i, p in enumerate(params)
                   if p.default is p.empty and i >= len(args) and p.name not in kwargs]
        if missing:
            return TypeError(f"{fname}() missing {len(missing)} required positional arguments: "
                             + ", ".join(f'"{m}"' for m in missing))
    return TypeError(fname + "(" + message.split("(", 1)[1])


def _bad_arg(fname, argname, position, expected, value):
    if expected == "tuple of ints" and isinstance(value, (list, tuple)):
        e = _bad_intseq(fname, argname, position, value)
        if e is not None:
            return e
    where = f"argument '{argname}'" if position is None else f"argument '{argname}' (position {position})"
    return TypeError(f"{fname}(): {where} must be {expected}, not {_argtype(value)}")


class _KwSizes(tuple):
    """The sizes of a `*size` binding given by keyword (`zeros(size=(2, 3))`), for its error message only."""
    __slots__ = ()


def _bad_varargs(fname, argname, value, va):
    """torch's TypeError for the sizes of a `*size` binding (`reshape`, `view`, `zeros`, ...) that are not ints.
    torch's parser packs the positional arguments into the list only when the first is an int: `zeros(2., 3)`
    is a call with too many arguments, `zeros(2, 3.)` a list whose second element fails to unpack."""
    if value is va and va.__class__ is tuple and not _first_int(va[0]):
        if len(va) > 1:
            return TypeError(f"{fname}() takes 1 positional argument but {len(va)} were given")
        value = va[0]           # one argument, not an int (a float tensor): not packed
    return _bad_arg(fname, argname, None if va.__class__ is _KwSizes else 1, "tuple of ints", value)


def _first_int(v):
    """torch's is_int_or_symint, the parse-time test of an int[] list's first element: an int or index (not a
    bool) or an integral one-element tensor."""
    if isinstance(v, _Tensor):
        return v.numel() == 1 and not v.dtype.is_floating_point and not v.dtype.is_complex
    return not isinstance(v, (bool, float)) and (isinstance(v, int) or hasattr(v, "__index__"))


def _bad_intseq(fname, argname, position, value):
    """torch's message for an int[] list holding a non-int (None when torch would take every element). The parser
    checks the first element only: a bad first element is "found element of type float at pos 0" (positional) or
    "must be tuple of ints, not tuple" (keyword); any later one fails when the list is unpacked ("failed to unpack
    the object at pos 2", counted from 1), where bools and integral one-element tensors pass."""
    if value and not _first_int(value[0]):
        if position is None:
            return None
        return TypeError(f"{fname}(): argument '{argname}' (position {position}) must be tuple of ints, but found "
                         f"element of type {_argtype(value[0])} at pos 0")
    for i, x in enumerate(value):
        if isinstance(x, _Tensor) and x.numel() == 1 and x.dtype.name == "bool":
            # (c10's item<int64_t>() of a bool: torch's internal check message, verbatim)
            return RuntimeError("Expected scalar.isIntegral( false) to be true, but got false.  (Could this error "
                                "message be improved?  If so, please report an enhancement request to PyTorch.)")
        if not (_first_int(x) or x.__class__ is bool):
            return TypeError(f"{fname}(): argument '{argname}' failed to unpack the object at pos {i + 1} with error "
                             f"\"type must be tuple of ints,but got {_tp_name(x)}\"")
    return None


def _bad_tensorlist(fname, argname, position, value):
    """torch's two messages: the argument is not a sequence, or one element is not a Tensor."""
    if not isinstance(value, (list, tuple)):
        raise _bad_arg(fname, argname, position, "tuple of Tensors", value)
    i = next(i for i, x in enumerate(value) if not isinstance(x, _Tensor))
    raise TypeError(f"{fname}(): expected Tensor as element {i} in argument '{argname}', but got {_argtype(value[i])}")


# ------------------------------------------------------------------ checks for hand-written functions
# check_*(fname, argname, pos, value): raise the binding's TypeError when `value` does not fit; `pos` is
# the 1-based position torch prints, None for a keyword-only argument.


def _as_tuple(results):
    """A `Tensor[]` result as torch's Python bindings return it: a tuple (an out= form returning nothing: None)."""
    return None if results is None else tuple(results)


def check_tensor(fname, argname, pos, v, optional=False):
    if not (isinstance(v, _Tensor) or optional and v is None):
        raise _bad_arg(fname, argname, pos, "Tensor", v)


def check_tensors(fname, argname, pos, seq):
    """Every element of a tensor sequence is a Tensor (torch: "expected Tensor as element i ...")."""
    for i, x in enumerate(seq):
        if not isinstance(x, _Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {pos - 1 if pos else 0}, "
                            f"but got {_argtype(x)}")


def check_int(fname, argname, pos, v, optional=False):
    if not (_is_int(v) or optional and v is None):
        raise _bad_arg(fname, argname, pos, "int", v)


def check_int_list(fname, argname, pos, v, optional=False):
    if not (_is_intlist(v) or optional and v is None):
        raise _bad_arg(fname, argname, pos, "tuple of ints", v)


def check_float(fname, argname, pos, v, optional=False):
    if not (_is_double(v) or optional and v is None):
        raise _bad_arg(fname, argname, pos, "float", v)


def check_bool(fname, argname, pos, v):
    if not _is_bool(v):
        raise _bad_arg(fname, argname, pos, "bool", v)


def check_dtype(fname, argname, pos, v, optional=True):
    if not (_is_dtype(v) or optional and v is None):
        raise _bad_arg(fname, argname, pos, "ember.dtype", v)


def check_str(fname, argname, pos, v, optional=False):
    if not (isinstance(v, str) or optional and v is None):
        raise _bad_arg(fname, argname, pos, "str", v)


# ------------------------------------------------------------------ schema matching (OpOverloadPacket calls)


def fits(v, t):
    """0 when `v` fits schema type `t` exactly, 1 when it fits through a conversion (a 0-dim tensor for
    an int, float or Scalar), None when it does not fit. A number never stands for a Tensor here: a
    packet call has no binding's allow-list, so it goes to the overload whose schema takes a number."""
    if isinstance(t, OptionalType):
        return 0 if v is None else fits(v, t.elem)
    if isinstance(t, ListType):
        if isinstance(v, (list, tuple)):
            worst = 0
            for x in v:
                s = fits(x, t.elem)
                if s is None:
                    return None
                worst = max(worst, s)
            return worst
        return fits(v, t.elem) if t.size is not None else None
    if not isinstance(t, BaseType):
        return 0
    n = t.name
    tensor = isinstance(v, _Tensor)
    if n == BaseTy.Tensor:
        return 0 if tensor else None
    if n in (BaseTy.int, BaseTy.SymInt):
        return (1 if tensor else 0) if _is_int(v) else None
    if n == BaseTy.float:
        return (1 if tensor else 0) if _is_double(v) else None
    if n == BaseTy.bool:
        return 0 if _is_bool(v) else None
    if n == BaseTy.Scalar:
        return (1 if tensor else 0) if _is_scalar(v) else None
    if n == BaseTy.ScalarType:
        return 0 if _is_dtype(v) else None
    if n == BaseTy.str:
        return 0 if isinstance(v, str) else None
    return 0


def binds(schema, args, kwargs):
    """The score of binding (args, kwargs) to `schema` (0 exact, higher with conversions), None if they don't."""
    a = schema.arguments
    pos = a.flat_positional
    if len(args) > len(pos):
        return None
    names = {x.name for x in a.flat_all}
    for k in kwargs:
        if k not in names:
            return None
    score = 0
    for x, v in zip(pos, args):
        s = None if x.name in kwargs else fits(v, x.type)
        if s is None:
            return None
        score += s
    for x in pos[len(args):] + a.flat_kwarg_only:
        if x.name in kwargs:
            s = fits(kwargs[x.name], x.type)
            if s is None:
                return None
            score += s
        elif x in a.out or x.default is None and not isinstance(x.type, OptionalType):
            return None
    return score


def bind_packet_call(packet, args, kwargs):
    """Call the first overload (in definition order) that binds exactly, else the first that binds
    through conversions; RuntimeError listing the schemas when none binds."""
    names = packet.overloads()
    best = None
    for n in names:
        ov = getattr(packet, n)
        s = binds(ov._schema, args, kwargs)
        if s == 0:
            return ov(*args, **kwargs)
        if s is not None and best is None:
            best = ov
    if best is not None:
        return best(*args, **kwargs)
    sigs = "\n".join("  " + str(getattr(packet, n)._schema) for n in names)
    raise RuntimeError(f"{packet._ns}::{packet.__name__}() Expected a value of type matching one of the overloads:\n{sigs}")
