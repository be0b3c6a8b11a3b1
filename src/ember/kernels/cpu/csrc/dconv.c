/* Direct convolution for stride 1: no column matrix, no BLAS.

   Each image is first copied into a zero-padded buffer xp (C, Dp, Hp, Wp). Number the output
   positions by where their window starts in that buffer, p = od*Hp*Wp + oh*Wp + ow; then the input
   under kernel tap k = (c, a, b, e) is xp[off[k] + p] with the constant offset
   off[k] = c*Dp*Hp*Wp + a*dd*Hp*Wp + b*dh*Wp + e*dw. So every tap reads a contiguous run of xp and
   a convolution becomes y[m, p] = sum_k w[m, k] * xp[off[k] + p]: a gemm whose right operand is
   never built. The grid is Wp wide, not OW, so the Wp - OW positions past each output row (and the
   rows past OH in 3-d) are computed and thrown away: that waste is the price of contiguous loads,
   and the caller only takes this path when it is small.

   The inner loops keep a block of MB output channels x NV vectors of positions in registers (GCC
   vector extensions; gcc lowers them to whatever SIMD -march gives): 4 x 3 or 6 x 2, twelve
   accumulators, enough independent fmas to hide their latency. Weights come transposed, (K, Mpad)
   per group, Mpad a multiple of MB with zero rows, so one tap's weights for a block sit side by
   side. Each output row is computed to a multiple of NV vectors (Lpad); the padded buffer has that
   much zero slack at its end, so the last loads stay inside it.

   The weight gradient uses the same grid: gw[m, k] = sum_p g[m, p] * xp[off[k] + p], where g is the
   output gradient laid out on the grid with zeros at the thrown-away positions. The input gradient
   is a forward convolution of the output gradient padded by d*(K-1) - pad with the kernel flipped
   and its channel axes swapped; the caller passes that geometry and weight to dconv_fwd.

   geometry g[18] as in im2col.c: D H W  KD KH KW  OD OH OW  SD SH SW  PD PH PW  DD DH DW; the
   strides must be 1 and O = input + 2*pad - dilation*(K-1) in every dim (the caller checks). */
#pragma GCC optimize("fp-contract=fast")      /* a*b + c as one fma: -std=c11 turns contraction off */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef float vf32 __attribute__((vector_size(32)));
typedef double vf64 __attribute__((vector_size(32)));

typedef struct {
    int64_t D, H, W, KD, KH, KW, OD, OH, OW, PD, PH, PW, DD, DH, DW;
    int64_t Hp, Wp, S, Sp, L;      /* padded plane sizes, input / padded image sizes, grid length */
} geo_t;

static void geo_read(const int64_t *g, geo_t *q) {
    q->D = g[0]; q->H = g[1]; q->W = g[2]; q->KD = g[3]; q->KH = g[4]; q->KW = g[5];
    q->OD = g[6]; q->OH = g[7]; q->OW = g[8]; q->PD = g[12]; q->PH = g[13]; q->PW = g[14];
    q->DD = g[15]; q->DH = g[16]; q->DW = g[17];
    q->Hp = q->H + 2 * q->PH;
    q->Wp = q->W + 2 * q->PW;
    q->S = q->D * q->H * q->W;
    q->Sp = (q->D + 2 * q->PD) * q->Hp * q->Wp;
    q->L = (q->OD - 1) * q->Hp * q->Wp + (q->OH - 1) * q->Wp + q->OW;
}

/* the offsets of the K = cg*KD*KH*KW taps, in the weight's (c, a, b, e) order; pads to kpad with 0 */
static void taps(const geo_t *q, int64_t cg, int64_t *off, int64_t kpad) {
    int64_t k = 0;
    for (int64_t c = 0; c < cg; c++)
        for (int64_t a = 0; a < q->KD; a++)
            for (int64_t b = 0; b < q->KH; b++)
                for (int64_t e = 0; e < q->KW; e++)
                    off[k++] = c * q->Sp + a * q->DD * q->Hp * q->Wp + b * q->DH * q->Wp + e * q->DW;
    while (k < kpad) off[k++] = 0;
}

/* Keeps a loaded vector in a register: without it gcc folds the load into every fma that uses the
   value, turning one load per tap into one per channel and making the loop load-bound. */
