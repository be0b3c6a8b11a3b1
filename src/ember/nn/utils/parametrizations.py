"""Ready-made parametrizations (torch.nn.utils.parametrizations): weight_norm (orthogonal and spectral_norm
are not built yet).

weight_norm stores `parametrizations.<name>.original0` (g, the norms) and `original1` (v, the direction),
as torch does, and still loads old checkpoints saved with the legacy `<name>_g` / `<name>_v` keys."""
from ..modules.module import Module
from . import parametrize

__all__ = ["weight_norm"]


def _ops():
    import ember
    return ember


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _ops()._weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _ops().norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrize `module.<name>` as g * v / ||v|| (norm over every dim but `dim`; dim=None: whole tensor)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module
