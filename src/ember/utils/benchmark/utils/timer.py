"""torch.utils.benchmark.utils.timer: Timer, which runs a Python statement many times (in blocks sized so
the timer's own overhead is negligible) and returns a Measurement. `torch` in the statement is ember."""
import enum
import textwrap
import timeit

import numpy as np

from . import common

__all__ = ["Timer", "timer", "Language"]

timer = timeit.default_timer


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


class Timer:
    """torch.utils.benchmark.Timer: `Timer(stmt, setup, globals=..., label=..., sub_label=..., description=...,
    num_threads=...)`, then `.timeit(n)`, `.blocked_autorange()` or `.adaptive_autorange()`."""

    _timer_cls = timeit.Timer

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None, label=None,
                 sub_label=None, description=None, env=None, num_threads=1, language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError("ember's Timer runs Python statements only: C++ (language='c++') needs "
                                      "torch's C++ extension toolchain")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely this code can simply "
                             "be moved to `setup`.")
        import ember
        self._globals = dict(globals or {})
        self._globals.setdefault("torch", ember)
        self._language = Language.PYTHON
        stmt = textwrap.dedent(stmt)
        stmt = (stmt[1:] if stmt and stmt[0] == "\n" else stmt).rstrip()
        setup = textwrap.dedent(setup)
        setup = (setup[1:] if setup and setup[0] == "\n" else setup).rstrip()
        self._timer = self._timer_cls(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup, label=label,
                                          sub_label=sub_label, description=description, env=env,
                                          num_threads=num_threads)

    def _timeit(self, number):
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number=1000000):
        """Run `stmt` `number` times (after a warm-up of number // 100): one measurement."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return common.Measurement(number_per_run=number, raw_times=[self._timeit(number=number)],
                                      task_spec=self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _measurement_loop(self, number, stop_hook, min_run_time, max_run_time=None, callback=None):
        total, can_stop, times = 0.0, False, []
        with common.set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not can_stop:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                can_stop = stop_hook(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time):
        """The smallest power of ten of calls per block whose time dwarfs the timer's overhead."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = float(np.median([self._timeit(0) for _ in range(5)]))
            number = 1
            while True:
                taken = self._timeit(number)
                if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                    break
                if taken > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of `number` calls (number from _estimate_block_size) until `min_run_time` seconds."""
        number = self._estimate_block_size(min_run_time)
        times = self._measurement_loop(number, lambda times: True, min_run_time=min_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """Blocks until IQR / median < threshold (after at least 4 blocks and `min_run_time`), or
        `max_run_time` seconds."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop_hook(times):
            return len(times) > 3 and common.Measurement(number_per_run=number, raw_times=times,
                                                         task_spec=self._task_spec).meets_confidence(threshold)
        times = self._measurement_loop(number, stop_hook, min_run_time, max_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def collect_callgrind(self, number=100, *, repeats=None, collect_baseline=True, retain_out_file=False):
        raise NotImplementedError("collect_callgrind is not implemented in ember: run the statement under "
                                  "`valgrind --tool=callgrind` directly")
