/* softmax / log_softmax over the last dim of a contiguous (rows, k) matrix, and their backward.
 * Per row: the max (one pass), exp(x - max) summed (and stored for softmax), then the scale (softmax:
 * times 1/sum) or the shift (log_softmax: (x - max) - log(sum)). A row fits in cache, so the row is
 * read from memory once and written once. As in torch, a row holding NaN or +inf, or only -inf, gives
 * NaN. Python splits the rows over threads, one call per chunk. */
#include <math.h>
#include <stdint.h>
#include "vmath.h"

#include "blocked_sum.h"

/* Short float32 rows (attention scores at a short context: one row of T per query and head, T <= 128; a
 * log_softmax over a small vocabulary) on AVX-512: the row is held in at most eight 16-lane registers loaded under a mask (lanes past the row read
 * -inf, whose exp is 0), so no lane runs the scalar tail code that the general loop needs for a k that is
 * not a multiple of 16 (at k = 28 the tail was most of the row's time: (112, 28) rows 13.7 -> ~4 us). exp is
 * vm_expf's computation lane for lane (the same operations in the same order, so the same values); the row
 * sum is the float lanes' sum reduced by _mm512_reduce_add_ps (an order other than the general loop's: the
 * last bit may differ from it, never between calls). A NaN anywhere, a +inf or only -inf give a NaN row,
 * as in the general loop. Returns 0 (the general loop runs) elsewhere.
 * Session 15 widened it from 64 to 128 (rows of 65..128 change in the last bit: this path's sum order) and
 * fixed its tail lanes' subnormal exp; min us of the C call, 1 thread, load ~4: (1024, 65) log_softmax 88 ->
 * 54 (the op 92 -> ~58, torch 51.5), (4096, 64) softmax 150 -> 122 (one body per vector count). */
#if defined(__AVX512F__) && defined(__FMA__)
#include <immintrin.h>
#define SMALL_K 128
static inline __m512 vm_expf16(__m512 x) {
    const __m512 shift = _mm512_set1_ps(12582912.0f);
    x = _mm512_max_ps(_mm512_set1_ps(-110.0f), x);         /* NaN stays NaN: max/min return the second */
    x = _mm512_min_ps(_mm512_set1_ps(100.0f), x);          /* operand when one is NaN */
    __m512 k = _mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), shift);
    __m512 n = _mm512_sub_ps(k, shift);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606765330187e-06f), r);
    __m512 p = _mm512_set1_ps(1.0f / 5040.0f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    __m512i u = _mm512_add_epi32(_mm512_sub_epi32(_mm512_castps_si512(k), _mm512_set1_epi32(0x4B400000)),
                                 _mm512_set1_epi32(256));
    __m512i h = _mm512_srli_epi32(u, 1);
    __m512 s1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_sub_epi32(h, _mm512_set1_epi32(1)), 23));
    __m512 s2 = _mm512_castsi512_ps(_mm512_slli_epi32(
        _mm512_sub_epi32(_mm512_sub_epi32(u, h), _mm512_set1_epi32(1)), 23));
    return _mm512_mul_ps(_mm512_mul_ps(p, s1), s2);
}

