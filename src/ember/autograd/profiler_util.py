"""torch.autograd.profiler_util: the profiler's events (FunctionEvent, FunctionEventAvg), the EventList
that averages them by key, prints torch's table and writes a Chrome trace (chrome://tracing, Perfetto).

Times are in microseconds, as in torch. An event's total time is its wall time from entry to exit; its self
time is the total minus the totals of the events nested directly in it (its cpu_children).
"""
import enum
import json
import os
import threading
from collections import defaultdict

__all__ = ["DeviceType", "EventList", "FunctionEvent", "FunctionEventAvg", "Interval", "MemRecordsAcc", "StringTable"]


class DeviceType(enum.IntEnum):
    """torch.autograd.DeviceType (c10's device types) as the profiler's events name them."""
    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    MTIA = 19
    PrivateUse1 = 20


def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes):
    kb, mb, gb = 1024, 1024 ** 2, 1024 ** 3
    if abs(nbytes) >= gb:
        return f"{nbytes * 1.0 / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes * 1.0 / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes * 1.0 / kb:.2f} KB"
    return str(nbytes) + " B"


class Interval:
    """An event's [start, end] in microseconds since the profiler started."""

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start

    def __repr__(self):
        return f"Interval(start={self.start}, end={self.end})"


class StringTable(defaultdict):
    """torch's name table (demangling C++ names); ember's names need none: the identity."""

    def __missing__(self, key):
        self[key] = key
        return key


class MemRecordsAcc:
    """torch's accumulator of memory records by time; ember attributes memory to ops as it records them."""

    def __init__(self, mem_records):
        self._records = sorted(mem_records, key=lambda r: r[0])

    def in_interval(self, start_us, end_us):
        return (r for r in self._records if start_us <= r[0] <= end_us)


class _FormattedTimesMixin:
    @property
    def cpu_time_str(self):
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self):
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return _format_time(self.self_cpu_time_total)

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    # no device: the device columns of torch's events read 0
    device_time_total = self_device_time_total = device_time = 0.0
    device_memory_usage = self_device_memory_usage = 0
    use_device = None
    node_id = -1
    is_async = False
    is_remote = False
    flops = 0


class FunctionEvent(_FormattedTimesMixin):
    """One recorded call: an op (`aten::addmm`) or a `record_function` range."""

    def __init__(self, id, name, thread, start_us, end_us, overload_name="", fwd_thread=None, input_shapes=None,
                 stack=None, scope=0, cpu_memory_usage=0, is_legacy=False, sequence_nr=-1, is_user_annotation=False,
                 concrete_inputs=None, input_types=None, input_strides=None):
        self.id = id
        self.name = name
        self.overload_name = overload_name
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.time_range = Interval(start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.input_types = input_types if input_types is not None else []
        self.input_strides = input_strides if input_strides is not None else []
        self.concrete_inputs = concrete_inputs if concrete_inputs is not None else []
        self.stack = stack if stack is not None else []
        self.scope = scope
        self.cpu_memory_usage = cpu_memory_usage     # bytes allocated by this call and the calls nested in it
        self.self_cpu_memory_usage = cpu_memory_usage
        self.is_legacy = is_legacy
        self.sequence_nr = sequence_nr
        self.is_user_annotation = is_user_annotation
        self.cpu_children = []
        self.cpu_parent = None
        self.count = 1
        self.device_type = DeviceType.CPU
        self.kernels = []

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} overload_name={self.overload_name} "
                f"device_type=DeviceType.CPU node_id=-1 cpu_time={self.cpu_time_str} "
                f"start_us={self.time_range.start} end_us={self.time_range.end} "
                f"cpu_children={[c.id for c in self.cpu_children]} thread={self.thread} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
                f"is_async=False is_remote=False seq_nr={self.sequence_nr} is_legacy={self.is_legacy}>")


