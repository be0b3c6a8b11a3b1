"""torch.compiler: the user-facing entry points of ember.compile (reset, disable, allow_in_graph, ...)."""
from ember._dynamo import allow_in_graph, disable, reset  # noqa: F401
from ember._dynamo.eval_frame import _STATES

__all__ = ["compile", "reset", "disable", "allow_in_graph", "is_compiling", "is_dynamo_compiling"]


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """ember.compile (torch.compile): capture `model` (a function or nn.Module) into graphs run by `backend`.
    Used as `ember.compile(fn)`, `@ember.compile` or `@ember.compile(fullgraph=True)`."""
    if model is None:
        def decorator(m):
            return compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
                           disable=disable)
        return decorator
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if disable:
        return model
    if backend == "inductor" and ((mode and mode != "default") or options):
        from ember._inductor.modes import InductorWrapper    # checks mode and options (RuntimeError)
        backend = InductorWrapper(mode, options, dynamic)
    from ember._dynamo.eval_frame import optimize
    return optimize(model, {"fullgraph": fullgraph, "dynamic": dynamic, "backend": backend, "mode": mode,
                            "options": options})


def is_compiling():
    """True while ember.compile captures the calling code (ember._dynamo folds the call to the constant True, as
    torch's dynamo does), False when it runs eagerly: code may pick a capturable path under compile."""
    return False


is_compiling._ember_is_compiling = True

is_dynamo_compiling = is_compiling
_ = _STATES