static inline __attribute__((always_inline)) void softmax_small_nv(const float *xr, float *yr, int64_t k, int logm,
                                                                   const int nv) {
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    __m512 v[8];
    __mmask16 mk[8];
    __m512 mv = ninf;
    for (int i = 0; i < nv; i++) {
        const int64_t left = k - 16 * i;
        mk[i] = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
        v[i] = _mm512_mask_loadu_ps(ninf, mk[i], xr + 16 * i);
        mv = _mm512_max_ps(mv, v[i]);
    }
    const float m = _mm512_reduce_max_ps(mv);
    const __m512 vm = _mm512_set1_ps(m);
    __m512 sv = _mm512_setzero_ps();
    for (int i = 0; i < nv; i++) {
        /* lanes past the row: exp(0) zeroed after, not exp(-inf - m) (clamped to exp(-110), whose subnormal
           intermediate products cost a microcode assist each: 29 of a (1024, 65) log_softmax's 73 us) */
        __m512 e = _mm512_maskz_mov_ps(mk[i], vm_expf16(_mm512_maskz_sub_ps(mk[i], v[i], vm)));
        sv = _mm512_add_ps(sv, e);
        if (!logm) v[i] = e;
    }
    const double s = (double)_mm512_reduce_add_ps(sv);
    if (logm) {
        const __m512 ls = _mm512_set1_ps((float)log(s));
        for (int i = 0; i < nv; i++)
            _mm512_mask_storeu_ps(yr + 16 * i, mk[i], _mm512_sub_ps(_mm512_sub_ps(v[i], vm), ls));
    } else {
        const __m512 inv = _mm512_set1_ps((float)(1.0 / s));
        for (int i = 0; i < nv; i++) _mm512_mask_storeu_ps(yr + 16 * i, mk[i], _mm512_mul_ps(v[i], inv));
    }
}

/* one copy of the body per vector count, so its loops unroll and the row stays in registers */
static inline int softmax_small_f32(const float *xr, float *yr, int64_t k, int logm) {
    if (k > SMALL_K) return 0;
    switch ((int)((k + 15) / 16)) {
    case 1: softmax_small_nv(xr, yr, k, logm, 1); break;
    case 2: softmax_small_nv(xr, yr, k, logm, 2); break;
    case 3: softmax_small_nv(xr, yr, k, logm, 3); break;
    case 4: softmax_small_nv(xr, yr, k, logm, 4); break;
    case 5: softmax_small_nv(xr, yr, k, logm, 5); break;
    case 6: softmax_small_nv(xr, yr, k, logm, 6); break;
    case 7: softmax_small_nv(xr, yr, k, logm, 7); break;
    default: softmax_small_nv(xr, yr, k, logm, 8); break;
    }
    return 1;
}

/* log_softmax of short float32 rows, eight rows at a time: each row's max and exp sum exactly as
 * softmax_small_nv computes them (the same operations in the same order), then the eight rows' log(sum) in
 * one double vector, then each row's (x - max) - log(sum) as softmax_small_nv stores it, x read again from
 * L1. The scalar libm log per row was a third of the kernel ((1024, 65): 17 of 54 us, 1 thread). The bits
 * stay (float)log((double)s): lsm_log8 computes log(s) in double with an error far below 1e-13 (s in
 * [1, 512): a row's sum is at least exp(0) = 1 and at most k; log(m) of the mantissa m in [0.75, 1.5) by the
 * atanh series of f = (m - 1) / (m + 1), |f| <= 0.2, to f^21, plus e * ln 2 in two parts), and rounds it to
 * float only where it lies more than 1e-13 from the midpoint between two floats, so that libm's log (within
 * an ulp of the exact value) rounds to the same float; any other lane (a rare near-midpoint value, a NaN or
 * an inf sum) takes libm's log itself. */
static inline __attribute__((always_inline)) void lsm_stats_nv(const float *xr, int64_t k, const int nv,
                                                               float *mo, double *so) {
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    __m512 v[8];
    __mmask16 mk[8];
    __m512 mv = ninf;
    for (int i = 0; i < nv; i++) {
        const int64_t left = k - 16 * i;
        mk[i] = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
        v[i] = _mm512_mask_loadu_ps(ninf, mk[i], xr + 16 * i);
        mv = _mm512_max_ps(mv, v[i]);
    }
    const float m = _mm512_reduce_max_ps(mv);
    const __m512 vm = _mm512_set1_ps(m);
    __m512 sv = _mm512_setzero_ps();
    for (int i = 0; i < nv; i++)
        sv = _mm512_add_ps(sv, _mm512_maskz_mov_ps(mk[i], vm_expf16(_mm512_maskz_sub_ps(mk[i], v[i], vm))));
    *mo = m;
    *so = (double)_mm512_reduce_add_ps(sv);
}

