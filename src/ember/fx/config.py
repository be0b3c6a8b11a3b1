"""torch.fx.config: module-level switches of the fx passes (progress display, stack traces while tracing)."""

# Whether to disable showing progress on compilation passes
disable_progress = True

# With progress shown, also show the node names in each pass
verbose_progress = False

# When True, tracing does not collect stack traces (node.meta["stack_trace"] stays unset)
do_not_emit_stack_traces = False
