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

/* group_norm: x is (N, C, HxW) contiguous, seen as N*G rows of Cg*HxW values (Cg = C/G channels of
 * HxW each). `rows` rows starting at global row r0 (row r covers channels (r % G)*Cg ...). Stats as in
 * layer_norm; y = (x - mean) * rstd * w[c] + b[c] with the per-channel weight/bias (either NULL). */
#define GN_FWD(T, SUF)                                                                  \
void group_norm_fwd_##SUF(const T *x, T *y, T *mean, T *rstd, int64_t rows, int64_t r0, int64_t G, \
                          int64_t Cg, int64_t HxW, const T *w, const T *b, double eps) { \
    const int64_t k = Cg * HxW;                                                         \
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
        int64_t c0 = ((r0 + r) % G) * Cg;                                               \
        for (int64_t i = 0; i < Cg; i++) {                                              \
            const T sc = w ? q * w[c0 + i] : q, sh = b ? b[c0 + i] : (T)0;              \
            const T *xc = xr + i * HxW;                                                 \
            T *yc = yr + i * HxW;                                                       \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < HxW; j++) yc[j] = (xc[j] - m) * sc + sh;            \
        }                                                                               \
    }                                                                                   \
}

/* group_norm backward over `rows` (n, g) rows from global row r0: gw = g * w[c], xhat = (x - mean) * rstd,
 * dx = rstd * (gw - mean_row(gw) - xhat * mean_row(gw * xhat)) (dx may be NULL); dw[c] += sum g * xhat,
 * db[c] += sum g over the channel's HxW values (C doubles each, may be NULL). */
#define GN_BWD(T, SUF)                                                                  \
void group_norm_bwd_##SUF(const T *g, const T *x, const T *mean, const T *rstd, int64_t rows, int64_t r0, \
                          int64_t G, int64_t Cg, int64_t HxW, const T *w, T *dx, double *dw, double *db) { \
    const int64_t k = Cg * HxW;                                                         \
    for (int64_t r = 0; r < rows; r++) {                                                \
        const T *gr = g + r * k, *xr = x + r * k;                                       \
        const T m = mean[r], q = rstd[r];                                               \
        const int64_t c0 = ((r0 + r) % G) * Cg;                                         \
        double a = 0, cc = 0;                                                           \
        for (int64_t i = 0; i < Cg; i++) {                                              \
            const T *gc = gr + i * HxW, *xc = xr + i * HxW;                             \
            double sg = 0, sgx = 0;                                                     \
            _Pragma("omp simd reduction(+:sg,sgx)")                                     \
            for (int64_t j = 0; j < HxW; j++) {                                         \
                sg += (double)gc[j];                                                    \
                sgx += (double)(gc[j] * ((xc[j] - m) * q));                             \
            }                                                                           \
            const double wc = w ? (double)w[c0 + i] : 1.0;                              \
            a += wc * sg;                                                               \
            cc += wc * sgx;                                                             \
            if (dw) dw[c0 + i] += sgx;                                                  \
            if (db) db[c0 + i] += sg;                                                   \
        }                                                                               \
        if (!dx) continue;                                                              \
        const T am = (T)(a / (double)k), cm = (T)(cc / (double)k);                      \
        for (int64_t i = 0; i < Cg; i++) {                                              \
            const T *gc = gr + i * HxW, *xc = xr + i * HxW;                             \
            T *dc = dx + r * k + i * HxW;                                               \
            const T wc = w ? w[c0 + i] : (T)1;                                          \
            _Pragma("omp simd")                                                         \
            for (int64_t j = 0; j < HxW; j++)                                           \
                dc[j] = q * ((gc[j] * wc - am) - ((xc[j] - m) * q) * cm);               \
        }                                                                               \
    }                                                                                   \
}

GN_FWD(float, f32)
GN_FWD(double, f64)
GN_BWD(float, f32)
GN_BWD(double, f64)
