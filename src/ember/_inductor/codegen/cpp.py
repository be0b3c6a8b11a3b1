"""torch/_inductor/codegen/cpp.py: C source for fused kernels (one C function per FusedGroup).

`CppOps` is the ops handler that turns an inner function into C statements: each op becomes one
`const T tmpN = ...;` line (with common-subexpression elimination), loads read `bufN[index]`, half precision
is loaded into float and every value is computed in float32 (float64 for double, the integer type itself for
integers, `_Bool` for bool). `KernelCodegen` writes the loop nest: the group's outer loops, then per section
its own loops, `#pragma omp simd` on the innermost loop (the build uses -fopenmp-simd: no OpenMP runtime),
restrict pointers, the contiguous index innermost. Semantics kept as eager's:
  - no -ffast-math; integer arithmetic wraps (-fwrapv); integer `//` and `%` follow Python (floor);
    integer division by zero does not trap: it sets the error flag, and the wrapper raises eager's
    RuntimeError("ZeroDivisionError");
  - maximum/minimum and max/min reductions propagate NaN; argmax/argmin pick the first NaN or extreme;
  - float32/float64 sums of a tensor over some of its dims (lowering.make_reduction) follow eager's numpy order
    and so have eager's bits: the accumulator starts at 0 and adds, in index order, numpy's pairwise sum of
    each contiguous run of reduced values (the trailing dims; a kernel's runs take NUMPY_RUN_BYTES of stack at
    most), and a column (last dim kept) adds its values one by one in float32, as np.add.reduce does. Longer or
    symbolic runs, half types and other sums (avg_pool windows) accumulate in double (float lanes over
    SUM_BLOCK, block sums in double, for float32 rows), as do products; max/min/any/all in the value type;
  - an indirect index (embedding) out of range sets the error flag (1) that the wrapper raises as IndexError.
"""
import math

from ember._core import dtype as _dt

from ..index import Index
from ..sizevars import SymFloatSize, SymSize
from ..virtualized import COMPARISONS, set_ops_handler
from . import vec_math

def _csrc(name):
    """A header of ember's hand-written kernels (kernels/cpu/csrc), inlined into the generated source so that
    compiled code computes exp and the normal CDF exactly as the eager kernels do, vectorised."""
    import os
    from ember.kernels.cpu.runtime import clib
    with open(os.path.join(clib._DIR, name)) as f:
        return f.read()


