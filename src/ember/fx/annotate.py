"""torch.fx.annotate: give a traced value (a Proxy) a type, recorded as its node's `type`."""
from .proxy import Proxy

__all__ = ["annotate"]


def annotate(val, type):
    """Set `type` as the type of val's node when val is a Proxy (RuntimeError if it has one); returns val."""
    if isinstance(val, Proxy):
        if val.node.type:
            raise RuntimeError(f"Tried to annotate a value that already had a type on it! Existing type is "
                               f"{val.node.type} and new type is {type}. This could happen if you tried to annotate "
                               f"a function parameter value (in which case you should use the type slot on the "
                               f"function signature) or you called annotate on the same value twice")
        val.node.type = type
    return val
