/* Row kernels of the fused attention (kernels/cpu/attention.py): the matrix products run in BLAS, these
 * do the per-row softmax work on a contiguous (rows, n) block of raw scores s = q.k, row r being query
 * position i = (r0 + r) % L. A row's valid keys are j < min(i + 1, n) when causal (torch's top-left
 * aligned is_causal mask), every j < n otherwise; masked entries come out 0. Python splits the rows over
 * threads, one call per chunk (r0 = the chunk's first row). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "vmath.h"

/* BLOCKED_SUM, shared with softmax.c */
#include "blocked_sum.h"

static inline int64_t valid_keys(int64_t r0, int64_t r, int64_t L, int64_t n, int causal) {
    if (!causal) return n;
    const int64_t i = (r0 + r) % L;
    return i + 1 < n ? i + 1 : n;
}

/* In place: p = softmax(scale * s) over the valid keys, 0 elsewhere; lse[r] = log(sum(exp(scale * s)))
 * over the valid keys. As softmax: a row holding NaN or +inf gives NaN. */
#define ATTN_FWD(T, SUF, EXP)                                                            \
void attn_softmax_fwd_##SUF(T *s, T *lse, int64_t rows, int64_t n, int64_t L, int64_t r0, \
                           double scale, int causal) {                                  \
    const T sc = (T)scale;                                                              \
    for (int64_t r = 0; r < rows; r++) {                                                \
        T *sr = s + r * n;                                                              \
        const int64_t v = valid_keys(r0, r, L, n, causal);                              \
        T m = sr[0] * sc;                                                               \
        _Pragma("omp simd reduction(max:m)")                                            \
        for (int64_t j = 0; j < v; j++) { const T x = sr[j] * sc; m = x > m ? x : m; }  \
        _Pragma("omp simd")                                                             \
        for (int64_t j = 0; j < v; j++) sr[j] = EXP(sr[j] * sc - m);                    \
        BLOCKED_SUM(T, tot, v, j, sr[j])                                                \
        const T inv = (T)(1.0 / tot);                                                   \
        _Pragma("omp simd")                                                             \
        for (int64_t j = 0; j < v; j++) sr[j] *= inv;                                   \
        for (int64_t j = v; j < n; j++) sr[j] = 0;                                      \
        lse[r] = (T)((double)m + log(tot));                                             \
    }                                                                                   \
}

/* In place: p = exp(scale * s - lse[r]) over the valid keys, 0 elsewhere (the forward's probabilities
 * rebuilt from the saved log-sum-exp). */
#define ATTN_PROBS(T, SUF, EXP)                                                          \
void attn_probs_##SUF(T *s, const T *lse, int64_t rows, int64_t n, int64_t L, int64_t r0, \
                      double scale, int causal) {                                       \
    const T sc = (T)scale;                                                              \
    for (int64_t r = 0; r < rows; r++) {                                                \
        T *sr = s + r * n;                                                              \
        const int64_t v = valid_keys(r0, r, L, n, causal);                              \
        const T l = lse[r];                                                             \
        _Pragma("omp simd")                                                             \
        for (int64_t j = 0; j < v; j++) sr[j] = EXP(sr[j] * sc - l);                    \
        for (int64_t j = v; j < n; j++) sr[j] = 0;                                      \
    }                                                                                   \
}

/* In place in dp: ds = scale * p * (dp - d[r]) over the valid keys, 0 elsewhere; d[r] = sum(dO * O) of
 * the row, which equals sum(p * dp). */
#define ATTN_BWD(T, SUF)                                                                 \
void attn_softmax_bwd_##SUF(const T *p, T *dp, const T *d, int64_t rows, int64_t n, int64_t L, \
                           int64_t r0, double scale, int causal) {                      \
    const T sc = (T)scale;                                                              \
    for (int64_t r = 0; r < rows; r++) {                                                \
        const T *pr = p + r * n;                                                        \
        T *gr = dp + r * n;                                                             \
        const int64_t v = valid_keys(r0, r, L, n, causal);                              \
        const T dr = d[r];                                                              \
        _Pragma("omp simd")                                                             \
        for (int64_t j = 0; j < v; j++) gr[j] = sc * (pr[j] * (gr[j] - dr));            \
        for (int64_t j = v; j < n; j++) gr[j] = 0;                                      \
    }                                                                                   \
}

ATTN_FWD(float, f32, vm_expf)
ATTN_FWD(double, f64, vm_exp)
ATTN_PROBS(float, f32, vm_expf)
ATTN_PROBS(double, f64, vm_exp)
ATTN_BWD(float, f32)
ATTN_BWD(double, f64)

/* Whole attention matrices on csrc/parallel.c's pool (the counterpart of ATen's flash attention for cpu, whose
 * at::parallel_for runs over batch x head x query blocks): attn_fwd_part / attn_bwd_part compute the (batch,
 * head) matrices [b, e) of one call, each by the same BLAS products (numpy's own cblas_sgemm / cblas_dgemm,
 * OpenBLAS held at one thread, with the transposes numpy's matmul picks for these operands) and the same row
 * kernels above as attention.py's numpy chunks, so the results are the same bits; a matrix's scores stay in a
 * per-call scratch block in L1/L2. s = {scale, causal}; the int64 descriptor d = p[0]:
 *   [0] gemm address [1] its integer width (32/64) [2] H [3] L [4] S [5] E,
 *   q, k, v, g (the output forward, grad_out backward) at [6], [10], [14], [18]: address, then batch, head and
 *   row strides in elements (unit inner stride); [22] lse (B*H*L contiguous); [23] d = rowsum(dO * O);
 *   [24] [28] [32] gq, gk, gv like q (backward); [36] an int64 set to 1 when scratch could not be allocated. */