static inline __attribute__((always_inline)) void lsm_store_nv(const float *xr, float *yr, int64_t k, const int nv,
                                                               float m, float ls) {
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    const __m512 vm = _mm512_set1_ps(m), vls = _mm512_set1_ps(ls);
    for (int i = 0; i < nv; i++) {
        const int64_t left = k - 16 * i;
        const __mmask16 mk = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
        const __m512 v = _mm512_mask_loadu_ps(ninf, mk, xr + 16 * i);
        _mm512_mask_storeu_ps(yr + 16 * i, mk, _mm512_sub_ps(_mm512_sub_ps(v, vm), vls));
    }
}

/* (float)log(s[i]) for eight sums (see above) */
static inline void lsm_log8(const double *s, float *out) {
    const __m512d x = _mm512_loadu_pd(s);
    const __mmask8 valid = _mm512_cmp_pd_mask(x, _mm512_set1_pd(1.0), _CMP_GE_OQ)
                         & _mm512_cmp_pd_mask(x, _mm512_set1_pd(512.0), _CMP_LT_OQ);
    __m512d e = _mm512_getexp_pd(x);                                        /* floor(log2 x) */
    __m512d m = _mm512_getmant_pd(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);  /* x / 2^e in [1, 2) */
    const __mmask8 big = _mm512_cmp_pd_mask(m, _mm512_set1_pd(1.5), _CMP_GE_OQ);
    m = _mm512_mask_mul_pd(m, big, m, _mm512_set1_pd(0.5));                /* exact */
    e = _mm512_mask_add_pd(e, big, e, _mm512_set1_pd(1.0));
    const __m512d f = _mm512_div_pd(_mm512_sub_pd(m, _mm512_set1_pd(1.0)), _mm512_add_pd(m, _mm512_set1_pd(1.0)));
    const __m512d f2 = _mm512_mul_pd(f, f);
    __m512d p = _mm512_set1_pd(1.0 / 21.0);
    p = _mm512_fmadd_pd(p, f2, _mm512_set1_pd(1.0 / 19.0));
    p = _mm512_fmadd_pd(p, f2, _mm512_set1_pd(1.0 / 17.0));
    p = _mm512_fmadd_pd(p, f2, _mm512_set1_pd(1.0 / 15.0));
    p = _mm512_fmadd_pd(p, f2, _mm512_set1_pd(1.0 / 13.0));
    p = _mm512_fmadd_pd(p, f2, _mm512_set1_pd(1.0 / 11.0));
    p = _mm512_fmadd_pd(p, f2, _mm512_set1_pd(1.0 / 9.0));
    p = _mm512_fmadd_pd(p, f2, _mm512_set1_pd(1.0 / 7.0));
    p = _mm512_fmadd_pd(p, f2, _mm512_set1_pd(1.0 / 5.0));
    p = _mm512_fmadd_pd(p, f2, _mm512_set1_pd(1.0 / 3.0));
    const __m512d lm = _mm512_mul_pd(_mm512_add_pd(f, f), _mm512_fmadd_pd(p, f2, _mm512_set1_pd(1.0)));
    const __m512d r = _mm512_fmadd_pd(e, _mm512_set1_pd(6.93147180369123816490e-01),     /* ln2 hi: e * hi exact */
                                      _mm512_fmadd_pd(e, _mm512_set1_pd(1.90821492927058770002e-10), lm));
    const __m256 c = _mm512_cvtpd_ps(r);                                    /* nearest */
    const __m512d cd = _mm512_cvtps_pd(c);
    const __mmask8 up = _mm512_cmp_pd_mask(r, cd, _CMP_GE_OQ);
    const __m256i ci = _mm256_castps_si256(c);
    const __m256i nbi = _mm256_mask_add_epi32(_mm256_sub_epi32(ci, _mm256_set1_epi32(1)), up, ci,
                                              _mm256_set1_epi32(1));      /* the float neighbour on r's side */
    const __m512d mid = _mm512_mul_pd(_mm512_add_pd(cd, _mm512_cvtps_pd(_mm256_castsi256_ps(nbi))),
                                      _mm512_set1_pd(0.5));                 /* exact: two floats' mean */
    const __m512d dist = _mm512_abs_pd(_mm512_sub_pd(r, mid));
    const __mmask8 zero = _mm512_cmp_pd_mask(x, _mm512_set1_pd(1.0), _CMP_EQ_OQ);   /* log(1) = 0 exactly */
    const __mmask8 safe = (valid & _mm512_cmp_pd_mask(dist, _mm512_set1_pd(1e-13), _CMP_GT_OQ)) | zero;
    _mm256_storeu_ps(out, _mm256_mask_blend_ps(zero, c, _mm256_setzero_ps()));
    if (safe != 0xFF)
        for (int i = 0; i < 8; i++)
            if (!(safe >> i & 1)) out[i] = (float)log(s[i]);
}

