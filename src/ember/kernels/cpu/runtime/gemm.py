"""Matrix products split over ember's C thread pool, the counterpart of ATen's `cpublas::gemm` on the intra-op
team (torch's MKL gemm threads are the OpenMP threads of `at::parallel_for`: one team for every op).

`mm(a, b)` and `bmm(a, b)` compute what `a.dot(b)` / `np.matmul(a, b)` compute, bit for bit, by calling the
same cblas_sgemm / cblas_dgemm of numpy's OpenBLAS on blocks of rows (or columns) of the result, or on whole
matrices of a batch, shared out by csrc/parallel.c (csrc/gemm.c runs one block per call). They return None
for every case they do not take (the caller keeps numpy): other dtypes, operands cblas cannot read in place,
shapes where numpy would not call gemm (a dimension of 1: gemv; `x @ x.T`: syrk), or C unavailable.

Why not OpenBLAS's own threads: measured on the 2-core AVX-512 EPYC, an OpenBLAS worker spins for ~0.1 s of
cpu after every threaded call (its THREAD_TIMEOUT, 2^28 cycles, fixed when numpy loads it). A train step calls
a gemm every few milliseconds, so that worker held the second core through the whole step, and every op that
split over ember's pool in between waited for it: at 2 threads the GPT step's layer-norm backward, GELU
backward and large adds ran up to 2x slower than at 1 thread, and OpenBLAS's own split of the step's gemms
gained only 1.2-1.5x. So once ember splits gemms itself, `runtime/blas.py` holds OpenBLAS at one thread
(`blas.hold_single()`): one team of threads, as in torch, whose worker spins 50 us between jobs.

Tuning: products below SPLIT_MACS multiply-adds run as one call on the calling thread (a split costs a hand-off
of a few microseconds and a second packing of the shared operand); there are about two blocks per thread (a late
worker's blocks are taken by the caller).

Products of OPENBLAS_SERIAL to SPLIT_MACS multiply-adds (262k-2M) stay one call on one thread (OpenBLAS held),
measured in session 13: from 1M the single call takes OpenBLAS's regular kernels but any two blocks would be at or
below SMALL_MNK and take the small-matrix kernels, whose sums differ (8 of 9 shapes tried); below 1M both take the
small kernels, and row blocks matched for NN/TN but not NT (128x512x10, an MLP's last Linear), columns matched. The
gain would be ~10 us per product (one thread: 128x512x10 in 19 us, 64x128x128 in 23 us, 128x128x96 in 33 us),
less a hand-off of a few us: not taken. Except NT products (a @ b^T) of more than SMALL_NT_MN results: OpenBLAS
runs those in its regular kernels at any size (`_small`), so their blocks keep the bits from fewer multiply-adds;
F.linear's few-row product splits from 1M (`mm_t`, min_macs; nn/functional/linear.py has the figures).

Split overhead, one thread running every block in turn (CPU time, us, single call -> 2 / 4 blocks): 128x784x512
NT 1139 -> 1166 / 1180 (columns), 128x512x512 NN 676 -> 693 / 707, 1024x128x384 NT 1003 -> 1017 / 1067 (rows),
384x1024x128 TN 984 -> 1012 / 1055: 1-6% for the second packing of the shared operand.

Layout (Linear's x @ w^T, an NT gemm in row-major cblas): OpenBLAS packs that case more slowly than NN, about as
fast as MKL's in torch only from ~256 rows (one thread, CPU time, ember F.linear / torch F.linear with bias, k=128
n=384: 28 rows 49.5 / 34.6 us, 64 rows 92.7 / 68.2, 128 rows 155 / 128, 256 rows 285 / 249; the raw NT call is
within 1-10 us of ember's figure; k=512 n=128 alike). numpy's NN product with a contiguous w^T matches MKL (32x512x512:
NT 287, NN 187, torch 194 us; the same bits as NT), but making w^T costs a transposed copy of the weight per call
(more than the gain, since a training step changes the weight every step); F.linear's few-row swap
(nn/functional/linear.py) covers 2-48 rows without grad. Not changed.

Bits: a block's rows (columns) start at a multiple of its dtype's BLOCK unit for that axis, a whole number of
OpenBLAS's tiles, and every block is above OpenBLAS's small-matrix limit (SMALL_MNK); measured on the AVX-512 EPYC,
such blocks reproduce the single call on every shape tried. A different OpenBLAS build could tile otherwise, so the
first split of each dtype is checked against the single call on a probe product per axis (`_exact`); if it differs,
no product of that dtype is split into blocks (only the matrices of a batch are shared out, each one numpy's own
call, exact by construction).

Units (OpenBLAS 0.3.31, DYNAMIC_ARCH, one thread, the AVX-512 EPYC; random shapes 4-2000 per side above SMALL_MNK,
NN/NT/TN/TT, 2-8 blocks, against a.dot(b)): float32 rows and columns at multiples of 64 matched in every case
(450 of 450 with the plans of 2-4 threads). float64 differs unless rows start at multiples of 24 (its tile
height: 0 of 108 cases differed at 24, 48, 96 and 192 rows, against 47-70 of ~100 at 2-64 rows other than
multiples of 24) and columns at multiples of 192 (0 of 46 at 192 and 384; 42-74 of ~100 at 2-96 columns); session
12 had left float64 unsplit after measuring 64-row blocks.
"""
import ctypes

