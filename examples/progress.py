"""What the examples show in the terminal while they train: a progress bar with rate and ETA, and a
sparkline of the loss.

On a terminal the bar is tqdm's (the `demo` extra installs it) or, without tqdm, a built-in bar with the
same content. When the output is not a terminal (piped, redirected, CI logs) nothing is redrawn: each
bar prints one summary line when it closes, so a log holds one line per epoch.
"""
import sys
import time

BLOCKS = "▁▂▃▄▅▆▇█"
ASCII_BLOCKS = "_.-~=*#@"


def _is_terminal(stream):
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _clock(seconds):
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}" if seconds < 3600 else \
        f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _format_postfix(postfix):
    return ", ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in postfix.items())


class Progress:
    """``total`` steps named ``desc``; call ``update(loss=...)`` once per step and ``close()`` at the end
    (or use it as a context manager)."""

    def __init__(self, total, desc, stream=None, use_tqdm=True):
        self.total, self.desc = total, desc
        self.stream = stream if stream is not None else sys.stdout
        self.n = 0
        self.postfix = {}
        self.start = time.perf_counter()
        self._last_draw = 0.0
        self._tqdm = None
        self._closed = False
        self.interactive = _is_terminal(self.stream)
        if self.interactive and use_tqdm:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self._tqdm = tqdm(total=total, desc=desc, file=self.stream, leave=True, dynamic_ncols=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def update(self, n=1, **postfix):
        self.n += n
        self.postfix.update(postfix)
        if self._tqdm is not None:
            self._tqdm.set_postfix_str(_format_postfix(self.postfix), refresh=False)
            self._tqdm.update(n)
        elif self.interactive:
            now = time.perf_counter()
            if now - self._last_draw > 0.1 or self.n >= self.total:
                self._last_draw = now
                self.stream.write("\r" + self.line(bar=True))
                self.stream.flush()

    @property
    def elapsed(self):
        return time.perf_counter() - self.start

    def line(self, bar=False, width=24):
        """The bar's text: done/total, elapsed<remaining, rate, postfix."""
        elapsed = self.elapsed
        rate = self.n / elapsed if elapsed > 0 else 0.0
        remaining = (self.total - self.n) / rate if rate > 0 else 0.0
        parts = [f"{self.desc}:"]
        if bar:
            done = int(width * self.n / max(self.total, 1))
            parts.append("|" + "#" * done + " " * (width - done) + "|")
        parts.append(f"{self.n}/{self.total} [{_clock(elapsed)}<{_clock(remaining)}, {rate:.2f}it/s]")
        if self.postfix:
            parts.append(_format_postfix(self.postfix))
        return " ".join(parts)

    def close(self):
        if self._closed:
            return
        self._closed = True
        if self._tqdm is not None:
            self._tqdm.close()
        else:
            self.stream.write(("\r" + self.line(bar=True) if self.interactive else self.line()) + "\n")
            self.stream.flush()


def sparkline(values, width=60, stream=None):
    """The values as one line of block characters (lowest ▁, highest █), averaged down to ``width``
    buckets; plain ASCII when the output cannot encode the blocks."""
    values = [float(v) for v in values]
    if not values:
        return ""
    if len(values) > width:
        buckets = []
        for i in range(width):
            chunk = values[i * len(values) // width:(i + 1) * len(values) // width]
            buckets.append(sum(chunk) / len(chunk))
        values = buckets
    lo, hi = min(values), max(values)
    encoding = getattr(stream if stream is not None else sys.stdout, "encoding", None) or "ascii"
    try:
        BLOCKS.encode(encoding)
        blocks = BLOCKS
    except (UnicodeEncodeError, LookupError):
        blocks = ASCII_BLOCKS
    span = (hi - lo) or 1.0
    return "".join(blocks[min(len(blocks) - 1, int((v - lo) / span * len(blocks)))] for v in values)
