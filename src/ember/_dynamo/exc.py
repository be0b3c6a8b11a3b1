"""torch._dynamo.exc (the part the backend registry needs): InvalidBackend."""


class InvalidBackend(RuntimeError):
    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `ember._dynamo.list_backends()` for available backends.")