import numpy as np

from . import blas, clib
from .flat import _parallel_for
from .pool import get_num_threads

SPLIT_MACS = 1 << 21        # multiply-adds from which a product is split over the pool
BLOCK = {np.dtype(np.float32): (64, 64), np.dtype(np.float64): (24, 192)}     # (row, column) units of block edges
OPENBLAS_SERIAL = 1 << 18   # m*n*k up to which OpenBLAS never starts its threads (65536 x GEMM_MULTITHREAD_THRESHOLD 4)
SMALL_MNK = 1000000         # OpenBLAS's small-matrix kernels take m*n*k up to this (other sums): no block below it
SMALL_NT_MN = 1200          # ... but a float32 NT product (a @ b^T) only up to this many results (_small)

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_STATE = []                 # [gemm_part address, sgemm, dgemm, int bits] once probed, [None] when unavailable
_NO, _T = 111, 112          # cblas: no transpose, transpose


def _probe():
    if not _STATE:
        st = None
        fns = blas.cblas_gemm() if clib.enabled() else None
        lib = clib.library("gemm") if fns is not None else None
        if lib is not None and _parallel_for() is not None:
            st = (ctypes.cast(lib.gemm_part, ctypes.c_void_p).value, fns[0], fns[1], fns[2])
        _STATE.append(st)
    return _STATE[0]


def available():
    """Whether gemms can run over ember's pool (C kernels, numpy's cblas and the pool all found)."""
    return clib.enabled() and _probe() is not None


def _layout(x, rows, cols):
    """(cblas transpose flag, leading dimension) reading the 2-d matrix x (strides x.strides[-2:]) in place, or
    None when cblas cannot (numpy's `is_blasable2d` rule, either way round)."""
    isz = x.itemsize
    s0, s1 = x.strides[-2], x.strides[-1]
    if s1 == isz and s0 % isz == 0 and s0 // isz >= max(1, cols):
        return _NO, s0 // isz
    if s0 == isz and s1 % isz == 0 and s1 // isz >= max(1, rows):
        return _T, s1 // isz
    return None


def _syrk(a, b, m, n):
    """Whether numpy could compute some matrix of a @ b by syrk instead of gemm (a matrix times its own
    transpose: the same data address, m == n, transposed strides), which gives other bits: such products stay
    numpy's. With equal batch strides the matrices start at the same address only if the arrays do (attention's
    q and k, views of one buffer at different offsets, stay here)."""
    if m != n or a.strides[-2] != b.strides[-1] or a.strides[-1] != b.strides[-2]:
        return False
    if a.strides[:-2] == b.strides[:-2] or b.ndim == 2:
        return clib.address(a) == clib.address(b) if b.ndim == a.ndim else np.may_share_memory(a, b)
    return np.may_share_memory(a, b)


