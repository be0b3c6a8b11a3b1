"""torch.autograd.profiler: the operator profiler (`profile`, `record_function`, `emit_nvtx`, `emit_itt`).

While a profile is on, every operator call through the dispatcher (`ops.aten.addmm.default(...)`, so every
`ember.*` function, Tensor method and nn layer) is an event named as in torch (`aten::addmm`), timed from
entry to exit with `time.perf_counter_ns`, nested in the event that was open when it started: a composite op
(`aten::linear`) holds the ops it decomposes into (`aten::t`, `aten::addmm`). The recorder is the dispatch
observer (`ember._ops.set_dispatch_observer`); a redispatch of the same op below autograd, which the observer
sees as a call nested in the first, is folded into it, as torch records one event per dispatcher call.

While profiling, a pass-through dispatch mode is on, under which ember's backward formulas run as dispatcher
ops (as they do for tracing), so the backward pass is recorded op by op (aten::mm, aten::t, ...) as torch's
is. Not recorded: autograd's own engine ranges (torch's `autograd::engine::evaluate_function: AddmmBackward0`
and the Node ranges inside them), since ember's engine does not report the nodes it runs. Memory (`profile_memory=True`) is the bytes of the new
storages an op returns, given to the innermost op that returned them (the self column) and summed up the nesting.
"""
import threading
import time
import traceback
from contextlib import ContextDecorator

from .. import _ops
from .._dispatch.modes import TorchDispatchMode
from .profiler_util import EventList, FunctionEvent, FunctionEventAvg, _format_time  # noqa: F401

__all__ = ["profile", "record_function", "emit_nvtx", "emit_itt", "EventList", "FunctionEvent",
           "FunctionEventAvg", "load_nvprof", "kineto_available"]

_active = None          # the _Recorder that is on (one per process, as torch's profiler state)
_lock = threading.Lock()

_DTYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
                "complex128": "c10::complex<double>"}


def kineto_available():
    """torch's Kineto (the CUDA/CPU activity tracer library) is not part of ember: False."""
    return False


def _is_tensor(a):
    return a.__class__ in _ops._TENSOR_TYPES or hasattr(a, "_ks") and hasattr(a, "shape")


_ARG_NAMES = {}


def _describe(op, args, kwargs):
    """(shapes, types, strides, concrete values) of an op's arguments, as torch's record_shapes reports
    them: a tensor's size list, `[]` for anything else, one entry per schema argument (defaults included)."""
    names = _ARG_NAMES.get(op)
    if names is None:
        try:
            names = [a.name for a in op._schema.arguments.flat_non_out]
        except Exception:   # noqa: BLE001  (an op whose schema does not parse still gets its positional args)
            names = []
        _ARG_NAMES[op] = names
    values = list(args)
    for n in names[len(args):]:
        values.append(kwargs.get(n))
    shapes, types, strides, concrete = [], [], [], []
    for v in values:
        if _is_tensor(v):
            shapes.append(list(v.shape))
            types.append(_DTYPE_NAMES.get(str(v.dtype).replace("ember.", ""), str(v.dtype)))
            try:
                strides.append(list(v.stride()))
            except Exception:   # noqa: BLE001  (sparse or opaque layouts have no strides)
                strides.append([])
            concrete.append("")
        else:
            shapes.append([])
            strides.append([])
            if isinstance(v, bool) or isinstance(v, (int, float)):
                types.append("Scalar")
                concrete.append(str(v))
            elif isinstance(v, (list, tuple)):
                types.append("GenericList" if not v or not _is_tensor(v[0]) else "TensorList")
                concrete.append("")
            else:
                types.append("" if v is None else type(v).__name__)
                concrete.append("")
    return shapes, types, strides, concrete


def _storage_bytes(out):
    """{storage data pointer: bytes} of the tensors in an op's result."""
    found = {}
    stack = [out]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif _is_tensor(v):
            try:
                s = v.untyped_storage()
                found[s.data_ptr()] = s.nbytes()
            except Exception:       # noqa: BLE001  (a meta or fake tensor has no host storage)
                pass
    return found


