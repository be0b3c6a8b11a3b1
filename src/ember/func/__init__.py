"""ember.func: function transforms (torch.func, reduced) built on ember.autograd.

grad / grad_and_value / vjp / jacrev use reverse mode (the graph is built with create_graph so
transforms nest: grad(grad(f)) works); jvp / jacfwd use forward mode (ember.autograd.forward_ad,
one dual level, so jvp does not nest inside jvp); hessian = jacfwd(jacrev(f)) is therefore done as
jacrev(jacrev(f)). vmap is a LOOP FALLBACK: it slices the batched inputs, calls the function once
per sample and stacks the results (correct semantics, no batching rules, per-sample cost).
"""
from .._core.unimplemented import missing_attribute as _missing_attribute
import functools

from .._grad_mode import enable_grad
from .._tensor import Tensor
from .._ops import ops as _ops

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "functional_call",
           "stack_module_state", "replace_all_batch_norm_modules_", "functionalize", "linearize", "debug_unwrap",
           "rearrange"]


# ---------------------------------------------------------------- pytrees (tuple/list/dict of tensors)
def _flatten(x):
    if isinstance(x, Tensor):
        return [x], lambda leaves: leaves[0]
    if isinstance(x, (tuple, list)):
        parts = [_flatten(v) for v in x]
        sizes = [len(p[0]) for p in parts]

        def unflat(leaves, parts=parts, sizes=sizes, typ=type(x)):
            out, i = [], 0
            for (_, f), n in zip(parts, sizes):
                out.append(f(leaves[i:i + n]))
                i += n
            return typ(*out) if hasattr(typ, "_fields") else typ(out)     # namedtuples (linalg.qr's) take fields
        return [leaf for p in parts for leaf in p[0]], unflat
    if isinstance(x, dict):
        keys = list(x)
        leaves, unflat = _flatten([x[k] for k in keys])
        return leaves, lambda ls: dict(zip(keys, unflat(ls)))
    return [], lambda leaves: x


def _track(t):
    """A fresh differentiable handle on t that stays connected to any outer transform's graph, and
    keeps t's forward-mode tangent (jvp(grad(f)): forward-over-reverse)."""
    if t.requires_grad:
        return _ops.aten.alias.default(t)
    return _detach_keep_tangent(t).requires_grad_()


def _argnums_tuple(argnums):
    return (argnums,) if isinstance(argnums, int) else tuple(argnums)


def _detach_keep_tangent(g, detach_tangent=False):
    """g.detach() that keeps g's forward-mode tangent (detach drops it), so jvp(grad(f)) works."""
    d = g.detach()
    tangent = g.__dict__.get("_fw_tangent")
    if tangent is not None:
        from ..autograd.forward_ad import _attach
        _attach(d, tangent.detach() if detach_tangent else tangent)
    return d


def _finish(x, keep):
    leaves, unflat = _flatten(x)
    return unflat([g if keep else _detach_keep_tangent(g, True) for g in leaves])


