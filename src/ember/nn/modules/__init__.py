from .module import Module  # noqa: F401
from .container import Container, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict  # noqa: F401
from .flatten import Flatten, Unflatten  # noqa: F401
from .linear import Identity, Linear, Bilinear, LazyLinear  # noqa: F401
from .lazy import LazyModuleMixin  # noqa: F401
from .activation import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .channelshuffle import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .upsampling import *  # noqa: F401,F403
from .pixelshuffle import *  # noqa: F401,F403
from .fold import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .attention import MultiheadAttention  # noqa: F401
from .transformer import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401
