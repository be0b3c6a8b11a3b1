/* 2-d max and average pooling, forward and backward, over `planes` contiguous (H, W) planes
   (1-d pools pass H = 1 with a unit kernel, stride and dilation in that dim).

   geometry g[12]: H W  KH KW  SH SW  PH PW  DH DW  OH OW. A window is the kernel offsets whose
   input position lies inside the plane (padding positions never win a max and only count for an
   average with count_include_pad).

   Max: the first of equal maxima wins; NaN wins over everything and a later NaN over an earlier
   one (each NaN replaces the running max), as torch's cpu kernel does. The index is the flat
   position in the plane (ih * W + iw); an all -inf window keeps its first inside position. */
#include <math.h>
#include <stdint.h>
#include <string.h>

/* first kernel offset k with 0 <= start + k*dil, and one past the last with start + k*dil < n */
static inline void krange(int64_t start, int64_t n, int64_t k, int64_t dil, int64_t *lo, int64_t *hi) {
    int64_t a = start >= 0 ? 0 : (-start + dil - 1) / dil;
    int64_t b = n - start <= 0 ? 0 : (n - start + dil - 1) / dil;
    if (b > k) b = k;
    if (a > b) a = b;
    *lo = a;
    *hi = b;
}

#define GEOM                                                                                     \
    const int64_t H = g[0], W = g[1], KH = g[2], KW = g[3], SH = g[4], SW = g[5];              \
    const int64_t PH = g[6], PW = g[7], DH = g[8], DW = g[9], OH = g[10], OW = g[11];

