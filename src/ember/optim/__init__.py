"""ember.optim: optimizers and learning-rate schedulers (torch.optim)."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .rmsprop import RMSprop, Adagrad  # noqa: F401
from .more import Adamax, NAdam, RAdam, Adadelta  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from . import lr_scheduler  # noqa: F401
