/* layer_norm over the last k elements of each row of a contiguous (rows, k) matrix, and its backward.
 * Row statistics are summed in double (two passes over the row, which sits in cache: the mean, then
 * the sum of squared deviations, so no cancellation), so a float32 row gives its mean and 1/std to
 * float32 rounding. The forward's rows go to threads in any split (a row depends on itself alone). The
 * float64 backward's weight/bias gradients come back as per-chunk double partial sums that Python adds in row
 * order; the float32 backward sums in float lanes and row blocks in one fixed order (layer_norm_bwd_f32). */
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>

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
LN_BWD(double, f64)

/* float32 layer_norm backward, in float as torch's kernel (aten/src/ATen/native/cpu/layer_norm_kernel.cpp sums
 * in float vector lanes for float), with a fixed order that depends on neither the vector width nor the thread
 * count:
 * - the row sums a = sum(gw), c = sum(gw * xhat) (gw = g * w): lane l of LN_LANES = 32 float lanes adds the
 *   elements j = l mod 32 in order of j; the lanes are then added pairwise (lane l + lane l + 16, then + 8, + 4,
 *   + 2, + 1). dx = rstd * ((gw - a/k) - xhat * (c/k)), each product and difference rounded to float.
 * - dw = sum g * xhat, db = sum g over the rows: rows are taken in blocks of LN_RB = 16 counted from row 0; a
 *   block's column sums run in float in row order from 0, and the block sums are added to double totals in block
 *   order (rounded to float by the caller), so the result is one order whatever the split: a split on block
 *   boundaries (layer_norm_bwd_part_f32 + layer_norm_bwd_fold_f32) gives one call's bits.
 * Before this (session 14), both were double sums: a (16, 64, 128) backward took ~86 us min against torch's 57
 * at load ~9 on one thread; the row sums in float lanes and the float block sums halve the vector work. The
 * blocks keep dw/db close to the exact sum: over 20 random (1024, 128) cases the largest error against a
 * float64 sum was 1.1e-5 with 16-row blocks (9.6e-6 with 8, 1.4e-5 with 32; the same time), torch's one-thread
 * row-order float sums 1.2e-4. */
#define LN_LANES 32
#define LN_RB 16

static inline float ln_fold_lanes(float *l) {
    for (int s = LN_LANES / 2; s >= 1; s >>= 1)
        for (int i = 0; i < s; i++) l[i] += l[i + s];
    return l[0];
}

#if defined(__AVX512F__)
#include <immintrin.h>
/* ln_fold_lanes in registers after its first step (v = lanes 0..15 + lanes 16..31): fold16_f32 */
#include "fold16.h"

static inline void ln_row_sums_f32(const float *gr, const float *xr, const float *w, float m, float q, int64_t k,
                                   float *pa, float *pc) {
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, c0 = a0, c1 = a0;
    const __m512 vm = _mm512_set1_ps(m), vq = _mm512_set1_ps(q);
    int64_t j = 0;
    for (; j + 32 <= k; j += 32) {
        __m512 g0 = _mm512_loadu_ps(gr + j), g1 = _mm512_loadu_ps(gr + j + 16);
        if (w) {
            g0 = _mm512_mul_ps(g0, _mm512_loadu_ps(w + j));
            g1 = _mm512_mul_ps(g1, _mm512_loadu_ps(w + j + 16));
        }
        const __m512 h0 = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(xr + j), vm), vq);
        const __m512 h1 = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(xr + j + 16), vm), vq);
        a0 = _mm512_add_ps(a0, g0);
        a1 = _mm512_add_ps(a1, g1);
        c0 = _mm512_add_ps(c0, _mm512_mul_ps(g0, h0));
        c1 = _mm512_add_ps(c1, _mm512_mul_ps(g1, h1));
    }
    if (j < k) {                            /* the tail into lanes 0 .. k - j - 1, the other lanes unchanged */
        const int64_t left = k - j;
        const __mmask16 k0 = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
        const __mmask16 k1 = left > 16 ? (__mmask16)((1u << (left - 16)) - 1u) : (__mmask16)0;
        __m512 g0 = _mm512_maskz_loadu_ps(k0, gr + j), g1 = _mm512_maskz_loadu_ps(k1, gr + j + 16);
        if (w) {
            g0 = _mm512_mul_ps(g0, _mm512_maskz_loadu_ps(k0, w + j));
            g1 = _mm512_mul_ps(g1, _mm512_maskz_loadu_ps(k1, w + j + 16));
        }
        const __m512 h0 = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k0, xr + j), vm), vq);
        const __m512 h1 = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k1, xr + j + 16), vm), vq);
        a0 = _mm512_mask_add_ps(a0, k0, a0, g0);
        a1 = _mm512_mask_add_ps(a1, k1, a1, g1);
        c0 = _mm512_mask_add_ps(c0, k0, c0, _mm512_mul_ps(g0, h0));
        c1 = _mm512_mask_add_ps(c1, k1, c1, _mm512_mul_ps(g1, h1));
    }
    *pa = fold16_f32(_mm512_add_ps(a0, a1));
    *pc = fold16_f32(_mm512_add_ps(c0, c1));
}
#else
/* the portable form of the same sums (the same operations per lane, so the same bits) */
static inline void ln_row_sums_f32(const float *gr, const float *xr, const float *w, float m, float q, int64_t k,
                                   float *pa, float *pc) {
    float la[LN_LANES] = {0}, lc[LN_LANES] = {0};
    for (int64_t j0 = 0; j0 < k; j0 += LN_LANES) {
        const int64_t n = k - j0 < LN_LANES ? k - j0 : LN_LANES;
        for (int64_t i = 0; i < n; i++) {
            const int64_t j = j0 + i;
            const float gw = w ? gr[j] * w[j] : gr[j];
            la[i] += gw;
            lc[i] += gw * ((xr[j] - m) * q);
        }
    }
    *pa = ln_fold_lanes(la);
    *pc = ln_fold_lanes(lc);
}
#endif