static inline __attribute__((always_inline)) int64_t lsm_groups_nv(const float *x, float *y, int64_t rows,
                                                                   int64_t k, const int nv) {
    int64_t r = 0;
    for (; r + 8 <= rows; r += 8) {
        float m[8], ls[8];
        double s[8];
        for (int i = 0; i < 8; i++) lsm_stats_nv(x + (r + i) * k, k, nv, m + i, s + i);
        lsm_log8(s, ls);
        for (int i = 0; i < 8; i++) lsm_store_nv(x + (r + i) * k, y + (r + i) * k, k, nv, m[i], ls[i]);
    }
    return r;
}

/* the rows log_softmax_groups_f32 has done (a multiple of 8; 0 where it does not apply) */
static inline int64_t log_softmax_groups_f32(const float *x, float *y, int64_t rows, int64_t k, int logm) {
    if (!logm || k > SMALL_K || k < 1) return 0;
    switch ((int)((k + 15) / 16)) {
    case 1: return lsm_groups_nv(x, y, rows, k, 1);
    case 2: return lsm_groups_nv(x, y, rows, k, 2);
    case 3: return lsm_groups_nv(x, y, rows, k, 3);
    case 4: return lsm_groups_nv(x, y, rows, k, 4);
    case 5: return lsm_groups_nv(x, y, rows, k, 5);
    case 6: return lsm_groups_nv(x, y, rows, k, 6);
    case 7: return lsm_groups_nv(x, y, rows, k, 7);
    default: return lsm_groups_nv(x, y, rows, k, 8);
    }
}

/* The backward of short float32 rows (k <= SMALL_BK: attention probabilities' rows, log_softmax over a small
 * vocabulary) on AVX-512, without the general loop's per-row cost (gcc's peeled and tail iterations, its
 * reduction epilogue and the double block sum): the row's 16-float vectors, the last loaded under a mask.
 * The sum (softmax: of g * y; log_softmax: of g) runs in 16 float lanes, lane l adding the elements
 * j = l mod 16 in order of j, the lanes then added pairwise (+8, +4, +2, +1); dx is the general loop's
 * expression lane for lane (exp is vm_expf16, vm_expf's values). Only the sum's order differs from the
 * general loop's, so the last bit may differ from it, never between calls or thread counts. Min us of the op,
 * torch 2.13 in the same process, 1 thread, load ~5-10: (16, 4, 64, 64) softmax backward 70 -> 49 (torch 47;
 * the C call alone 44, about the bandwidth its 3 MB need); (1024, 65) log_softmax backward 51 -> 41 (torch 43). */
#define SMALL_BK 128
#include "fold16.h"

