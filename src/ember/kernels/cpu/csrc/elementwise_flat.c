/* Flat elementwise kernels run by csrc/parallel.c's pool (the counterpart of ATen's vectorised cpu loops in
   BinaryOpsKernel.cpp / UnaryOpsKernel.cpp): each is `fn(p, s, begin, end)` over elements [begin, end) of
   c-contiguous arrays, the pointers in p (inputs first, the output last), Python-number operands in s.

   Same results as numpy's loops (and torch's): + - * / and sqrt are IEEE operations, correctly rounded
   (compiled without fast-math and, -std=c11, without contracting a*b+c into an fma), comparisons are
   false with NaN (ne true), sqrt of a negative number is +NaN (torch's Sleef kernel; the sqrt instruction writes
   the negative default NaN: elementwise.py's domain_nans), relu keeps -0.0 and NaN (torch's clamp_min), abs clears the sign (fabs), as
   torch and numpy do. A Python-number operand is rounded to the tensor's dtype first, as torch and numpy
   (NEP 50) do for a float tensor.

   exp, sigmoid and tanh of float32 use vmath.h's vectorisable exp and are not numpy's bits. Measured against
   float64 numpy over [-20, 20] (exp up to 88.5) in steps of 2^-14 (tests/kernels/test_c_flat.py), in ulp of
   the exact value:
   - exp: vm_expf, max 0.92 ulp;
   - sigmoid: 1 / (1 + exp(-x)), max 2.47 ulp;
   - tanh: a fitted odd polynomial below |x| = 0.5, else sign(x) (1 - 2 / (exp(2|x|) + 1)), max 1.72 ulp;
   inf, 0 and the sign of zero exactly, NaN stays NaN. torch's own float32 tolerance (rtol 1.3e-6) is about
   11 ulp; torch's Sleef kernels are within 1 ulp. float64 exp/tanh stay with numpy. */
#pragma GCC optimize ("no-trapping-math")
#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif
#include "vmath.h"

#define ARGS void *const *p, const double *s, int64_t b, int64_t e

/* Element b's first 64-byte aligned successor for the array at a (elements of `size` bytes), at most e.
   numpy's buffers start 16 bytes past a 64-byte line (malloc's header) while torch's are 64-byte aligned:
   a vector loop over a misaligned array splits a load or store over two cache lines every other vector
   (AVX-512: every one) and ran 1M in-place float32 relu 35-40% slower (64-66 us against 46-48 us on one
   thread, the same array at each offset). So every loop runs its first elements one at a time up to the
   alignment of its widest array, then vectors on aligned addresses (numpy arrays of one op share their
   misalignment, so the others align too). The scalar and vector forms compute the same IEEE operations:
   the bits do not depend on where a chunk starts. */
static inline int64_t ew_peel(const void *a, size_t size, int64_t b, int64_t e) {
    const uintptr_t at = (uintptr_t)a + (uintptr_t)b * size;
    const int64_t m = b + (int64_t)(((64 - at % 64) % 64) / size);
    return m < e ? m : e;
}

/* add, sub and mul of two NaNs give the second operand's NaN, as torch's kernels do (numpy's and a plain u + v give
   the first's: the compiler orders a commutative operation's operands as it likes, so the choice is explicit;
   `v + v` quiets a signalling NaN as the addition would). One compare and blend per vector: no cost on these
   memory-bound loops. */
#define ADD2(u, v) ((v) != (v) ? (v) + (v) : (u) + (v))
#define MUL2(u, v) ((v) != (v) ? (v) * (v) : (u) * (v))
#define SUB2(u, v) ((v) != (v) ? (v) + (v) : (u) - (v))      /* sub too: torch's a + (-1) * b keeps b's NaN */

#define SPLIT_LOOP(A, ...)                                                                         \
    {                                                                                              \
        const int64_t m_ = ew_peel((A), sizeof(*(A)), b, e);                                       \
        for (int64_t i = b; i < m_; i++) { __VA_ARGS__; }                                          \
        _Pragma("omp simd")                                                                        \
        for (int64_t i = m_; i < e; i++) { __VA_ARGS__; }                                          \
    }