# ---------------------------------------------------------------- reverse mode
def grad_and_value(func, argnums=0, has_aux=False):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from ..autograd import grad as _grad
        nums = _argnums_tuple(argnums)
        args = list(args)
        outer = False
        trees = []
        for n in nums:
            leaves, unflat = _flatten(args[n])
            outer = outer or any(t.requires_grad for t in leaves)
            tracked = [_track(t) for t in leaves]
            trees.append((tracked, unflat))
            args[n] = unflat(tracked)
        with enable_grad():
            out = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: "
                                       "(output, aux) if has_aux is True")
                out, aux = out
            if not isinstance(out, Tensor) or out.numel() != 1:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {out.dim() if isinstance(out, Tensor) else '?'} dims. Maybe you "
                                   "wanted to use the vjp or jacrev APIs instead?")
            flat = [t for tracked, _ in trees for t in tracked]
            gs = _grad(out, flat, create_graph=True, allow_unused=True, materialize_grads=True) if out.requires_grad \
                else [t.detach() * 0 for t in flat]
        res, i = [], 0
        for tracked, unflat in trees:
            res.append(unflat(list(gs[i:i + len(tracked)])))
            i += len(tracked)
        g = res[0] if isinstance(argnums, int) else tuple(res)
        g = _finish(g, outer)
        value = out if outer else out.detach()
        if has_aux:
            return g, (value, _finish(aux, outer))
        return g, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, v = gv(*args, **kwargs)
        return (g, v[1]) if has_aux else g
    return wrapper


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn): vjp_fn(cotangents) -> tuple of gradients, one per primal."""
    from ..autograd import grad as _grad
    outer = any(t.requires_grad for p in primals for t in _flatten(p)[0])
    flat_trees = [_flatten(p) for p in primals]
    tracked = [[_track(t) for t in leaves] for leaves, _ in flat_trees]
    args = [unflat(tr) for (_, unflat), tr in zip(flat_trees, tracked)]
    with enable_grad():
        out = func(*args)
        aux = None
        if has_aux:
            out, aux = out
    out_leaves, out_unflat = _flatten(out)

    def vjp_fn(cotangents):
        ct_leaves, _ = _flatten(cotangents)
        if len(ct_leaves) != len(out_leaves):
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function ({len(ct_leaves)} vs {len(out_leaves)} tensors)")
        flat = [t for tr in tracked for t in tr]
        pairs = [(o, c) for o, c in zip(out_leaves, ct_leaves) if o.requires_grad]
        with enable_grad():
            if pairs:
                gs = _grad([o for o, _ in pairs], flat, [c for _, c in pairs], retain_graph=True, create_graph=True,
                           allow_unused=True, materialize_grads=True)
            else:
                gs = [t.detach() * 0 for t in flat]
        res, i = [], 0
        for (_, unflat), tr in zip(flat_trees, tracked):
            res.append(_finish(unflat(list(gs[i:i + len(tr)])), outer))
            i += len(tr)
        return tuple(res)
    value = out_unflat([o if outer else o.detach() for o in out_leaves])
    if has_aux:
        return value, vjp_fn, _finish(aux, outer)
    return value, vjp_fn


def jacrev(func, argnums=0, has_aux=False):
    """Jacobian by reverse mode, one vjp per output element (a loop over basis cotangents)."""
    @functools.wraps(func)
    def wrapper(*args):
        from .. import stack, zeros_like
        nums = _argnums_tuple(argnums)
        inner = lambda *xs: func(*[xs[nums.index(i)] if i in nums else a for i, a in enumerate(args)])  # noqa: E731
        out, fn, *aux = vjp(inner, *[args[i] for i in nums], has_aux=has_aux)
        flat = out.reshape(-1)
        rows = []
        for k in range(flat.numel()):
            e = zeros_like(flat)
            e[k] = 1.0
            rows.append(fn(e.reshape(out.shape)))
        jac = []
        for j, i in enumerate(nums):
            x = args[i]
            if rows:
                jac.append(stack([r[j] for r in rows]).reshape(tuple(out.shape) + tuple(x.shape)))
            else:
                jac.append(zeros_like(x).reshape(tuple(out.shape) + tuple(x.shape)))
        j = jac[0] if isinstance(argnums, int) else tuple(jac)
        return (j, aux[0]) if has_aux else j
    return wrapper


# ---------------------------------------------------------------- forward mode
def jvp(func, primals, tangents, *, has_aux=False):
    """(func(*primals), J·tangents) by forward-mode AD."""
    from ..autograd import forward_ad as fw
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to be tuples")
    if len(primals) != len(tangents):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same length")
    with fw.dual_level():
        duals = []
        for p, t in zip(primals, tangents):
            pl, unflat = _flatten(p)
            tl, _ = _flatten(t)
            duals.append(unflat([fw.make_dual(a, b) for a, b in zip(pl, tl)]))
        out = func(*duals)
        aux = None
        if has_aux:
            out, aux = out
        leaves, unflat = _flatten(out)
        ps, ts = [], []
        for o in leaves:
            p, t = fw.unpack_dual(o)
            ps.append(p)
            if t is None:
                from .. import zeros_like
                t = zeros_like(p)
            ts.append(t)
    res = (unflat(ps), unflat(ts))
    return res + (aux,) if has_aux else res


def jacfwd(func, argnums=0, has_aux=False):
    """Jacobian by forward mode, one jvp per input element (a loop over basis tangents)."""
    @functools.wraps(func)
    def wrapper(*args):
        from .. import stack, zeros_like
        nums = _argnums_tuple(argnums)
        jac = []
        aux = None
        for i in nums:
            x = args[i]
            cols = []
            for k in range(x.numel()):
                e = zeros_like(x).reshape(-1)
                e[k] = 1.0
                prim = tuple(args)
                tans = tuple(e.reshape(x.shape) if j == i else zeros_like(a) if isinstance(a, Tensor) else a
                             for j, a in enumerate(args))
                r = jvp(func, prim, tans, has_aux=has_aux)
                out, t = r[0], r[1]
                if has_aux:
                    aux = r[2]
                cols.append(t)
            if cols:
                out_shape = tuple(cols[0].shape)
                jac.append(stack(cols, -1).reshape(out_shape + tuple(x.shape)))
            else:
                out_shape = tuple(func(*args).shape)
                jac.append(zeros_like(x).reshape(out_shape + tuple(x.shape)))
        j = jac[0] if isinstance(argnums, int) else tuple(jac)
        return (j, aux) if has_aux else j
    return wrapper


def hessian(func, argnums=0):
    """Second derivatives. torch composes jacfwd(jacrev(f)); ember's forward mode has no nested levels,
    so this is jacrev(jacrev(f)) (same values)."""
    return jacrev(jacrev(func, argnums), argnums)


# ---------------------------------------------------------------- vmap (loop fallback)
def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """LOOP FALLBACK: calls func once per batch element (in_dims slices), stacks along out_dims. Unlike torch's
    batching rules the loop lets a sample call .item() (torch raises)."""
    @functools.wraps(func)
    def wrapper(*args):
        from .. import stack
        dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                             f"structure of `inputs`. in_dims has structure {len(dims)} but inputs has {len(args)}.")
        if randomness not in ("error", "different", "same"):
            raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. "
                               f"Got {randomness}")
        name = getattr(func, "__name__", repr(func))
        sizes = set()
        for a, d in zip(args, dims):
            if d is not None:
                for leaf in _flatten(a)[0] if isinstance(a, (tuple, list, dict)) else [a]:
                    if not isinstance(leaf, Tensor):
                        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an "
                                         f"input but the input is of type {type(leaf)}. We cannot vmap over "
                                         f"non-Tensor arguments, please use None as the respective in_dim")
                    nd = leaf.dim()
                    if not -nd <= d < nd:
                        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                                         f"input, but that input is a Tensor of dimensionality {nd} so expected "
                                         f"in_dim to satisfy -{nd} <= in_dim < {nd}.")
                    sizes.add(leaf.shape[d])
        if not sizes:
            raise ValueError("vmap(f, in_dims=..., ...)(<inputs>): at least one input must be batched "
                             "(in_dims not all None)")
        if len(sizes) != 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sorted(sizes)} for the mapped dimension")
        n = sizes.pop()
        # randomness, as the loop sees it through the default generator's state: "same" replays one state
        # for every sample; "error" refuses a call that drew from it (torch's batched random ops refuse)
        from .. import get_rng_state, set_rng_state
        from .._random import default_generator as gen
        rng = get_rng_state() if randomness == "same" else None
        mark = (gen._seed, gen._rng.bit_generator.state) if randomness == "error" else None   # (a small dict)
        results = []
        for b in range(n):
            sample = []
            for a, d in zip(args, dims):
                if d is None:
                    sample.append(a)
                else:
                    leaves, unflat = _flatten(a)
                    sample.append(unflat([leaf.select(d, b) for leaf in leaves]))
            if randomness == "same" and b:
                set_rng_state(rng)
            results.append(func(*sample))
            if mark is not None and mark != (gen._seed, gen._rng.bit_generator.state):
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                                   "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
        first, unflat = _flatten(results[0])
        per = [_flatten(r)[0] for r in results]
        od = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(first)
        stacked = []
        for k in range(len(first)):
            vals = [p[k] if isinstance(p[k], Tensor) else _as_tensor(p[k]) for p in per]
            stacked.append(stack(vals, od[k]))
        return unflat(stacked)
    return wrapper


def _as_tensor(x):
    from .. import tensor
    return tensor(x)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Call `module` with the tensors of `parameter_and_buffer_dicts` (a dict, or a sequence of dicts with distinct
    keys) in place of its parameters and buffers, restored afterwards (torch.func.functional_call)."""
    from collections.abc import Sequence
    from ._reparametrize import _functional_call
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        merged = dicts
    elif isinstance(dicts, Sequence):
        if not all(isinstance(d, dict) for d in dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts = {}
        for d in dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        merged = {k: v for d in dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(dicts)}")
    return _functional_call(module, merged, args, kwargs, tie_weights=tie_weights, strict=strict)


def _structure(x):
    """A comparable description of a pytree's shape (containers and keys, leaves as None)."""
    if isinstance(x, (tuple, list)):
        return (type(x), tuple(_structure(v) for v in x))
    if isinstance(x, dict):
        return (dict, tuple((k, _structure(v)) for k, v in x.items()))
    return None


def linearize(func, *primals):
    """(func(*primals), jvp_fn): jvp_fn(*tangents) is the Jacobian of func at primals applied to tangents
    (torch.func.linearize). torch traces the jvp once into a graph; ember runs forward-mode AD per call
    (same values, func evaluated again per jvp_fn call)."""
    output = func(*primals)
    flat_primals = [p for arg in primals for p in _flatten(arg)[0]]
    spec = _structure(primals)
    fixed = tuple(_flatten(p)[1]([t.detach() for t in _flatten(p)[0]]) for p in primals)
    meta = [(tuple(p.shape), p.device, p.dtype) for p in flat_primals]

    def jvp_fn(*tangents):
        if _structure(tangents) != spec:
            raise RuntimeError(f"Expected the tangents {_structure(tangents)} to have the same argspec as the "
                               f"primals {spec}")
        flat = [t for arg in tangents for t in _flatten(arg)[0]]
        for idx, (t, (shape, device, dtype)) in enumerate(zip(flat, meta)):
            if tuple(t.shape) != shape:
                raise RuntimeError(f"tangent:{idx} with shape {t.shape} in flattened pytree doesn't match the "
                                   f"shape {flat_primals[idx].shape} of the corresponding primal.")
            if t.device != device:
                raise RuntimeError(f"tangent:{idx} with device {t.device} in flattened pytree doesn't match the "
                                   f"device {device} of the corresponding primal.")
            if t.dtype != dtype:
                raise RuntimeError(f"tangent:{idx} with dtype {t.dtype} in flattened pytree doesn't match the "
                                   f"dtype {dtype} of the corresponding primal.")
        return jvp(func, fixed, tuple(tangents))[1]
    return output, jvp_fn


def functionalize(func, *, remove="mutations"):
    """torch.func.functionalize: func without mutations (and, remove="mutations_and_views", without views);
    see ember._functorch.eager_transforms."""
    from .._functorch.eager_transforms import functionalize as _functionalize
    return _functionalize(func, remove=remove)


def debug_unwrap(tensor, *, recurse=True):
    """The tensor under a functorch wrapper. ember's transforms run on plain tensors (no BatchedTensor or
    GradTrackingTensor wrappers), so this is the tensor itself, as torch returns an unwrapped tensor."""
    return tensor

from ._module_state import stack_module_state, replace_all_batch_norm_modules_  # noqa: E402
from ._rearrange import rearrange  # noqa: E402


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