def _user_stack():
    """The Python frames outside ember that led to the call, innermost first, as torch's with_stack writes
    them (`path/file.py(12): forward`)."""
    frames = traceback.extract_stack()[:-3]
    out = []
    for f in reversed(frames):
        if "/ember/" in f.filename.replace("\\", "/") and "/tests/" not in f.filename:
            continue
        out.append(f"{f.filename}({f.lineno}): {f.name}")
    return out


class _Visible(TorchDispatchMode):
    """A pass-through dispatch mode, on while profiling: with a mode on, ember's autograd formulas and
    engine run their steps as dispatcher ops (as they do for tracing) instead of on numpy directly, so the
    backward pass is recorded op by op, as torch's profiler records it."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class _Frame:
    __slots__ = ("name", "op", "overload", "start", "children", "claimed", "shapes", "types", "strides",
                 "concrete", "ins", "stack", "annotation")

    def __init__(self, name, op, overload, start, annotation):
        self.name = name
        self.op = op
        self.overload = overload
        self.start = start
        self.children = []
        self.claimed = set()
        self.shapes = self.types = self.strides = self.concrete = None
        self.ins = None
        self.stack = None
        self.annotation = annotation


class _Recorder:
    """The events of one profiling window, per thread a stack of the calls still open."""

    def __init__(self, record_shapes, profile_memory, with_stack):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.events = []
        self._tls = threading.local()
        self._next_id = 0
        self._t0 = time.perf_counter_ns()
        self.base_us = time.time_ns() / 1000.0
        self._prev_observer = None
        self._mode = None

    def _stack(self):
        s = getattr(self._tls, "stack", None)
        if s is None:
            s = self._tls.stack = []
        return s

    def start(self):
        global _active
        with _lock:
            if _active is not None:
                raise RuntimeError("Profiler is already enabled on this thread")
            _active = self
        self._prev_observer = (_ops._observer, _ops._observer_args)
        _ops.set_dispatch_observer(self._observe, with_args=True)
        self._mode = _Visible()
        self._mode.__enter__()

    def stop(self):
        global _active
        with _lock:
            if _active is self:
                _active = None
        if self._mode is not None:
            self._mode.__exit__(None, None, None)
            self._mode = None
        _ops.set_dispatch_observer(*self._prev_observer) if self._prev_observer[0] is not None \
            else _ops.set_dispatch_observer(None)
        # ranges still open (a record_function entered but not exited) end now
        stack = self._stack()
        while stack:
            self._close(stack, stack[-1], None)
        self.events.sort(key=lambda e: (e.time_range.start, -e.time_range.end, e.id))

    def _now_us(self):
        return (time.perf_counter_ns() - self._t0) / 1000.0

    # -- the dispatch observer
    def _observe(self, op, args, kwargs):
        stack = self._stack()
        if stack and stack[-1].op is op and not stack[-1].children:
            return None         # the same call redispatched below autograd: one event, as torch's
        frame = _Frame(op._name, op, "" if op._overloadname == "default" else op._overloadname, None, False)
        if self.record_shapes:
            frame.shapes, frame.types, frame.strides, frame.concrete = _describe(op, args, kwargs)
        if self.profile_memory:
            frame.ins = _storage_bytes((args, tuple(kwargs.values())))
        if self.with_stack:
            frame.stack = _user_stack()
        stack.append(frame)
        frame.start = self._now_us()

        def end(out):
            self._close(stack, frame, out)
        return end

    def push_range(self, name):
        stack = self._stack()
        frame = _Frame(name, None, "", None, True)
        if self.with_stack:
            frame.stack = _user_stack()
        stack.append(frame)
        frame.start = self._now_us()
        return frame

    def pop_range(self, frame):
        stack = self._stack()
        if frame in stack:
            self._close(stack, frame, None)

    def _close(self, stack, frame, out):
        end = self._now_us()
        while stack and stack[-1] is not frame:     # a range left open inside this one ends with it
            self._close(stack, stack[-1], None)
        if stack:
            stack.pop()
        self._next_id += 1
        ev = FunctionEvent(self._next_id, frame.name, threading.get_ident(), frame.start, end,
                           overload_name=frame.overload, input_shapes=frame.shapes or [], stack=frame.stack,
                           is_user_annotation=frame.annotation, input_types=frame.types,
                           input_strides=frame.strides, concrete_inputs=frame.concrete)
        ev.fwd_thread = ev.thread
        mem = 0
        if self.profile_memory and out is not None:
            fresh = {p: n for p, n in _storage_bytes(out).items() if p not in frame.ins}
            mem = sum(n for p, n in fresh.items() if p not in frame.claimed)
            frame.claimed.update(fresh)
        ev.self_cpu_memory_usage = mem
        ev.cpu_memory_usage = mem + sum(c.cpu_memory_usage for c in frame.children)
        for c in frame.children:
            c.set_cpu_parent(ev)
            ev.append_cpu_child(c)
        if stack:
            stack[-1].children.append(ev)
            stack[-1].claimed |= frame.claimed
        self.events.append(ev)


def _current():
    return _active


class record_function(ContextDecorator):
    """A named range in the profile (`with record_function("model_inference"): ...`, or as a decorator):
    an event holding the calls made inside it. Does nothing when no profiler is on."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self._frame = self._recorder = None

    def __enter__(self):
        rec = _active
        if rec is not None:
            self._recorder = rec
            self._frame = rec.push_range(self.name if self.args is None else f"{self.name}, {self.args}")
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self._recorder is not None and self._frame is not None:
            self._recorder.pop_range(self._frame)
        self._frame = self._recorder = None
        return False

    def _call_end_callbacks_on_future(self, fut):
        self.__exit__(None, None, None)
        return fut


