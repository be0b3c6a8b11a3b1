"""Activation checkpointing (torch/utils/checkpoint.py): run `function` without saving its
intermediates, and recompute it during backward."""
from .._grad_mode import enable_grad
from .._tensor import Tensor
from ..autograd.function import Function


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


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
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
        if ctx.preserve_rng_state:
            from .._random import get_rng_state, set_rng_state
            cur = get_rng_state()
            set_rng_state(ctx.rng_state)
        try:
            with enable_grad():
                outs = ctx.run_function(*inputs)
        finally:
            if ctx.preserve_rng_state:
                set_rng_state(cur)
        outs = (outs,) if isinstance(outs, Tensor) else tuple(outs)
        pairs = [(o, g) for o, g in zip(outs, grads) if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if pairs:
            autograd.backward([p[0] for p in pairs], [p[1] for p in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in inputs)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               preserve_rng_state=True, **kwargs):
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    return CheckpointFunction.apply(function, preserve_rng_state, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    fns = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = max(1, len(fns) // segments)

    def run(start, end):
        def f(x):
            for fn in fns[start:end]:
                x = fn(x)
            return x
        return f
    for s in range(0, len(fns), size):
        input = checkpoint(run(s, min(s + size, len(fns))), input)
    return input
