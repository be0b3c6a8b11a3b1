"""nn.utils: gradient clipping, parameter/vector conversion, rnn padding, conv/linear + batch-norm fusion,
skip_init, stateless (functional_call at its deprecated path)."""
from ..._core.unimplemented import missing_attribute as _missing_attribute
from . import rnn  # noqa: F401
from .clip_grad import clip_grad_norm_, clip_grad_norm, clip_grad_value_, get_total_norm, clip_grads_with_norm_  # noqa: F401
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from . import parametrize, parametrizations  # noqa: F401,E402
from .weight_norm import weight_norm, remove_weight_norm  # noqa: F401,E402
from .spectral_norm import spectral_norm, remove_spectral_norm  # noqa: F401,E402
from . import fusion  # noqa: F401,E402
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights  # noqa: F401,E402
from .init import skip_init  # noqa: F401,E402
from . import stateless  # noqa: F401,E402


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
