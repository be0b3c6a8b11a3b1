"""torch.fx.traceback: carrying node metadata (stack traces, module stacks) from a graph being run into the nodes
a trace records meanwhile.

Inside `preserve_node_meta()`, the Interpreter makes the metadata of the node it runs the *current meta*
(`set_current_meta`), and every node a tracer creates then copies the stack trace and the fields of
_COPY_META_FIELDS from it, so retracing a graph (make_fx over Interpreter.run) keeps where each op came from.
Not here yet: torch's provenance records (NodeSource, `from_node`, get_graph_provenance_json), annotate /
annotate_fn, the grad_fn sequence numbers and the replay-node hooks.
"""
import traceback
from contextlib import contextmanager

from .._core.unimplemented import missing_attribute as _missing_attribute

__all__ = ["preserve_node_meta", "has_preserved_node_meta", "set_stack_trace", "format_stack", "set_current_meta",
           "get_current_meta"]

# the node.meta fields a created node takes over from the current meta (torch.fx.proxy._COPY_META_FIELDS)
_COPY_META_FIELDS = ["nn_module_stack", "torch_fn", "source_fn_stack", "original_aten", "recompute", "ac_graph_id",
                     "has_backward_hook", "from_node", "quantization_tag", "_numeric_debug_handle", "custom",
                     "partitioner_tag"]

should_preserve_node_meta = False
current_meta = {}


@contextmanager
def preserve_node_meta(enable=True):
    """Turn node-meta preservation on (or off) inside the block; the current meta is restored after it."""
    global should_preserve_node_meta, current_meta
    saved, saved_meta = should_preserve_node_meta, current_meta.copy()
    try:
        should_preserve_node_meta = enable
        yield
    finally:
        should_preserve_node_meta, current_meta = saved, saved_meta


def has_preserved_node_meta():
    return should_preserve_node_meta


def set_stack_trace(stack):
    """Make "".join(stack) the current meta's stack trace (an empty stack clears it); only while preserving."""
    if should_preserve_node_meta:
        if stack:
            current_meta["stack_trace"] = "".join(stack)
        else:
            current_meta.pop("stack_trace", None)


@contextmanager
def set_current_meta(node, pass_name=""):
    """While preserving, node's meta (a copy) is the current meta inside the block."""
    global current_meta
    if should_preserve_node_meta and node.meta:
        saved = current_meta
        try:
            current_meta = node.meta.copy()
            yield
        finally:
            current_meta = saved
    else:
        yield


def get_current_meta():
    return current_meta


def format_stack():
    """The current meta's stack trace while preserving, else the caller's Python stack (formatted)."""
    if should_preserve_node_meta:
        return [current_meta.get("stack_trace", "")]
    return traceback.format_list(traceback.extract_stack()[:-1])


def __getattr__(name):   # torch names ember lacks say so (see ember/_core/unimplemented.py)
    return _missing_attribute(__name__, name)
