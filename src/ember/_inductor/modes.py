"""torch._inductor.list_mode_options and torch's _TorchCompileInductorWrapper: what `mode=` and `options=` of
ember.compile mean for the "inductor" backend.

A mode names a set of config values (ember._inductor.config, whose docstring says what each one does);
`options` is a dict of config values by dotted name ({"cpp.threads": 1, "max_autotune": True}). ember.compile
checks them when it is called (an unknown mode, an unknown option or a value of the wrong type raises
RuntimeError with torch's message), warns for an option that exists but is not implemented (config.UNREAD), and wraps
the backend in `InductorWrapper`, which compiles each captured graph with those values patched into the config.
docs/inductor_modes.md says what each mode does in ember.
"""
from . import config

MODE_OPTIONS = {
    "default": {},
    "lite": {"fallback_by_default": True},
    "reduce-overhead": {"cpp_wrapper": True},
    "max-autotune-no-cudagraphs": {"max_autotune": True, "coordinate_descent_tuning": True},
    "max-autotune": {"max_autotune": True, "coordinate_descent_tuning": True, "cpp_wrapper": True},
}


def list_mode_options(mode=None, dynamic=None):
    """The config values `mode` sets, or {mode: values} of every mode when mode is None."""
    if not mode:
        return {k: dict(v) for k, v in MODE_OPTIONS.items()}
    try:
        return dict(MODE_OPTIONS[mode])
    except (KeyError, TypeError):
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(MODE_OPTIONS)}") from None


def list_options():
    """The names ember.compile(options=...) accepts."""
    return list(config.get_config_copy())


class InductorWrapper:
    """The "inductor" backend with a mode's and the options' config values (torch: _TorchCompileInductorWrapper).
    Calling it compiles a captured graph under `config.patch(self.config)`."""

    compiler_name = "inductor"
    __name__ = "inductor"

    def __init__(self, mode=None, options=None, dynamic=None):
        self.config = {}
        self.dynamic = dynamic
        if mode and mode != "default":
            self.apply_options(list_mode_options(mode, dynamic))
        self.apply_options(options)
        for key in options or ():
            name = key.replace("-", "_")
            if name in config.UNREAD:
                import warnings
                warnings.warn(f"ember.compile: option {key!r} is accepted (torch's name) but changes nothing in "
                              f"ember yet: {config.UNREAD[name]}", UserWarning, stacklevel=3)

    def apply_options(self, options):
        if not options:
            return
        current = config.get_config_copy()
        for key, val in options.items():
            name = key.replace("-", "_")
            if name not in current:
                raise RuntimeError(f"Unexpected optimization option {key}, known options are {list(current)}")
            typ = config.get_type(name)
            if not isinstance(val, typ):
                raise RuntimeError(f"Unexpected type of attr {key}, got {type(val).__name__} should be "
                                   f"{type(current[name]).__name__}")
            self.config[name] = val

    def __eq__(self, other):
        return isinstance(other, InductorWrapper) and self.config == other.config and self.dynamic == other.dynamic

    def __hash__(self):
        return hash((tuple(sorted(self.config.items())), self.dynamic))

    def __call__(self, gm, example_inputs):
        with config.patch(self.config):
            if config.fallback_by_default:
                from ember._dynamo.backends.registry import lookup_backend
                return lookup_backend("aot_eager")(gm, example_inputs)
            from ember._dynamo.output_graph import lookup_backend
            return lookup_backend("inductor")(gm, example_inputs)

    def __repr__(self):
        return f"InductorWrapper(config={self.config})"
