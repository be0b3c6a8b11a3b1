"""torch.utils.tensorboard: SummaryWriter, writing TensorBoard event files through the `tensorboard`
package (an optional extra, as for torch: importing this module without it raises the ImportError
of `import tensorboard`)."""
import tensorboard  # noqa: F401  (torch's behaviour: ModuleNotFoundError when the package is missing)

from .writer import SummaryWriter  # noqa: F401,E402