static inline int softmax_bwd_small_f32(const float *gr, const float *yr, float *dr, int64_t k, int logm) {
    if (k > SMALL_BK) return 0;
    const int64_t kf = k & ~(int64_t)15;
    const __mmask16 mt = (__mmask16)((1u << (k - kf)) - 1u);
    __m512 sv = _mm512_setzero_ps();
    int64_t j = 0;
    if (logm) {
        for (; j < kf; j += 16) sv = _mm512_add_ps(sv, _mm512_loadu_ps(gr + j));
        if (mt) sv = _mm512_mask_add_ps(sv, mt, sv, _mm512_maskz_loadu_ps(mt, gr + j));
        const __m512 st = _mm512_set1_ps(fold16_f32(sv));
        for (j = 0; j < kf; j += 16)
            _mm512_storeu_ps(dr + j, _mm512_sub_ps(_mm512_loadu_ps(gr + j),
                                                   _mm512_mul_ps(vm_expf16(_mm512_loadu_ps(yr + j)), st)));
        if (mt)
            _mm512_mask_storeu_ps(dr + j, mt, _mm512_sub_ps(_mm512_maskz_loadu_ps(mt, gr + j),
                                  _mm512_mul_ps(vm_expf16(_mm512_maskz_loadu_ps(mt, yr + j)), st)));
    } else {
        for (; j < kf; j += 16)
            sv = _mm512_add_ps(sv, _mm512_mul_ps(_mm512_loadu_ps(gr + j), _mm512_loadu_ps(yr + j)));
        if (mt)
            sv = _mm512_mask_add_ps(sv, mt, sv, _mm512_mul_ps(_mm512_maskz_loadu_ps(mt, gr + j),
                                                              _mm512_maskz_loadu_ps(mt, yr + j)));
        const __m512 st = _mm512_set1_ps(fold16_f32(sv));
        for (j = 0; j < kf; j += 16)
            _mm512_storeu_ps(dr + j, _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(gr + j), st),
                                                   _mm512_loadu_ps(yr + j)));
        if (mt)
            _mm512_mask_storeu_ps(dr + j, mt, _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(mt, gr + j), st),
                                                            _mm512_maskz_loadu_ps(mt, yr + j)));
    }
    return 1;
}
#else
static inline int softmax_small_f32(const float *xr, float *yr, int64_t k, int logm) {
    (void)xr; (void)yr; (void)k; (void)logm;
    return 0;
}

static inline int64_t log_softmax_groups_f32(const float *x, float *y, int64_t rows, int64_t k, int logm) {
    (void)x; (void)y; (void)rows; (void)k; (void)logm;
    return 0;
}

static inline int softmax_bwd_small_f32(const float *gr, const float *yr, float *dr, int64_t k, int logm) {
    (void)gr; (void)yr; (void)dr; (void)k; (void)logm;
    return 0;
}
#endif

static inline int softmax_bwd_small_f64(const double *gr, const double *yr, double *dr, int64_t k, int logm) {
    (void)gr; (void)yr; (void)dr; (void)k; (void)logm;
    return 0;
}

static inline int softmax_small_f64(const double *xr, double *yr, int64_t k, int logm) {
    (void)xr; (void)yr; (void)k; (void)logm;
    return 0;
}

static inline int64_t log_softmax_groups_f64(const double *x, double *y, int64_t rows, int64_t k, int logm) {
    (void)x; (void)y; (void)rows; (void)k; (void)logm;
    return 0;
}

#define SOFTMAX_FWD(T, SUF, EXP)                                                        \
void softmax_fwd_##SUF(const T *x, T *y, int64_t rows, int64_t k, int logm) {          \
    for (int64_t r = log_softmax_groups_##SUF(x, y, rows, k, logm); r < rows; r++) {    \
        const T *xr = x + r * k;                                                        \
        T *yr = y + r * k;                                                              \
        if (softmax_small_##SUF(xr, yr, k, logm)) continue;                             \
        T m = xr[0];                                                                    \
        _Pragma("omp simd reduction(max:m)")                                            \
        for (int64_t j = 0; j < k; j++) m = xr[j] > m ? xr[j] : m;                      \
        if (logm) {                                                                     \
            BLOCKED_SUM(T, s, k, j, EXP(xr[j] - m))                                     \
            const T ls = (T)log(s);                                                     \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < k; j++) yr[j] = (xr[j] - m) - ls;                   \
        } else {                                                                        \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < k; j++) yr[j] = EXP(xr[j] - m);                     \
            BLOCKED_SUM(T, s, k, j, yr[j])                                              \
            const T inv = (T)(1.0 / s);                                                 \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < k; j++) yr[j] *= inv;                               \
        }                                                                               \
    }                                                                                   \
}

