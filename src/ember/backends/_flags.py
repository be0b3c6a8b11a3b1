"""The flag-holder behind torch.backends.{cudnn,mkldnn}: named settings with defaults, a `set_flags`
that returns the previous values in order, and a `flags(...)` context manager restoring them."""
import contextlib


class FlagSet:
    def __init__(self, module_globals, defaults):
        self._globals = module_globals
        self._names = tuple(defaults)
        module_globals.update(defaults)

    def get(self):
        return tuple(self._globals[n] for n in self._names)

    def set(self, values):
        old = self.get()
        for name, value in zip(self._names, values):
            if value is not None:
                self._globals[name] = value
        return old

    def context(self, values):
        @contextlib.contextmanager
        def scope():
            old = self.set(values)
            try:
                yield
            finally:
                self.set(old)
        return scope()
