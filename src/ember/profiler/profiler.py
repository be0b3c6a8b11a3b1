"""torch.profiler.profiler: the profiler with activities and a schedule (`profile`, `schedule`,
`ProfilerActivity`, `ProfilerAction`, `tensorboard_trace_handler`).

`profile` records through ember.autograd.profiler (the dispatcher's observer) during the steps its schedule
marks RECORD or RECORD_AND_SAVE, and hands itself to `on_trace_ready` at the end of each active cycle (and at
exit if a cycle is still recording). Only CPU activity exists in ember.
"""
import enum
import os
import socket
import time
import warnings

from ..autograd import profiler as _prof

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "schedule", "supported_activities",
           "tensorboard_trace_handler", "_KinetoProfile"]


class ProfilerActivity(enum.Enum):
    """The activity groups of torch's profiler; ember records CPU."""
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5

    def __repr__(self):
        return f"<ProfilerActivity.{self.name}: {self.value}>"

    @property
    def name(self):     # torch's pybind enum names print without the class
        return self._name_


def supported_activities():
    """The activities this build can record: CPU only."""
    return {ProfilerActivity.CPU}


class ProfilerAction(enum.Enum):
    """What the profiler does at a step: nothing, warm up (not kept), record, record and then save."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A schedule for `profile(schedule=...)`: skip `skip_first` steps, then cycles of `wait` idle steps,
    `warmup` steps, `active` recorded steps (the last one RECORD_AND_SAVE), `repeat` times (0: forever).
    With `skip_first_wait`, the first cycle has no wait."""
    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False, use_python_export=False):
    """An `on_trace_ready` that writes each trace as `<dir_name>/<worker_name>.<time_ns>.pt.trace.json[.gz]`
    (worker_name defaults to `<hostname>_<pid>`), the layout TensorBoard's profiler plugin reads."""
    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))
    return handler_fn


class _KinetoProfile:
    """The recording part of `profile` (start, stop, the results), without the schedule."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, custom_trace_id_callback=None, post_processing_timeout_s=None):
        self.activities = set(activities) if activities else supported_activities()
        bad = [a for a in self.activities if a not in supported_activities()]
        if bad:
            warnings.warn(f"Profiling activities {bad} are not supported by ember (no device): recording CPU only",
                          stacklevel=3)
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.profiler = None        # the autograd profile of the last recording

    def start(self):
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        self.stop_trace()

    def prepare_trace(self):
        if self.profiler is None or self.profiler._recorder is None:
            self.profiler = _prof.profile(record_shapes=self.record_shapes, profile_memory=self.profile_memory,
                                          with_stack=self.with_stack, with_flops=self.with_flops,
                                          with_modules=self.with_modules)

    def start_trace(self):
        if self.profiler is None:
            self.prepare_trace()
        if self.profiler._recorder is None:
            self.profiler._start()

    def stop_trace(self):
        if self.profiler is not None and self.profiler._recorder is not None:
            self.profiler._stop()

    def _discard_trace(self):
        if self.profiler is not None and self.profiler._recorder is not None:
            self.profiler._stop()
        self.profiler = None

    def export_chrome_trace(self, path):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting chrome trace")
        return self.profiler.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting stacks")
        return self.profiler.export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self.profiler.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def events(self):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before accessing events")
        return self.profiler.function_events

    def add_metadata(self, key, value):
        self._metadata = getattr(self, "_metadata", {})
        self._metadata[key] = value

    def add_metadata_json(self, key, value):
        self.add_metadata(key, value)


class profile(_KinetoProfile):
    """torch.profiler.profile: `with profile(activities=[ProfilerActivity.CPU], schedule=schedule(...),
    on_trace_ready=tensorboard_trace_handler(dir)) as prof: ... prof.step()`."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False,
                 use_cuda=None, custom_trace_id_callback=None, post_processing_timeout_s=None):
        if use_cuda:
            raise AssertionError("Torch not compiled with CUDA enabled")
        super().__init__(activities=activities, record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops, with_modules=with_modules)
        self.schedule = schedule if schedule is not None else _default_schedule_fn
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.step_rec_fn = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()
        return False

    def start(self):
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self._open_step()

    def stop(self):
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self):
        """Mark the end of a training step: the schedule's next action takes effect."""
        if self.record_steps and self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(prev, self.current_action)
        if self.record_steps:
            self._open_step()

    def _open_step(self):
        self.step_rec_fn = _prof.record_function("ProfilerStep#" + str(self.step_num))
        self.step_rec_fn.__enter__()

    def _trace_ready(self):
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _transit_action(self, prev, cur):
        A = ProfilerAction
        recording = (A.RECORD, A.RECORD_AND_SAVE)
        if prev == A.RECORD_AND_SAVE or (prev in recording and cur is None):
            # a cycle ends: its events are the results, handed to on_trace_ready
            self.stop_trace()
            self._trace_ready()
        elif prev == A.WARMUP and cur in (None, A.NONE):
            if cur is None:
                warnings.warn("Incorrect schedule: WARMUP followed by None", stacklevel=3)
            else:
                warnings.warn("Incorrect schedule: WARMUP followed by NONE", stacklevel=3)
            self._discard_trace()
        elif prev == A.RECORD and cur == A.NONE:
            warnings.warn("Incorrect schedule: RECORD followed by NONE", stacklevel=3)
            self.stop_trace()
        elif prev == A.RECORD and cur == A.WARMUP:
            warnings.warn("Incorrect schedule: RECORD followed by WARMUP", stacklevel=3)
            self.stop_trace()
        if cur == A.WARMUP:
            # warm-up steps are recorded and thrown away, so the active steps start with a fresh window
            self._discard_trace()
            self.prepare_trace()
            self.start_trace()
        elif cur in recording and (prev not in recording or prev == A.RECORD_AND_SAVE):
            if prev == A.WARMUP:
                self._discard_trace()
            self.prepare_trace()
            self.start_trace()