/* softmax: dx = y * (g - sum(g * y)); log_softmax: dx = g - exp(y) * sum(g). */
#define SOFTMAX_BWD(T, SUF, EXP)                                                        \
void softmax_bwd_##SUF(const T *g, const T *y, T *dx, int64_t rows, int64_t k, int logm) { \
    for (int64_t r = 0; r < rows; r++) {                                                \
        const T *gr = g + r * k, *yr = y + r * k;                                       \
        T *dr = dx + r * k;                                                             \
        if (softmax_bwd_small_##SUF(gr, yr, dr, k, logm)) continue;                     \
        if (logm) {                                                                     \
            BLOCKED_SUM(T, s, k, j, gr[j])                                              \
            const T st = (T)s;                                                          \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < k; j++) dr[j] = gr[j] - EXP(yr[j]) * st;            \
        } else {                                                                        \
            BLOCKED_SUM(T, s, k, j, gr[j] * yr[j])                                      \
            const T st = (T)s;                                                          \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < k; j++) dr[j] = (gr[j] - st) * yr[j];               \
        }                                                                               \
    }                                                                                   \
}

SOFTMAX_FWD(float, f32, vm_expf)
SOFTMAX_FWD(double, f64, vm_exp)
SOFTMAX_BWD(float, f32, vm_expf)
SOFTMAX_BWD(double, f64, vm_exp)

/* The same over dim 1 of a contiguous (outer, k, inner) array (softmax over a dim that is not the
 * last): columns [i0, i1) of every outer slab, in blocks of IB columns so the running max and sum
 * stay on the stack (sums in double) while the k rows of the block are swept (each row segment is
 * contiguous). */
#define IB 128
#define SOFTMAX_FWD_INNER(T, SUF, EXP)                                             \
void softmax_fwd_inner_##SUF(const T *x, T *y, int64_t outer, int64_t k, int64_t inner,  \
                             int64_t i0, int64_t i1, int logm) {                        \
    T m[IB];                                                                            \
    double s[IB];                                                                     \
    for (int64_t o = 0; o < outer; o++) {                                               \
        const T *xo = x + o * k * inner;                                                \
        T *yo = y + o * k * inner;                                                      \
        for (int64_t b0 = i0; b0 < i1; b0 += IB) {                                      \
            const int64_t nb = i1 - b0 < IB ? i1 - b0 : IB;                             \
            for (int64_t i = 0; i < nb; i++) { m[i] = xo[b0 + i]; s[i] = 0; }           \
            for (int64_t j = 1; j < k; j++) {                                           \
                const T *xr = xo + j * inner + b0;                                      \
                _Pragma("omp simd")                                                     \
                for (int64_t i = 0; i < nb; i++) m[i] = xr[i] > m[i] ? xr[i] : m[i];    \
            }                                                                           \
            for (int64_t j = 0; j < k; j++) {                                           \
                const T *xr = xo + j * inner + b0;                                      \
                T *yr = yo + j * inner + b0;                                            \
                if (logm) {                                                             \
                    _Pragma("omp simd")                                                 \
                    for (int64_t i = 0; i < nb; i++) s[i] += (double)EXP(xr[i] - m[i]);         \
                } else {                                                                \
                    _Pragma("omp simd")                                                 \
                    for (int64_t i = 0; i < nb; i++) { T e = EXP(xr[i] - m[i]); yr[i] = e; s[i] += (double)e; } \
                }                                                                       \
            }                                                                           \
            for (int64_t i = 0; i < nb; i++) s[i] = logm ? log(s[i]) : 1.0 / s[i];  \
            for (int64_t j = 0; j < k; j++) {                                           \
                const T *xr = xo + j * inner + b0;                                      \
                T *yr = yo + j * inner + b0;                                            \
                if (logm) {                                                             \
                    _Pragma("omp simd")                                                 \
                    for (int64_t i = 0; i < nb; i++) yr[i] = (xr[i] - m[i]) - (T)s[i];     \
                } else {                                                                \
                    _Pragma("omp simd")                                                 \
                    for (int64_t i = 0; i < nb; i++) yr[i] *= (T)s[i];                     \
                }                                                                       \
            }                                                                           \
        }                                                                               \
    }                                                                                   \
}

