"""numpy's floating-point error state around the cpu kernels' ufunc calls (torch reports no floating-point
exceptions: numpy's overflow / divide-by-zero / invalid warnings must stay quiet), at a fraction of
np.errstate's cost.

Entering `np.errstate(...)` builds numpy's error-state object from its keywords every time: about 3 us, three
times a small tensor's whole `exp`. `quiet(**settings)` returns `run(fn, *args, **kwargs)`, which calls fn under
the same state: it builds that object once for the numpy state it finds (settings left out keep their current
values, as with np.errstate) and then only sets and resets numpy's context variable. On a numpy without that
variable (1.x) it is np.errstate itself.

Paths too hot for even that (the small-tensor `a + b`, `a * 2`: quieting costs ~0.36 us of their ~1.1) and
reductions or products that only rarely meet inf/nan call numpy bare, so an `inf - inf`, an overflowing `sum`
or an `inf @ 0` would print numpy's "RuntimeWarning: invalid value encountered in subtract" where torch says
nothing. A warnings filter installed here is the backstop: it ignores numpy's floating-point RuntimeWarnings
("... encountered in ...") attributed to a frame of an ember module (numpy attributes them to the Python line
that called the ufunc: ember's kernel, never the user's code), so it costs nothing until such a warning is
raised, and a user's own numpy code keeps its warnings. It is appended after the existing filters, so a
program's explicit choice (`-W error`, `simplefilter("always")`, catch_warnings) still takes precedence.
"""
import warnings

import numpy as np

warnings.filterwarnings("ignore", message=r"(invalid value|overflow|divide by zero|underflow) encountered in ",
                        category=RuntimeWarning, module=r"ember\.", append=True)

try:
    from numpy._core._ufunc_config import _extobj_contextvar as _STATE, _make_extobj
except ImportError:          # pragma: no cover - numpy 1.x
    _STATE = _make_extobj = None


def quiet(**settings):
    """run(fn, *args, **kwargs): fn(*args, **kwargs) with np.errstate(**settings) in effect."""
    if _STATE is None:       # pragma: no cover - numpy 1.x
        def run(fn, *args, **kwargs):
            with np.errstate(**settings):
                return fn(*args, **kwargs)
        return run
    get, set_state, reset = _STATE.get, _STATE.set, _STATE.reset
    last = [(None, None)]     # (the state found, the state made from it): one entry, read and replaced whole

    def run(fn, *args, **kwargs):
        cur = get()
        found, made = last[0]
        if found is not cur:
            made = _make_extobj(**settings)      # from `cur`, the current state
            last[0] = (cur, made)
        token = set_state(made)
        try:
            return fn(*args, **kwargs)
        finally:
            reset(token)
    return run


def quiet_into(uf, **settings):
    """run(a, out): uf(a, out) with np.errstate(**settings) in effect; `quiet` for one unary ufunc writing into
    a same-dtype output, without the generic call's argument packing and `casting` keyword (~0.5 us of a small
    tensor's exp or log)."""
    if _STATE is None:       # pragma: no cover - numpy 1.x
        def run(a, out):
            with np.errstate(**settings):
                uf(a, out)
        return run
    get, set_state, reset = _STATE.get, _STATE.set, _STATE.reset
    last = [(None, None)]

    def run(a, out):
        cur = get()
        found, made = last[0]
        if found is not cur:
            made = _make_extobj(**settings)
            last[0] = (cur, made)
        token = set_state(made)
        try:
            uf(a, out)
        finally:
            reset(token)
    return run
