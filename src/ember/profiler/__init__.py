"""torch.profiler: the profiler API (`profile` with activities, schedule and on_trace_ready,
`record_function`, `schedule`, `tensorboard_trace_handler`). The recording is ember.autograd.profiler's
(operators seen through the dispatcher); ember records CPU activity only."""
from ..autograd.profiler import kineto_available, record_function
from ..autograd.profiler_util import DeviceType
from .profiler import (ProfilerAction, ProfilerActivity, _KinetoProfile, profile, schedule,  # noqa: F401
                       supported_activities, tensorboard_trace_handler)

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler", "ProfilerAction",
           "ProfilerActivity", "kineto_available", "DeviceType", "record_function"]
