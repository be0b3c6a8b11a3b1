/* layer_norm over the last k elements of each row of a contiguous (rows, k) matrix, and its backward.
 * Row statistics are summed in double (two passes over the row, which sits in cache: the mean, then
 * the sum of squared deviations, so no cancellation), so a float32 row gives its mean and 1/std to
 * float32 rounding. Python splits the rows over threads, one call per chunk; the weight/bias gradients
 * come back as per-chunk double partial sums that Python adds in row order (deterministic). */
#include <math.h>
#include <stdint.h>
#include <stddef.h>

/* y = (x - mean) * rstd [* w] [+ b]; mean, rstd: one per row; w, b: k values or NULL. */
#define LN_FWD(T, SUF)                                                                  \
void layer_norm_fwd_##SUF(const T *x, T *y, T *mean, T *rstd, int64_t rows, int64_t k,  \
                          const T *w, const T *b, double eps) {                         \
    for (int64_t r = 0; r < rows; r++) {                                                \
        const T *xr = x + r * k;                                                        \
        T *yr = y + r * k;                                                              \
        double s = 0, v = 0;                                                            \
        _Pragma("omp simd reduction(+:s)")                                              \
        for (int64_t j = 0; j < k; j++) s += (double)xr[j];                             \
        double mu = s / (double)k;                                                      \
        _Pragma("omp simd reduction(+:v)")                                              \
        for (int64_t j = 0; j < k; j++) { double d = (double)xr[j] - mu; v += d * d; }  \
        double rs = 1.0 / sqrt(v / (double)k + eps);                                    \
        T m = (T)mu, q = (T)rs;                                                         \
        mean[r] = m;                                                                    \
        rstd[r] = q;                                                                    \
        if (w && b) {                                                                   \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < k; j++) yr[j] = (xr[j] - m) * q * w[j] + b[j];      \
        } else if (w) {                                                                 \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < k; j++) yr[j] = (xr[j] - m) * q * w[j];             \
        } else if (b) {                                                                 \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < k; j++) yr[j] = (xr[j] - m) * q + b[j];             \
        } else {                                                                        \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < k; j++) yr[j] = (xr[j] - m) * q;                    \
        }                                                                               \
    }                                                                                   \
}

/* xhat = (x - mean) * rstd, gw = g * w (g when w is NULL):
 * dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat))   (when dx is not NULL)
 * dw[j] += g * xhat, db[j] += g over the rows               (each when not NULL; double sums) */
#define LN_BWD(T, SUF)                                                                  \
void layer_norm_bwd_##SUF(const T *g, const T *x, const T *mean, const T *rstd,         \
                          int64_t rows, int64_t k, const T *w, T *dx, double *dw, double *db) { \
    for (int64_t r = 0; r < rows; r++) {                                                \
        const T *gr = g + r * k, *xr = x + r * k;                                       \
        const T m = mean[r], q = rstd[r];                                               \
        if (dx) {                                                                       \
            T *dr = dx + r * k;                                                         \
            double a = 0, c = 0;                                                        \
            if (w) {                                                                    \
                _Pragma("omp simd reduction(+:a,c)")                                    \
                for (int64_t j = 0; j < k; j++) {                                       \
                    T gw = gr[j] * w[j];                                                \
                    a += (double)gw;                                                    \
                    c += (double)(gw * ((xr[j] - m) * q));                              \
                }                                                                       \
            } else {                                                                    \
                _Pragma("omp simd reduction(+:a,c)")                                    \
                for (int64_t j = 0; j < k; j++) {                                       \
                    a += (double)gr[j];                                                 \
                    c += (double)(gr[j] * ((xr[j] - m) * q));                           \
                }                                                                       \
            }                                                                           \
            const T am = (T)(a / (double)k), cm = (T)(c / (double)k);                   \
            if (w) {                                                                    \
                _Pragma("omp simd")                                                     \
                for (int64_t j = 0; j < k; j++)                                         \
                    dr[j] = q * ((gr[j] * w[j] - am) - ((xr[j] - m) * q) * cm);         \
            } else {                                                                    \
                _Pragma("omp simd")                                                     \
                for (int64_t j = 0; j < k; j++)                                         \
                    dr[j] = q * ((gr[j] - am) - ((xr[j] - m) * q) * cm);                \
            }                                                                           \
        }                                                                               \
        if (dw) {                                                                       \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < k; j++) dw[j] += (double)(gr[j] * ((xr[j] - m) * q)); \
        }                                                                               \
        if (db) {                                                                       \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < k; j++) db[j] += (double)gr[j];                     \
        }                                                                               \
    }                                                                                   \
}

LN_FWD(float, f32)
LN_FWD(double, f64)
LN_BWD(float, f32)
LN_BWD(double, f64)
