"""torch._dynamo.config: the knobs of ember.compile's capture (limits, dynamic shapes, error handling)."""

# captures of one code object before it runs eagerly (torch's `recompile_limit`, formerly cache_size_limit)
recompile_limit = 8
# captures of one code object over all its entries and resume functions
accumulated_recompile_limit = 256
# on a recompile, a dimension whose size changed is marked dynamic (dynamic=None); False keeps every shape static
automatic_dynamic_shapes = True
# False: every shape dynamic from the first capture, as with dynamic=True (unless dynamic=False)
assume_static_by_default = True
# an int argument whose value changes is specialised per value (True) or becomes a SymInt input at its
# recompile (False, torch's default)
specialize_int = False
# parameters and buffers keep static shapes even with dynamic=True
force_parameter_static_shapes = True
# an exception raised while capturing (not by the user's code) is reported and the frame runs eagerly
suppress_errors = False
# print a guard failure reason on each recompile (also EMBER_LOGS=recompiles)
verbose = False
