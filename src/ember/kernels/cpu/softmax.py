"""cpu _softmax/_log_softmax and their backward: numerically stable (subtract the max along dim
first), computed in place in the output. Softmax over the last dim of a contiguous float32/float64
input (the common case) runs the C row kernels of csrc/softmax.c, rows split over threads; without
C it runs numpy over cache-sized row blocks (rowblocks.run_rows). Any other dim of a contiguous
float input runs the C kernels over (outer, k, inner) column blocks; else numpy on the whole array,
split across threads along another dim for large inputs."""
import numpy as np

from ..._core.strides import wrap_dim
from ..._core.tensor_impl import TensorImpl
from .runtime.arrays import acc, wrap
from .runtime.pool import get_num_threads, split_run
from ..meta.softmax import softmax_spec
from .runtime import clib, cparts
from .runtime.clib import c_rows, c_suffix
from .runtime.rowblocks import row_dot, row_sum, run_rows
from .runtime.fp_errors import quiet

_quiet_dio = quiet(invalid="ignore", divide="ignore", over="ignore")


def _forward(xc, oc, d, log):
    if xc.size == 0:
        return
    _quiet_dio(_forward_rows, xc, oc, d, log)


def _sum(a, d):
    """Sums along d, keepdims; a real (rows, k) block summed along its rows uses BLAS dots."""
    return row_sum(a) if a.ndim == 2 and d == 1 and a.dtype.kind == "f" else np.add.reduce(a, axis=d, keepdims=True)


def _forward_rows(xc, oc, d, log):
    m = np.maximum.reduce(xc, axis=d, keepdims=True)
    np.subtract(xc, m, out=oc)              # as torch: a row holding +inf or only -inf gives NaN
    if log:
        s = _sum(np.exp(oc), d)
        oc -= np.log(s, out=s)
    else:
        np.exp(oc, out=oc)
        s = _sum(oc, d)
        oc *= np.reciprocal(s, out=s)


def _rows(a):
    """The (rows, n) matrix view of a contiguous array reduced over its last dim, else None."""
    return a.reshape(-1, a.shape[-1]) if a.flags.c_contiguous and a.ndim >= 1 and a.shape[-1] else None


def _run(self, dim, log):
    x = acc(self)
    out = np.empty(x.shape, x.dtype)
    if x.ndim == 0:
        out[...] = 0.0 if log else 1.0
        if np.isnan(x):
            out[...] = np.nan
        return out
    d = wrap_dim(dim, x.ndim)
    x2 = _rows(x) if d == x.ndim - 1 else None
    if x2 is not None:
        if _c_rows("softmax_fwd", [x2, out.reshape(x2.shape)], log):
            return out
        run_rows(lambda xc, oc: _forward(xc, oc, 1, log), [x2, out.reshape(x2.shape)])
        return out
    if _c_inner("softmax_fwd", [x, out], d, log):
        return out
    axes = [a for a in range(x.ndim) if a != d and x.shape[a] > 1]
    split_run(lambda xc, oc: _forward(xc, oc, d, log), [x, out], axes[0]) if axes else _forward(x, out, d, log)
    return out


# elements: below this the last-dim C row kernels run on the calling thread. cross_entropy's (1024, 65)
# log_softmax is ~0.05 ms of C: a split call costs more in handing out than it saves (and waits for the
# other core when BLAS threads or other processes hold it; see norm_rows._LN_MIN_SPLIT)
_ROWS_MIN_SPLIT = 1 << 21
_C_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
_wrap_fresh = TensorImpl._wrap_fresh


# elements: from here, with more than one thread, the last-dim row kernels split by rows over ember's C pool
# (csrc/parallel.c, whose workers need no GIL and spin between jobs; torch splits from its GRAIN, 32768). Each
# row is computed alone, so the bits are one call's at any thread count. Measured at 2 threads, (16, 4, 64, 64)
# float32 (a GPT's attention scores), min us, torch in the same process, load ~3: forward 145 -> 79 (torch 98),
# backward 77 -> 43 (torch 25); one thread unchanged (144, 79; torch 189, 43).
_POOL_MIN = 1 << 15


