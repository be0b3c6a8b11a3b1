"""torch.random: the default generator's seeding and state functions, fork_rng (run a block, then put every
generator's state back) and thread_safe_generator, at torch's module path."""
import contextlib
import warnings

from ._random import get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng",
           "thread_safe_generator"]

_fork_rng_warned_already = False


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Within the block random ops draw as usual; on leaving it the cpu generator (and those of the given devices of
    `device_type`, the accelerator's by default: none in ember) get back the states they had on entering."""
    import ember
    global _fork_rng_warned_already
    if device_type == "meta":
        yield
        return
    acc = ember.accelerator.current_accelerator()
    device_type = device_type or (acc.type if acc is not None else "cuda")
    device_mod = ember.get_device_module(device_type)
    if not enabled:
        yield
        return
    if devices is None:
        num_devices = device_mod.device_count()
        if num_devices > 1 and not _fork_rng_warned_already:
            warnings.warn(f"{device_type.upper()} reports that you have {num_devices} available devices, and you "
                          f"have used {_caller} without explicitly specifying which devices are being used.",
                          stacklevel=2)
            _fork_rng_warned_already = True
        devices = list(range(num_devices))
    else:
        devices = list(devices)
    cpu_rng_state = get_rng_state()
    device_rng_states = [device_mod.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_rng_state)
        for d, state in zip(devices, device_rng_states):
            device_mod.set_rng_state(state, d)


def thread_safe_generator():
    """The generator of the DataLoader thread worker this runs in; None elsewhere (ember's workers are processes,
    so always None: random ops use the default generator)."""
    from .utils.data import get_worker_info
    info = get_worker_info()
    if info is not None and getattr(info, "worker_method", None) == "thread" and getattr(info, "rng", None):
        return info.rng.torch_generator
    return None
