"""torch.cpu.amp: the deprecated cpu spellings of torch.amp's autocast and GradScaler; each warns as torch does and
then is torch.amp's, on the cpu."""
import warnings

from .. import amp as _amp

__all__ = ["autocast", "GradScaler"]


class autocast(_amp.autocast):
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        import ember
        super().__init__("cpu", dtype=ember.bfloat16 if dtype is None else dtype, enabled=enabled,
                         cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cpu', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
