"""torch._subclasses: tensor subclasses used by the compiler (FakeTensor, FakeTensorMode)."""
from .fake_tensor import FakeTensor, FakeTensorMode, UnsupportedFakeTensorException  # noqa: F401