#define BINARY_TT(T, SFX, NAME, EXPR)                                                              \
void NAME##_##SFX(ARGS) {                                                                          \
    const T *x = (const T *)p[0], *y = (const T *)p[1];                                            \
    T *o = (T *)p[2];                                                                              \
    (void)s;                                                                                       \
    SPLIT_LOOP(o, const T u = x[i], v = y[i]; o[i] = (EXPR);)                                      \
}

#define BINARY(T, SFX, NAME, EXPR)                                                                 \
void NAME##_s_##SFX(ARGS) {                                                                        \
    const T *x = (const T *)p[0];                                                                  \
    T *o = (T *)p[2];                                                                              \
    const T v = (T)s[0];                                                                           \
    SPLIT_LOOP(o, const T u = x[i]; o[i] = (EXPR);)                                                \
}                                                                                                  \
void NAME##_r_##SFX(ARGS) {                                                                        \
    const T *x = (const T *)p[0];                                                                  \
    T *o = (T *)p[2];                                                                              \
    const T u = (T)s[0];                                                                           \
    SPLIT_LOOP(o, const T v = x[i]; o[i] = (EXPR);)                                                \
}

#define COMPARE(T, SFX, NAME, OP)                                                                  \
void NAME##_##SFX(ARGS) {                                                                          \
    const T *x = (const T *)p[0], *y = (const T *)p[1];                                            \
    uint8_t *o = (uint8_t *)p[2];                                                                  \
    (void)s;                                                                                       \
    SPLIT_LOOP(x, o[i] = x[i] OP y[i];)                                                            \
}                                                                                                  \
void NAME##_s_##SFX(ARGS) {                                                                        \
    const T *x = (const T *)p[0];                                                                  \
    uint8_t *o = (uint8_t *)p[2];                                                                  \
    const T v = (T)s[0];                                                                           \
    SPLIT_LOOP(x, o[i] = x[i] OP v;)                                                               \
}

#define UNARY(T, SFX, NAME, EXPR)                                                                  \
void NAME##_##SFX(ARGS) {                                                                          \
    const T *x = (const T *)p[0];                                                                  \
    T *o = (T *)p[2];                                                                              \
    (void)s;                                                                                       \
    SPLIT_LOOP(o, const T u = x[i]; o[i] = (EXPR);)                                                \
}

#define CAST(TI, TO, NAME)                                                                         \
void NAME(ARGS) {                                                                                  \
    const TI *x = (const TI *)p[0];                                                                \
    TO *o = (TO *)p[2];                                                                            \
    (void)s;                                                                                       \
    SPLIT_LOOP(o, o[i] = (TO)x[i];)                                                                \
}

/* Tensor-tensor loops (two loads and a store an element) with 256-bit vectors where gcc would use 512: on
   AMD EPYC (Zen 4) at 2 threads, in-process A/B over ember's pool, load ~8, min us: 1M float32 add 69.1 ->
   66.7, div 69.7 -> 66.2, in-place mul 47.8 -> 45.0; one thread add 158 -> 148 (4M: add 502 -> 426, in-place
   mul 229 -> 230, load ~15). The one-stream loops (a number operand, relu_, clamp_, copy) measured the same or
   better with 512 (relu_ 24.9 against 26.7), so only these take it: gcc's option, pushed for this block (other
   compilers, and machines without AVX-512, build the same loops as before). The typedefs end the pragma
   lines with a `;`, where ember._cc.protos' reader of the preprocessed text looks for the next definition. */
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#pragma GCC push_options
#pragma GCC target("prefer-vector-width=256")
#define EW_TWO_STREAMS_POP 1
#endif
typedef int ew_two_streams;
#define TT_FAMILY(T, SFX)                                                                          \
BINARY_TT(T, SFX, add, ADD2(u, v))                                                                 \
BINARY_TT(T, SFX, sub, SUB2(u, v))                                                                      \
BINARY_TT(T, SFX, mul, MUL2(u, v))                                                                 \
BINARY_TT(T, SFX, div, u / v)
TT_FAMILY(float, f32)
TT_FAMILY(double, f64)
#ifdef EW_TWO_STREAMS_POP
#pragma GCC pop_options
#endif
typedef int ew_two_streams_end;

