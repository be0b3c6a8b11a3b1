"""torch.utils.benchmark.utils.compare: Compare, the table of many Measurements (rows: sub_label or stmt,
per thread count; columns: description; one table per label), with optional significant-figure trimming,
colouring and variance warnings."""
import collections
import enum
import math

from . import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _color(segment, value, best):
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + segment + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + segment + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + segment + TERMINATE * 2
    if value >= best * 2:
        return BAD + segment + TERMINATE * 2
    return segment


class _Column:
    """One description's results; knows the number format shared by its cells."""

    def __init__(self, groups, time_scale, trim, highlight):
        self.groups = groups                         # per thread-count group, a tuple of results (or None)
        flat = [r for g in groups for r in g]
        self.time_scale = time_scale
        self.trim = trim
        self.highlight = highlight and any(r.has_warnings for r in flat if r)
        digits = [int(math.ceil(math.log10(r.median / time_scale))) if r else None for r in flat]
        unit_digits = max(d for d in digits if d is not None)
        decimals = min(max(m.significant_figures - d, 0) for d, m in zip(digits, flat)
                       if m is not None and d is not None) if trim else 1
        length = unit_digits + decimals + (1 if decimals else 0)
        self.template = f"{{:>{length}.{decimals}f}}{{:>{7 if self.highlight else 0}}}"

    def num_to_str(self, value, sigfigs, spread):
        if value is None:
            return " " * len(self.num_to_str(1, sigfigs, None))
        if self.trim:
            value = common.trim_sigfig(value, sigfigs)
        return self.template.format(value, f" (! {spread * 100:.0f}%)" if self.highlight and spread is not None
                                    else "")


class _Table:
    def __init__(self, results, colorize, trim, highlight):
        self.results = results
        self.colorize = colorize
        self.highlight = highlight
        self.label = results[0].label
        self.time_unit, self.time_scale = common.select_unit(min(r.median for r in results))
        self.row_keys = common.ordered_unique([(r.num_threads, r.env, r.as_row_name) for r in results])
        self.row_keys.sort(key=lambda k: k[:2])      # by threads and env; statements keep their order
        self.col_keys = common.ordered_unique([r.description for r in results])
        cells = [[None] * len(self.col_keys) for _ in self.row_keys]
        row_at = {k: i for i, k in enumerate(self.row_keys)}
        col_at = {k: j for j, k in enumerate(self.col_keys)}
        for r in results:
            cells[row_at[(r.num_threads, r.env, r.as_row_name)]][col_at[r.description]] = r
        self.cells = cells
        envs = {r.env for r in results}
        self.render_env = len(envs) > 1
        self.env_len = max(len(e) for e in envs) if self.render_env else 0
        self.groups = []                             # row indices per thread count
        prior = None
        for i, (threads, _, _) in enumerate(self.row_keys):
            if threads != prior:
                self.groups.append([])
                prior = threads
            self.groups[-1].append(i)
        self.columns = [_Column([tuple(cells[i][j] for i in g) for g in self.groups], self.time_scale, trim,
                                highlight) for j in range(len(self.col_keys))]

    def render(self):
        string_rows = [[""] + [k if k is not None else "" for k in self.col_keys]]
        group_of, first_of_group = {}, set()
        for gi, g in enumerate(self.groups):
            first_of_group.add(g[0])
            for i in g:
                group_of[i] = gi
        last_env = None
        for i, (threads, env, name) in enumerate(self.row_keys):
            if i in first_of_group:
                last_env = None
            env_str = f"({env})" if self.render_env and env != last_env else ""
            last_env = env
            row = ["  " + env_str.ljust(self.env_len + 4) + name]
            for m, col in zip(self.cells[i], self.columns):
                row.append(col.num_to_str(None, 1, None) if m is None else col.num_to_str(
                    m.median / self.time_scale, m.significant_figures, m.iqr / m.median if m.has_warnings else None))
            string_rows.append(row)
        n = max(len(r) for r in string_rows)
        for r in string_rows:
            r.extend([""] * (n - len(r)))
        widths = [max(len(c) for c in col) for col in zip(*string_rows)]
        lines = ["  |  ".join(c.center(w) for c, w in zip(string_rows[0], widths))]
        overall = len(lines[0])
        for i, row in enumerate(string_rows[1:]):
            if i in first_of_group:
                lines.append(f"{self.row_keys[i][0]} threads: ".ljust(overall, "-"))
            best = [-1] * len(self.columns)
            if self.colorize == Colorize.ROWWISE:
                best = [min(m.median for m in self.cells[i] if m is not None)] * len(self.columns)
            elif self.colorize == Colorize.COLUMNWISE:
                g = self.groups[group_of[i]]
                best = [min((self.cells[k][j].median for k in g if self.cells[k][j] is not None), default=None)
                        for j in range(len(self.columns))]
            out = [row[0].ljust(widths[0])]
            for cell, w, m, b in zip(row[1:], widths[1:], self.cells[i], best):
                cell = cell.center(w)
                if self.colorize != Colorize.NONE and m is not None and b is not None:
                    cell = _color(cell, m.median, b)
                out.append(cell)
            lines.append("  |  ".join(out))
        warn = self.highlight and any(r.has_warnings for r in self.results)
        title = (" " + (self.label or "") + " ").center(overall - 2, "-")
        return (f"[{title}]\n" + "\n".join(lines) + "\n\n"
                f"Times are in {common.unit_to_english(self.time_unit)}s ({self.time_unit}).\n"
                + ("(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n" if warn else ""))


class Compare:
    """torch.utils.benchmark.Compare: `Compare(results).print()` prints one table per label."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self):
        return "\n".join(self._render())

    def extend_results(self, results):
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        self._highlight_warnings = True

    def print(self):
        print(str(self))

    def _render(self):
        by_label = collections.defaultdict(list)
        for r in common.Measurement.merge(self._results):
            by_label[r.label].append(r)
        return [_Table(group, self._colorize, self._trim_significant_figures, self._highlight_warnings).render()
                for group in by_label.values()]