#if defined(__x86_64__) || defined(__i386__)
#define IN_REGISTER(v) __asm__("" : "+x"(v))
#else
#define IN_REGISTER(v) ((void)0)
#endif
#define LOADU(V, p) ({ V v_; __builtin_memcpy(&v_, (p), sizeof v_); v_; })
#define STOREU(V, p, v) do { V v_ = (v); __builtin_memcpy((p), &v_, sizeof v_); } while (0)

#define DCONV(T, V, SFX)                                                                         \
enum { VL_##SFX = sizeof(V) / sizeof(T) };                                                       \
                                                                                                 \
/* copy the interior of every channel of image x into xp (its zero borders stay zero) */         \
static void pad_##SFX(const T *x, T *xp, const geo_t *q, int64_t c) {                            \
    for (int64_t i = 0; i < c; i++)                                                              \
        for (int64_t d = 0; d < q->D; d++)                                                       \
            for (int64_t h = 0; h < q->H; h++)                                                   \
                memcpy(xp + i * q->Sp + ((d + q->PD) * q->Hp + h + q->PH) * q->Wp + q->PW,       \
                       x + i * q->S + (d * q->H + h) * q->W, sizeof(T) * q->W);                  \
}                                                                                                \
                                                                                                 \
/* y (mpad, ld) = bias + wt^T (mpad, K) @ taps of xp at the nblk blocks of positions from start[], MB output \
   channels at a time */                                                                                   \
DCONV_BLOCK(T, V, SFX, 4, 3)                                                                     \
DCONV_BLOCK(T, V, SFX, 6, 2)                                                                     \
                                                                                                 \
int dconv_fwd_##SFX(const T *x, T *y, const T *wt, const T *bias, const int64_t *g, int64_t c,   \
                    int64_t groups, int64_t m, int64_t mpad, int64_t n, int64_t mb) {            \
    geo_t q;                                                                                     \
    geo_read(g, &q);                                                                             \
    const int64_t cg = c / groups, k = cg * q.KD * q.KH * q.KW, o = q.OD * q.OH * q.OW;          \
    const int64_t pb = (mb == 6 ? 2 : 3) * VL_##SFX;           /* positions per block */          \
    const int64_t lpad = (q.L + pb - 1) / pb * pb, rowb = (q.OW + pb - 1) / pb;                   \
    /* row mode: blocks start at each output row (rowb per row), when that computes fewer positions  \
       than the whole grid (short rows on a wide grid: a 14-wide row of an 18-wide grid, 16 positions \
       instead of 18); a block's results are the grid kernel's, only fewer blocks are computed */   \
    const int rows = q.OD * q.OH * rowb * pb < lpad;                                             \
    const int64_t nblk = rows ? q.OD * q.OH * rowb : lpad / pb, ld = lpad + pb;                  \
    T *xp = calloc((size_t)(c * q.Sp + pb), sizeof(T));                                          \
    T *yb = malloc(sizeof(T) * (size_t)(mpad * ld));                                             \
    int64_t *off = malloc(sizeof(int64_t) * (size_t)k), *start = malloc(sizeof(int64_t) * (size_t)nblk); \
    if (!xp || !yb || !off || !start) { free(xp); free(yb); free(off); free(start); return -1; } \
    taps(&q, cg, off, k);                                                                        \
    for (int64_t b = 0, d = 0; d < (rows ? q.OD : 1); d++)                                       \
        for (int64_t h = 0; h < (rows ? q.OH : 1); h++)                                          \
            for (int64_t e = 0; e < (rows ? rowb : nblk); e++)                                   \
                start[b++] = rows ? (d * q.Hp + h) * q.Wp + e * pb : e * pb;                     \
    for (int64_t i = 0; i < n; i++) {                                                            \
        pad_##SFX(x + i * c * q.S, xp, &q, c);                                                   \
        for (int64_t gi = 0; gi < groups; gi++) {                                                \
            const T *w = wt + gi * k * mpad, *b = bias ? bias + gi * mpad : NULL;                \
            if (mb == 6) dconv_block6_##SFX(xp + gi * cg * q.Sp, w, b, off, k, mpad, start, nblk, ld, yb); \
            else dconv_block4_##SFX(xp + gi * cg * q.Sp, w, b, off, k, mpad, start, nblk, ld, yb); \
            T *dst = y + (i * groups + gi) * m * o;                                              \
            for (int64_t j = 0; j < m; j++)                                                      \
                for (int64_t d = 0; d < q.OD; d++)                                               \
                    for (int64_t h = 0; h < q.OH; h++, dst += q.OW)                              \
                        memcpy(dst, yb + j * ld + (d * q.Hp + h) * q.Wp, sizeof(T) * q.OW);      \
        }                                                                                        \
    }                                                                                            \
    free(xp); free(yb); free(off); free(start);                                                  \
    return 0;                                                                                    \
}                                                                                                \
                                                                                                 \