def _pool_rows(name, suf, arrays, log):
    """The part `<name>_part_<suf>` of csrc/softmax.c over the rows of the c-contiguous (rows, k) matrices
    `arrays` (x, y or g, y, dx) on ember's C pool, about 8 chunks a thread; False (nothing done) on one thread,
    below _POOL_MIN elements or without C."""
    a = arrays[0]
    rows = a.shape[0]
    if a.size < _POOL_MIN or rows < 2:
        return False
    t = get_num_threads()
    fn = cparts.entry("softmax", f"{name}_part_{suf}") if t > 1 else 0
    if not fn:
        return False
    adr = clib.address
    p0, p2 = adr(a), adr(arrays[-1])
    p1 = adr(arrays[1]) if len(arrays) == 3 else None
    cparts.run(fn, rows, t, max(1, rows // (8 * t)), p0, p1, p2, None, float(a.shape[1]), float(log))
    return True


def _c_rows(name, arrays, log):
    """Runs the C kernel `name` over the (rows, k) matrices; False when C cannot take them."""
    suf = c_suffix(*arrays) if all(a.shape == arrays[0].shape for a in arrays) else None
    fn = clib.kernel("softmax", f"{name}_{suf}", "p" * len(arrays) + "lli") if suf else None
    if fn is None:
        return False
    if arrays[0].size and not _pool_rows(name, suf, arrays, log):
        c_rows(fn, arrays, arrays[0].shape[1], int(log), min_elems=_ROWS_MIN_SPLIT)
    return True


def _c_inner(name, arrays, d, log):
    """Runs the C kernel for a dim d that is not the last over the arrays seen as (outer, k, inner):
    split over `outer` when it has 2 or more slabs, else over the inner columns. False when C cannot
    take the arrays."""
    suf = c_suffix(*arrays) if all(a.shape == arrays[0].shape for a in arrays) else None
    fn = clib.kernel("softmax", f"{name}_inner_{suf}", "p" * len(arrays) + "llllli") if suf else None
    if fn is None:
        return False
    shape = arrays[0].shape
    outer, k, inner = int(np.prod(shape[:d])), shape[d], int(np.prod(shape[d + 1:]))
    if arrays[0].size == 0:
        return True
    if inner == 1:                  # only size-1 dims after d: the rows kernel
        return _c_rows(name, [a.reshape(outer, k) for a in arrays], log)
    if outer >= 2:
        c_rows(fn, [a.reshape(outer, k * inner) for a in arrays], k, inner, 0, inner, int(log))
    else:
        ptrs = [a.ctypes.data for a in arrays]
        split_run(lambda idx: fn(*ptrs, 1, k, inner, int(idx[0]), int(idx[-1]) + 1, int(log)), [np.arange(inner)],
                  0, 0 if arrays[0].size >= 1 << 16 else 1 << 62)
    return True


def _last_dim_direct(self, dim, half_to_float, log):
    """(log_)softmax over the last dim of a non-empty contiguous float32/float64 cpu input below the Python
    pool's split: the C row kernel called directly on the input's array, or its part on ember's C pool
    (_pool_rows; what _run does for it, without the spec, the closures and the checks it needs for other
    cases). None for every other case."""
    a = self._np
    if a is None or half_to_float or not a.ndim or not a.flags.c_contiguous or a.size >= _ROWS_MIN_SPLIT:
        return None
    k = a.shape[-1]
    if (dim != -1 and dim != a.ndim - 1) or not a.size:
        return None
    suf = _C_SUFFIX.get(a.dtype)
    fn = clib.kernel("softmax", f"softmax_fwd_{suf}", "pplli") if suf is not None else None
    if fn is None:
        return None
    out = np.empty(a.shape, a.dtype)
    if a.size < _POOL_MIN or not _pool_rows("softmax_fwd", suf, [a.reshape(-1, k), out.reshape(-1, k)], log):
        fn(clib.address(a), clib.address(out), a.size // k, k, log)
    return _wrap_fresh(out, self.dtype)


def _softmax(self, dim, half_to_float):
    r = _last_dim_direct(self, dim, half_to_float, 0)
    if r is not None:
        return r
    shape, dt = softmax_spec(self, dim, half_to_float)
    return wrap(_run(self, dim, False), dt, fresh=True)


def _log_softmax(self, dim, half_to_float):
    r = _last_dim_direct(self, dim, half_to_float, 1)
    if r is not None:
        return r
    shape, dt = softmax_spec(self, dim, half_to_float, "log_softmax")
    return wrap(_run(self, dim, True), dt, fresh=True)


def _backward(gc, yc, oc, d, log):
    """softmax: dx = y * (g - sum(g * y)); log_softmax: dx = g - exp(y) * sum(g)."""
    if gc.size == 0:
        return
    if log:
        s = _sum(gc, d)
        np.exp(yc, out=oc)
        oc *= s
        np.subtract(gc, oc, out=oc)
    else:
        if gc.ndim == 2 and d == 1 and gc.dtype.kind == "f":
            s = row_dot(gc, yc)
        else:
            np.multiply(gc, yc, out=oc)
            s = np.add.reduce(oc, axis=d, keepdims=True)
        np.subtract(gc, s, out=oc)
        oc *= yc


def _run_backward(grad_output, output, dim, log):
    y = acc(output)
    g = acc(grad_output).astype(y.dtype, copy=False)
    # (the grad has the output's shape but for odd callers: numpy's Python-level broadcast_shapes and
    # broadcast_to, ~5 us together, only then)
    same = g.shape == y.shape
    out = np.empty(y.shape if same else np.broadcast_shapes(g.shape, y.shape), y.dtype)
    if y.ndim == 0:
        out[...] = 0
        return out
    d = wrap_dim(dim, y.ndim)
    if not same:
        g = np.broadcast_to(g, out.shape)
    g2, y2 = (_rows(g), _rows(y)) if d == y.ndim - 1 else (None, None)
    if g2 is not None and y2 is not None:
        if _c_rows("softmax_bwd", [g2, y2, out.reshape(y2.shape)], log):
            return out
        run_rows(lambda gc, yc, oc: _backward(gc, yc, oc, 1, log), [g2, y2, out.reshape(y2.shape)])
        return out
    if _c_inner("softmax_bwd", [g, y, out], d, log):
        return out
    axes = [a for a in range(y.ndim) if a != d and y.shape[a] > 1]
    fn = lambda gc, yc, oc: _backward(gc, yc, oc, d, log)  # noqa: E731
    split_run(fn, [g, np.broadcast_to(y, out.shape), out], axes[0]) if axes else fn(g, y, out)
    return out


def _backward_last_dim_direct(grad_output, output, dim, log):
    """The backward over the last dim of non-empty contiguous float32/float64 arrays of one shape and dtype below
    the Python pool's split: the C row kernel on the arrays themselves, or its part on ember's C pool, with the
    bits of `_run_backward`'s C path (the same kernel on the same rows) and none of its casts, broadcasts and
    reshapes. None for every other case. A (16, 4, 64, 64) softmax backward spent ~6 us of its ~51 there."""
    g, y = grad_output._np, output._np
    if (g is None or y is None or g.dtype != y.dtype or g.shape != y.shape or not y.ndim or not y.size
            or not g.flags.c_contiguous or not y.flags.c_contiguous or y.size >= _ROWS_MIN_SPLIT):
        return None
    k = y.shape[-1]
    if dim != -1 and dim != y.ndim - 1:
        return None
    suf = _C_SUFFIX.get(y.dtype)
    fn = clib.kernel("softmax", f"softmax_bwd_{suf}", "ppplli") if suf is not None else None
    if fn is None:
        return None
    out = np.empty(y.shape, y.dtype)
    if y.size < _POOL_MIN or not _pool_rows("softmax_bwd", suf, [g.reshape(-1, k), y.reshape(-1, k),
                                                                  out.reshape(-1, k)], log):
        fn(clib.address(g), clib.address(y), clib.address(out), y.size // k, k, log)
    return _wrap_fresh(out, grad_output.dtype)


def _softmax_backward_data(grad_output, output, dim, input_dtype):
    r = _backward_last_dim_direct(grad_output, output, dim, 0)
    if r is not None:
        return r
    return wrap(_run_backward(grad_output, output, dim, False), grad_output.dtype, fresh=True)


def _log_softmax_backward_data(grad_output, output, dim, input_dtype):
    r = _backward_last_dim_direct(grad_output, output, dim, 1)
    if r is not None:
        return r
    return wrap(_run_backward(grad_output, output, dim, True), grad_output.dtype, fresh=True)
