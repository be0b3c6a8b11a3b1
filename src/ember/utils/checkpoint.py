"""Activation checkpointing (torch/utils/checkpoint.py): run `function` without keeping its intermediates, and
recompute them during backward.

Two variants, chosen by `use_reentrant` as in torch:

* non-reentrant (`use_reentrant=False`, the recommended one): the forward runs normally, with grad mode as the
  caller has it, under saved_tensors_hooks whose pack hook keeps only a position in place of each tensor an
  autograd node saves. The first unpack during backward reruns `function` (grad enabled, the forward's RNG and
  autocast state restored) under a pack hook that collects the recomputed tensors, detached, in the same order;
  each unpack then hands out its own (which the SavedVariable wires to the saved tensor's place in the graph,
  as torch's does) and drops it. Parameters get gradients even when no input requires grad,
  and torch.autograd.grad / create_graph work through it.
* reentrant (`use_reentrant=True`, and torch's default when the argument is left out, with its warning): an
  autograd.Function whose forward runs under no_grad and whose backward recomputes and runs a nested backward;
  only the inputs' gradient path exists, so an input must require grad (else torch's warning and no gradients).
"""
import contextlib
import warnings

from .._grad_mode import enable_grad
from .._tensor import Tensor
from ..autograd.function import Function

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "noop_context_fn"]


class CheckpointError(RuntimeError):
    """The recomputation did not save what the original forward saved (torch.utils.checkpoint.CheckpointError)."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def _detach_like(args):
    out = []
    for a in args:
        if isinstance(a, Tensor):
            d = a.detach()
            d.requires_grad_(a.requires_grad)
            out.append(d)
        else:
            out.append(a)
    return out


def _autocast_state():
    from ..amp import autocast_mode as A
    return A.is_autocast_enabled("cpu"), A.get_autocast_dtype("cpu"), A.is_autocast_cache_enabled()


def _autocast(state):
    from ..amp.autocast_mode import autocast
    enabled, dtype, cache = state
    return autocast("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache)


@contextlib.contextmanager
def _rng_as(state):
    """Run with the global generator at `state` (None: leave it), restoring the current one after."""
    if state is None:
        yield
        return
    from .._random import get_rng_state, set_rng_state
    cur = get_rng_state()
    set_rng_state(state)
    try:
        yield
    finally:
        set_rng_state(cur)


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        ctx.autocast = _autocast_state()
        if preserve_rng_state:
            from .._random import get_rng_state
            ctx.rng_state = get_rng_state()
        ctx.inputs = args
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        from .. import autograd
        ctx.saved_tensors   # raises if the graph was freed
        inputs = _detach_like(ctx.inputs)
        with _rng_as(ctx.rng_state if ctx.preserve_rng_state else None), enable_grad(), _autocast(ctx.autocast):
            outs = ctx.run_function(*inputs)
        outs = (outs,) if isinstance(outs, Tensor) else tuple(outs)
        pairs = [(o, g) for o, g in zip(outs, grads) if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if pairs:
            autograd.backward([p[0] for p in pairs], [p[1] for p in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in inputs)


def _meta(t):
    return tuple(t.shape), t.dtype


class _Frame:
    """One non-reentrant checkpoint call: what it needs to recompute, the metadata of each tensor the forward
    saved (in save order) and the recomputed tensors not unpacked yet."""

    def __init__(self, recompute, check):
        self.recompute_fn = recompute
        self.check = check
        self.saved_meta = []
        self.recomputed = {}

    def pack(self, t):
        self.saved_meta.append(_meta(t))
        return (self, len(self.saved_meta) - 1)

    @staticmethod
    def unpack(handle):
        """The recomputed tensor (detached); the SavedVariable unpacking it gives it the saved tensor's place in
        the graph, so a create_graph backward differentiates through the original graph (and its module hooks),
        not through the recomputation's."""
        frame, i = handle
        if i not in frame.recomputed:
            frame.recompute()
        return frame.recomputed.pop(i)

    def recompute(self):
        got = []

        def pack(t):
            got.append(t.detach() if t.requires_grad else t)
            return t

        from ..autograd.graph import saved_tensors_hooks
        with saved_tensors_hooks(pack, lambda t: t):
            self.recompute_fn()
        if len(got) != len(self.saved_meta):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {len(self.saved_meta)}\n"
                f"Number of tensors saved during recomputation: {len(got)}.")
        if self.check:
            bad = [(i, m, _meta(t)) for i, (m, t) in enumerate(zip(self.saved_meta, got)) if _meta(t) != m]
            if bad:
                raise CheckpointError(
                    "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata "
                    "than during the forward pass.\n" + "".join(
                        f"tensor at position {i}:\nsaved metadata: {{'shape': {list(a[0])}, 'dtype': {a[1]}}}\n"
                        f"recomputed metadata: {{'shape': {list(b[0])}, 'dtype': {b[1]}}}\n" for i, a, b in bad))
        self.recomputed = dict(enumerate(got))


def _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, determinism_check, args, kwargs):
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    forward_ctx, recompute_ctx = (context_fn or noop_context_fn)()
    rng = None
    if preserve_rng_state:
        from .._random import get_rng_state
        rng = get_rng_state()
    autocast_state = _autocast_state()

    def recompute():
        with _rng_as(rng), enable_grad(), _autocast(autocast_state), recompute_ctx:
            function(*args, **kwargs)

    frame = _Frame(recompute, determinism_check == "default")
    from ..autograd.graph import saved_tensors_hooks
    with saved_tensors_hooks(frame.pack, _Frame.unpack), forward_ctx:
        return function(*args, **kwargs)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               early_stop=True, **kwargs):
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch "
            "2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if (context_fn is not None and context_fn is not noop_context_fn) or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        if not any(a.requires_grad for a in args if isinstance(a, Tensor)):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """`functions` (a Sequential or a list) cut into `segments` runs of len // segments modules; every run but
    the last is checkpointed, the last (with the remainder) runs normally, as in torch."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
            "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
            "use_reentrant=False is recommended, but if you need to preserve the current default behavior, you "
            "can pass use_reentrant=True. Refer to docs for more details on the differences between the two "
            "variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from ..nn.modules.container import Sequential
    fns = list(functions.children()) if isinstance(functions, Sequential) else list(functions)

    def run(start, end):
        def forward(x):
            for fn in fns[start:end + 1]:
                x = fn(x)
            return x
        return forward
    size = len(fns) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(fns) - 1)(input)
