"""The version counter shared by a tensor and all its views (c10/core/TensorImpl VariableVersion)."""


class VersionCounter:
    __slots__ = ("value",)

    def __init__(self, value=0):
        self.value = value

    def bump(self):
        self.value += 1