#define SOFTMAX_BWD_INNER(T, SUF, EXP)                                                  \
void softmax_bwd_inner_##SUF(const T *g, const T *y, T *dx, int64_t outer, int64_t k, int64_t inner, \
                             int64_t i0, int64_t i1, int logm) {                        \
    double s[IB];                                                                            \
    for (int64_t o = 0; o < outer; o++) {                                               \
        const int64_t base = o * k * inner;                                             \
        for (int64_t b0 = i0; b0 < i1; b0 += IB) {                                      \
            const int64_t nb = i1 - b0 < IB ? i1 - b0 : IB;                             \
            for (int64_t i = 0; i < nb; i++) s[i] = 0;                                  \
            for (int64_t j = 0; j < k; j++) {                                           \
                const T *gr = g + base + j * inner + b0, *yr = y + base + j * inner + b0; \
                if (logm) {                                                             \
                    _Pragma("omp simd")                                                 \
                    for (int64_t i = 0; i < nb; i++) s[i] += (double)gr[i];                     \
                } else {                                                                \
                    _Pragma("omp simd")                                                 \
                    for (int64_t i = 0; i < nb; i++) s[i] += (double)(gr[i] * yr[i]);             \
                }                                                                       \
            }                                                                           \
            for (int64_t j = 0; j < k; j++) {                                           \
                const T *gr = g + base + j * inner + b0, *yr = y + base + j * inner + b0; \
                T *dr = dx + base + j * inner + b0;                                     \
                if (logm) {                                                             \
                    _Pragma("omp simd")                                                 \
                    for (int64_t i = 0; i < nb; i++) dr[i] = gr[i] - EXP(yr[i]) * (T)s[i]; \
                } else {                                                                \
                    _Pragma("omp simd")                                                 \
                    for (int64_t i = 0; i < nb; i++) dr[i] = (gr[i] - (T)s[i]) * yr[i];    \
                }                                                                       \
            }                                                                           \
        }                                                                               \
    }                                                                                   \
}

SOFTMAX_FWD_INNER(float, f32, vm_expf)
SOFTMAX_FWD_INNER(double, f64, vm_exp)
SOFTMAX_BWD_INNER(float, f32, vm_expf)
SOFTMAX_BWD_INNER(double, f64, vm_exp)

/* csrc/parallel.c parts (fn(p, s, begin, end), runtime/rowblocks.pool_rows): the row kernels above over rows
 * [begin, end) of the whole matrix, s[0] the row length k, s[1] logm; p[0] x, p[2] y (forward) or p[0] g,
 * p[1] y, p[2] dx (backward). A row's result depends on that row alone (its own addresses, its own order),
 * so any split by rows gives the bits of one call. */
#define SOFTMAX_PARTS(T, SUF)                                                           \
void softmax_fwd_part_##SUF(void *const *p, const double *s, int64_t b, int64_t e) {    \
    const int64_t k = (int64_t)s[0];                                                    \
    softmax_fwd_##SUF((const T *)p[0] + b * k, (T *)p[2] + b * k, e - b, k, (int)s[1]); \
}                                                                                       \
void softmax_bwd_part_##SUF(void *const *p, const double *s, int64_t b, int64_t e) {    \
    const int64_t k = (int64_t)s[0];                                                    \
    softmax_bwd_##SUF((const T *)p[0] + b * k, (const T *)p[1] + b * k, (T *)p[2] + b * k, e - b, k, \
                      (int)s[1]);                                                       \
}

SOFTMAX_PARTS(float, f32)
SOFTMAX_PARTS(double, f64)
