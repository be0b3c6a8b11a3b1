"""torch.autograd.profiler_legacy: the legacy (non-Kineto) profiler's `profile`. ember has one recorder,
the dispatcher's observer (ember.autograd.profiler), which this `profile` uses too."""
from .profiler import profile as _profile


class profile(_profile):
    """torch.autograd.profiler_legacy.profile: `with profile() as prof:` records the ops run inside."""

    def __init__(self, enabled=True, *, use_cuda=False, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False):
        super().__init__(enabled, use_cuda=use_cuda, record_shapes=record_shapes, with_flops=with_flops,
                         profile_memory=profile_memory, with_stack=with_stack, with_modules=with_modules)


__all__ = ["profile"]
