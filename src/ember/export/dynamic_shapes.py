"""torch.export.dynamic_shapes: Dim, the named symbolic size a `dynamic_shapes` spec gives an input dimension.

`Dim("batch", min=2, max=64)` makes that dimension a symbol of the exported graph (traced with make_fx's
symbolic mode, only the marked dimensions symbolic); `Dim.AUTO` lets export decide (dynamic unless the code
fixes it), `Dim.STATIC` keeps the example's size, `Dim.DYNAMIC` is a Dim without a name or range.
"""
import inspect

INT_OO = float("inf")


class _DimHint:
    def __init__(self, kind):
        self.kind = kind

    def __repr__(self):
        return f"DimHint({self.kind})"

    def __call__(self, min=None, max=None):
        hint = _DimHint(self.kind)
        hint.min, hint.max = min, max
        return hint

    min = None
    max = None


class Dim:
    """A named dimension: all input dimensions given the same Dim are the same size."""

    def __init__(self, name, *, min=None, max=None):
        if not isinstance(name, str):
            raise TypeError(f"Dim: the name must be a str, got {type(name).__name__}")
        lo = 0 if min is None else int(min)
        hi = INT_OO if max is None else int(max)
        if hi < lo:
            raise AssertionError(f"Cannot create Dim with inconsistent min={min}, max={max}")
        self.__name__ = name
        self.min = lo
        self.max = hi

    def __repr__(self):
        hi = "int_oo" if self.max == INT_OO else self.max
        return f"Dim('{self.__name__}', min={self.min}, max={hi})"


Dim.AUTO = _DimHint("AUTO")
Dim.STATIC = _DimHint("STATIC")
Dim.DYNAMIC = _DimHint("DYNAMIC")


def dims(*names, min=None, max=None):
    """Several Dims with the same range (torch.export.dims)."""
    return tuple(Dim(n, min=min, max=max) for n in names)


def _user_error(msg):
    from ember._dynamo.exc import UserError
    return UserError(msg)


def flatten_dynamic_shapes(f, args, kwargs, dynamic_shapes, leaves_per_input):
    """Per flat user input leaf, {dim: Dim | _DimHint} (None for no spec). `leaves_per_input` is the list of
    (top-level name, number of leaves) in the order the leaves are traced."""
    if dynamic_shapes is None:
        return None
    names = [n for n, _ in leaves_per_input]
    if isinstance(dynamic_shapes, dict):
        unknown = [k for k in dynamic_shapes if k not in names]
        if unknown:
            raise _user_error(
                f"When `dynamic_shapes` is specified as a dict, its top-level keys must be the arg names "
                f"{names} of `inputs`, but here they are {list(dynamic_shapes)}. Alternatively, you could also "
                f"ignore arg names entirely and specify `dynamic_shapes` as a list/tuple matching `inputs`.")
        per_input = [dynamic_shapes.get(n) for n in names]
    elif isinstance(dynamic_shapes, (list, tuple)):
        if len(dynamic_shapes) != len(names):
            raise _user_error(f"dynamic_shapes has {len(dynamic_shapes)} entries but the inputs are {len(names)} "
                              f"({names})")
        per_input = list(dynamic_shapes)
    else:
        raise _user_error(f"dynamic_shapes must be a dict, list or tuple, got {type(dynamic_shapes).__name__}")
    out = []
    for (name, count), spec in zip(leaves_per_input, per_input):
        if count == 1:
            out.append(_dim_map(name, spec))
        elif spec is None:
            out.extend([None] * count)
        elif isinstance(spec, (list, tuple)) and len(spec) == count and all(
                s is None or isinstance(s, dict) for s in spec):
            out.extend(_dim_map(name, s) for s in spec)
        else:
            raise NotImplementedError("ember.export: dynamic_shapes for nested inputs must be a flat list of "
                                      "per-tensor specs")
    return out


def _dim_map(name, spec):
    if spec is None:
        return None
    if isinstance(spec, (list, tuple)):
        spec = {i: d for i, d in enumerate(spec) if d is not None}
    if not isinstance(spec, dict):
        raise _user_error(f"dynamic_shapes[{name!r}]: expected a dict {{dim: Dim}} or a list/tuple of Dims, got "
                          f"{type(spec).__name__}")
    for d in spec.values():
        if not isinstance(d, (Dim, _DimHint)):
            raise _user_error(f"dynamic_shapes[{name!r}]: expected Dim objects, got {d!r}")
    return dict(spec)


def _signature_names(f):
    try:
        return list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        return []