#define FAMILY(T, SFX)                                                                             \
BINARY(T, SFX, add, ADD2(u, v))                                                                    \
BINARY(T, SFX, sub, SUB2(u, v))                                                                         \
BINARY(T, SFX, mul, MUL2(u, v))                                                                    \
BINARY(T, SFX, div, u / v)                                                                         \
COMPARE(T, SFX, eq, ==)                                                                            \
COMPARE(T, SFX, ne, !=)                                                                            \
COMPARE(T, SFX, lt, <)                                                                             \
COMPARE(T, SFX, le, <=)                                                                            \
COMPARE(T, SFX, gt, >)                                                                             \
COMPARE(T, SFX, ge, >=)                                                                            \
UNARY(T, SFX, neg, -u)                                                                             \
UNARY(T, SFX, abs, fabs##SFX(u))                                               \
UNARY(T, SFX, sqrt, u < 0 ? (T)NAN : sqrt##SFX(u))                                                                  \
UNARY(T, SFX, relu, u < 0 ? (T)0 : u)                                                              \
void clamp_##SFX(ARGS) {                                                                           \
    const T *x = (const T *)p[0];                                                                  \
    T *o = (T *)p[2];                                                                              \
    const T lo = (T)s[0], hi = (T)s[1];                                                            \
    SPLIT_LOOP(o, T v = x[i]; v = v < lo ? lo : v; o[i] = v > hi ? hi : v;)                        \
}                                                                                                  \
void masked_fill_##SFX(ARGS) {      /* p[0] a bool mask, p[1] the tensor, p[2] the result; s[0] the value */ \
    const uint8_t *c = (const uint8_t *)p[0];                                                      \
    const T *x = (const T *)p[1];                                                                  \
    T *o = (T *)p[2];                                                                              \
    const T v = (T)s[0];                                                                           \
    SPLIT_LOOP(o, o[i] = c[i] ? v : x[i];)                                                         \
}                                                                                                  \
void where_##SFX(ARGS) {                                                                           \
    const uint8_t *c = (const uint8_t *)p[0];                                                      \
    const T *x = (const T *)p[1], *y = (const T *)p[2];                                            \
    T *o = (T *)p[3];                                                                              \
    (void)s;                                                                                       \
    SPLIT_LOOP(o, o[i] = c[i] ? x[i] : y[i];)                                                      \
}

/* copy / fill (clone, copy_, fill_, zero_): bytes moved unchanged (memcpy keeps NaN payloads); a fill value
   is rounded to the dtype once, as numpy's assignment of a Python number does */
#define COPY_FILL(T, SFX)                                                                          \
void copy_##SFX(ARGS) {                                                                            \
    (void)s;                                                                                       \
    memcpy((T *)p[2] + b, (const T *)p[0] + b, (size_t)(e - b) * sizeof(T));                       \
}                                                                                                  \
void fill_##SFX(ARGS) {                                                                            \
    T *o = (T *)p[2];                                                                              \
    const T v = (T)s[0];                                                                           \
    SPLIT_LOOP(o, o[i] = v;)                                                                       \
}

COPY_FILL(float, f32)
COPY_FILL(double, f64)

/* Streaming-store forms (`<name>_nt_<sfx>`) of the kernels whose result is a fresh array: the same IEEE
   operations on GNU C vectors, the output written with non-temporal stores (movntps / movntpd), which skip
   the read-for-ownership of each output line and leave the caches to the inputs. runtime/flat.py picks them
   only when an op moves well over what the last-level cache holds (flat.stream_bytes: its data are evicted
   before anything reads them again) and the output is not an input (an in-place op has its lines in cache
   already). glibc's memcpy goes non-temporal above a share of the shared cache the same way; torch's loops
   store normally. Measured at 2 threads, AMD EPYC (Zen 4, 32 MB L3): 4M float32 add 459 -> 328 us (torch
   381); figures and the threshold's reasons in flat.stream_bytes.
   Bits: each lane computes the scalar loop's operation (+ - * / negation, the relu select as a mask, a
   float <-> double conversion), so the results equal the plain kernels' whatever the split. Stores are
   aligned (the loop peels up to the output's 64-byte line, as SPLIT_LOOP does) and fenced at the end of
   each chunk (sfence) before csrc/parallel.c reports the chunk done. Without SSE2 (not x86) there are no
   `_nt` kernels and flat.py keeps the plain ones. */