/* gw (groups, mpad, kpad) += the weight gradient of images x[0..n) with output gradient go;      \
   mpad and kpad multiples of WM and WK (extra rows and taps come out as garbage the caller drops). \
   The thrown-away grid positions multiply a zero gradient by real inputs of other taps, so an inf \
   or NaN input would leak into taps that never see it: returns 1, computing nothing, when x is  \
   not all finite (the caller then takes the im2col path). */                                   \
int dconv_wgrad_##SFX(const T *x, const T *go, T *gw, const int64_t *g, int64_t c,               \
                      int64_t groups, int64_t m, int64_t mpad, int64_t kpad, int64_t n) {        \
    geo_t q;                                                                                     \
    geo_read(g, &q);                                                                             \
    int bad = 0;                                                                                 \
    _Pragma("omp simd reduction(|:bad)")                                                         \
    for (int64_t i = 0; i < n * c * q.S; i++) bad |= !(x[i] - x[i] == 0);                       \
    if (bad) return 1;                                                                           \
    const int64_t cg = c / groups, k = cg * q.KD * q.KH * q.KW, o = q.OD * q.OH * q.OW;          \
    const int64_t lpad = (q.L + VL_##SFX - 1) / VL_##SFX * VL_##SFX;                             \
    T *xp = calloc((size_t)(c * q.Sp + VL_##SFX), sizeof(T));                                    \
    T *gb = calloc((size_t)(mpad * lpad), sizeof(T));                                            \
    int64_t *off = malloc(sizeof(int64_t) * (size_t)kpad);                                       \
    V *acc = aligned_alloc(sizeof(V), sizeof(V) * (size_t)(groups * mpad * kpad));  /* V: aligned */ \
    if (!xp || !gb || !off || !acc) { free(xp); free(gb); free(off); free(acc); return -1; }     \
    memset(acc, 0, sizeof(V) * (size_t)(groups * mpad * kpad));                                  \
    taps(&q, cg, off, kpad);                                                                     \
    (void)k;                                                                                     \
    for (int64_t i = 0; i < n; i++) {                                                            \
        pad_##SFX(x + i * c * q.S, xp, &q, c);                                                   \
        for (int64_t gi = 0; gi < groups; gi++) {                                                \
            const T *src = go + (i * groups + gi) * m * o;                                       \
            for (int64_t j = 0; j < m; j++)                                                      \
                for (int64_t d = 0; d < q.OD; d++)                                               \
                    for (int64_t h = 0; h < q.OH; h++, src += q.OW)                              \
                        memcpy(gb + j * lpad + (d * q.Hp + h) * q.Wp, src, sizeof(T) * q.OW);    \
            wgrad_block_##SFX(xp + gi * cg * q.Sp, gb, off, kpad, mpad, lpad,                    \
                              acc + gi * mpad * kpad);                                           \
        }                                                                                        \
    }                                                                                            \
    for (int64_t e = 0; e < groups * mpad * kpad; e++) {                                         \
        T s = 0;                                                                                 \
        for (int l = 0; l < VL_##SFX; l++) s += acc[e][l];                                       \
        gw[e] += s;                                                                              \
    }                                                                                            \
    free(xp); free(gb); free(off); free(acc);                                                    \
    return 0;                                                                                    \
}

#define DCONV_BLOCK(T, V, SFX, MB, NV)                                                           \
static void dconv_block##MB##_##SFX(const T *xp, const T *wt, const T *bias, const int64_t *off, \
                                     int64_t k, int64_t mpad, const int64_t *start, int64_t nblk, \
                                     int64_t ld, T *y) {                                         \
    enum { VL = sizeof(V) / sizeof(T) };                                                         \
    for (int64_t bi = 0; bi < nblk; bi++) {                                                      \
        const int64_t p = start[bi];                                                             \
        const T *xq = xp + p;                                                                    \
        for (int64_t m0 = 0; m0 < mpad; m0 += MB) {                                              \
            V a[MB][NV];                                                                         \
            for (int r = 0; r < MB; r++) {                                                       \
                const T b = bias ? bias[m0 + r] : (T)0;                                          \
                for (int v = 0; v < NV; v++) a[r][v] = (V){0} + b;                               \
            }                                                                                    \
            const T *w = wt + m0;                                                                \
            for (int64_t t = 0; t < k; t++, w += mpad) {                                         \
                V u[NV];                                                                         \
                for (int v = 0; v < NV; v++) {                                                   \
                    u[v] = LOADU(V, xq + off[t] + v * VL);                                       \
                    IN_REGISTER(u[v]);                                                           \
                }                                                                                \
                for (int r = 0; r < MB; r++)                                                     \
                    for (int v = 0; v < NV; v++) a[r][v] += w[r] * u[v];                         \
            }                                                                                    \
            for (int r = 0; r < MB; r++)                                                         \
                for (int v = 0; v < NV; v++) STOREU(V, y + (m0 + r) * ld + p + v * VL, a[r][v]); \
        }                                                                                        \
    }                                                                                            \
}

/* gw (mpad, kpad) += g (mpad, lpad) @ taps(xp)^T, WM channels x WK taps at a time (mpad, kpad
   multiples of them); gw holds one vector of partial sums per entry, summed across its lanes once,
   after the last image. 3 x 3 leaves gcc registers for the loaded operands (4 x 3 made it reload
   every tap from memory for each channel). */
enum { WM = 3, WK = 3 };
#define WGRAD_BLOCK(T, V, SFX)                                                                   \
static void wgrad_block_##SFX(const T *xp, const T *g, const int64_t *off, int64_t kpad,         \
                              int64_t mpad, int64_t lpad, V *gw) {                               \
    enum { VL = sizeof(V) / sizeof(T) };                                                         \
    for (int64_t m0 = 0; m0 < mpad; m0 += WM)                                                    \
        for (int64_t k0 = 0; k0 < kpad; k0 += WK) {                                              \
            V a[WM][WK];                                                                         \
            const T *xs[WK], *gs[WM];                                                            \
            for (int r = 0; r < WM; r++) {                                                       \
                gs[r] = g + (m0 + r) * lpad;                                                     \
                for (int j = 0; j < WK; j++) a[r][j] = (V){0};                                   \
            }                                                                                    \
            for (int j = 0; j < WK; j++) xs[j] = xp + off[k0 + j];                               \
            for (int64_t p = 0; p < lpad; p += VL) {                                             \
                V u[WK];                                                                         \
                for (int j = 0; j < WK; j++) {                                                   \
                    u[j] = LOADU(V, xs[j] + p);                                                  \
                    IN_REGISTER(u[j]);                                                           \
                }                                                                                \
                for (int r = 0; r < WM; r++) {                                                   \
                    V gv = LOADU(V, gs[r] + p);                                                  \
                    IN_REGISTER(gv);                                                             \
                    for (int j = 0; j < WK; j++) a[r][j] += gv * u[j];                           \
                }                                                                                \
            }                                                                                    \
            for (int r = 0; r < WM; r++)                                                         \
                for (int j = 0; j < WK; j++) gw[(m0 + r) * kpad + k0 + j] += a[r][j];            \
        }                                                                                        \
}

WGRAD_BLOCK(float, vf32, f32)
WGRAD_BLOCK(double, vf64, f64)
DCONV(float, vf32, f32)
DCONV(double, vf64, f64)

/* Channel-vector form (the "c" kernels): the output channels are the vector lanes and only the real
   output positions are computed, so none of the grid's thrown-away positions (Wp - OW per row) is paid
   for. It wins when the grid wastes more than the channel padding does: conv_direct.py compares
   mpad_grid x lpad with mpadc x O (LeNet's second convolution, 16 channels of 10x10 outputs on a 14-wide
   grid: 144 grid positions per 100 outputs; here 16 channels are two whole vectors).

   Forward: yb (O, mpadc) = bias + taps of xp @ wt (K, mpadc), NP positions x two vectors of channels in
   registers, each position a broadcast scalar from its own place in xp (pos[p] + off[t]). Every output
   is bias + w[0] x[0] + w[1] x[1] + ... as one fma chain in tap order, as in the grid kernel: the bits
   are the grid kernel's. The block's positions are output positions p0..p0+NP-1 (the list is padded by
   repeating the last real position; their results are dropped). Weight gradient: gw (K, mpadc) +=
   sum over real positions p of x[pos[p] + off[t]] * g[p, :] with g the output gradient transposed to
   (O, mpadc), NT taps x two vectors of channels in registers, one fma chain per image over its
   positions (then added to gw): only real positions multiply, so an inf or NaN input reaches only the
   taps that see it (the grid kernel's declining rule is not needed). */
enum { NP = 6, NT = 6 };
#define DCONVC(T, V, SFX)                                                                        \
static void dconvc_block_##SFX(const T *xp, const T *wt, const T *bias, const int64_t *off, int64_t k, \
                               int64_t mpad, const int64_t *pos, int64_t opad, T *yb) {          \
    enum { VL = sizeof(V) / sizeof(T) };                                                         \
    for (int64_t p0 = 0; p0 < opad; p0 += NP) {                                                  \
        const T *xq[NP];                                                                         \
        for (int j = 0; j < NP; j++) xq[j] = xp + pos[p0 + j];                                   \
        for (int64_t m0 = 0; m0 < mpad; m0 += 2 * VL) {                                          \
            V a[NP][2], b0 = {0}, b1 = {0};                                                      \
            if (bias) { b0 = LOADU(V, bias + m0); b1 = LOADU(V, bias + m0 + VL); }                \
            for (int j = 0; j < NP; j++) { a[j][0] = b0; a[j][1] = b1; }                         \
            const T *w = wt + m0;                                                                \
            for (int64_t t = 0; t < k; t++, w += mpad) {                                         \
                const V w0 = LOADU(V, w), w1 = LOADU(V, w + VL);                                 \
                const int64_t o = off[t];                                                        \
                for (int j = 0; j < NP; j++) {                                                   \
                    const T s = xq[j][o];                                                        \
                    a[j][0] += s * w0;                                                           \
                    a[j][1] += s * w1;                                                           \
                }                                                                                \
            }                                                                                    \
            for (int j = 0; j < NP; j++) {                                                       \
                STOREU(V, yb + (p0 + j) * mpad + m0, a[j][0]);                                   \
                STOREU(V, yb + (p0 + j) * mpad + m0 + VL, a[j][1]);                              \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
}                                                                                                \
                                                                                                 \
/* the grid offsets of the o real output positions, padded to opad by repeating the last */      \
static void positions_##SFX(const geo_t *q, int64_t *pos, int64_t opad) {                        \
    int64_t p = 0;                                                                               \
    for (int64_t d = 0; d < q->OD; d++)                                                          \
        for (int64_t h = 0; h < q->OH; h++)                                                      \
            for (int64_t w = 0; w < q->OW; w++) pos[p++] = (d * q->Hp + h) * q->Wp + w;          \
    for (; p < opad; p++) pos[p] = pos[p - 1];                                                   \
}                                                                                                \
                                                                                                 \
/* y (n, groups*m, O) = the direct convolution of x (n, c, S); wt (groups, K, mpad), mpad a multiple \
   of two vectors with zero columns past m; bias (groups, mpad) or NULL */                        \
int dconv_fwdc_##SFX(const T *x, T *y, const T *wt, const T *bias, const int64_t *g, int64_t c,  \
                     int64_t groups, int64_t m, int64_t mpad, int64_t n) {                       \
    geo_t q;                                                                                     \
    geo_read(g, &q);                                                                             \
    const int64_t cg = c / groups, k = cg * q.KD * q.KH * q.KW, o = q.OD * q.OH * q.OW;          \
    const int64_t opad = (o + NP - 1) / NP * NP;                                                 \
    T *xp = calloc((size_t)(c * q.Sp), sizeof(T));                                               \
    T *yb = malloc(sizeof(T) * (size_t)(opad * mpad));                                           \
    int64_t *off = malloc(sizeof(int64_t) * (size_t)k), *pos = malloc(sizeof(int64_t) * (size_t)opad); \
    if (!xp || !yb || !off || !pos) { free(xp); free(yb); free(off); free(pos); return -1; }     \
    taps(&q, cg, off, k);                                                                        \
    positions_##SFX(&q, pos, opad);                                                              \
    for (int64_t i = 0; i < n; i++) {                                                            \
        pad_##SFX(x + i * c * q.S, xp, &q, c);                                                   \
        for (int64_t gi = 0; gi < groups; gi++) {                                                \
            dconvc_block_##SFX(xp + gi * cg * q.Sp, wt + gi * k * mpad, bias ? bias + gi * mpad : NULL, \
                               off, k, mpad, pos, opad, yb);                                     \
            T *dst = y + (i * groups + gi) * m * o;                                              \
            for (int64_t j = 0; j < m; j++)                                                      \
                for (int64_t p = 0; p < o; p++) dst[j * o + p] = yb[p * mpad + j];               \
        }                                                                                        \
    }                                                                                            \
    free(xp); free(yb); free(off); free(pos);                                                    \
    return 0;                                                                                    \
}                                                                                                \
                                                                                                 \
