"""torch.utils.benchmark.utils.common: TaskSpec (what a Timer measures), Measurement (its times and their
statistics: mean, median, IQR, significant figures) and the unit helpers."""
import collections
import contextlib
import dataclasses
import math
import textwrap

import numpy as np

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig", "ordered_unique",
           "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9       # 25 ns
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What a Timer runs and how it is labelled (everything but its globals)."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: "str | None" = None
    sub_label: "str | None" = None
    description: "str | None" = None
    env: "str | None" = None
    num_threads: int = 1

    @property
    def title(self):
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self):
        if self.setup == "pass" or not self.setup:
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self):
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The times of one Timer run: `raw_times` are per block of `number_per_run` calls; `times` per call."""
    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: "dict | None" = None

    def __post_init__(self):
        self._sorted_times = ()
        self._warnings = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name):
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        self._lazy_init()
        return self._median

    @property
    def mean(self):
        self._lazy_init()
        return self._mean

    @property
    def iqr(self):
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self):
        """How many digits of the median the spread of the middle half of the times supports (1 to 4)."""
        self._lazy_init()
        n = len(self._sorted_times)
        middle = self._sorted_times[n // 4:int(math.ceil(3 * n / 4))]
        std = float(np.std(middle))
        ci = max(1.645 * std / math.sqrt(len(middle)), _MIN_CONFIDENCE_INTERVAL)
        figures = int(math.floor(math.log10(self._median / ci)))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self):
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self):
        if self.raw_times and not self._sorted_times:
            self._sorted_times = tuple(sorted(self.times))
            t = np.array(self._sorted_times, dtype=np.float64)
            self._median, self._p25, self._p75 = (float(q) for q in np.quantile(t, [0.5, 0.25, 0.75]))
            self._mean = float(t.mean())

            def warn(msg):
                rel = self.iqr / self.median * 100
                self._warnings += (f"  WARNING: Interquartile range is {rel:.1f}% of the median measurement.\n"
                                   f"           {msg}",)
            if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
                warn("This suggests significant environmental influence.")
            elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
                warn("This could indicate system fluctuation.")

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        return self.iqr / self.median < threshold

    @property
    def title(self):
        return self.task_spec.title

    @property
    def as_row_name(self):
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._p25 / scale:.2f} to "
                         f"{self._p75 / scale:.2f})")
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {self.num_threads} thread"
                     f"{'s' if self.num_threads > 1 else ''}")
        lines += self._warnings
        return "\n".join("\n".join(lines).strip().splitlines())

    @staticmethod
    def merge(measurements):
        """Replicates of one TaskSpec merged into one Measurement of per-call times (number_per_run=1)."""
        grouped = collections.defaultdict(list)
        for m in measurements:
            grouped[m.task_spec].append(m)
        return [Measurement(number_per_run=1, raw_times=[t for m in group for t in m.times], task_spec=spec)
                for spec, group in grouped.items()]


def select_unit(t):
    """The unit ("ns", "us", "ms", "s") in which `t` seconds reads as a number of order 1..999."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(t) // 3) if t > 0 else -4, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(u):
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x, n):
    """`x` rounded to `n` significant figures (3.14159, 2 -> 3.1)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(math.ceil(math.log10(abs(x))))
    scale = 10 ** (magnitude - n)
    return float(np.round(x / scale) * scale)


def ordered_unique(elements):
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n):
    import ember
    prior = ember.get_num_threads()
    try:
        ember.set_num_threads(n)
        yield
    finally:
        ember.set_num_threads(prior)
