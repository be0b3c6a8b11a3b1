"""nn.functional (torch/nn/functional.py): the stateless ops layers are built from, one module per op family
(the family names of native/<family>.yaml, autograd/formulas/<family>.py, ...), re-exported here. Each function
composes ember ops or calls an aten op, so autograd records the graph torch would. A module name may equal a
function name (softmax, dropout, ...): the attribute is the function, the module is sys.modules["ember.nn.functional.<family>"]."""
from ..._core.unimplemented import missing_attribute as _missing_attribute
import sys as _sys

from .activation import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .embedding import *  # noqa: F401,F403
from .interpolate import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pool import *  # noqa: F401,F403
from .softmax import *  # noqa: F401,F403
from .. import grad  # noqa: F401,E402  (torch.nn.functional.grad is the module torch.nn.grad)
from ..._tensor import Tensor  # noqa: F401,E402  (torch.nn.functional.Tensor)
from ._common import assert_int_or_pair, boolean_dispatch  # noqa: F401,E402
import ember as torch  # noqa: F401,E402  (torch.nn.functional.torch: the package itself)

__all__ = [_n for _m in ('activation', 'attention', 'conv', 'distance', 'dropout', 'embedding', 'interpolate', 'linear', 'loss', 'norm', 'padding', 'pool', 'softmax') for _n in _sys.modules[__name__ + "." + _m].__all__]


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