class profile:
    """torch.autograd.profiler.profile: records the ops run inside `with profile() as prof:`; then
    `prof.key_averages().table(sort_by="self_cpu_time_total")`, `prof.export_chrome_trace(path)`."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None):
        if use_cuda or use_device not in (None, "cpu"):
            raise AssertionError(f"Torch not compiled with {'CUDA' if use_cuda else use_device} enabled: "
                                 "ember's profiler records cpu activity only")
        if not use_cpu and not use_kineto:
            raise AssertionError("Device-only events supported only with Kineto (use_kineto=True)")
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_device = None
        self.entered = False
        self.function_events = None
        self._recorder = None

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._start()
        self.entered = True
        return self

    def _start(self):
        self._recorder = _Recorder(self.record_shapes, self.profile_memory, self.with_stack)
        self._recorder.start()

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return False
        self._stop()
        return False

    def _stop(self):
        rec = self._recorder
        if rec is None:
            return
        rec.stop()
        self.function_events = EventList(rec.events, profile_memory=self.profile_memory)
        self.function_events._base_us = rec.base_us
        self._recorder = None

    def __repr__(self):
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self.function_events)

    def __str__(self):
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self.function_events)

    def _check_finish(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def events(self):
        self._check_finish()
        return self.function_events

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        self._check_finish()
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit,
                                          max_src_column_width=max_src_column_width,
                                          max_name_column_width=max_name_column_width,
                                          max_shapes_column_width=max_shapes_column_width, header=header,
                                          top_level_events_only=top_level_events_only, time_unit=time_unit)

    table.__doc__ = EventList.table.__doc__

    def export_chrome_trace(self, path):
        self._check_finish()
        return self.function_events.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write one line per recorded stack, `frame;frame;...;op value` (the folded format of flame
        graph tools), value the metric in microseconds; needs with_stack=True."""
        self._check_finish()
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        with open(path, "w") as f:
            for e in self.function_events:
                if e.stack:
                    frames = ";".join(reversed([s.replace(";", "") for s in e.stack]))
                    f.write(f"{frames};{e.name} {int(getattr(e, metric))}\n")

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        self._check_finish()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def total_average(self):
        self._check_finish()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        self._check_finish()
        return self.function_events.self_cpu_time_total


class emit_nvtx:
    """torch.autograd.profiler.emit_nvtx: NVTX ranges for nvprof/Nsight, a CUDA tool. Entering it (enabled)
    raises as torch does on a build without CUDA."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.record_shapes = record_shapes

    def __enter__(self):
        if self.enabled:
            raise AssertionError("Torch not compiled with CUDA enabled")
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False


class emit_itt:
    """torch.autograd.profiler.emit_itt: Intel ITT ranges for VTune. ember emits none (it links no ITT
    library), so the context is accepted and does nothing, as a run outside VTune sees torch's."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.record_shapes = record_shapes

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False


def load_nvprof(path):
    raise RuntimeError("load_nvprof reads nvprof (CUDA) traces: ember has no CUDA")

