"""Boxed fallback kernels for the non-backend dispatch keys, driven by each op's schema.

- Python: hands the call to the innermost TorchDispatchMode.
- ADInplaceOrView: after running the op below, bumps the version counter of every argument the
  schema marks written (`Tensor(a!)`) that the op returns, and marks every returned alias (`Tensor(a)`) as a view of
  its input: `_base` set, version counter shared (torch's ADInplaceOrView kernels, generated from
  the same annotations).
- BackendSelect: factories with no tensor input pick CPU or Meta from their `device` argument.
A fallback returns None for ops it has nothing to do for: that is a fallthrough.
"""
from ._core.dispatch_keys import AUTOGRAD_BIT, CPU_BIT, META_BIT, DispatchKey
from ._dispatch.modes import _dispatch_to_mode
from ._ops import register_fallback
from ._core.memory_format import LAYOUTS, format_name
from ._core.device import as_device, default_device_or_none, device as _device
from ._core.tls import state as _tls
from ._core.tensor_impl import INFERENCE_VC, set_view_creation_meta


def _python_fallback(op, below):
    kernels = op._entry.kernels
    if below & AUTOGRAD_BIT and DispatchKey.CompositeImplicitAutograd in kernels and any(
            k in kernels for k in (DispatchKey.CPU, DispatchKey.Meta)):
        # an op with a backend kernel for calls without grad and a composite for autograd (matmul,
        # linalg_matrix_norm): torch's Autograd key, below which its Python key sits, runs the composite, so a
        # mode sees the ops the composite calls (and autograd records their nodes), never the op itself
        from ._ops import _resolve_fn
        return _resolve_fn(kernels[DispatchKey.CompositeImplicitAutograd])

    def kernel(*args, **kwargs):
        return _dispatch_to_mode(op, args, kwargs)
    return kernel


def _arg_getter(schema, name):
    pos = [a.name for a in schema.arguments.flat_positional]
    if name in pos:
        i = pos.index(name)

        def get(args, kwargs):
            return args[i] if i < len(args) else kwargs.get(name)
        return get
    return lambda args, kwargs: kwargs.get(name)


def _inplace_or_view_fallback(op, below):
    kernels = op._entry.kernels
    if DispatchKey.CompositeImplicitAutograd in kernels and not any(
            k in kernels for k in (DispatchKey.CPU, DispatchKey.Meta, DispatchKey.CompositeExplicitAutograd)):
        return None   # a decomposition: the ops it calls do their own version/view bookkeeping
    if op._entry.qualname in ("aten::detach", "aten::view.dtype"):
        return _detach_kernel(op, below)   # the views torch makes non-differentiable (derivatives: no output)
    schema = op._schema
    # torch bumps the written arguments the op returns (rrelu_with_noise writes `noise` without a bump; an out=
    # form returning `()` bumps nothing here: its kernel's own copy_ into each output does)
    returned = {r.annotation.alias_set[0] for r in schema.returns if r.annotation is not None and r.annotation.alias_set}
    written = [_arg_getter(schema, a.name) for a in schema.arguments.flat_all
               if a.is_write and a.annotation.alias_set and a.annotation.alias_set[0] in returned]
    alias_of = {}
    for a in schema.arguments.flat_all:
        if a.annotation is not None and not a.annotation.is_write and a.annotation.alias_set:
            alias_of[a.annotation.alias_set[0]] = _arg_getter(schema, a.name)
    view_rets = []
    for i, r in enumerate(schema.returns):
        ann = r.annotation
        if ann is not None and not ann.is_write and ann.alias_set and ann.alias_set[0] in alias_of:
            view_rets.append((i, alias_of[ann.alias_set[0]]))
    if not written and not view_rets:
        return None
    single = len(schema.returns) == 1
    if not written and single and view_rets[0][1] is alias_of.get(_first_alias(schema)):
        return _view_kernel(op, below, view_rets[0][1], _first_is_self(schema))
    if (len(written) == 1 and not view_rets and single and _first_is_self(schema)
            and schema.arguments.flat_all[0].is_write and str(schema.arguments.flat_all[0].type) == "Tensor"
            and schema.returns[0].annotation is not None
            and schema.returns[0].annotation.alias_set == schema.arguments.flat_all[0].annotation.alias_set):
        return _inplace_kernel(op, below, written[0])

    def kernel(*args, **kwargs):
        for get in written:          # inference tensors refuse in-place writes outside inference_mode
            t = get(args, kwargs)
            if t.__class__ is not list and t.__class__ is not tuple and t is not None and t._vc is INFERENCE_VC:
                INFERENCE_VC.check_write()
        out = op.redispatch(below, *args, **kwargs)
        for get in written:
            t = get(args, kwargs)
            if isinstance(t, (list, tuple)):
                for x in t:
                    x._version_counter.value += 1
            elif t is not None:
                t._version_counter.value += 1
        for i, get in view_rets:
            base = get(args, kwargs)
            r = out if single else out[i]
            if isinstance(r, (list, tuple)):
                for x in r:
                    _mark_view(x, base, name)
            else:
                _mark_view(r, base, name)
        return out
    name = _forward_name(op)
    return kernel