/* gw (groups, kpad, mpad) += the weight gradient of images x[0..n) with output gradient go (n,   \
   groups*m, O); kpad a multiple of NT (taps past K read offset 0: garbage rows the caller drops) */ \
int dconv_wgradc_##SFX(const T *x, const T *go, T *gw, const int64_t *g, int64_t c,              \
                       int64_t groups, int64_t m, int64_t mpad, int64_t kpad, int64_t n) {       \
    enum { VL = sizeof(V) / sizeof(T) };                                                         \
    geo_t q;                                                                                     \
    geo_read(g, &q);                                                                             \
    const int64_t cg = c / groups, o = q.OD * q.OH * q.OW;                                       \
    T *xp = calloc((size_t)(c * q.Sp), sizeof(T));                                               \
    T *gt = calloc((size_t)(o * mpad), sizeof(T));                                               \
    int64_t *off = malloc(sizeof(int64_t) * (size_t)kpad), *pos = malloc(sizeof(int64_t) * (size_t)o); \
    if (!xp || !gt || !off || !pos) { free(xp); free(gt); free(off); free(pos); return -1; }     \
    taps(&q, cg, off, kpad);                                                                     \
    positions_##SFX(&q, pos, o);                                                                 \
    for (int64_t i = 0; i < n; i++) {                                                            \
        pad_##SFX(x + i * c * q.S, xp, &q, c);                                                   \
        for (int64_t gi = 0; gi < groups; gi++) {                                                \
            const T *src = go + (i * groups + gi) * m * o, *xg = xp + gi * cg * q.Sp;            \
            for (int64_t j = 0; j < m; j++)                                                      \
                for (int64_t p = 0; p < o; p++) gt[p * mpad + j] = src[j * o + p];               \
            T *acc = gw + gi * kpad * mpad;                                                      \
            for (int64_t t0 = 0; t0 < kpad; t0 += NT)                                            \
                for (int64_t m0 = 0; m0 < mpad; m0 += 2 * VL) {                                  \
                    V a[NT][2];                                                                  \
                    for (int j = 0; j < NT; j++) a[j][0] = a[j][1] = (V){0};                     \
                    const int64_t *ot = off + t0;                                                \
                    for (int64_t p = 0; p < o; p++) {                                            \
                        const V g0 = LOADU(V, gt + p * mpad + m0), g1 = LOADU(V, gt + p * mpad + m0 + VL); \
                        const T *xq = xg + pos[p];                                               \
                        for (int j = 0; j < NT; j++) {                                           \
                            const T s = xq[ot[j]];                                               \
                            a[j][0] += s * g0;                                                   \
                            a[j][1] += s * g1;                                                   \
                        }                                                                        \
                    }                                                                            \
                    for (int j = 0; j < NT; j++) {                                               \
                        T *r = acc + (t0 + j) * mpad + m0;                                       \
                        STOREU(V, r, LOADU(V, r) + a[j][0]);                                     \
                        STOREU(V, r + VL, LOADU(V, r + VL) + a[j][1]);                           \
                    }                                                                            \
                }                                                                                \
        }                                                                                        \
    }                                                                                            \
    free(xp); free(gt); free(off); free(pos);                                                    \
    return 0;                                                                                    \
}

