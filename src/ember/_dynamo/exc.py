"""torch._dynamo.exc: the exceptions of capture (Unsupported is a graph break; fullgraph=True raises it)."""


class TorchDynamoException(RuntimeError):
    pass


class InvalidBackend(RuntimeError):
    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `ember._dynamo.list_backends()` for available backends.")


class Unsupported(TorchDynamoException):
    """Something capture cannot put in a graph; `reason` says what, `location` is the user's file:line."""

    def __init__(self, reason, location=None):
        self.reason = reason
        self.location = location
        super().__init__(reason if location is None else f"{reason}\n  at {location}")

    def with_location(self, location):
        if self.location is None:
            self.location = location
            self.args = (f"{self.reason}\n  at {location}",)
        return self


class RestartAnalysis(TorchDynamoException):
    """Capture starts again (a call that could not be inlined becomes a graph break at its call site)."""


class BackendCompilerFailed(TorchDynamoException):
    def __init__(self, backend_name, inner):
        self.backend_name = backend_name
        self.inner_exception = inner
        super().__init__(f"backend={backend_name!r} raised:\n{type(inner).__name__}: {inner}")


class RecompileLimitExceeded(TorchDynamoException):
    pass


class InternalTorchDynamoError(TorchDynamoException):
    pass


class UserError(TorchDynamoException):
    """A mistake in what the user asked for (torch.export's dynamic_shapes that the code contradicts, ...)."""