def _inplace_kernel(op, below, get):
    """The ADInplaceOrView kernel of an in-place method writing its one Tensor `self` and returning it (add_,
    mul_, clamp_, zero_, ...): the fallback's loops unrolled for that case (issue 18: `a.mul_(2.)` paid ~1 us
    for the general loops). The same steps in the same order: an inference tensor refuses the write outside
    inference_mode, the op runs below, then self's version counter is bumped (not when the op raised)."""
    cache = op._dispatch_cache

    def kernel(*args, **kwargs):
        t = args[0] if args else get(args, kwargs)
        if t._vc is INFERENCE_VC:
            INFERENCE_VC.check_write()
        try:
            k = cache[below]
        except KeyError:
            k = op._resolve(below)
        out = k(*args, **kwargs)
        t._version_counter.value += 1
        return out
    return kernel


def _detach_kernel(op, below):
    """detach's (and view.dtype's) result shares its input's storage and version counter but is not a view of it
    (torch's non-differentiable view: `_base` stays None), so `x.detach().requires_grad_()` is a new leaf."""
    cache = op._dispatch_cache

    def kernel(*args, **kwargs):
        try:
            k = cache[below]
        except KeyError:
            k = op._resolve(below)
        out = k(*args, **kwargs)
        base = args[0] if args else kwargs["self"]
        if out is not base:
            vc = base._vc
            out._vc = base._version_counter if vc is None else vc
        return out
    return kernel


def _first_alias(schema):
    a = schema.arguments.flat_all[0] if schema.arguments.flat_all else None
    ann = a.annotation if a is not None else None
    return ann.alias_set[0] if ann is not None and not ann.is_write and ann.alias_set else None


def _first_is_self(schema):
    pos = schema.arguments.flat_positional
    return bool(pos) and pos[0] is schema.arguments.flat_all[0]


def _view_kernel(op, below, get, positional):
    """The ADInplaceOrView kernel of a view op (one return aliasing its first argument, nothing written):
    the fallback's loops unrolled for the one case every view op is (view, t, select, slice, split, ...).
    A kernel below that carries `_as_view` (the common view kernels, kernels/meta/view.py: the same code
    building results already marked as this kernel marks them) is that kernel's place here: one call per view."""
    cache = op._dispatch_cache
    try:
        below_kernel = cache.get(below) or op._resolve(below)
    except NotImplementedError:
        below_kernel = None
    fused = getattr(below_kernel, "_as_view", None)
    if fused is not None:
        return fused

    def kernel(*args, **kwargs):
        try:
            k = cache[below]
        except KeyError:
            k = op._resolve(below)
        out = k(*args, **kwargs)
        base = args[0] if positional and args else get(args, kwargs)
        if out.__class__ is list or out.__class__ is tuple:
            for x in out:
                _mark_view(x, base, name)
            return out
        if out is not base:
            root = base._base
            out._base = base if root is None else root
            vc = base._vc
            if vc is None:
                vc = base._version_counter
            out._vc = vc
            if base._requires_grad or base.__dict__.get("_no_grad_view"):
                set_view_creation_meta(out, base, name)
        return out
    name = _forward_name(op)
    return kernel


