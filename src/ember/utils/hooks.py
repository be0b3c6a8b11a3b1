"""torch.utils.hooks: RemovableHandle, the handle hook-registration methods return (defined in
ember.nn.modules._hooks, where Module's hooks live)."""
from ..nn.modules._hooks import RemovableHandle  # noqa: F401