#if defined(__SSE2__)
#if defined(__AVX__)
#define EW_VB 32                    /* bytes a vector: 256-bit stores (a 512-bit form measured no faster) */
#define EW_STREAM_f32(o, v) _mm256_stream_ps((o), (__m256)(v))
#define EW_STREAM_f64(o, v) _mm256_stream_pd((o), (__m256d)(v))
#else
#define EW_VB 16
#define EW_STREAM_f32(o, v) _mm_stream_ps((o), (__m128)(v))
#define EW_STREAM_f64(o, v) _mm_stream_pd((o), (__m128d)(v))
#endif
typedef float ew_vf32 __attribute__((vector_size(EW_VB)));
typedef double ew_vf64 __attribute__((vector_size(EW_VB)));
typedef int32_t ew_vi32 __attribute__((vector_size(EW_VB)));
typedef int64_t ew_vi64 __attribute__((vector_size(EW_VB)));
typedef float ew_vf32h __attribute__((vector_size(EW_VB / 2)));    /* as many floats as ew_vf64 has doubles */

/* the loop of a streaming kernel: scalar up to the output's 64-byte alignment and after the last whole
   vector; between, whole vectors V of L elements loaded with LOAD and stored by STORE */
#define NT_LOOP(TO, L, SCALAR, VECTOR)                                                              \
    {                                                                                              \
        int64_t i = b;                                                                             \
        const int64_t m_ = ew_peel(o, sizeof(TO), b, e);                                           \
        for (; i < m_; i++) { SCALAR; }                                                            \
        for (; i + (L) <= e; i += (L)) { VECTOR; }                                                 \
        for (; i < e; i++) { SCALAR; }                                                             \
        _mm_sfence();                                                                              \
    }
#define NT_LOAD(V, x) ({ V v_; memcpy(&v_, (x), sizeof v_); v_; })

/* EXPR on scalars, VEXPR on vectors (IT the same-width integer vector for masks); the number operand of the _s
   and _r forms is a vector of that number in the vector loop */
#define NT_BINARY(T, SFX, IT, NAME, EXPR, VEXPR)                                                   \
void NAME##_nt_##SFX(ARGS) {                                                                       \
    const T *x = (const T *)p[0], *y = (const T *)p[1];                                            \
    T *o = (T *)p[2];                                                                              \
    (void)s;                                                                                       \
    NT_LOOP(T, EW_VB / (int)sizeof(T), const T u = x[i]; const T v = y[i]; o[i] = (EXPR),          \
            const ew_v##SFX u = NT_LOAD(ew_v##SFX, x + i); const ew_v##SFX v = NT_LOAD(ew_v##SFX, y + i); \
            EW_STREAM_##SFX(o + i, (VEXPR)))                                                       \
}                                                                                                  \
void NAME##_s_nt_##SFX(ARGS) {                                                                     \
    const T *x = (const T *)p[0];                                                                  \
    T *o = (T *)p[2];                                                                              \
    const T vs = (T)s[0];                                                                          \
    ew_v##SFX vv;                                                                                  \
    for (int k = 0; k < EW_VB / (int)sizeof(T); k++) vv[k] = vs;                                   \
    NT_LOOP(T, EW_VB / (int)sizeof(T), const T u = x[i]; const T v = vs; o[i] = (EXPR),            \
            const ew_v##SFX u = NT_LOAD(ew_v##SFX, x + i); const ew_v##SFX v = vv;                 \
            EW_STREAM_##SFX(o + i, (VEXPR)))                                                       \
}                                                                                                  \
void NAME##_r_nt_##SFX(ARGS) {                                                                     \
    const T *x = (const T *)p[0];                                                                  \
    T *o = (T *)p[2];                                                                              \
    const T us = (T)s[0];                                                                          \
    ew_v##SFX uv;                                                                                  \
    for (int k = 0; k < EW_VB / (int)sizeof(T); k++) uv[k] = us;                                   \
    NT_LOOP(T, EW_VB / (int)sizeof(T), const T v = x[i]; const T u = us; o[i] = (EXPR),            \
            const ew_v##SFX v = NT_LOAD(ew_v##SFX, x + i); const ew_v##SFX u = uv;                 \
            EW_STREAM_##SFX(o + i, (VEXPR)))                                                       \
}