_PREAMBLE_HEAD = r"""
#pragma GCC optimize ("wrapv", "no-trapping-math")
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

static int64_t ember_index_error;
"""
_PREAMBLE_TAIL = r"""
static inline float ember_bf16_to_f(uint16_t h) { uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }
static inline uint16_t ember_f_to_bf16(float f) {
    uint32_t u; memcpy(&u, &f, 4);
    if (f != f) return (uint16_t)((u >> 16) | 0x40);
    return (uint16_t)((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}
static inline float ember_round_bf16(float f) { return ember_bf16_to_f(ember_f_to_bf16(f)); }
static inline float ember_round_f16(float f) { return (float)(_Float16)f; }

#define EMBER_FLOAT_HELPERS(T, S)                                                              \
static inline T ember_max_##S(T a, T b) { return (a != a) ? a : ((b != b) ? b : (a > b ? a : b)); } \
static inline T ember_min_##S(T a, T b) { return (a != a) ? a : ((b != b) ? b : (a < b ? a : b)); } \
static inline T ember_floordiv_##S(T a, T b) {                                                 \
    if (b == 0) return a / b;                                                                  \
    T mod = fmod##S(a, b); T div = (a - mod) / b;                                              \
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;                                         \
    if (div != 0) { T fl = floor##S(div); if (div - fl > (T)0.5) fl += 1; return fl; }        \
    return copysign##S((T)0, a / b);                                                           \
}                                                                                              \
static inline T ember_mod_##S(T a, T b) {                                                      \
    T r = fmod##S(a, b); if (r != 0 && ((b < 0) != (r < 0))) r += b; return r;                 \
}                                                                                              \
static inline T ember_sign_##S(T a) { return (a != a) ? a : (T)((0 < a) - (a < 0)); }
#define fmodd fmod
#define floord floor
#define copysignd copysign
EMBER_FLOAT_HELPERS(float, f)
EMBER_FLOAT_HELPERS(double, d)

static inline int64_t ember_floordiv_i(int64_t a, int64_t b) {
    if (b == 0) { ember_index_error = 2; return 0; }
    if (b == -1) return (int64_t)(0ULL - (uint64_t)a);
    int64_t q = a / b; if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1; return q;
}
static inline int64_t ember_truncdiv_i(int64_t a, int64_t b) {
    if (b == 0) { ember_index_error = 2; return 0; }
    if (b == -1) return (int64_t)(0ULL - (uint64_t)a);
    return a / b;
}
static inline int64_t ember_mod_i(int64_t a, int64_t b) {
    if (b == 0) { ember_index_error = 2; return 0; }
    if (b == -1) return 0;
    int64_t r = a % b; if (r != 0 && ((r < 0) != (b < 0))) r += b; return r;
}
static inline int64_t ember_fmod_i(int64_t a, int64_t b) {
    if (b == 0) { ember_index_error = 2; return 0; }
    return b == -1 ? 0 : a % b;
}
static inline int64_t ember_pow_i(int64_t a, int64_t b) {
    if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
    uint64_t r = 1, base = (uint64_t)a;
    while (b) { if (b & 1) r *= base; base *= base; b >>= 1; }
    return (int64_t)r;
}
#pragma omp declare reduction(nanmax_f: float: omp_out = ember_max_f(omp_out, omp_in)) initializer(omp_priv = -INFINITY)
#pragma omp declare reduction(nanmin_f: float: omp_out = ember_min_f(omp_out, omp_in)) initializer(omp_priv = INFINITY)
#pragma omp declare reduction(nanmax_d: double: omp_out = ember_max_d(omp_out, omp_in)) initializer(omp_priv = -INFINITY)
#pragma omp declare reduction(nanmin_d: double: omp_out = ember_min_d(omp_out, omp_in)) initializer(omp_priv = INFINITY)

static inline float ember_sigmoid_f(float x) { return 1.0f / (1.0f + vm_expf(-x)); }
static inline double ember_sigmoid_d(double x) { return 1.0 / (1.0 + vm_exp(-x)); }
static inline float ember_phi_f(float x) { return gm_phi(x, gm_gauss(x)); }
static inline double ember_phi_d(double x) { return 0.5 * erfc(-x * 0.70710678118654752440); }
static inline float ember_gauss_f(float x) { return gm_gauss(x); }
static inline double ember_gauss_d(double x) { return exp(-0.5 * x * x); }

/* Parallel outer loops (and the parts of extern calls): [0, n) shared out over eager's C thread pool
   (kernels/cpu/csrc/parallel.c `ember_parallel_for`, bound by the loader through ember_set_parallel) in chunks
   of about n / (4 threads) items that whichever thread is free takes, the caller included; the pool runs a job
   on the caller alone while it is busy or backing off from a preempted worker. What a chunk computes does not
   depend on which thread runs it, so the results have the same bits at any thread count. Without the pool
   (no C runtime bound): contiguous chunks over threads created for this call and joined before it returns. The
   pool's workers are re-created in a forked child (parallel.c's atfork handler); no OpenMP runtime is linked.
   Measured on the 2-core VM, CNN train step at 2 threads, load ~8: threads created per call waited for a core
   at every parallel kernel (wall median 143 ms a step against eager's 31). */
typedef void (*ember_task_fn)(void**, int64_t, int64_t);
typedef int (*ember_pfor_fn)(void*, void*, void*, void*, void*, double, double, int64_t, int64_t, int);
static ember_pfor_fn ember_pfor;
void ember_set_parallel(void* f) { ember_pfor = (ember_pfor_fn)f; }
static void ember_pfor_task(void* const* q, const double* s, int64_t b, int64_t e) {
    (void)s;
    ((ember_task_fn)q[0])((void**)q[1], b, e);
}
struct ember_task { ember_task_fn fn; void** p; int64_t lo, hi; };
static void* ember_task_run(void* a) { struct ember_task* t = a; t->fn(t->p, t->lo, t->hi); return 0; }
static void ember_parallel(ember_task_fn fn, void** p, int64_t n, int threads) {
    if (ember_pfor && threads > 1 && n > 1) {
        int64_t grain = n / (4 * (int64_t)threads);
        ember_pfor((void*)ember_pfor_task, (void*)fn, (void*)p, 0, 0, 0.0, 0.0, n, grain < 1 ? 1 : grain, threads);
        return;
    }
    if (threads > 16) threads = 16;
    if (threads > n) threads = (int)n;
    struct ember_task tasks[16];
    pthread_t th[16];
    int started[16] = {0};
    const int64_t chunk = (n + threads - 1) / threads;
    for (int i = 1; i < threads; i++) {
        const int64_t lo = i * chunk, hi = lo + chunk < n ? lo + chunk : n;
        if (lo >= hi) break;
        tasks[i].fn = fn; tasks[i].p = p; tasks[i].lo = lo; tasks[i].hi = hi;
        started[i] = pthread_create(&th[i], 0, ember_task_run, &tasks[i]) == 0;
        if (!started[i]) fn(p, lo, hi);
    }
    fn(p, 0, chunk < n ? chunk : n);
    for (int i = 1; i < threads; i++)
        if (started[i]) pthread_join(th[i], 0);
}

static inline double ember_f64(double x) { return x; }
static inline double ember_truediv(double a, double b) { return a / b; }

/* numpy's pairwise sum (numpy/_core/src/umath/loops_utils.h.src) of a[0..n): what np.add.reduce adds over
   the contiguous run of a reduction, so a compiled sum has eager's bits (codegen/cpp.py, numpy-order sums).
   The eight partial sums are one vector's lanes: gcc vectorises the block loop without reassociating. */
#define EMBER_PAIRWISE(T, S)                                                                   \
static T ember_pairwise_##S(const T* a, int64_t n) {                                           \
    if (n < 8) {                                                                               \
        T res = -(T)0;                                                                         \
        for (int64_t i = 0; i < n; i++) res += a[i];                                           \
        return res;                                                                            \
    }                                                                                          \
    if (n <= 128) {                                                                            \
        T r[8];                                                                                \
        for (int j = 0; j < 8; j++) r[j] = a[j];                                               \
        int64_t i = 8;                                                                         \
        for (; i < n - (n % 8); i += 8)                                                        \
            for (int j = 0; j < 8; j++) r[j] += a[i + j];                                      \
        T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));             \
        for (; i < n; i++) res += a[i];                                                        \
        return res;                                                                            \
    }                                                                                          \
    int64_t n2 = n / 2;                                                                        \
    n2 -= n2 % 8;                                                                              \
    return ember_pairwise_##S(a, n2) + ember_pairwise_##S(a + n2, n - n2);                     \
}
EMBER_PAIRWISE(float, f)
EMBER_PAIRWISE(double, d)

static inline int64_t ember_index(int64_t i, int64_t size) {
    if (i < 0) i += size;
    if (i < 0 || i >= size) { ember_index_error = 1; return 0; }
    return i;
}
"""

PREAMBLE = (_PREAMBLE_HEAD + _csrc("vmath.h") + "\n" + _csrc("gelu_math.h") + vec_math.C_SOURCE
            + _PREAMBLE_TAIL)


_STORAGE_C = {"float32": "float", "float64": "double", "float16": "_Float16", "bfloat16": "uint16_t",
              "int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
              "bool": "uint8_t"}
_COMPUTE_C = {"float32": "float", "float64": "double", "int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t",
              "int32": "int32_t", "int64": "int64_t", "bool": "_Bool"}


def storage_ctype(dtype):
    try:
        return _STORAGE_C[dtype.name]
    except KeyError:
        raise NotImplementedError(f"ember._inductor: no C code for dtype {dtype}") from None


def compute_dtype(dtype):
    """The dtype values of `dtype` are computed in: half precision in float32."""
    return _dt.float32 if dtype.name in ("float16", "bfloat16") else dtype


def compute_ctype(dtype):
    return _COMPUTE_C[compute_dtype(dtype).name]


def _is_float(dtype):
    return dtype.is_floating_point


def _suffix(dtype):
    return "d" if dtype.name == "float64" else "f"


def _libm(name, dtype):
    return name + ("f" if dtype.name != "float64" else "")


def c_literal(value, dtype):
    dtype = compute_dtype(dtype)
    if dtype.name == "bool":
        return "1" if value else "0"
    if _is_float(dtype):
        v = float(value)
        if math.isnan(v):
            return "NAN"
        if math.isinf(v):
            return "INFINITY" if v > 0 else "(-INFINITY)"
        lit = repr(v)
        return f"(({_COMPUTE_C[dtype.name]}){lit})"
    v = int(value)
    ct = _COMPUTE_C[dtype.name]
    if v == -(1 << 63):
        return "INT64_MIN"
    return f"(({ct}){v}LL)"


