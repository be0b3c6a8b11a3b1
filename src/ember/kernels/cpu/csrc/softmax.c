/* softmax / log_softmax over the last dim of a contiguous (rows, k) matrix, and their backward.
 * Per row: the max (one pass), exp(x - max) summed (and stored for softmax), then the scale (softmax:
 * times 1/sum) or the shift (log_softmax: (x - max) - log(sum)). A row fits in cache, so the row is
 * read from memory once and written once. As in torch, a row holding NaN or +inf, or only -inf, gives
 * NaN. Python splits the rows over threads, one call per chunk. */
#include <math.h>
#include <stdint.h>
#include "vmath.h"

#include "blocked_sum.h"

#define SOFTMAX_FWD(T, SUF, EXP)                                                        \
void softmax_fwd_##SUF(const T *x, T *y, int64_t rows, int64_t k, int logm) {          \
    for (int64_t r = 0; r < rows; r++) {                                                \
        const T *xr = x + r * k;                                                        \
        T *yr = y + r * k;                                                              \
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