/* ADD2 / MUL2 on vectors: the blend by masks (a vector ?: is C++ only) */
#define ADD2V(IT, V, u, v) ((V)(((IT)((v) + (v)) & (IT)((v) != (v))) | ((IT)((u) + (v)) & ~(IT)((v) != (v)))))
#define SUB2V(IT, V, u, v) ((V)(((IT)((v) + (v)) & (IT)((v) != (v))) | ((IT)((u) - (v)) & ~(IT)((v) != (v)))))
#define MUL2V(IT, V, u, v) ((V)(((IT)((v) * (v)) & (IT)((v) != (v))) | ((IT)((u) * (v)) & ~(IT)((v) != (v)))))

/* unary: EXPR on a scalar u, VEXPR on a vector u (IT the same-width integer vector for masks) */
#define NT_UNARY(T, SFX, IT, NAME, EXPR, VEXPR)                                                    \
void NAME##_nt_##SFX(ARGS) {                                                                       \
    const T *x = (const T *)p[0];                                                                  \
    T *o = (T *)p[2];                                                                              \
    (void)s;                                                                                       \
    NT_LOOP(T, EW_VB / (int)sizeof(T), const T u = x[i]; o[i] = (EXPR),                            \
            const ew_v##SFX u = NT_LOAD(ew_v##SFX, x + i); EW_STREAM_##SFX(o + i, (VEXPR)))        \
}

