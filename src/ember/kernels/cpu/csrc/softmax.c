/* softmax / log_softmax over the last dim of a contiguous (rows, k) matrix, and their backward.
 * Per row: the max (one pass), exp(x - max) summed (and stored for softmax), then the scale (softmax:
 * times 1/sum) or the shift (log_softmax: (x - max) - log(sum)). A row fits in cache, so the row is
 * read from memory once and written once. As in torch, a row holding NaN or +inf, or only -inf, gives
 * NaN. Python splits the rows over threads, one call per chunk. */
#include <math.h>
#include <stdint.h>
#include "vmath.h"

#define SOFTMAX_FWD(T, SUF, EXP, LOG)                                                   \
void softmax_fwd_##SUF(const T *x, T *y, int64_t rows, int64_t k, int logm) {          \
    for (int64_t r = 0; r < rows; r++) {                                                \
        const T *xr = x + r * k;                                                        \
        T *yr = y + r * k;                                                              \
        T m = xr[0];                                                                    \
        _Pragma("omp simd reduction(max:m)")                                            \
        for (int64_t j = 0; j < k; j++) m = xr[j] > m ? xr[j] : m;                      \
        T s = 0;                                                                        \
        if (logm) {                                                                     \
            _Pragma("omp simd reduction(+:s)")                                          \
            for (int64_t j = 0; j < k; j++) s += EXP(xr[j] - m);                        \
            T ls = (T)LOG(s);                                                           \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < k; j++) yr[j] = (xr[j] - m) - ls;                   \
        } else {                                                                        \
            _Pragma("omp simd reduction(+:s)")                                          \
            for (int64_t j = 0; j < k; j++) { T e = EXP(xr[j] - m); yr[j] = e; s += e; } \
            T inv = (T)1 / s;                                                           \
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
        T s = 0;                                                                        \
        if (logm) {                                                                     \
            _Pragma("omp simd reduction(+:s)")                                          \
            for (int64_t j = 0; j < k; j++) s += gr[j];                                 \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < k; j++) dr[j] = gr[j] - EXP(yr[j]) * s;             \
        } else {                                                                        \
            _Pragma("omp simd reduction(+:s)")                                          \
            for (int64_t j = 0; j < k; j++) s += gr[j] * yr[j];                         \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < k; j++) dr[j] = (gr[j] - s) * yr[j];                \
        }                                                                               \
    }                                                                                   \
}

SOFTMAX_FWD(float, f32, vm_expf, logf)
SOFTMAX_FWD(double, f64, vm_exp, log)
SOFTMAX_BWD(float, f32, vm_expf)
SOFTMAX_BWD(double, f64, vm_exp)
