"""Calling a module with some of its tensors replaced (torch/nn/utils/stateless.py's `_reparametrize_module`
and `_functional_call`, torch/nn/utils/_named_member_accessor.py's tensor swaps).

The swaps work on any object with a Module's interface (`_parameters`, `_buffers`, `get_submodule`,
`named_parameters`), so ember.func uses them without importing ember.nn; ember.nn.utils.stateless re-exports
them at torch's path. A replacement is put in place as it is (a plain tensor may stand where a Parameter was),
tied tensors are replaced together (tie_weights), and everything is swapped back when the call ends, even
when it raises.
"""
import contextlib

from .._core.tensor_impl import TensorImpl as Tensor

__all__ = ["_functional_call", "_reparametrize_module", "_untie_named_tensors_map"]

_MISSING = object()     # a name the module does not have (swapped in where nothing was; deleted again after)


def _swap_tensor(module, name, tensor):
    """Put `tensor` (or _MISSING: remove) at `module.name`; returns what was there (_MISSING if nothing)."""
    if tensor is not _MISSING and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError(f'tensor name "{name}" should not contain "."')
    if name == "":
        raise KeyError("tensor name must not be empty")
    for store in (module._parameters, module._buffers):
        if name in store:
            orig = store[name]
            if tensor is not _MISSING:
                store[name] = tensor
            else:
                del store[name]
            return orig
    orig = getattr(module, name) if hasattr(module, name) else _MISSING
    if orig is not _MISSING and not isinstance(orig, Tensor):
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return orig


def _is_module(obj):
    return any(c.__name__ == "Module" and c.__module__ == "ember.nn.modules.module" for c in type(obj).__mro__)


def _submodule(module, name):
    """The submodule at dotted `name` (torch's NamedMemberAccessor.get_submodule and its errors)."""
    if not name:
        return module
    prefix, dot, attr = name.rpartition(".")
    parent = _submodule(module, prefix) if dot else module
    try:
        sub = getattr(parent, attr)
    except AttributeError as ex:
        raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from ex
    if not _is_module(sub):
        raise TypeError(f"submodule `{name}`: {sub} is not an instance of torch.nn.Module")
    return sub


def _swap(module, name, tensor):
    prefix, _, attr = name.rpartition(".")
    return _swap_tensor(_submodule(module, prefix), attr, tensor)


def _swap_all(module, named_tensors):
    """Swap every name in, in order; returns what each swap displaced. On an error, swap back what was already
    swapped (last first) and re-raise."""
    orig = {}
    try:
        for name, tensor in named_tensors.items():
            orig[name] = _swap(module, name, tensor)
    except Exception:
        _restore_all(module, orig)
        raise
    return orig


def _restore_all(module, orig):
    """Undo `_swap_all` given what it displaced: last swap first. Two names can reach one slot (a submodule
    registered under two paths, so `a.weight` and `b.weight` are one entry of one `_parameters` dict): the
    second swap displaced the first one's replacement, so only undoing in reverse order puts the true original
    back. torch undoes in call order (unless stack_weights) and leaves the replacement on the module; ember
    always undoes in reverse, which is the same whenever no two names share a slot. Returns what each undo
    took off the module."""
    new = {}
    for name, tensor in reversed(list(orig.items())):
        new[name] = _swap(module, name, tensor)
    return {name: new[name] for name in orig}


def _named_tensors(module):
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    return named


def _untie_named_tensors_map(module, parameters_and_buffers):
    """Add every name tied to a given one (one tensor under several names) with the given value; two different
    values for one tied tensor are an error."""
    by_tensor = {}
    for name, t in _named_tensors(module).items():
        by_tensor.setdefault(id(t), set()).add(name)
    tied = {n: names for names in by_tensor.values() if len(names) > 1 for n in names}
    given = set(parameters_and_buffers)
    given_tied = {n for n in given if n in tied}
    for name in given_tied:
        names = tied[name]
        if len(names & given_tied) > 1 and len({id(parameters_and_buffers[n]) for n in names & given_tied}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                             "Consider using tie_weights=False")
    out = dict(parameters_and_buffers)
    for name in given_tied:
        for other in tied[name]:
            out[other] = parameters_and_buffers[name]
    return out


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False, stack_weights=False):
    """Within the block, `module`'s tensors named in `parameters_and_buffers` are the given ones. Tensors the
    module writes in place during the block are given back in `parameters_and_buffers` afterwards."""
    named = _untie_named_tensors_map(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        valid = set(_named_tensors(module))
        missing, unexpected = sorted(valid - set(named)), sorted(set(named) - valid)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(),
                                                                               "\n\t".join(msgs)))
    orig = {}
    try:
        orig = _swap_all(module, named)
        yield
    finally:
        # stack_weights (torch's switch to undo last-first) is how ember always undoes: see _restore_all
        new = _restore_all(module, orig)
        parameters_and_buffers.update({k: new[k] for k in parameters_and_buffers if k in new})


def _is_data_parallel(module):
    return any(c.__name__ == "DataParallel" and c.__module__.startswith("ember.nn.parallel")
               for c in type(module).__mro__)


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    if _is_data_parallel(module):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    kwargs = {} if kwargs is None else kwargs
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)
