/* Row kernels of the fused attention (kernels/cpu/attention.py): the matrix products run in BLAS, these
 * do the per-row softmax work on a contiguous (rows, n) block of raw scores s = q.k, row r being query
 * position i = (r0 + r) % L. A row's valid keys are j < min(i + 1, n) when causal (torch's top-left
 * aligned is_causal mask), every j < n otherwise; masked entries come out 0. Python splits the rows over
 * threads, one call per chunk (r0 = the chunk's first row). */
#include <math.h>
#include <stdint.h>
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