def _forward_name(op):
    """torch's forward_op_name of a view op's node: aten::slice.Tensor -> "Slice"."""
    base = op._entry.qualname.split("::")[-1].split(".")[0].strip("_")
    return "".join(w[:1].upper() + w[1:] for w in base.split("_"))


def _mark_view(view, base, op_name=None):
    """`view` marked a view of `base` (the ADInplaceOrView step of one returned alias), with torch's creation meta
    (CreationMeta: in-place on a view made in no_grad mode, or on an output of a multi-output view op, refused)."""
    if view is base:
        return
    view._base = base._base if base._base is not None else base
    view._version_counter = base._version_counter
    if base._requires_grad or base.__dict__.get("_no_grad_view"):
        set_view_creation_meta(view, base, op_name, depth=2)


_STRIDED = LAYOUTS["strided"]


def _refuse_layout(op, lay):
    """torch's BackendSelect picks the Sparse*/Mkldnn/Nested backend from a factory's layout; ember has strided
    tensors only, so such a layout is refused by name instead of being ignored."""
    name, fn = format_name(lay), str(op._schema.name).split(".")[0]
    if name not in LAYOUTS:
        raise TypeError(f"{fn}(): argument 'layout' must be torch.layout, not {type(lay).__name__}")
    raise NotImplementedError(f"{fn} with layout=torch.{name}: ember does not implement torch.{name} tensors "
                              f"(it has the strided layout only)")


def _backend_select_fallback(op, below):
    schema = op._schema
    names = [a.name for a in schema.arguments.flat_all]
    if "device" not in names:
        def cpu_kernel(*args, **kwargs):
            return op.redispatch(below | CPU_BIT, *args, **kwargs)
        return cpu_kernel
    get = _arg_getter(schema, "device")
    pos = [a.name for a in schema.arguments.flat_positional]
    at = pos.index("device") if "device" in pos else None
    below_cpu, below_meta = below | CPU_BIT, below | META_BIT
    # the layout picks the backend too; aten's factories take it keyword-only, so one dict lookup per call
    # (the *_window decompositions refuse a sparse layout themselves, with torch's RuntimeError)
    has_layout = "layout" in names and not str(schema.name).split(".")[0].endswith("_window")
    lay_kw = has_layout and "layout" not in pos
    get_layout = _arg_getter(schema, "layout") if has_layout and not lay_kw else None

    def kernel(*args, **kwargs):
        lay = kwargs.get("layout") if lay_kw else get_layout(args, kwargs) if get_layout is not None else None
        if lay is not None and lay is not _STRIDED:
            _refuse_layout(op, lay)
        d = get(args, kwargs)
        if d is None:
            d = default_device_or_none()          # torch.set_default_device
            if d is not None:
                d = as_device(d)
                if at is not None and at < len(args):
                    args = args[:at] + (d,) + args[at + 1:]
                else:
                    kwargs = dict(kwargs, device=d)
        elif d.__class__ is not _device or d.type not in ("cpu", "meta"):
            d = as_device(d)                      # "banana", "cuda", 0: torch's errors
        meta = d is not None and d.type == "meta"
        return op.redispatch(below_meta if meta else below_cpu, *args, **kwargs)
    return kernel


register_fallback(DispatchKey.Python, _python_fallback)
register_fallback(DispatchKey.ADInplaceOrView, _inplace_or_view_fallback)
register_fallback(DispatchKey.BackendSelect, _backend_select_fallback)