/* one output position by the general rule (any clipping at the plane's edges) */
#define MAX_ONE(T)                                                                               \
    {                                                                                            \
        const int64_t w0 = ow * SW - PW;                                                         \
        int64_t blo, bhi;                                                                        \
        krange(w0, W, KW, DW, &blo, &bhi);                                                       \
        T best = -INFINITY;                                                                      \
        int64_t bi = (h0 + alo * DH) * W + w0 + blo * DW;                                        \
        for (int64_t a = alo; a < ahi; a++) {                                                    \
            const int64_t r = (h0 + a * DH) * W + w0;                                            \
            for (int64_t b = blo; b < bhi; b++) {                                                \
                const T v = xp[r + b * DW];                                                      \
                if (v > best || v != v) {                                                        \
                    best = v;                                                                    \
                    bi = r + b * DW;                                                             \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
        yr[ow] = best;                                                                           \
        ir[ow] = bi;                                                                             \
    }

/* A row whose windows lie inside the plane in h: its inner outputs (whole window inside in w too)
   go kernel offset by kernel offset over the whole run of outputs (a loop gcc vectorises), in the
   same offset order as the general rule, so ties and NaNs resolve the same way. */
/* The 2x2 stride-2 pool without padding or dilation (LeNet's, VGG's): every window lies inside
   the plane, so each output is four loads compared in the general rule's order (a, b on the first
   row, c, d on the second). Eight outputs at a time: two 16-element loads per row, split into even
   (a, c) and odd (b, d) lanes by a shuffle, the comparisons as lane masks and the selects as bit
   blends (GCC vector extensions; no branch on the data). The per-element loop this replaces
   compiled to three data-dependent branches per output (random data: mispredicted about half the
   time) or, vectorised by gcc, to a gather-like stride-2 loop that never left its short-row tail:
   4-5 ns per output on the EPYC (CNN step: (64, 6, 28, 28) 340 us, (64, 16, 10, 10) 90-230 us), 0.4-0.6
   ns now. A row's last OW % 8 outputs go through a local 16-element copy of their inputs. */
#define MAX_FWD_2X2(T, MI, NAME)                                                                 \
typedef T NAME##_v16 __attribute__((vector_size(16 * sizeof(T))));                              \
typedef T NAME##_v8 __attribute__((vector_size(8 * sizeof(T))));                                \
typedef MI NAME##_m8 __attribute__((vector_size(8 * sizeof(T))));                               \
typedef int64_t NAME##_l8 __attribute__((vector_size(64)));                                     \
/* outputs of eight windows whose first rows start at r0, r1 (16 inputs each); i0 the flat index  \
   of r0[0], W the row length */                                                                 \
static inline void NAME##_eight(const T *r0, const T *r1, int64_t i0, int64_t W, T *yr, int64_t *ir) { \
    NAME##_v16 u0, u1;                                                                           \
    __builtin_memcpy(&u0, r0, sizeof u0);                                                        \
    __builtin_memcpy(&u1, r1, sizeof u1);                                                        \
    NAME##_v8 a = __builtin_shufflevector(u0, u0, 0, 2, 4, 6, 8, 10, 12, 14);                    \
    NAME##_v8 b = __builtin_shufflevector(u0, u0, 1, 3, 5, 7, 9, 11, 13, 15);                    \
    NAME##_v8 c = __builtin_shufflevector(u1, u1, 0, 2, 4, 6, 8, 10, 12, 14);                    \
    NAME##_v8 d = __builtin_shufflevector(u1, u1, 1, 3, 5, 7, 9, 11, 13, 15);                    \
    NAME##_m8 m = (b > a) | (b != b);                                                            \
    NAME##_v8 best = (NAME##_v8)(((NAME##_m8)b & m) | ((NAME##_m8)a & ~m));                      \
    NAME##_m8 off = m & 1;                                                                       \
    m = (c > best) | (c != c);                                                                   \
    best = (NAME##_v8)(((NAME##_m8)c & m) | ((NAME##_m8)best & ~m));                             \
    off = (m & (MI)W) | (off & ~m);                                                              \
    m = (d > best) | (d != d);                                                                   \
    best = (NAME##_v8)(((NAME##_m8)d & m) | ((NAME##_m8)best & ~m));                             \
    off = (m & (MI)(W + 1)) | (off & ~m);                                                        \
    NAME##_l8 ix = __builtin_convertvector(off, NAME##_l8) + i0 + (NAME##_l8){0, 2, 4, 6, 8, 10, 12, 14}; \
    __builtin_memcpy(yr, &best, sizeof best);                                                    \
    __builtin_memcpy(ir, &ix, sizeof ix);                                                        \
}                                                                                                \
static void NAME(const T *x, T *y, int64_t *idx, int64_t H, int64_t W, int64_t OH, int64_t OW,   \
                 int64_t planes) {                                                               \
    const int64_t full = OW / 8 * 8, t = OW - full;                                              \
    const T *xend = x + planes * H * W;                                                          \
    for (int64_t p = 0; p < planes; p++) {                                                       \
        const T *xp = x + p * H * W;                                                             \
        for (int64_t oh = 0; oh < OH; oh++) {                                                    \
            const int64_t base = 2 * oh * W;                                                     \
            const T *r0 = xp + base, *r1 = r0 + W;                                               \
            T *yr = y + (p * OH + oh) * OW;                                                      \
            int64_t *ir = idx + (p * OH + oh) * OW;                                              \
            for (int64_t ow = 0; ow < full; ow += 8)                                             \
                NAME##_eight(r0 + 2 * ow, r1 + 2 * ow, base + 2 * ow, W, yr + ow, ir + ow);      \
            if (t && full) {              /* the row's last eight again, overlapping: same values */\
                const int64_t o8 = OW - 8;                                                       \
                NAME##_eight(r0 + 2 * o8, r1 + 2 * o8, base + 2 * o8, W, yr + o8, ir + o8);      \
            } else if (t) {               /* a row shorter than eight: read past it while inside x */\
                T s0[16], s1[16], ys[8];                                                         \
                int64_t is[8];                                                                   \
                const T *q0 = r0, *q1 = r1;                                                      \
                if (r1 + 16 > xend) {                                                            \
                    memset(s0, 0, sizeof s0);                                                    \
                    memset(s1, 0, sizeof s1);                                                    \
                    memcpy(s0, r0, sizeof(T) * 2 * t);                                           \
                    memcpy(s1, r1, sizeof(T) * 2 * t);                                           \
                    q0 = s0;                                                                     \
                    q1 = s1;                                                                     \
                }                                                                                \
                NAME##_eight(q0, q1, base, W, ys, is);                                           \
                memcpy(yr, ys, sizeof(T) * t);                                                   \
                memcpy(ir, is, sizeof(int64_t) * t);                                             \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
}

#define MAX_FWD(T, NAME, NAME2X2)                                                                \
void NAME(const T *x, T *y, int64_t *idx, const int64_t *g, int64_t planes) {                    \
    GEOM                                                                                         \
    if (KH == 2 && KW == 2 && SH == 2 && SW == 2 && PH == 0 && PW == 0 && DH == 1 && DW == 1     \
            && 2 * OH <= H && 2 * OW <= W) {                                                     \
        NAME2X2(x, y, idx, H, W, OH, OW, planes);                                                \
        return;                                                                                  \
    }                                                                                            \
    int64_t olo = PW <= 0 ? 0 : (PW + SW - 1) / SW;                                              \
    int64_t ohi = W - (KW - 1) * DW + PW <= 0 ? 0 : (W - (KW - 1) * DW + PW + SW - 1) / SW;      \
    if (ohi > OW) ohi = OW;                                                                      \
    if (olo > ohi) olo = ohi;                                                                    \
    for (int64_t p = 0; p < planes; p++) {                                                       \
        const T *xp = x + p * H * W;                                                             \
        for (int64_t oh = 0; oh < OH; oh++) {                                                    \
            T *yr = y + (p * OH + oh) * OW;                                                      \
            int64_t *ir = idx + (p * OH + oh) * OW;                                              \
            const int64_t h0 = oh * SH - PH;                                                     \
            int64_t alo, ahi;                                                                    \
            krange(h0, H, KH, DH, &alo, &ahi);                                                   \
            if (alo != 0 || ahi != KH || olo >= ohi) {                                           \
                for (int64_t ow = 0; ow < OW; ow++) MAX_ONE(T)                                   \
                continue;                                                                        \
            }                                                                                    \
            for (int64_t ow = 0; ow < olo; ow++) MAX_ONE(T)                                      \
            for (int64_t ow = ohi; ow < OW; ow++) MAX_ONE(T)                                     \
            const int64_t base = h0 * W - PW;                                                    \
            for (int64_t ow = olo; ow < ohi; ow++) {                                             \
                yr[ow] = xp[base + ow * SW];                                                     \
                ir[ow] = base + ow * SW;                                                         \
            }                                                                                    \
            for (int64_t a = 0; a < KH; a++)                                                     \
            for (int64_t b = 0; b < KW; b++) {                                                   \
                if (a == 0 && b == 0) continue;                                                  \
                const int64_t off = base + a * DH * W + b * DW;                                  \
                const T *xo = xp + off;                                                          \
                _Pragma("omp simd")                                                              \
                for (int64_t ow = olo; ow < ohi; ow++) {                                         \
                    const T v = xo[ow * SW], m = yr[ow];                                         \
                    const int c = (v > m) | (v != v);                                            \
                    yr[ow] = c ? v : m;                                                          \
                    ir[ow] = c ? off + ow * SW : ir[ow];                                         \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
}

/* gi (planes, hw) = 0, then gi[p, idx[p, j]] += go[p, j] for j < o. Returns -1, or the flat
   position in idx of the first index outside [0, hw) (gi is then incomplete). */
#define MAX_BWD(T, NAME)                                                                         \
int64_t NAME(const T *go, const int64_t *idx, T *gi, int64_t planes, int64_t o, int64_t hw) {   \
    memset(gi, 0, sizeof(T) * planes * hw);                                                      \
    for (int64_t p = 0; p < planes; p++) {                                                       \
        const T *gp = go + p * o;                                                                \
        const int64_t *ip = idx + p * o;                                                         \
        T *dst = gi + p * hw;                                                                    \
        for (int64_t j = 0; j < o; j++) {                                                        \
            const int64_t k = ip[j];                                                             \
            if (k < 0 || k >= hw) return p * o + j;                                              \
            dst[k] += gp[j];                                                                     \
        }                                                                                        \
    }                                                                                            \
    return -1;                                                                                   \
}

/* the divisor of window (h0, w0): divisor_override if not 0, else the window clipped to the padded
   plane (count_include_pad) or to the plane */
static inline int64_t avg_div(int64_t h0, int64_t w0, const int64_t *g, int include_pad, int64_t override) {
    if (override != 0) return override;
    const int64_t H = g[0], W = g[1], KH = g[2], KW = g[3], PH = g[6], PW = g[7];
    int64_t h1 = h0 + KH < H + PH ? h0 + KH : H + PH, w1 = w0 + KW < W + PW ? w0 + KW : W + PW;
    if (include_pad) return (h1 - h0) * (w1 - w0);
    int64_t a = h0 > 0 ? h0 : 0, b = w0 > 0 ? w0 : 0;
    h1 = h1 < H ? h1 : H;
    w1 = w1 < W ? w1 : W;
    return (h1 - a) * (w1 - b);
}

#define AVG_FWD(T, NAME)                                                                         \
void NAME(const T *x, T *y, const int64_t *g, int64_t planes, int include_pad, int64_t override) { \
    GEOM                                                                                         \
    (void)DH; (void)DW;                                                                          \
    for (int64_t p = 0; p < planes; p++) {                                                       \
        const T *xp = x + p * H * W;                                                             \
        T *yp = y + p * OH * OW;                                                                 \
        for (int64_t oh = 0; oh < OH; oh++) {                                                    \
            const int64_t h0 = oh * SH - PH;                                                     \
            int64_t alo, ahi;                                                                    \
            krange(h0, H, KH, 1, &alo, &ahi);                                                    \
            for (int64_t ow = 0; ow < OW; ow++) {                                                \
                const int64_t w0 = ow * SW - PW;                                                 \
                int64_t blo, bhi;                                                                \
                krange(w0, W, KW, 1, &blo, &bhi);                                                \
                T s = 0;                                                                         \
                for (int64_t a = alo; a < ahi; a++)                                              \
                    for (int64_t b = blo; b < bhi; b++) s += xp[(h0 + a) * W + w0 + b];          \
                yp[oh * OW + ow] = alo < ahi && blo < bhi ?                                      \
                    s / (T)avg_div(h0, w0, g, include_pad, override) : (T)0;                     \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
}

#define AVG_BWD(T, NAME)                                                                         \
void NAME(const T *go, T *gi, const int64_t *g, int64_t planes, int include_pad, int64_t override) { \
    GEOM                                                                                         \
    (void)DH; (void)DW;                                                                          \
    memset(gi, 0, sizeof(T) * planes * H * W);                                                   \
    for (int64_t p = 0; p < planes; p++) {                                                       \
        const T *gp = go + p * OH * OW;                                                          \
        T *ip = gi + p * H * W;                                                                  \
        for (int64_t oh = 0; oh < OH; oh++) {                                                    \
            const int64_t h0 = oh * SH - PH;                                                     \
            int64_t alo, ahi;                                                                    \
            krange(h0, H, KH, 1, &alo, &ahi);                                                    \
            for (int64_t ow = 0; ow < OW; ow++) {                                                \
                const int64_t w0 = ow * SW - PW;                                                 \
                int64_t blo, bhi;                                                                \
                krange(w0, W, KW, 1, &blo, &bhi);                                                \
                if (alo >= ahi || blo >= bhi) continue;                                          \
                const T v = gp[oh * OW + ow] / (T)avg_div(h0, w0, g, include_pad, override);    \
                for (int64_t a = alo; a < ahi; a++)                                              \
                    for (int64_t b = blo; b < bhi; b++) ip[(h0 + a) * W + w0 + b] += v;          \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
}

MAX_FWD_2X2(float, int32_t, max_pool2x2_f32)
MAX_FWD_2X2(double, int64_t, max_pool2x2_f64)
MAX_FWD(float, max_pool2d_f32, max_pool2x2_f32)
MAX_FWD(double, max_pool2d_f64, max_pool2x2_f64)
MAX_BWD(float, max_pool2d_backward_f32)
MAX_BWD(double, max_pool2d_backward_f64)
AVG_FWD(float, avg_pool2d_f32)
AVG_FWD(double, avg_pool2d_f64)
AVG_BWD(float, avg_pool2d_backward_f32)
AVG_BWD(double, avg_pool2d_backward_f64)

/* Entry points for csrc/parallel.c's pool (runtime/cparts.py): planes [b, e) of one max pool, p = {x, y, idx,
   g} (forward; g the geometry above, planes of H*W inputs and OH*OW outputs) or p = {go, idx, gi, d} with d =
   {o, hw, grain, status} (backward; status[b / grain] = the chunk's return value). Chunks go to whichever
   thread is free (the counterpart of at::parallel_for over the planes). */
#define MAX_PARTS(T, SFX)                                                                        \
void max_pool2d_part_##SFX(void *const *p, const double *s, int64_t b, int64_t e) {              \
    const int64_t *g = (const int64_t *)p[3];                                                    \
    const int64_t in = g[0] * g[1], out = g[10] * g[11];                                         \
    (void)s;                                                                                     \
    max_pool2d_##SFX((const T *)p[0] + b * in, (T *)p[1] + b * out, (int64_t *)p[2] + b * out, g, e - b); \
}                                                                                                \
void max_pool2d_backward_part_##SFX(void *const *p, const double *s, int64_t b, int64_t e) {     \
    const int64_t *d = (const int64_t *)p[3];                                                    \
    const int64_t o = d[0], hw = d[1];                                                           \
    (void)s;                                                                                     \
    int64_t r = max_pool2d_backward_##SFX((const T *)p[0] + b * o, (const int64_t *)p[1] + b * o,  \
                                          (T *)p[2] + b * hw, e - b, o, hw);                     \
    ((int64_t *)(intptr_t)d[3])[b / d[2]] = r < 0 ? r : r + b * o;                              \
}

MAX_PARTS(float, f32)
MAX_PARTS(double, f64)