class CVar:
    __slots__ = ("name", "dtype")

    def __init__(self, name, dtype):
        self.name = name
        self.dtype = dtype      # a compute dtype

    def __str__(self):
        return self.name


_UNARY_FLOAT = {"exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10",
                "log1p": "log1p", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin",
                "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "asinh": "asinh",
                "acosh": "acosh", "atanh": "atanh", "erf": "erf", "erfc": "erfc", "floor": "floor", "ceil": "ceil",
                "trunc": "trunc", "round": "nearbyint", "lgamma": "lgamma", "abs": "fabs"}


# ops costing a function of some tens of instructions per element (vec_math, vmath.h, libm): they weigh in
# KernelCodegen.work(), which decides whether a kernel's outer loop is split over threads
_HEAVY_UNARY = frozenset(_UNARY_FLOAT) - {"floor", "ceil", "trunc", "round", "abs", "sqrt"} | \
    {"sigmoid", "phi", "gauss"}
HEAVY_OP_WORK = 8     # elements of plain work one heavy op per element is worth


class CppOps:
    """The ops handler emitting C (see the module docstring)."""

    def __init__(self, kernel):
        self.k = kernel
        self.lines = []
        self.cse = {}
        # value -> the value it is NaN exactly when (relu(x) is NaN iff x is): isnan reads the source, since gcc
        # folds `isnan(x < 0 ? 0 : x)` into a select of masks of two widths that stops it vectorising the loop
        self.nan_source = {}

    # -------------------------------------------------------------- plumbing
    def _emit(self, expr, dtype, key=None):
        key = key or (expr, dtype.name)
        v = self.cse.get(key)
        if v is not None:
            return v
        name = self.k.new_tmp()
        self.lines.append(f"const {_COMPUTE_C[dtype.name]} {name} = {expr};")
        v = self.cse[key] = CVar(name, dtype)
        return v

    def load(self, name, index):
        if self.k._index_log is not None:
            self.k._index_log.append(("addr", index))
        buf = self.k.arg(name)
        dt = buf.dtype
        ref = f"{buf.cname}[{index.c()}]"
        if dt.name == "bfloat16":
            expr = f"ember_bf16_to_f({ref})"
        elif dt.name == "float16":
            expr = f"(float){ref}"
        elif dt.name == "bool":
            expr = f"({ref} != 0)"
        else:
            expr = ref
        return self._emit(expr, compute_dtype(dt), key=("load", name, index.key()))

    def store_expr(self, name, index, value):
        if self.k._index_log is not None:
            self.k._index_log.append(("addr", index))
        buf = self.k.arg(name, write=True)
        dt = buf.dtype
        v = self._convert(value, dt)
        if dt.name == "bfloat16":
            v = f"ember_f_to_bf16({v})"
        elif dt.name == "float16":
            v = f"(_Float16)({v})"
        elif dt.name == "bool":
            v = f"(uint8_t)({v})"
        return f"{buf.cname}[{index.c()}] = {v};"

    def _convert(self, x, dtype):
        """C expression of value x converted to the compute type of dtype."""
        dst = compute_dtype(dtype)
        if x.dtype is dst:
            return x.name
        if dst.name == "bool":
            return f"({x.name} != 0)"
        return f"({_COMPUTE_C[dst.name]})({x.name})"

    def constant(self, value, dtype):
        if isinstance(value, (SymSize, SymFloatSize)):   # a size (mean's divisor): from the run-time sizes
            dt = compute_dtype(dtype)
            return self._emit(f"(({_COMPUTE_C[dt.name]})({value}))", dt)
        return self._emit(c_literal(value, dtype), compute_dtype(dtype))

    def index_expr(self, index, dtype):
        if self.k._index_log is not None:
            self.k._index_log.append(("value", index))
        return self._emit(f"({_COMPUTE_C[compute_dtype(dtype).name]})({index.c()})", compute_dtype(dtype))

    def to_dtype(self, x, dtype):
        dst = compute_dtype(dtype)
        expr = self._convert(x, dtype)
        if dtype.name == "bfloat16":
            expr = f"ember_round_bf16({expr})"
        elif dtype.name == "float16":
            expr = f"ember_round_f16({expr})"
        elif x.dtype is dst:
            return x
        return self._emit(expr, dst)

    def indirect_indexing(self, x, size):
        v = self._emit(f"ember_index((int64_t)({x.name}), {size if isinstance(size, int) else int(size)})", _dt.int64)
        return Index.var(v.name)

    def masked(self, mask, body, other):
        saved_lines, saved_cse = self.lines, dict(self.cse)
        self.lines = []
        result = body()
        inner = self.lines
        self.lines, self.cse = saved_lines, saved_cse
        name = self.k.new_tmp()
        ct = _COMPUTE_C[result.dtype.name]
        o = c_literal(other, result.dtype)
        self.lines.append(f"{ct} {name} = {o};")
        self.lines.append(f"if ({mask.name}) {{")
        self.lines.extend("    " + ln for ln in inner)
        self.lines.append(f"    {name} = {result.name};")
        self.lines.append("}")
        return CVar(name, result.dtype)

    def where(self, c, a, b):
        return self._emit(f"{c.name} ? {a.name} : {b.name}", a.dtype)

    # -------------------------------------------------------------- unary
    def _unary(self, op, x):
        dt = x.dtype
        n = x.name
        if _is_float(dt) and op in _HEAVY_UNARY:
            self.k.heavy_ops += 1
        if op == "neg":
            return f"-{n}"
        if op == "logical_not":
            return f"!{n}"
        if op == "bitwise_not":
            return f"!{n}" if dt.name == "bool" else f"~{n}"
        if op == "isnan":
            return f"({n} != {n})" if _is_float(dt) else "0"
        if op == "isinf":
            return f"(isinf({n}) != 0)" if _is_float(dt) else "0"
        if op == "isfinite":
            return f"(isfinite({n}) != 0)" if _is_float(dt) else "1"
        if op == "signbit":
            return f"(signbit({n}) != 0)" if _is_float(dt) else f"({n} < 0)"
        if op == "relu":
            return f"({n} < 0 ? 0 : {n})"
        if op == "sign":
            return f"ember_sign_{_suffix(dt)}({n})" if _is_float(dt) else f"(({n} > 0) - ({n} < 0))"
        if op in ("sigmoid", "phi", "gauss"):
            return f"ember_{op}_{_suffix(dt)}({n})"
        if op == "exp":
            return f"vm_exp{'f' if dt.name != 'float64' else ''}({n})"
        if op in vec_math.SMALL_RANGE_FUNCTIONS and dt.name == "float32" and self.k.small_trig:
            self.k.used_small_trig = True
            flag = f"trig_big |= !(fabsf({n}) <= {vec_math.SMALL_LIMIT!r}f);"
            if self.cse.setdefault(("flag", n), flag) is flag:
                self.lines.append(flag)
            return f"{vec_math.SMALL_RANGE_FUNCTIONS[op]}({n})"
        if op in vec_math.FLOAT32_FUNCTIONS and dt.name == "float32":
            return f"{vec_math.FLOAT32_FUNCTIONS[op]}({n})"
        if op == "rsqrt":
            return f"{c_literal(1, dt)} / {_libm('sqrt', dt)}({n})"
        if op == "reciprocal":
            return f"{c_literal(1, dt)} / {n}"
        if not _is_float(dt):
            if op == "abs":
                return f"({n} < 0 ? -{n} : {n})"
            if op in ("floor", "ceil", "trunc", "round"):
                return n
            raise NotImplementedError(f"ember._inductor: {op} of an integer value")
        return f"{_libm(_UNARY_FLOAT[op], dt)}({n})"

    # -------------------------------------------------------------- binary
    def _binary(self, op, a, b):
        dt = a.dtype
        x, y = a.name, b.name
        if op in COMPARISONS:
            sym = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}[op]
            return f"{x} {sym} {y}"
        simple = {"add": "+", "sub": "-", "mul": "*", "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
                  "lshift": "<<", "rshift": ">>"}
        if op in simple:
            if dt.name == "bool" and op in ("add", "mul"):
                return f"{x} {'|' if op == 'add' else '&'} {y}"
            return f"{x} {simple[op]} {y}"
        if op == "logical_and":
            return f"({x} != 0) && ({y} != 0)"
        if op == "logical_or":
            return f"({x} != 0) || ({y} != 0)"
        if op == "logical_xor":
            return f"({x} != 0) != ({y} != 0)"
        if _is_float(dt):
            s = _suffix(dt)
            table = {"truediv": f"{x} / {y}", "floordiv": f"ember_floordiv_{s}({x}, {y})",
                     "truncdiv": f"{_libm('trunc', dt)}({x} / {y})", "remainder": f"ember_mod_{s}({x}, {y})",
                     "fmod": f"{_libm('fmod', dt)}({x}, {y})", "pow": f"{_libm('pow', dt)}({x}, {y})",
                     "maximum": f"ember_max_{s}({x}, {y})", "minimum": f"ember_min_{s}({x}, {y})",
                     "atan2": f"{_libm('atan2', dt)}({x}, {y})", "copysign": f"{_libm('copysign', dt)}({x}, {y})"}
        else:
            table = {"floordiv": f"ember_floordiv_i({x}, {y})", "truncdiv": f"ember_truncdiv_i({x}, {y})",
                     "truediv": f"ember_truncdiv_i({x}, {y})",
                     "remainder": f"ember_mod_i({x}, {y})", "fmod": f"ember_fmod_i({x}, {y})",
                     "pow": f"ember_pow_i({x}, {y})",
                     "maximum": f"({x} > {y} ? {x} : {y})", "minimum": f"({x} < {y} ? {x} : {y})"}
        if op not in table:
            raise NotImplementedError(f"ember._inductor: {op} of {dt} values")
        return table[op]

    def __getattr__(self, op):
        from ..virtualized import BINARY_OPS, BOOL_RESULT, UNARY_OPS
        if op in UNARY_OPS:
            def unary(x):
                out = _dt.bool_ if op in BOOL_RESULT else x.dtype
                if op == "isnan":
                    x = self.nan_source.get(x.name, x)
                v = self._emit(self._unary(op, x), out)
                if op == "relu" and _is_float(x.dtype):
                    self.nan_source[v.name] = self.nan_source.get(x.name, x)
                return v
            return unary
        if op in BINARY_OPS:
            def binary(a, b):
                if a.dtype is not b.dtype:
                    raise AssertionError(f"ember._inductor: {op} of {a.dtype} and {b.dtype} (lowering must cast)")
                out = _dt.bool_ if op in BOOL_RESULT else a.dtype
                return self._emit(self._binary(op, a, b), out)
            return binary
        raise AttributeError(op)