#define NT_FAMILY(T, SFX, IT)                                                                      \
NT_BINARY(T, SFX, IT, add, ADD2(u, v), ADD2V(IT, ew_v##SFX, u, v))                                 \
NT_BINARY(T, SFX, IT, sub, SUB2(u, v), SUB2V(IT, ew_v##SFX, u, v))                                                           \
NT_BINARY(T, SFX, IT, mul, MUL2(u, v), MUL2V(IT, ew_v##SFX, u, v))                                 \
NT_BINARY(T, SFX, IT, div, u / v, u / v)                                                           \
NT_UNARY(T, SFX, IT, neg, -u, -u)                                                                  \
NT_UNARY(T, SFX, IT, relu, u < 0 ? (T)0 : u, (ew_v##SFX)((IT)u & ~(IT)(u < 0)))                    \
NT_UNARY(T, SFX, IT, copy, u, u)

NT_FAMILY(float, f32, ew_vi32)
NT_FAMILY(double, f64, ew_vi64)

void to_f64_nt_f32(ARGS) {
    const float *x = (const float *)p[0];
    double *o = (double *)p[2];
    (void)s;
    NT_LOOP(double, EW_VB / 8, o[i] = (double)x[i],
            EW_STREAM_f64(o + i, __builtin_convertvector(NT_LOAD(ew_vf32h, x + i), ew_vf64)))
}

void to_f32_nt_f64(ARGS) {          /* AVX: 4 doubles in, 4 floats (16 bytes) streamed out */
    const double *x = (const double *)p[0];
    float *o = (float *)p[2];
    (void)s;
#if defined(__AVX__)
    NT_LOOP(float, 4, o[i] = (float)x[i],
            _mm_stream_ps(o + i, (__m128)__builtin_convertvector(NT_LOAD(ew_vf64, x + i), ew_vf32h)))
#else
    for (int64_t i = b; i < e; i++) o[i] = (float)x[i];     /* SSE2 alone: no 16-byte float vector here */
#endif
}
#endif

#define sqrtf32 sqrtf
#define sqrtf64 sqrt
#define fabsf32 fabsf
#define fabsf64 fabs

FAMILY(float, f32)
FAMILY(double, f64)

CAST(float, double, to_f64_f32)
CAST(double, float, to_f32_f64)

/* to_f32_f64 / to_f64_f32 called directly (no pool, three arguments), for small casts (copy.py's _SMALL) */
void to_f32_f64_n(const double *x, float *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = (float)x[i];
}

void to_f64_f32_n(const float *x, double *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = (double)x[i];
}

static inline float ew_tanhf(float x) {
    /* tanh is odd: computed for a = |x| >= 0 and given x's sign (so tanh(-0.0) is -0.0) */
    const float a = fabsf(x);
    /* a < 0.5: tanh a = a + a z Q(z), z = a^2, Q of degree 4 fitted to tanh's relative error on [0, 0.25]
       (weighted least squares iterated towards minimax, coefficients rounded to float: 0.06 ulp before
       the float32 rounding of the evaluation; the Taylor series needs 9 terms at a = 0.5) */
    const float z = a * a;
    float q = -0.006640910187535349f;
    q = q * z + 0.021293828963372053f;
    q = q * z - 0.05389826944762638f;
    q = q * z + 0.13332956021702616f;
    q = q * z - 0.33333326641739935f;
    const float small = a + a * (z * q);
    /* a >= 0.5: 1 - 2 / (e^2a + 1) >= 0.46, the subtracted term <= 0.54 (little cancellation); e^2a
       overflowing to inf gives 1 */
    const float big = 1.0f - 2.0f / (vm_expf(2.0f * a) + 1.0f);
    return copysignf(a < 0.5f ? small : big, x);
}

UNARY(float, f32, exp, vm_expf(u))
UNARY(float, f32, tanh, ew_tanhf(u))
UNARY(float, f32, sigmoid, 1.0f / (1.0f + vm_expf(-u)))
UNARY(double, f64, sigmoid, 1.0 / (1.0 + vm_exp(-u)))

/* float32 <-> float16 / bfloat16 casts (ATen's vectorised Half / BFloat16 conversions; numpy's astype is a
   scalar loop here: 1M float32 to float16 2.7 ms, torch 41 us). Integer forms of numpy's own conversions
   (npy_floatbits_to_halfbits / npy_halfbits_to_floatbits, ml_dtypes' float_to_bfloat16_rtne) that vectorise:
   round to nearest even, overflow to inf, subnormals. NaNs get torch's bits, not numpy's (copy_half.py): a
   float16 NaN is quieted keeping its sign and top payload bits as F16C's vcvtps2ph / vcvtph2ps do (numpy
   keeps a signalling NaN signalling), and every NaN cast to bfloat16 here is 0xffff, ATen's vectorised
   cvtfp32_bf16 (this kernel runs only on contiguous float32, where torch takes that path). */
static inline uint16_t ew_f32_to_f16(uint32_t f) {
    const uint32_t sgn = (f & 0x80000000u) >> 16, fe = f & 0x7f800000u, fs = f & 0x007fffffu;
    const uint32_t nan = 0x7c00u + (fs != 0 ? 0x200u | (fs >> 13) : 0u);    /* inf, or a quiet NaN */
    const uint32_t e = fe >> 23;                          /* a subnormal half: e in [102, 112] */
    const uint32_t sh = e >= 102 && e <= 112 ? 113 - e : 1;
    uint32_t ss = (0x00800000u + fs) >> sh;
    ss += ((ss & 0x3fffu) != 0x1000u) | ((f & 0x7ffu) != 0) ? 0x1000u : 0u;
    const uint32_t ns = fs + ((fs & 0x3fffu) != 0x1000u ? 0x1000u : 0u);
    const uint32_t nor = (uint32_t)(uint16_t)((fe - 0x38000000u) >> 13) + (ns >> 13);
    const uint32_t r = fe >= 0x47800000u ? (fe == 0x7f800000u ? nan : 0x7c00u)
                     : fe <= 0x38000000u ? (fe < 0x33000000u ? 0u : ss >> 13) : nor;
    return (uint16_t)(sgn + r);
}

static inline uint32_t ew_f16_to_f32(uint16_t h) {
    const uint32_t hb = h, sgn = (hb & 0x8000u) << 16, e = hb & 0x7c00u, m = hb & 0x03ffu;
    union { float f; uint32_t u; } sub = {(float)m * 5.9604644775390625e-8f};   /* m 2^-24, exact */
    const uint32_t r = e == 0 ? sub.u : e == 0x7c00u ? 0x7f800000u | (m << 13) | (m ? 0x400000u : 0u) : ((hb & 0x7fffu) + 0x1c000u) << 13;
    return sgn | r;
}

static inline uint16_t ew_f32_to_bf16(uint32_t f) {
    const uint32_t r = (f + 0x7fffu + ((f >> 16) & 1u)) >> 16;
    return (uint16_t)((f & 0x7fffffffu) > 0x7f800000u ? 0xffffu : r);
}

/* float16: the conversion instruction where there is one (F16C's vcvtps2ph rounds to nearest even as numpy
   does and quiets a NaN as torch does; the integer form above costs ~30 vector instructions a vector: 1M took
   534 us on one thread). */
void to_f16_f32(ARGS) {
    const uint32_t *x = (const uint32_t *)p[0];
    uint16_t *o = (uint16_t *)p[2];
    (void)s;
    int64_t i = b;
#if defined(__AVX512F__)
    for (; i + 16 <= e; i += 16) {
        const __m512 v = _mm512_loadu_ps((const float *)(x + i));
        _mm256_storeu_si256((__m256i *)(o + i), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
#elif defined(__F16C__)
    for (; i + 8 <= e; i += 8) {
        const __m256 v = _mm256_loadu_ps((const float *)(x + i));
        _mm_storeu_si128((__m128i *)(o + i), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
#endif
    for (; i < e; i++) o[i] = ew_f32_to_f16(x[i]);
}

/* to_f16_f32 called directly (no pool, three arguments), for small casts (copy.py's _f16_small) */
void to_f16_f32_n(const uint32_t *x, uint16_t *o, int64_t n) {
    void *q[3] = {(void *)x, 0, o};
    to_f16_f32(q, 0, 0, n);
}

void to_bf16_f32(ARGS) {
    const uint32_t *x = (const uint32_t *)p[0];
    uint16_t *o = (uint16_t *)p[2];
    (void)s;
    SPLIT_LOOP(x, o[i] = ew_f32_to_bf16(x[i]);)
}

/* to_bf16_f32 called directly (no pool, three arguments): a small float32 -> bfloat16 cast pays ~1 us for
   the ctypes call instead of ~6 through the pool's entry. */
void to_bf16_f32_n(const uint32_t *x, uint16_t *o, int64_t n) {
    for (int64_t i = 0; i < n; i++) o[i] = ew_f32_to_bf16(x[i]);
}

void from_f16_f32(ARGS) {
    const uint16_t *x = (const uint16_t *)p[0];
    uint32_t *o = (uint32_t *)p[2];
    (void)s;
    int64_t i = b;
#if defined(__AVX512F__)
    for (; i + 16 <= e; i += 16) {
        const __m256i h = _mm256_loadu_si256((const __m256i *)(x + i));
        _mm512_storeu_ps((float *)(o + i), _mm512_cvtph_ps(h));
    }
    for (; i < e; i++) o[i] = ew_f16_to_f32(x[i]);
#else
    (void)i;
    SPLIT_LOOP(o, o[i] = ew_f16_to_f32(x[i]);)
#endif
}

void from_bf16_f32(ARGS) {
    const uint16_t *x = (const uint16_t *)p[0];
    uint32_t *o = (uint32_t *)p[2];
    (void)s;
    SPLIT_LOOP(o, o[i] = (uint32_t)x[i] << 16;)
}