typedef void (*at_s64_t)(int, int, int, int64_t, int64_t, int64_t, float, const float *, int64_t, const float *,
                         int64_t, float, float *, int64_t);
typedef void (*at_d64_t)(int, int, int, int64_t, int64_t, int64_t, double, const double *, int64_t,
                         const double *, int64_t, double, double *, int64_t);
typedef void (*at_s32_t)(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                         float *, int);
typedef void (*at_d32_t)(int, int, int, int, int, int, double, const double *, int, const double *, int, double,
                         double *, int);

#define AT_N 111
#define AT_T 112

static void at_gemm(const int64_t *d, int dbl, int ta, int tb, int64_t m, int64_t n, int64_t k, const void *a,
                    int64_t lda, const void *b, int64_t ldb, void *c, int64_t ldc) {
    const intptr_t f = (intptr_t)d[0];
    if (d[1] == 64) {
        if (dbl) ((at_d64_t)f)(101, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
        else ((at_s64_t)f)(101, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
    } else {
        if (dbl) ((at_d32_t)f)(101, ta, tb, (int)m, (int)n, (int)k, 1.0, a, (int)lda, b, (int)ldb, 0.0, c, (int)ldc);
        else ((at_s32_t)f)(101, ta, tb, (int)m, (int)n, (int)k, 1.0f, a, (int)lda, b, (int)ldb, 0.0f, c, (int)ldc);
    }
}

#define AT_MAT(T, d, at, bi, hi) ((T *)(intptr_t)(d)[at] + (bi) * (d)[(at) + 1] + (hi) * (d)[(at) + 2])

#define ATTN_PARTS(T, SUF, DBL)                                                                   \
void attn_fwd_part_##SUF(void *const *p, const double *s, int64_t b, int64_t e) {                 \
    const int64_t *d = (const int64_t *)p[0];                                                     \
    const int64_t H = d[2], L = d[3], S = d[4], E = d[5];                                         \
    T *buf = malloc(sizeof(T) * (size_t)(L * S));                                                 \
    if (!buf) { *(int64_t *)(intptr_t)d[36] = 1; return; }                                        \
    for (int64_t bh = b; bh < e; bh++) {                                                          \
        const int64_t bi = bh / H, hi = bh % H;                                                   \
        at_gemm(d, DBL, AT_N, AT_T, L, S, E, AT_MAT(T, d, 6, bi, hi), d[9], AT_MAT(T, d, 10, bi, hi), \
                d[13], buf, S);                                                                   \
        attn_softmax_fwd_##SUF(buf, (T *)(intptr_t)d[22] + bh * L, L, S, L, 0, s[0], (int)s[1]);  \
        at_gemm(d, DBL, AT_N, AT_N, L, E, S, buf, S, AT_MAT(T, d, 14, bi, hi), d[17],             \
                AT_MAT(T, d, 18, bi, hi), d[21]);                                                 \
    }                                                                                             \
    free(buf);                                                                                    \
}                                                                                                 \
void attn_bwd_part_##SUF(void *const *p, const double *s, int64_t b, int64_t e) {                 \
    const int64_t *d = (const int64_t *)p[0];                                                     \
    const int64_t H = d[2], L = d[3], S = d[4], E = d[5];                                         \
    T *pb = malloc(sizeof(T) * (size_t)(2 * L * S));                                              \
    if (!pb) { *(int64_t *)(intptr_t)d[36] = 1; return; }                                         \
    T *dp = pb + L * S;                                                                           \
    for (int64_t bh = b; bh < e; bh++) {                                                          \
        const int64_t bi = bh / H, hi = bh % H;                                                   \
        const T *q = AT_MAT(T, d, 6, bi, hi), *k = AT_MAT(T, d, 10, bi, hi);                      \
        const T *v = AT_MAT(T, d, 14, bi, hi), *go = AT_MAT(T, d, 18, bi, hi);                    \
        at_gemm(d, DBL, AT_N, AT_T, L, S, E, q, d[9], k, d[13], pb, S);                           \
        attn_probs_##SUF(pb, (const T *)(intptr_t)d[22] + bh * L, L, S, L, 0, s[0], (int)s[1]);   \
        at_gemm(d, DBL, AT_T, AT_N, S, E, L, pb, S, go, d[21], AT_MAT(T, d, 32, bi, hi), d[35]);  \
        at_gemm(d, DBL, AT_N, AT_T, L, S, E, go, d[21], v, d[17], dp, S);                         \
        attn_softmax_bwd_##SUF(pb, dp, (const T *)(intptr_t)d[23] + bh * L, L, S, L, 0, s[0], (int)s[1]); \
        at_gemm(d, DBL, AT_N, AT_N, L, E, S, dp, S, k, d[13], AT_MAT(T, d, 24, bi, hi), d[27]);   \
        at_gemm(d, DBL, AT_T, AT_N, S, E, L, dp, S, q, d[9], AT_MAT(T, d, 28, bi, hi), d[31]);    \
    }                                                                                             \
    free(pb);                                                                                     \
}

ATTN_PARTS(float, f32, 0)
ATTN_PARTS(double, f64, 1)