# ---------------------------------------------------------------------------- reductions
def _reduction_init(rtype, dt):
    if rtype == "sum" or rtype == "any":
        return c_literal(0, dt)
    if rtype == "prod" or rtype == "all":
        return c_literal(1, dt)
    if rtype in ("max", "argmax"):
        if _is_float(dt):
            return "(-INFINITY)"
        return {"bool": "0", "uint8": "0", "int8": "INT8_MIN", "int16": "INT16_MIN", "int32": "INT32_MIN",
                "int64": "INT64_MIN"}[dt.name]
    if rtype in ("min", "argmin"):
        if _is_float(dt):
            return "INFINITY"
        return {"bool": "1", "uint8": "UINT8_MAX", "int8": "INT8_MAX", "int16": "INT16_MAX", "int32": "INT32_MAX",
                "int64": "INT64_MAX"}[dt.name]
    raise NotImplementedError(rtype)


def accumulator_dtype(rtype, src_dtype):
    src = compute_dtype(src_dtype)
    if rtype in ("sum", "prod") and src.name == "float32":
        return _dt.float64
    if rtype in ("any", "all"):
        return _dt.bool_
    return src


COLUMN_BLOCK = 64     # accumulators of a column-form reduction (one block of the contiguous outer dim)
MERGE_ROWS_BELOW = 64  # a pointwise kernel's innermost loop shorter than this is merged with the one outside it
SUM_BLOCK = 1024      # float32 sums: float lanes over blocks this long, block sums added in double
# sums in numpy's order (KernelCodegen._numpy_sum) gather their run of values in a local array on the stack of
# the thread running the kernel, whose every section's arrays together may take at most this many bytes: ember's C
# pool workers, which run the split kernels, have 64 KB stacks (csrc/parallel.c). A 28x28 convolution's bias
# gradient (784 values) fits; longer or symbolic runs take the blocked sum (SUM_BLOCK)
NUMPY_RUN_BYTES = 16384


class BufArg:
    __slots__ = ("name", "cname", "dtype", "written")

    def __init__(self, name, cname, dtype):
        self.name, self.cname, self.dtype, self.written = name, cname, dtype, False