/* `rows` rows (at most one block): dx (when not NULL), and pw, pb (k floats each, when not NULL) set to the
 * block's column sums of g * xhat and g, in row order from 0. */
static void ln_bwd_block_f32(const float *g, const float *x, const float *mean, const float *rstd, int64_t rows,
                             int64_t k, const float *w, float *dx, float *pw, float *pb) {
    if (pw) for (int64_t j = 0; j < k; j++) pw[j] = 0.0f;
    if (pb) for (int64_t j = 0; j < k; j++) pb[j] = 0.0f;
    int64_t r = 0;
    if (dx && w && pw && pb) {
        /* the usual affine case two rows at a time: pw and pb loaded and stored once per pair, each still
           adding row r then row r + 1 (the bits of row by row). C call alone, (1024, 128), min us in one
           process, load ~6: 44.6 -> 42.4 and 50 -> 44 against row by row. */
        for (; r + 2 <= rows; r += 2) {
            const float *g0 = g + r * k, *x0 = x + r * k, *g1 = g0 + k, *x1 = x0 + k;
            const float m0 = mean[r], q0 = rstd[r], m1 = mean[r + 1], q1 = rstd[r + 1];
            float *d0 = dx + r * k, *d1 = d0 + k;
            float a0, c0, a1, c1;
            ln_row_sums_f32(g0, x0, w, m0, q0, k, &a0, &c0);
            ln_row_sums_f32(g1, x1, w, m1, q1, k, &a1, &c1);
            const float am0 = a0 / (float)k, cm0 = c0 / (float)k, am1 = a1 / (float)k, cm1 = c1 / (float)k;
            _Pragma("omp simd")
            for (int64_t j = 0; j < k; j++) {
                const float h0 = (x0[j] - m0) * q0, h1 = (x1[j] - m1) * q1;
                d0[j] = q0 * ((g0[j] * w[j] - am0) - h0 * cm0);
                d1[j] = q1 * ((g1[j] * w[j] - am1) - h1 * cm1);
                pw[j] = (pw[j] + g0[j] * h0) + g1[j] * h1;
                pb[j] = (pb[j] + g0[j]) + g1[j];
            }
        }
    }
    for (; r < rows; r++) {
        const float *gr = g + r * k, *xr = x + r * k;
        const float m = mean[r], q = rstd[r];
        if (dx) {
            float *dr = dx + r * k;
            float a, c;
            ln_row_sums_f32(gr, xr, w, m, q, k, &a, &c);
            const float am = a / (float)k, cm = c / (float)k;
            if (w && pw && pb) {            /* the usual affine case in one pass over g and x */
                _Pragma("omp simd")
                for (int64_t j = 0; j < k; j++) {
                    const float xh = (xr[j] - m) * q;
                    dr[j] = q * ((gr[j] * w[j] - am) - xh * cm);
                    pw[j] += gr[j] * xh;
                    pb[j] += gr[j];
                }
                continue;
            }
            if (w) {
                _Pragma("omp simd")
                for (int64_t j = 0; j < k; j++) dr[j] = q * ((gr[j] * w[j] - am) - ((xr[j] - m) * q) * cm);
            } else {
                _Pragma("omp simd")
                for (int64_t j = 0; j < k; j++) dr[j] = q * ((gr[j] - am) - ((xr[j] - m) * q) * cm);
            }
        }
        if (pw) {
            _Pragma("omp simd")
            for (int64_t j = 0; j < k; j++) pw[j] += gr[j] * ((xr[j] - m) * q);
        }
        if (pb) {
            _Pragma("omp simd")
            for (int64_t j = 0; j < k; j++) pb[j] += gr[j];
        }
    }
}