DCONVC(float, vf32, f32)
DCONVC(double, vf64, f64)

/* Entry points for csrc/parallel.c's pool (runtime/cparts.py; the counterpart of at::parallel_for over the
   batch): images [b, e) of one convolution, whose arguments come in the int64 descriptor d = p[0]. Chunks of
   `grain` images are claimed by whichever thread is free, so a worker whose core is busy never holds the caller
   up (the Python pool's static halves waited for it). A chunk's status (dconv_*'s return value) goes to
   status[b / grain]. fwd: d = {x, y, wt, bias, g, c, groups, m, mpad, mb, image stride of x, of y, grain,
   status}; wgrad: d = {x, go, parts, g, c, groups, m, mpad, kpad, image stride of x, of go, part size,
   grain, status}, chunk b / grain summing into part b / grain (the caller adds the parts in order).
   fwdc: d = {x, y, wt, bias, g, c, groups, m, mpad, image stride of x, of y, grain, status}; wgradc: d = {x,
   go, parts, g, c, groups, m, mpad, kpad, image stride of x, of go, part size, grain, status}. */
#define DCONV_PARTS(T, SFX)                                                                      \
void dconv_fwd_part_##SFX(void *const *p, const double *s, int64_t b, int64_t e) {               \
    const int64_t *d = (const int64_t *)p[0];                                                    \
    (void)s;                                                                                     \
    int rc = dconv_fwd_##SFX((const T *)(intptr_t)d[0] + b * d[10], (T *)(intptr_t)d[1] + b * d[11], \
                             (const T *)(intptr_t)d[2], (const T *)(intptr_t)d[3],               \
                             (const int64_t *)(intptr_t)d[4], d[5], d[6], d[7], d[8], e - b, d[9]); \
    ((int64_t *)(intptr_t)d[13])[b / d[12]] = rc;                                                \
}                                                                                                \
void dconv_fwdc_part_##SFX(void *const *p, const double *s, int64_t b, int64_t e) {              \
    const int64_t *d = (const int64_t *)p[0];                                                    \
    (void)s;                                                                                     \
    int rc = dconv_fwdc_##SFX((const T *)(intptr_t)d[0] + b * d[9], (T *)(intptr_t)d[1] + b * d[10], \
                              (const T *)(intptr_t)d[2], (const T *)(intptr_t)d[3],              \
                              (const int64_t *)(intptr_t)d[4], d[5], d[6], d[7], d[8], e - b);   \
    ((int64_t *)(intptr_t)d[12])[b / d[11]] = rc;                                                \
}                                                                                                \
void dconv_wgradc_part_##SFX(void *const *p, const double *s, int64_t b, int64_t e) {            \
    const int64_t *d = (const int64_t *)p[0], grain = d[12];                                     \
    (void)s;                                                                                     \
    for (int64_t c = b; c < e; c += grain) {   /* whole chunks, also when run inline as one range */\
        int rc = dconv_wgradc_##SFX((const T *)(intptr_t)d[0] + c * d[9], (const T *)(intptr_t)d[1] + c * d[10],\
                    (T *)(intptr_t)d[2] + (c / grain) * d[11], (const int64_t *)(intptr_t)d[3],  \
                    d[4], d[5], d[6], d[7], d[8], e - c < grain ? e - c : grain);                \
        ((int64_t *)(intptr_t)d[13])[c / grain] = rc;                                            \
    }                                                                                            \
}                                                                                                \
void dconv_wgrad_part_##SFX(void *const *p, const double *s, int64_t b, int64_t e) {             \
    const int64_t *d = (const int64_t *)p[0], grain = d[12];                                     \
    (void)s;                                                                                     \
    for (int64_t c = b; c < e; c += grain) {   /* whole chunks, also when run inline as one range */\
        int rc = dconv_wgrad_##SFX((const T *)(intptr_t)d[0] + c * d[9], (const T *)(intptr_t)d[1] + c * d[10],\
                    (T *)(intptr_t)d[2] + (c / grain) * d[11], (const int64_t *)(intptr_t)d[3],  \
                    d[4], d[5], d[6], d[7], d[8], e - c < grain ? e - c : grain);                \
        ((int64_t *)(intptr_t)d[13])[c / grain] = rc;                                            \
    }                                                                                            \
}

DCONV_PARTS(float, f32)
DCONV_PARTS(double, f64)