def _small(m, n, k, nt):
    """Whether OpenBLAS runs the float32 product of (m, k) by (k, n) in its small-matrix kernels (other sums than
    its regular ones): sgemm_small_kernel_permit of its AVX-512 build, in cblas's row-major terms. Any product up
    to SMALL_MNK multiply-adds, except an NT one (`nt`: a @ b^T, Linear's x @ w^T, which OpenBLAS runs as a
    column-major TN gemm) with more than SMALL_NT_MN results or k below 32: those take the regular kernels at
    any size. Measured on the AVX-512 EPYC (20,502 float32 NT products of 2-128 rows, k 16-1024, n 65-1536, split
    into two blocks of rows of b at units of 8-64): the blocks gave the single call's bits exactly when this
    said the same of the whole product and of both blocks (one row is a gemv, not a gemm)."""
    if m * n * k > SMALL_MNK:
        return False
    return not nt or (m * n <= SMALL_NT_MN and k >= 32)


def _plan(m, n, k, count, threads, dt, force=False, min_macs=SPLIT_MACS, nt=False):
    """How _run shares out `count` products of (m, k) by (k, n): (columns?, block unit, blocks per matrix, work
    items, items per chunk), or None when the work stays one call (below `min_macs`, or no two blocks fit).
    `nt`: the product is a float32 a @ b^T (see _small: regular kernels from fewer multiply-adds)."""
    if not force and count * m * n * k < min_macs:
        return None
    if count >= 2 * threads:
        return 0, 1, 1, count, max(1, count // (4 * threads))
    units = BLOCK.get(dt)
    if units is None:
        return (0, 1, 1, count, 1) if count >= 2 else None
    nt = nt and dt is _F32
    if nt and _small(m, n, k, True):
        nt = False          # the whole product is in the small kernels: blocks must be too big for them
    best = None
    for cols in (0, 1):     # the axis giving more blocks (up to two per thread), rows on a tie: a 128-row product
        span, rest = (n, m * k) if cols else (m, n * k)         # (an MLP's) has only 2 row blocks of 64
        unit = units[cols]
        need = SMALL_MNK // max(1, rest) + 1                    # a block's least rows (columns), by multiply-adds
        if nt:              # or by results (k >= 32; below it an NT block never takes the small kernels)
            other = n if not cols else m
            need = min(need, SMALL_NT_MN // max(1, other) + 1) if k >= 32 else 1
        least = max(unit, -(-need // unit) * unit)
        nblk = min(2 * threads, span // least)
        if nblk * count >= 2 and (best is None or nblk > best[2]):
            best = (cols, unit, nblk, count * nblk, 1)
    return best


def _run(st, a, b, c, la, lb, m, n, k, batch, sa, sb, sc, plan, threads, bias=None, rout=None):
    """C = A @ B over the pool by `plan` (_plan's): the products of (m, k) by (k, n) matrices over `batch`
    (outer, inner) batch sizes, at element strides sa, sb, sc (outer, inner); then C += bias (a c-contiguous
    (n,) or (m, n) array, 2-d products only) block by block. With `rout` (a c-contiguous (n, m) array; 2-d
    products split by rows only): C is scratch and rout = C^T + bias (bias: a c-contiguous (m,) array), each block
    written on its own thread (csrc/gemm.c)."""
    cols, unit, nblk, items, grain = plan
    dbl = a.dtype == _F64
    addr = clib.address
    d = np.array([st[2] if dbl else st[1], st[3], int(dbl), la[0], lb[0], m, n, k, la[1], lb[1], n, sa[0], sb[0],
                  sc[0], cols, unit, nblk, batch[1], sa[1], sb[1], sc[1], 0 if bias is None else addr(bias),
                  n if bias is not None and bias.ndim == 2 else 0, 0 if rout is None else addr(rout), m], np.int64)
    _parallel_for()(st[0], addr(d), addr(a), addr(b), addr(c), 1.0, 0.0, items, grain, threads)


_EXACT = {}                 # dtype -> whether blocks reproduce the single call here (checked once)


def _exact(st, dt=np.dtype(np.float32)):
    """Whether row and column blocks reproduce OpenBLAS's single call bit for bit for dtype dt: a probe product per
    axis, split into up to four blocks at that axis's unit, against a.dot(b) with OpenBLAS at one thread."""
    ok = _EXACT.get(dt)
    if ok is None:
        _EXACT[dt] = True           # the probe's own split below
        rng = np.random.default_rng(0)
        ok = True
        for cols, unit in enumerate(BLOCK[dt]):
            span = 5 * max(unit, 64) + 17           # 4 blocks of at least `unit`, a ragged last one
            m, n, k = (150, span, 300) if cols else (span, 150, 300)
            a = rng.standard_normal((m, k)).astype(dt)
            b = rng.standard_normal((k, n)).astype(dt)
            rest = m * k if cols else n * k
            least = max(unit, -(-(SMALL_MNK // rest + 1) // unit) * unit)
            nblk = min(4, span // least)
            c = np.empty((m, n), dt)
            _run(st, a, b, c, _layout(a, m, k), _layout(b, k, n), m, n, k, (1, 1), (0, 0), (0, 0), (0, 0),
                 (cols, unit, nblk, nblk, 1), 2)
            ok = ok and nblk >= 2 and np.array_equal(c, a.dot(b))
        _EXACT[dt] = ok
    return ok


_EXACT_NT = []              # whether _small's rule for NT products holds here (checked once)


def _exact_nt(st):
    """Whether column blocks of a float32 NT product below SMALL_MNK multiply-adds but above SMALL_NT_MN results
    reproduce the single call here (the rule of _small: both run OpenBLAS's regular kernels): a probe of 786k
    multiply-adds, a GPT's qkv projection of 16 rows, in two blocks of 192 columns. A build whose small kernels
    take such products would fail it, and its NT products then split only above SMALL_MNK a block."""
    if not _EXACT_NT:
        rng = np.random.default_rng(1)
        a = rng.standard_normal((16, 128)).astype(np.float32)
        b = rng.standard_normal((384, 128)).astype(np.float32).T
        c = np.empty((16, 384), np.float32)
        _run(st, a, b, c, _layout(a, 16, 128), _layout(b, 128, 384), 16, 384, 128, (1, 1), (0, 0), (0, 0),
             (0, 0), (1, 64, 2, 2, 1), 2)
        _EXACT_NT.append(bool(np.array_equal(c, a.dot(b))))
    return _EXACT_NT[0]


def _blas_ready(macs):
    """None when numpy's own call is as good (single thread, or too small for any threads); else the probed
    state, with OpenBLAS held at one thread (see the module docstring)."""
    if macs <= OPENBLAS_SERIAL:
        return None
    st = _STATE[0] if _STATE else _probe()
    if st is None or not clib.enabled():
        return None
    blas.hold_single()
    if get_num_threads() < 2:
        return None
    return st


def _mm_shape(a, b):
    """(dtype, m, n, k) of a.dot(b) for 2-d float32/float64 arrays of one dtype whose product numpy would run as
    a gemm (no dimension below 2), else None."""
    dt = a.dtype
    if (dt is not _F32 and dt is not _F64) or b.dtype is not dt or a.ndim != 2 or b.ndim != 2:
        return None
    m, k = a.shape
    n = b.shape[1]
    if m < 2 or n < 2 or k < 2 or b.shape[0] != k:
        return None
    return dt, m, n, k


def mm(a, b, bias=None, out=None, min_macs=SPLIT_MACS):
    """a.dot(b) for 2-d float32/float64 arrays of one dtype, split over the pool: a fresh c-contiguous array (or
    `out`, a c-contiguous (m, n) array of the dtype sharing no memory with the operands), or None (the caller runs
    numpy). `bias`: a c-contiguous (n,) or (m, n) array of the dtype added to the product (addmm's
    `np.add(a.dot(b), bias)`, the same bits), each block right after its product while in cache and on its
    thread. `min_macs`: the least m*n*k to split (default SPLIT_MACS; a caller that measured its shapes passes
    less)."""
    shape = _mm_shape(a, b)
    if shape is None:
        return None
    dt, m, n, k = shape
    st = _blas_ready(m * n * k)
    if st is None:
        return None
    threads = get_num_threads()
    la, lb = _layout(a, m, k), _layout(b, k, n)
    if la is None or lb is None:
        return None
    nt = dt is _F32 and la[0] == _NO and lb[0] == _T and _exact_nt(st)
    plan = _plan(m, n, k, 1, threads, dt, min_macs=min_macs, nt=nt)
    if plan is None or not _exact(st, dt) or _syrk(a, b, m, n):
        return None
    if bias is not None and (bias.dtype is not dt or not bias.flags.c_contiguous
                             or bias.shape not in ((n,), (m, n)) or np.may_share_memory(bias, a)
                             or np.may_share_memory(bias, b)):
        return None
    if out is None:
        c = np.empty((m, n), dt)
    elif (out.dtype is not dt or out.shape != (m, n) or not out.flags.c_contiguous or not out.flags.writeable
          or np.may_share_memory(out, a) or np.may_share_memory(out, b)):
        return None
    else:
        c = out
    _run(st, a, b, c, la, lb, m, n, k, (1, 1), (0, 0), (0, 0), (0, 0), plan, threads, bias)
    return c


def mm_t(a, b, bias=None, min_macs=SPLIT_MACS):
    """a.dot(b).T + bias as a fresh c-contiguous (n, m) array, bit for bit numpy's `np.add(a.dot(b).T, bias)` (one
    rounding per element), split over the pool by blocks of rows of `a` (gemm.mm's rules, from `min_macs`
    multiply-adds), each block's transpose and bias written by csrc/gemm.c on the block's own thread; for 2-d
    float32/float64 arrays of one dtype (`bias`: None or a c-contiguous (m,) array of it). None when the product
    does not split (one thread, too small, no two blocks of rows) or cannot run here (C or numpy's cblas
    unavailable, numpy would not run a gemm: a dimension of 1, syrk): the caller runs numpy (on one thread the
    C transpose, scalar then, was no faster than numpy's strided add: (48, 384) 13.5 against 10.8 us with the call's
    overhead; since its AVX-512 tiles, `transpose_add` does that step there).
    F.linear's few-row product x @ w^T runs as mm_t(w, x.T, bias) (nn/functional/linear.py says why)."""
    shape = _mm_shape(a, b)
    if shape is None:
        return None
    dt, m, n, k = shape
    st = _blas_ready(m * n * k)     # (holds OpenBLAS at one thread from OPENBLAS_SERIAL, as before a split)
    if st is None or m * n * k < min_macs:
        return None
    if bias is not None and (bias.dtype is not dt or bias.shape != (m,) or not bias.flags.c_contiguous):
        return None
    la, lb = _layout(a, m, k), _layout(b, k, n)
    if la is None or lb is None:
        return None
    threads = get_num_threads()
    nt = dt is _F32 and la[0] == _NO and lb[0] == _T and _exact_nt(st)
    plan = _plan(m, n, k, 1, threads, dt, min_macs=min_macs, nt=nt)
    if plan is None or plan[0] != 0 or not _exact(st, dt) or _syrk(a, b, m, n):
        return None                 # (blocks of rows only)
    c = np.empty((m, n), dt)
    r = np.empty((n, m), dt)
    _run(st, a, b, c, la, lb, m, n, k, (1, 1), (0, 0), (0, 0), (0, 0), plan, threads, bias, r)
    return r


_TADD = {}                  # dtype -> csrc/gemm.c's transpose_add_<f32|f64> (ctypes), or None


def transpose_add(c, bias=None):
    """c.T + bias as a fresh c-contiguous (n, m) array for a c-contiguous (m, n) float32/float64 array c
    (`bias`: None or a c-contiguous (m,) array of its dtype), bit for bit numpy's `np.add(c.T, bias)`, by
    csrc/gemm.c on the calling thread (16 x 16 register tiles on AVX-512), or None when C is off or the
    arrays do not fit: F.linear's few-row product that does not split (mm_t's step on one thread). (384, 48)
    float32 with a bias, min us with the call, load ~8: 10.0 in numpy's strided add, 4.5 here."""
    dt = c.dtype
    fn = _TADD.get(dt, 0)
    if fn == 0:
        sfx = "f32" if dt == _F32 else "f64" if dt == _F64 else None
        fn = _TADD[dt] = clib.kernel("gemm", f"transpose_add_{sfx}", "pppll") if sfx else None
    if (fn is None or not clib.enabled() or c.ndim != 2 or not c.flags.c_contiguous
            or bias is not None and (bias.dtype != dt or bias.shape != c.shape[:1] or not bias.flags.c_contiguous)):
        return None
    m, n = c.shape
    r = np.empty((n, m), dt)
    fn(clib.address(c), clib.address(r), None if bias is None else clib.address(bias), m, n)
    return r


def matmul(a, b):
    """np.matmul(a, b), split over the pool when mm (two 2-d arrays) or bmm (a 3-d/4-d stack times a stack of the
    same batch or one matrix) takes it (float32/float64 of one dtype, big enough for threads, readable in place),
    else numpy's own call: the same bits either way. For kernels that call BLAS directly (rnn_layer.py's per-step
    hidden gemms and its projections, conv_im2col.py's one-image gemms, linalg_matmul.py's addmm/baddbmm with
    scalars): with OpenBLAS held at one thread (blas.hold_single) their numpy calls would never use a second core."""
    if a.ndim >= 2 and b.ndim >= 2 and a.size * b.shape[-1] >= SPLIT_MACS:      # a's rows x k x n (_plan's rule)
        r = mm(a, b) if a.ndim == 2 and b.ndim == 2 else bmm(a, b)
        if r is not None:
            return r
    return np.matmul(a, b)


def bmm(a, b, out=None):
    """np.matmul(a, b, out=out) for a (*batch, M, K) and b (*batch, K, N) or (K, N) of one float dtype, one or two
    batch dims, split over the pool; None when this path does not take them. `out`, when given, is a
    c-contiguous (*batch, M, N) array."""
    dt = a.dtype
    nd = a.ndim
    if (dt is not _F32 and dt is not _F64) or b.dtype is not dt or not 3 <= nd <= 4 or b.ndim not in (2, nd):
        return None
    m, k = a.shape[-2:]
    n = b.shape[-1]
    bat = a.shape[:-2]
    if m < 2 or n < 2 or k < 2 or b.shape[-2] != k or (b.ndim == nd and b.shape[:-2] != bat):
        return None
    count = bat[0] * bat[-1] if nd == 4 else bat[0]
    st = _blas_ready(count * m * n * k)
    if st is None:
        return None
    threads = get_num_threads()
    plan = _plan(m, n, k, count, threads, dt)
    if plan is None or (plan[2] > 1 and not _exact(st, dt)):
        return None
    la, lb = _layout(a, m, k), _layout(b, k, n)
    if la is None or lb is None or _syrk(a, b, m, n):
        return None
    isz = a.itemsize
    sa = a.strides[:-2]
    sb = b.strides[:-2] if b.ndim == nd else (0,) * (nd - 2)
    if any(s % isz or s < 0 for s in sa + sb):
        return None
    if out is None:
        out = np.empty(bat + (m, n), dt)
    sc = out.strides[:-2]
    if nd == 3:
        batch, sa, sb, sc = (bat[0], 1), (sa[0], 0), (sb[0], 0), (sc[0], 0)
    else:
        batch = bat
    _run(st, a, b, out, la, lb, m, n, k, batch, tuple(s // isz for s in sa), tuple(s // isz for s in sb),
         tuple(s // isz for s in sc), plan, threads)
    return out