class KernelCodegen:
    """C source of one fused group: `void kernel_name(T0* restrict out, const T1* restrict in, ...)`."""

    def __init__(self, group, name, dtype_of, size_params=()):
        self.group = group
        self.size_params = tuple(size_params)     # the size symbols, as `int64_t` parameters (dynamic shapes)
        self.name = name
        self.dtype_of = dtype_of
        self.args = {}
        self._tmp = 0
        # an input this kernel writes in place is read through the written buffer's pointer (one pointer, so the
        # restrict qualifiers stay true)
        self.alias = {n.buf.mutated_input: n.buf.name for n in group.nodes
                      if getattr(n.buf, "mutated_input", None) is not None}
        # float32 sin/cos/tan through the table-free variants (vec_math.SMALL_RANGE_FUNCTIONS) in a first pass
        # that flags arguments out of their range; the loop nest runs again with the exact ones when flagged
        self.small_trig = False
        self.used_small_trig = False
        self.heavy_ops = 0      # heavy (transcendental) ops emitted, see work()
        self._index_log = None  # (kind, Index) of every load/store ("addr") and index read as a value ("value")
        self._run_bytes = 0     # bytes of the local arrays of numpy-order sums (NUMPY_RUN_BYTES)

    def new_tmp(self):
        self._tmp += 1
        return f"tmp{self._tmp}"

    def arg(self, name, write=False):
        name = self.alias.get(name, name)
        a = self.args.get(name)
        if a is None:
            a = self.args[name] = BufArg(name, f"{'out' if write else 'in'}_{name}", self.dtype_of(name))
        if write and not a.written:
            a.written = True
        return a

    def generate(self):
        g = self.group
        self._run_bytes = 0
        outer = list(g.outer)
        column = self._column_form()
        # the first outer loop runs over [x0_lo, x0_hi) so that the entry can split it over threads
        self.splittable = bool(outer) and not (column and len(outer) == 1)
        self.split_size = outer[0] if self.splittable else None
        self.scan_split = None
        self.scatter_split = None     # a scatter's split size (its body already runs over [x0_lo, x0_hi))
        self.serial_split_dim = None   # the output dim a scatter or scan splits (its epilogues' loop over it too)
        if column:
            body = self._generate_columns(outer)
        else:
            body = self._generate_rows(outer)
        params = []
        for a in self.args.values():
            ct = storage_ctype(a.dtype)
            params.append(f"{ct}* restrict {a.cname}" if a.written else f"const {ct}* restrict {a.cname}")
        params += [f"const int64_t {s}" for s in self.size_params]
        if self.splittable:
            params += ["int64_t x0_lo", "int64_t x0_hi"]
            first = f"for (int64_t x0 = 0; x0 < {outer[0]}; x0++)"
            body = [ln.replace(first, "for (int64_t x0 = x0_lo; x0 < x0_hi; x0++)", 1) for ln in body]
        elif self.scan_split is not None:       # a scan: its first loop over a non-scan dim is split instead
            var, size = self.scan_split
            self.splittable, self.split_size = True, size
            params += ["int64_t x0_lo", "int64_t x0_hi"]
            first = f"for (int64_t {var} = 0; {var} < {size}; {var}++)"
            body = [ln.replace(first, f"for (int64_t {var} = x0_lo; {var} < x0_hi; {var}++)", 1) for ln in body]
        elif self.scatter_split is not None:
            self.splittable, self.split_size = True, self.scatter_split
            params += ["int64_t x0_lo", "int64_t x0_hi"]
        head = f"static void {self.name}({', '.join(params) or 'void'})"
        return head + "\n{\n" + "\n".join(body) + "\n}\n"

    def work(self):
        """Elements the kernel touches per call, roughly: outer iterations times its longest section loop, each
        heavy op (exp, log, sin, erf, ...) counting as HEAVY_OP_WORK elements more (after generate())."""
        from ..index import prod
        from ..ir import Scan, Scatter
        inner = max([prod(size for _, size in s.loops) for s in self.group.sections] + [1])
        if self.scan_split is not None:
            inner = max(prod(s.buf.data.size) for s in self.group.sections if isinstance(s.buf.data, Scan))
        if self.scatter_split is not None:      # the init pass over the output, then the stores
            inner = max(prod(s.buf.layout.size) + prod(s.buf.data.size) for s in self.group.sections
                        if isinstance(s.buf.data, Scatter))
        return prod(self.group.outer) * inner * (1 + HEAVY_OP_WORK * self.heavy_ops)

    # ------------------------------------------------------------------ row form
    def _generate_rows(self, outer):
        """Outer loops, then each section in turn (its own loops innermost).

        A pointwise kernel (one simd loop) calling sin/cos/tan of float32 first runs with the table-free
        small-range variants and a flag set by any argument out of their range (or inf/NaN); when the flag is
        set the nest runs again with the exact functions. The second run recomputes every output from the
        inputs, so it is not used when the kernel writes one of its inputs in place."""
        only_pointwise_flat = all(not s.loops and s.rindex is None for s in self.group.sections)
        if not (only_pointwise_flat and outer and not self.alias):
            return self._rows_nest(outer, only_pointwise_flat)
        self.small_trig = True
        first = self._rows_nest(outer, True, "#pragma omp simd reduction(|:trig_big)")
        self.small_trig = False
        if not self.used_small_trig:
            self._tmp = self.heavy_ops = 0
            self.args.clear()
            return self._rows_nest(outer, True)
        heavy = self.heavy_ops
        exact = self._rows_nest(outer, True)
        self.heavy_ops = heavy
        return ["    int trig_big = 0;"] + first + ["    if (trig_big) {"] + ["    " + ln for ln in exact] + ["    }"]

    def _rows_nest(self, outer, only_pointwise_flat, simd_pragma="#pragma omp simd"):
        g = self.group
        sections = g.sections
        if only_pointwise_flat:
            merged = self._merge_short_rows(outer)
            if merged is not None:
                outer, sections = merged
        body = []
        depth = len(outer)
        for i, size in enumerate(outer):
            if only_pointwise_flat and i == depth - 1:
                body.append("    " * (i + 1) + simd_pragma)
            body.append("    " * (i + 1) + f"for (int64_t x{i} = 0; x{i} < {size}; x{i}++) {{")
        ind = "    " * (depth + 1)
        for s in sections:
            body.extend(ind + ln for ln in self._section(s))
        for i in reversed(range(depth)):
            body.append("    " * (i + 1) + "}")
        return body

    def _merge_short_rows(self, outer):
        """(outer, sections) with the last two outer loops made one, or None. For a pointwise kernel (no loops of
        its own) whose innermost loop is short (fewer than MERGE_ROWS_BELOW iterations: a 28-wide image row) and
        whose every load and store walks the last two dims as one contiguous run (the coefficient of the
        next-to-last loop is the last loop's size times the last loop's), with no index used as a value: then
        one loop over both runs the same addresses in the same order. gcc vectorises a loop by the widest lane
        count its narrowest type allows (32 or 64 uint8 lanes for a saved bool mask), so a 28-long loop never
        ran a vector iteration: LeNet's relu + mask kernel over (64, 6, 28, 28) took 0.30 ms where eager's relu
        takes 0.11. The first outer loop (the one split over threads) is never merged."""
        from ..ir import Pointwise
        d = len(outer)
        if d < 3 or any(type(n) is not int for n in outer[-2:]) or outer[-1] >= MERGE_ROWS_BELOW or \
                self.serial_split_dim is not None or \
                any(not isinstance(s.buf.data, Pointwise) for s in self.group.sections):
            return None
        a, b = f"x{d - 2}", f"x{d - 1}"
        log = self._index_log = []
        saved = (self._tmp, self.heavy_ops, dict(self.args), self.used_small_trig)
        try:
            for s in self.group.sections:
                self._section(s)
        finally:
            self._index_log = None
            self._tmp, self.heavy_ops, self.used_small_trig = saved[0], saved[1], saved[3]
            self.args.clear()
            self.args.update(saved[2])
        n = outer[-1]
        for kind, ix in log:
            ca, cb = ix.coeff(a), ix.coeff(b)
            if kind == "value" and (ca or cb):
                return None
            if type(ca) is not int or type(cb) is not int or ca != n * cb:
                return None
        va, vb = Index.var(a), Index.var(b)
        sections = []
        from ..scheduler import Section
        for s in self.group.sections:
            index = [Index() if ix == va else (va if ix == vb else ix) for ix in s.index]
            if any(ix.coeff(b) for ix in index):
                return None
            sections.append(Section(s.buf, index, s.rindex, s.loops))
        return list(outer[:-2]) + [outer[-2] * n], sections

    # ------------------------------------------------------------------ column form
    def _column_form(self):
        """Reductions that read down columns (sum over the batch dims of a [B, T, C] gradient): the innermost
        outer loop walks memory contiguously while the reduction loop strides. Then the reduction loop goes
        outside and the contiguous outer dim inside, over a block of COLUMN_BLOCK accumulators."""
        g = self.group
        if not g.outer or any(s.loops and s.rindex is None for s in g.sections):
            return False
        last = f"x{len(g.outer) - 1}"
        from ..ir import body_reads
        for s in g.sections:
            if s.rindex is None or not s.loops:
                continue
            inner = s.loops[-1][0]
            for _, idx in body_reads(s.buf, s.index, s.rindex):
                if idx.coeff(last) == 1 and idx.coeff(inner) not in (0, 1):
                    return True
        return False

    def _generate_columns(self, outer):
        body = []
        depth = len(outer)
        last, n_last = f"x{depth - 1}", outer[-1]
        for i, size in enumerate(outer[:-1]):
            body.append("    " * (i + 1) + f"for (int64_t x{i} = 0; x{i} < {size}; x{i}++) {{")
        ind = "    " * depth
        body.append(ind + f"for (int64_t xb = 0; xb < {n_last}; xb += {COLUMN_BLOCK}) {{")
        body.append(ind + f"    const int64_t xe = xb + {COLUMN_BLOCK} < {n_last} ? xb + {COLUMN_BLOCK} : {n_last};")
        col = f"for (int64_t {last} = xb; {last} < xe; {last}++)"
        for s in self.group.sections:
            if s.rindex is None:         # an outer-only pointwise section: one pass over the block
                h = CppOps(self)
                with set_ops_handler(h):
                    v = s.buf.data.inner_fn(s.index)
                    h.lines.append(h.store_expr(s.buf.name, s.buf.layout.flat(s.index), v))
                lines = [f"/* {s.buf.name} */", "#pragma omp simd", col + " {"] + \
                    ["    " + ln for ln in h.lines] + ["}"]
            else:
                lines = self._reduction(s, column=(col, f"[{last} - xb]"))
            body.extend(ind + "    " + ln for ln in lines)
        body.append(ind + "}")
        for i in reversed(range(depth - 1)):
            body.append("    " * (i + 1) + "}")
        return body

    def _loops(self, loops, lines, inner_pragma):
        out = []
        for j, (v, size) in enumerate(loops):
            if j == len(loops) - 1 and inner_pragma:
                out.append("    " * j + inner_pragma)
            out.append("    " * j + f"for (int64_t {v} = 0; {v} < {size}; {v}++) {{")
        ind = "    " * len(loops)
        out.extend(ind + ln for ln in lines)
        for j in reversed(range(len(loops))):
            out.append("    " * j + "}")
        return out

    def _section(self, s):
        buf = s.buf
        if buf.is_reduction():
            return self._reduction(s)
        from ..ir import Scan, Scatter
        if isinstance(buf.data, Scatter):
            return self._scatter(buf)
        if isinstance(buf.data, Scan):
            return self._scan(buf)
        h = CppOps(self)
        store_index = buf.layout.flat(s.index)
        with set_ops_handler(h):
            v = buf.data.inner_fn(s.index)
            h.lines.append(h.store_expr(buf.name, store_index, v))
        if not s.loops:
            return [f"/* {buf.name} */ {{"] + ["    " + ln for ln in h.lines] + ["}"]
        lines = [f"/* {buf.name} */"] + self._loops(s.loops, h.lines, "#pragma omp simd")
        if self.serial_split_dim is not None:     # an epilogue of a split scatter/scan: the thread's slice only
            d = self.serial_split_dim
            var, n = next(((v, n) for v, n in s.loops if v.rsplit("_", 1)[1] == str(d)), (None, None))
            if var is None:
                raise AssertionError("ember._inductor: a scatter epilogue without a loop over the split dim")
            head = f"for (int64_t {var} = 0; {var} < {n}; {var}++)"
            lines = [ln.replace(head, f"for (int64_t {var} = x0_lo; {var} < x0_hi; {var}++)", 1) for ln in lines]
        return lines

    def _scatter(self, buf):
        """A Scatter: the init pass over the output (vectorised), then the stores in order (two positions may be
        the same element, so the order of the stores to one element is eager's).

        When a dim of the stores' index space is an output dim itself (`Scatter.direct`: scatter's dims other than
        `dim`, index_put's trailing dims, the pools' batch and channel dims), stores at different values of it
        never meet: the kernel splits that output dim over threads, each initialising its slice and then running,
        in order, the stores that land in it; the stores to one element stay in one thread in eager's order
        (deterministic, scatter_add included)."""
        data = buf.data
        size = buf.layout.size
        split = None
        if self.scatter_split is None and self.group.sections[0].buf is buf:    # (then pointwise epilogues only)
            split = next(((si, od) for si, od in data.direct if size[od] != 1 and data.size[si] != 1), None)
        oidx = [Index.var(f"z{d}") if n != 1 else Index() for d, n in enumerate(size)]
        h = CppOps(self)
        with set_ops_handler(h):
            v = data.init.make_loader()(oidx)
            h.lines.append(h.store_expr(buf.name, buf.layout.flat(oidx), v))
        out = [f"/* {buf.name}: scatter{' (accumulate)' if data.accumulate else ''} */ {{"]
        loops = [(f"z{d}", n) for d, n in enumerate(size) if n != 1]
        init = self._loops(loops, h.lines, "#pragma omp simd") if loops else h.lines
        out += ["    " + ln for ln in init]
        sidx = [Index.var(f"w{d}") if n != 1 else Index() for d, n in enumerate(data.size)]
        h = CppOps(self)
        with set_ops_handler(h):
            flat, value, mask = data.inner_fn(sidx)
            outer_lines, h.lines = h.lines, []          # the store (and an accumulate's load) under the mask
            if data.accumulate:         # the init pass made the output's pointer: this load reads it
                value = h.add(h.load(buf.name, flat), value)
            h.lines.append(h.store_expr(buf.name, flat, value))
            stores, h.lines = h.lines, outer_lines
            if mask is not None:
                h.lines += [f"if ({mask.name}) {{"] + ["    " + ln for ln in stores] + ["}"]
            else:
                h.lines += stores
        loops = [(f"w{d}", n) for d, n in enumerate(data.size) if n != 1]
        body = self._loops(loops, h.lines, None) if loops else ["{"] + ["    " + ln for ln in h.lines] + ["}"]
        out += ["    " + ln for ln in body]
        if split is not None:
            si, od = split
            n_od, n_si = size[od], data.size[si]
            init_loop = f"for (int64_t z{od} = 0; z{od} < {n_od}; z{od}++)"
            store_loop = f"for (int64_t w{si} = 0; w{si} < {n_si}; w{si}++)"
            bound = "x0_hi" if n_si == n_od else f"(x0_hi < {n_si} ? x0_hi : {n_si})"
            out = [ln.replace(init_loop, f"for (int64_t z{od} = x0_lo; z{od} < x0_hi; z{od}++)", 1)
                   .replace(store_loop, f"for (int64_t w{si} = x0_lo; w{si} < {bound}; w{si}++)", 1) for ln in out]
            self.scatter_split, self.serial_split_dim = n_od, od
        return out + ["}"]

    def _scan(self, buf):
        """A Scan along dim d: loops over the dims before d, the scan loop, then the dims after d (innermost,
        vectorised): out[.., j, ..] = out[.., j-1, ..] op in[.., j, ..]."""
        data = buf.data
        size, d = data.size, data.dim
        n = size[d]
        out = [f"/* {buf.name}: cum{data.scan_type} */ {{"]
        if n == 0 or any(s == 0 for s in size):
            return out + ["}"]
        before = [(f"z{i}", size[i]) for i in range(d) if size[i] != 1]
        after = [(f"z{i}", size[i]) for i in range(d + 1, len(size)) if size[i] != 1]

        def idx(j):
            return [Index.var(f"z{i}") if size[i] != 1 else Index() for i in range(d)] + [j] + \
                [Index.var(f"z{i}") if size[i] != 1 else Index() for i in range(d + 1, len(size))]

        def body(first):
            h = CppOps(self)
            j = Index() if first else Index.var("zj")
            with set_ops_handler(h):
                v = data.inner_fn(idx(j))
                if not first:
                    prev = h.load(buf.name, buf.layout.flat(idx(j - 1)))
                    v = h.to_dtype(getattr(h, "add" if data.scan_type == "sum" else "mul")(prev, v), buf.dtype)
                h.lines.append(h.store_expr(buf.name, buf.layout.flat(idx(j)), v))
            return self._loops(after, h.lines, "#pragma omp simd") if after else h.lines
        # the outermost loop over a non-scan dim runs over [x0_lo, x0_hi): the entry may split it over threads
        # (the rows of a scan are independent)
        if self.scan_split is None and self.group.sections[0].buf is buf and (before or after):
            self.scan_split = (before or after)[0]            # (the other sections: pointwise epilogues)
            self.serial_split_dim = int(self.scan_split[0][1:])
        inner = body(True)
        if n > 1:
            inner += [f"for (int64_t zj = 1; zj < {n}; zj++) {{"] + ["    " + ln for ln in body(False)] + ["}"]
        nest = self._loops(before, inner, None) if before else inner
        return out + ["    " + ln for ln in nest] + ["}"]

    def _numpy_run(self, s):
        """For a float32/float64 sum made by lowering.make_reduction (`run_dims` set), the reduction loops of
        its contiguous run (the trailing dims of the reduced tensor, all reduced) when numpy's order can be
        followed: (outer loops, run loops, run length), else None. The run length must be a number, and the
        kernel's local arrays of runs (its values are gathered in one) no larger than NUMPY_RUN_BYTES together."""
        red = s.buf.data
        k = getattr(red, "run_dims", None)
        if red.reduction_type != "sum" or k is None or not s.loops:
            return None
        cdt = compute_dtype(red.src_dtype)
        if cdt.name not in ("float32", "float64") or red.src_dtype is not cdt:
            return None            # half types: eager's numpy casts in buffered chunks (another order)
        first_run = len(red.reduction_size) - k
        run = [(v, n) for v, n in s.loops if int(v.rsplit("_", 1)[1]) >= first_run]
        outer = [(v, n) for v, n in s.loops if int(v.rsplit("_", 1)[1]) < first_run]
        if any(type(n) is not int for _, n in run):
            return None
        length = math.prod(n for _, n in run)
        nbytes = length * (4 if cdt.name == "float32" else 8) if run else 0
        if self._run_bytes + nbytes > NUMPY_RUN_BYTES:
            return None
        self._run_bytes += nbytes
        return outer, run, length

    def _numpy_sum(self, s, h, v, plan):
        """A float32/float64 sum in numpy's order, the order of eager's np.add.reduce over the contiguous tensor:
        the accumulator starts at 0 and adds, in index order of the outer reduction loops, the pairwise sum
        (ember_pairwise_*, numpy's) of each contiguous run of reduced values; with no run (the last dim kept)
        the values one by one. The run's values are gathered in a local array by a vectorised loop first."""
        buf = s.buf
        red = buf.data
        outer, run, length = plan
        cdt = compute_dtype(red.src_dtype)
        ct, sfx = _COMPUTE_C[cdt.name], _suffix(cdt)
        name = self.new_tmp().replace("tmp", "acc")
        val = h._convert(v, cdt) if v.dtype is not cdt else v.name
        res = CVar(name, cdt)
        out = ["/* in numpy's order: runs summed pairwise, added in order */", f"{ct} {name} = 0;"]
        if not run:
            h.lines.append(f"{name} += {val};")
            out += self._loops(outer, h.lines, None)
        else:
            flat, mult = [], 1
            for var, n in reversed(run):
                flat.append(var if mult == 1 else f"{var} * {mult}")
                mult *= n
            h.lines.append(f"{name}_run[{' + '.join(reversed(flat))}] = {val};")
            inner = self._loops(run, h.lines, "#pragma omp simd")
            inner.append(f"{name} += ember_pairwise_{sfx}({name}_run, {length});")
            out.append(f"{ct} {name}_run[{length}];")
            out += self._loops(outer, inner, None) if outer else inner
        out.append(h.store_expr(buf.name, buf.layout.flat(s.index), res))
        return [f"/* {buf.name}: sum */ {{"] + ["    " + ln for ln in out] + ["}"]

    def _reduction(self, s, column=None):
        """A reduction section. Row form: a scalar accumulator per outer iteration (float32 sums in blocks of
        float lanes added in double, as eager's row kernels). Column form (`column` = (the block loop header,
        the accumulator subscript)): an array of accumulators, the block loop innermost."""
        buf = s.buf
        red = buf.data
        rtype = red.reduction_type
        acc_dt = accumulator_dtype(rtype, red.src_dtype)
        acc_ct = _COMPUTE_C[acc_dt.name]
        name = self.new_tmp().replace("tmp", "acc")
        pos_name = name.replace("acc", "pos")
        argred = rtype in ("argmax", "argmin")
        h = CppOps(self)
        store_index = buf.layout.flat(s.index)
        with set_ops_handler(h):
            v = red.inner_fn(s.index, s.rindex)
        if column is None:
            run = self._numpy_run(s)
            if run is not None:
                return self._numpy_sum(s, h, v, run)
        elif rtype == "sum" and getattr(red, "run_dims", None) == 0 and \
                compute_dtype(red.src_dtype).name == "float32":
            acc_dt = _dt.float32           # numpy adds a column in order in float32: so do we (eager's bits)
            acc_ct = "float"
        val = h._convert(v, acc_dt) if v.dtype is not acc_dt else v.name
        blocked = column is None and rtype == "sum" and acc_dt.name == "float64" and \
            compute_dtype(red.src_dtype).name == "float32" and len(s.loops) == 1
        acc = name + (column[1] if column else "")
        pos = pos_name + (column[1] if column else "")
        sum_acc = f"{name}_b" if blocked else acc
        pragma = None
        if rtype == "sum":
            h.lines.append(f"{sum_acc} += {v.name if blocked else val};")
            pragma = f"#pragma omp simd reduction(+:{sum_acc})"
        elif rtype == "prod":
            h.lines.append(f"{acc} *= {val};")
            pragma = f"#pragma omp simd reduction(*:{acc})"
        elif rtype in ("max", "min"):
            if _is_float(acc_dt):
                h.lines.append(f"{acc} = ember_{rtype}_{_suffix(acc_dt)}({acc}, {val});")
                pragma = f"#pragma omp simd reduction(nan{rtype}_{_suffix(acc_dt)}:{acc})"
            else:
                cmp = ">" if rtype == "max" else "<"
                h.lines.append(f"{acc} = {val} {cmp} {acc} ? {val} : {acc};")
                pragma = f"#pragma omp simd reduction({rtype}:{acc})"
        elif rtype == "any":
            h.lines.append(f"{acc} = {acc} | ({val} != 0);")
            pragma = f"#pragma omp simd reduction(|:{acc})"
        elif rtype == "all":
            h.lines.append(f"{acc} = {acc} & ({val} != 0);")
            pragma = f"#pragma omp simd reduction(&:{acc})"
        else:        # argmax / argmin: the first extreme, NaN counting as the extreme
            lin, mult = Index(), 1
            for ri, size in reversed(list(zip(s.rindex, red.reduction_size))):
                lin = lin + ri * mult
                mult *= size
            cmp = ">" if rtype == "argmax" else "<"
            cond = f"!({acc} != {acc}) && (({val} != {val}) || {val} {cmp} {acc})" if _is_float(acc_dt) else \
                f"{val} {cmp} {acc}"
            h.lines.append(f"if ({cond}) {{ {acc} = {val}; {pos} = {lin.c()}; }}")
        init = _reduction_init(rtype, acc_dt)
        result = pos if argred else acc
        res_var = CVar(result, _dt.int64 if argred else acc_dt)
        if column is not None:
            col, _ = column
            out = [f"{acc_ct} {name}[{COLUMN_BLOCK}];"] + ([f"int64_t {pos_name}[{COLUMN_BLOCK}];"] if argred else [])
            out += ["#pragma omp simd", col + f" {{ {acc} = {init};" + (f" {pos} = 0;" if argred else "") + " }"]
            inner = ["#pragma omp simd", col + " {"] + ["    " + ln for ln in h.lines] + ["}"]
            out += self._loops(s.loops, inner, None) if s.loops else inner
            out += ["#pragma omp simd", col + " {", "    " + h.store_expr(buf.name, store_index, res_var), "}"]
            return [f"/* {buf.name}: {rtype} (columns) */ {{"] + ["    " + ln for ln in out] + ["}"]
        out = [f"{acc_ct} {acc} = {init};"] + ([f"int64_t {pos} = 0;"] if argred else [])
        if blocked:
            (v_, size), = s.loops
            out.append(f"for (int64_t {v_}b = 0; {v_}b < {size}; {v_}b += {SUM_BLOCK}) {{")
            out.append(f"    const int64_t {v_}e = {v_}b + {SUM_BLOCK} < {size} ? {v_}b + {SUM_BLOCK} : {size};")
            out.append(f"    float {sum_acc} = 0.0f;")
            out.append(f"    {pragma}")
            out.append(f"    for (int64_t {v_} = {v_}b; {v_} < {v_}e; {v_}++) {{")
            out.extend("        " + ln for ln in h.lines)
            out.append("    }")
            out.append(f"    {acc} += (double){sum_acc};")
            out.append("}")
        else:
            out += self._loops(s.loops, h.lines, pragma if not argred else None)
        out.append(h.store_expr(buf.name, store_index, res_var))
        return [f"/* {buf.name}: {rtype} */ {{"] + ["    " + ln for ln in out] + ["}"]
