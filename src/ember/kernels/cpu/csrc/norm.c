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
            if (w && dw && db) {                                                        \
                /* the usual affine case in one pass: the same expressions as the loops  \
                   below (bit for bit), g and x read once instead of three times */     \
                _Pragma("omp simd")                                                     \
                for (int64_t j = 0; j < k; j++) {                                       \
                    const T xh = (xr[j] - m) * q;                                       \
                    dr[j] = q * ((gr[j] * w[j] - am) - xh * cm);                        \
                    dw[j] += (double)(gr[j] * xh);                                      \
                    db[j] += (double)gr[j];                                             \
                }                                                                       \
                continue;                                                               \
            }                                                                           \
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

/* csrc/parallel.c part of layer_norm's forward over the rows of a (rows, k) matrix (kernels/cpu/norm_rows.py's
 * _ln_pool), p[0] an int64 descriptor {x, y, mean, rstd, w, b, k}, s[0] eps, items = rows: layer_norm_fwd on
 * rows [begin, end). A row's output and statistics depend on that row alone: every split gives one call's bits. */
#define LN_PARTS(T, SUF)                                                                \
void layer_norm_fwd_part_##SUF(void *const *p, const double *s, int64_t b, int64_t e) { \
    const int64_t *d = (const int64_t *)p[0];                                           \
    const int64_t k = d[6];                                                             \
    layer_norm_fwd_##SUF((const T *)d[0] + b * k, (T *)d[1] + b * k, (T *)d[2] + b, (T *)d[3] + b, \
                         e - b, k, (const T *)d[4], (const T *)d[5], s[0]);             \
}

LN_PARTS(float, f32)
LN_PARTS(double, f64)

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

/* batch_norm: x is (N, C, HW) contiguous. Per channel c in [c0, c1): mean and biased variance over its
 * N*HW values, summed in double after shifting by the channel's first value (one pass, no
 * cancellation for data far from 0). */
#define BN_STATS(T, SUF)                                                                \
void batch_norm_stats_##SUF(const T *x, int64_t N, int64_t C, int64_t HW, int64_t c0, int64_t c1, \
                            double *mean, double *var) {                                \
    const double n = (double)(N * HW);                                                  \
    for (int64_t c = c0; c < c1; c++) {                                                 \
        const double x0 = (double)x[c * HW];                                            \
        double s = 0, s2 = 0;                                                           \
        for (int64_t i = 0; i < N; i++) {                                               \
            const T *xc = x + (i * C + c) * HW;                                         \
            _Pragma("omp simd reduction(+:s,s2)")                                       \
            for (int64_t j = 0; j < HW; j++) { double d = (double)xc[j] - x0; s += d; s2 += d * d; } \
        }                                                                               \
        const double dm = s / n;                                                        \
        const double v = s2 / n - dm * dm;                                              \
        mean[c] = x0 + dm;                                                              \
        var[c] = v > 0 ? v : 0;                                                         \
    }                                                                                   \
}

/* y = (x - m[c]) * s[c] + b[c] for `rows` rows of HW values from global row r0 (c = row % C). */
#define CH_AFFINE(T, SUF)                                                               \
void channel_affine_##SUF(const T *x, T *y, int64_t rows, int64_t r0, int64_t C, int64_t HW, \
                          const T *m, const T *s, const T *b) {                         \
    for (int64_t r = 0; r < rows; r++) {                                                \
        const int64_t c = (r0 + r) % C;                                                 \
        const T mc = m[c], sc = s[c], bc = b[c];                                        \
        const T *xr = x + r * HW;                                                       \
        T *yr = y + r * HW;                                                             \
        _Pragma("omp simd")                                                             \
        for (int64_t j = 0; j < HW; j++) yr[j] = (xr[j] - mc) * sc + bc;                \
    }                                                                                   \
}

/* batch_norm backward sums per channel c in [c0, c1): sg[c] = sum g, sgx[c] = sum g * (x - m[c]) * q[c]. */
#define BN_BWD_STATS(T, SUF)                                                            \
void batch_norm_bwd_stats_##SUF(const T *g, const T *x, int64_t N, int64_t C, int64_t HW, int64_t c0, \
                                int64_t c1, const T *m, const T *q, double *sg, double *sgx) { \
    for (int64_t c = c0; c < c1; c++) {                                                 \
        const T mc = m[c], qc = q[c];                                                   \
        double a = 0, b = 0;                                                            \
        for (int64_t i = 0; i < N; i++) {                                               \
            const T *gc = g + (i * C + c) * HW, *xc = x + (i * C + c) * HW;             \
            _Pragma("omp simd reduction(+:a,b)")                                        \
            for (int64_t j = 0; j < HW; j++) { a += (double)gc[j]; b += (double)(gc[j] * ((xc[j] - mc) * qc)); } \
        }                                                                               \
        sg[c] = a;                                                                      \
        sgx[c] = b;                                                                     \
    }                                                                                   \
}

/* dx = (g - d[c] - (x - m[c]) * e[c]) * a[c] for `rows` rows of HW values from global row r0. */
#define CH_BWD(T, SUF)                                                                  \
void channel_bwd_##SUF(const T *g, const T *x, T *dx, int64_t rows, int64_t r0, int64_t C, int64_t HW, \
                       const T *m, const T *a, const T *d, const T *e) {                \
    for (int64_t r = 0; r < rows; r++) {                                                \
        const int64_t c = (r0 + r) % C;                                                 \
        const T mc = m[c], ac = a[c], dc = d[c], ec = e[c];                             \
        const T *gr = g + r * HW, *xr = x + r * HW;                                     \
        T *o = dx + r * HW;                                                             \
        _Pragma("omp simd")                                                             \
        for (int64_t j = 0; j < HW; j++) o[j] = ((gr[j] - dc) - (xr[j] - mc) * ec) * ac; \
    }                                                                                   \
}

BN_STATS(float, f32)
BN_STATS(double, f64)
CH_AFFINE(float, f32)
CH_AFFINE(double, f64)
BN_BWD_STATS(float, f32)
BN_BWD_STATS(double, f64)
CH_BWD(float, f32)
CH_BWD(double, f64)
