"""torch.func's helpers for running many copies of a module at once (torch/_functorch/functional_call.py's
stack_module_state, torch/func's replace_all_batch_norm_modules_): the copies' parameters and buffers stacked
along a new first dim, for vmap over functional_call; batch norms stripped of their running statistics."""
__all__ = ["stack_module_state", "replace_all_batch_norm_modules_"]


def _stacked_leaf(tensors, name):
    from .. import stack
    all_rg = all(t.requires_grad for t in tensors)
    if not all_rg and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    return result.detach().requires_grad_() if all_rg else result


def stack_module_state(models):
    """({name: stacked parameter}, {name: stacked buffer}) of same-class models in the same train/eval mode; each
    stacked parameter is a new leaf (requires grad if the models' did)."""
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers


def _is_batch_norm(module):
    return any(c.__name__ == "_BatchNorm" and c.__module__ == "ember.nn.modules.batchnorm" for c in type(module).__mro__)


def replace_all_batch_norm_modules_(root):
    """In place: every batch norm in `root` stops tracking running statistics (normalizes with the batch's own, as
    vmap needs); returns `root`."""
    for m in [root, *root.modules()]:
        if _is_batch_norm(m) and m.track_running_stats:
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root