/* dw[j] += block sums buf[b][0][j], db[j] += buf[b][1][j] for the nb blocks in order (buf: nb x 2 x k floats;
 * dw or db may be NULL). */
void layer_norm_bwd_fold_f32(const float *buf, int64_t nb, int64_t k, double *dw, double *db) {
    for (int64_t b = 0; b < nb; b++) {
        const float *pw = buf + b * 2 * k, *pb = pw + k;
        if (dw) {
            _Pragma("omp simd")
            for (int64_t j = 0; j < k; j++) dw[j] += (double)pw[j];
        }
        if (db) {
            _Pragma("omp simd")
            for (int64_t j = 0; j < k; j++) db[j] += (double)pb[j];
        }
    }
}

/* The whole backward on the calling thread: the same blocks and the same fold as the parts below. dw, db:
 * k doubles each (added to) or NULL. If the block buffer cannot be had (k > 2048 and malloc fails), dw and db
 * are set to NaN rather than left wrong. */
void layer_norm_bwd_f32(const float *g, const float *x, const float *mean, const float *rstd, int64_t rows,
                        int64_t k, const float *w, float *dx, double *dw, double *db) {
    float sbuf[2 * 2048];
    float *buf = NULL;
    if (dw || db) {
        buf = k <= 2048 ? sbuf : (float *)malloc((size_t)(2 * k) * sizeof(float));
        if (!buf) {
            for (int64_t j = 0; j < k; j++) {
                if (dw) dw[j] = NAN;
                if (db) db[j] = NAN;
            }
        }
    }
    for (int64_t r0 = 0; r0 < rows; r0 += LN_RB) {
        const int64_t n = rows - r0 < LN_RB ? rows - r0 : LN_RB;
        ln_bwd_block_f32(g + r0 * k, x + r0 * k, mean + r0, rstd + r0, n, k, w, dx ? dx + r0 * k : NULL,
                         buf && dw ? buf : NULL, buf && db ? buf + k : NULL);
        if (buf) layer_norm_bwd_fold_f32(buf, 1, k, dw, db);
    }
    if (buf && buf != sbuf) free(buf);
}

/* csrc/parallel.c part of the float32 backward (kernels/cpu/norm_rows.py's _ln_bwd_f32), items = row blocks of
 * LN_RB rows: p[0] an int64 descriptor {g, x, mean, rstd, w, dx, buf, k, rows, want_dw, want_db}; block b writes
 * its dx rows and its column sums to buf[b] (2 x k floats), which layer_norm_bwd_fold_f32 then adds in order. */
void layer_norm_bwd_part_f32(void *const *p, const double *s, int64_t b, int64_t e) {
    (void)s;
    const int64_t *d = (const int64_t *)p[0];
    const int64_t k = d[7], rows = d[8];
    const float *g = (const float *)d[0], *x = (const float *)d[1], *mean = (const float *)d[2];
    const float *rstd = (const float *)d[3], *w = (const float *)d[4];
    float *dx = (float *)d[5], *buf = (float *)d[6];
    for (int64_t blk = b; blk < e; blk++) {
        const int64_t r0 = blk * LN_RB, n = rows - r0 < LN_RB ? rows - r0 : LN_RB;
        float *pw = buf + blk * 2 * k;
        ln_bwd_block_f32(g + r0 * k, x + r0 * k, mean + r0, rstd + r0, n, k, w, dx ? dx + r0 * k : NULL,
                         d[9] ? pw : NULL, d[10] ? pw + k : NULL);
    }
}

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