class FunctionEventAvg(_FormattedTimesMixin):
    """The sum of the events sharing a key (and, when grouped so, input shapes or stack)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.cpu_time_total = 0
        self.self_cpu_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.is_legacy = False
        self.is_user_annotation = False

    def add(self, other):
        if self.count == 0:
            self.key = self.key if self.key is not None else other.key
            self.input_shapes = other.input_shapes
            self.overload_name = other.overload_name
            self.stack = other.stack
            self.scope = other.scope
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.is_legacy = other.is_legacy
            self.is_user_annotation = other.is_user_annotation
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if other.key != self.key and not other.key.startswith("ProfilerStep#"):
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.count += other.count
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str}  input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of events that can average itself by key, print a table and write a Chrome trace."""

    def __init__(self, *args, **kwargs):
        self._profile_memory = kwargs.pop("profile_memory", False)
        kwargs.pop("use_device", None)
        kwargs.pop("with_flops", None)
        super().__init__(*args, **kwargs)

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """torch's table: one row per event (per key after key_averages), sorted by the named attribute
        (`cpu_time_total`, `self_cpu_time_total`, `count`, `cpu_memory_usage`, ...), descending."""
        return _build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                            max_src_column_width=max_src_column_width, max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width, profile_memory=self._profile_memory,
                            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace: a JSON object whose `traceEvents` are complete ("X") events
        with microsecond `ts`/`dur`, one per call, plus the process and thread name metadata."""
        pid = os.getpid()
        base = getattr(self, "_base_us", 0.0)      # wall-clock microseconds when the profile started
        events = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "python"}},
                  {"ph": "M", "name": "process_labels", "pid": pid, "tid": 0, "args": {"labels": "CPU"}}]
        for tid in sorted({e.thread for e in self}):
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                           "args": {"name": f"thread {tid} (python)"}})
        for i, e in enumerate(self):
            args = {"External id": e.id, "Ev Idx": i}
            if e.input_shapes:
                args["Input Dims"] = e.input_shapes
                args["Input type"] = e.input_types
                args["Input Strides"] = e.input_strides
                args["Concrete Inputs"] = e.concrete_inputs
            if e.sequence_nr >= 0:
                args["Sequence number"] = e.sequence_nr
            if e.stack:
                args["Call stack"] = ";".join(e.stack)
            events.append({"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                           "name": e.name, "pid": pid, "tid": e.thread, "ts": base + e.time_range.start,
                           "dur": e.time_range.elapsed_us(), "args": args})
        trace = {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms", "traceEvents": events}
        tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        if str(path).endswith(".gz"):
            import gzip
            with gzip.open(tmp, "wt") as f:
                json.dump(trace, f)
        else:
            with open(tmp, "w") as f:
                json.dump(trace, f, indent=1)
        os.replace(tmp, path)        # no half-written trace

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        """One FunctionEventAvg per event name (and input shapes / top stack frames / overload, if asked)."""
        stats = {}
        for e in self:
            key = ("ProfilerStep*",) if e.key.startswith("ProfilerStep#") else (e.key,)
            if group_by_input_shapes:
                key += (str(e.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(e.stack[:group_by_stack_n])
            if group_by_overload_name:
                key += (e.overload_name,)
            avg = stats.get(key)
            if avg is None:
                avg = stats[key] = FunctionEventAvg()
                avg.key = key[0]            # every step's range averages as one "ProfilerStep*", as in torch
            avg.add(e)
            if not group_by_input_shapes:
                avg.input_shapes = None
        return EventList(stats.values(), profile_memory=self._profile_memory)

    def total_average(self):
        total = FunctionEventAvg()
        for e in self:
            total.cpu_time_total += e.cpu_time_total
            total.self_cpu_time_total += e.self_cpu_time_total
            total.cpu_memory_usage += e.cpu_memory_usage
            total.self_cpu_memory_usage += e.self_cpu_memory_usage
            total.count += e.count
        total.key = "Total"
        return total


def _build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                 max_name_column_width=55, max_shapes_column_width=80, profile_memory=False,
                 top_level_events_only=False, time_unit=None):
    if len(events) == 0:
        return ""
    if sort_by is not None:
        attr = sort_by.replace("cuda", "device").replace("gpu", "device")
        events = EventList(sorted(events, key=lambda e: getattr(e, attr), reverse=True),
                           profile_memory=profile_memory)
    has_shapes = any(e.input_shapes for e in events)
    has_stack = any(e.stack for e in events)
    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [(name_width, ">")] + [(12, ">")] * (len(headers) - 1)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append((shapes_width, ">"))
    if has_stack:
        src_width = max(len(f) for e in events for f in e.stack) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)
        headers.append("Source Location")
        widths.append((src_width, "<"))
    row_format = "".join("{: " + d + str(w) + "}  " for w, d in widths)
    sep = "".join("-" * w + "  " for w, _ in widths)
    line_length = sum(w + 2 for w, _ in widths) - 2

    def fmt_time(us, default):
        if time_unit == "s":
            return f"{us / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{us / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{us:.3f}us"
        return default

    def trim_path(path, width):
        if len(path) > width:
            path = path[len(path) - width:]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    total_self = sum(e.self_cpu_time_total for e in events)
    out = []
    if header is not None:
        out += ["=" * line_length, header]
    if top_level_events_only:
        out += ["=" * line_length, "This report only display top-level ops statistics"]
    out += [sep, row_format.format(*headers), sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name, _format_time_share(e.self_cpu_time_total, total_self),
               fmt_time(e.self_cpu_time_total, e.self_cpu_time_total_str),
               _format_time_share(e.cpu_time_total, total_self),
               fmt_time(e.cpu_time_total, e.cpu_time_total_str), fmt_time(e.cpu_time, e.cpu_time_str)]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
        row.append(e.count)
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        if has_stack:
            row.append(trim_path(e.stack[0], src_width) if e.stack else "")
        out.append(row_format.format(*row))
        if has_stack:
            blank = [""] * (len(headers) - 1)
            for frame in e.stack[1:]:
                out.append(row_format.format(*(blank + [trim_path(frame, src_width)])))
            out.append(row_format.format(*(blank + [""])))
    out.append(sep)
    out.append(f"Self CPU time total: {fmt_time(total_self, _format_time(total_self))}")
    return "".join(line + "\n" for line in out)
