/* im2col / col2im for convolution, one image at a time, in the layout the gemm wants.

   An image is x (C, D, H, W) contiguous; 1-d and 2-d convolutions pass D = 1 (and H = 1) with a
   kernel, stride and dilation of 1 and no padding in the missing dims. Its column matrix is
   cols (C, KD, KH, KW, OD, OH, OW): row (c, kd, kh, kw) holds input channel c at that kernel
   offset for every output position, rows `ld` elements apart. With ld = O, weight (Cout, C*K) @
   cols (C*K, O) is the output (Cout, O) of that image in NC(D)HW order; with ld = B*O and image i
   written at column i*O, one gemm covers B images (the rows of one group stay contiguous).

   geometry g[18]: D H W  KD KH KW  OD OH OW  SD SH SW  PD PH PW  DD DH DW (stride s, padding p,
   dilation dd). Positions outside the input (padding) read as zero; col2im adds each column entry
   back to its input position and drops the ones that fall in the padding. */
#include <stdint.h>
#include <string.h>

/* valid output range [lo, hi) along one dim: 0 <= o*s + off < n */
static inline void span(int64_t n, int64_t s, int64_t off, int64_t on, int64_t *lo, int64_t *hi) {
    int64_t a = off >= 0 ? 0 : (-off + s - 1) / s;
    int64_t b = n - off <= 0 ? 0 : (n - off + s - 1) / s;
    if (b > on) b = on;
    if (a > b) a = b;
    *lo = a;
    *hi = b;
}

#define IM2COL(T, NAME)                                                                          \
void NAME(const T *x, T *cols, const int64_t *g, int64_t C, int64_t ld) {                                    \
    const int64_t D = g[0], H = g[1], W = g[2], KD = g[3], KH = g[4], KW = g[5];               \
    const int64_t OD = g[6], OH = g[7], OW = g[8], SD = g[9], SH = g[10], SW = g[11];          \
    const int64_t PD = g[12], PH = g[13], PW = g[14], DD = g[15], DH = g[16], DW = g[17];      \
    T *row = cols;                                                                               \
    for (int64_t c = 0; c < C; c++) {                                                            \
        const T *xc = x + c * D * H * W;                                                         \
        for (int64_t a = 0; a < KD; a++)                                                         \
        for (int64_t b = 0; b < KH; b++)                                                         \
        for (int64_t e = 0; e < KW; e++, row += ld) {                                            \
            T *dst = row;                                                                        \
            int64_t dlo, dhi, hlo, hhi, wlo, whi;                                                \
            span(D, SD, a * DD - PD, OD, &dlo, &dhi);                                            \
            span(H, SH, b * DH - PH, OH, &hlo, &hhi);                                            \
            span(W, SW, e * DW - PW, OW, &wlo, &whi);                                            \
            const int64_t woff = e * DW - PW;                                                    \
            for (int64_t od = 0; od < OD; od++) {                                                \
                if (od < dlo || od >= dhi) {                                                     \
                    memset(dst, 0, sizeof(T) * OH * OW);                                         \
                    dst += OH * OW;                                                              \
                    continue;                                                                    \
                }                                                                                \
                const T *xd = xc + (od * SD + a * DD - PD) * H * W;                              \
                for (int64_t oh = 0; oh < OH; oh++, dst += OW) {                                 \
                    if (oh < hlo || oh >= hhi) {                                                 \
                        memset(dst, 0, sizeof(T) * OW);                                          \
                        continue;                                                                \
                    }                                                                            \
                    const T *xr = xd + (oh * SH + b * DH - PH) * W + woff;                       \
                    for (int64_t ow = 0; ow < wlo; ow++) dst[ow] = 0;                            \
                    if (SW == 1) {                                                               \
                        _Pragma("omp simd")                                                      \
                        for (int64_t ow = wlo; ow < whi; ow++) dst[ow] = xr[ow];                 \
                    } else if (SW == 2) {          /* a constant stride gcc vectorises */        \
                        _Pragma("omp simd")                                                      \
                        for (int64_t ow = wlo; ow < whi; ow++) dst[ow] = xr[2 * ow];             \
                    } else {                                                                     \
                        for (int64_t ow = wlo; ow < whi; ow++) dst[ow] = xr[ow * SW];            \
                    }                                                                            \
                    for (int64_t ow = whi; ow < OW; ow++) dst[ow] = 0;                           \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
}

/* x += col2im(cols): x must hold zeros (or what to add to) on entry */
#define COL2IM(T, NAME)                                                                          \
void NAME(const T *cols, T *x, const int64_t *g, int64_t C, int64_t ld) {                                    \
    const int64_t D = g[0], H = g[1], W = g[2], KD = g[3], KH = g[4], KW = g[5];               \
    const int64_t OD = g[6], OH = g[7], OW = g[8], SD = g[9], SH = g[10], SW = g[11];          \
    const int64_t PD = g[12], PH = g[13], PW = g[14], DD = g[15], DH = g[16], DW = g[17];      \
    const T *row = cols;                                                                         \
    for (int64_t c = 0; c < C; c++) {                                                            \
        T *xc = x + c * D * H * W;                                                               \
        for (int64_t a = 0; a < KD; a++)                                                         \
        for (int64_t b = 0; b < KH; b++)                                                         \
        for (int64_t e = 0; e < KW; e++, row += ld) {                                            \
            const T *src = row;                                                                  \
            int64_t dlo, dhi, hlo, hhi, wlo, whi;                                                \
            span(D, SD, a * DD - PD, OD, &dlo, &dhi);                                            \
            span(H, SH, b * DH - PH, OH, &hlo, &hhi);                                            \
            span(W, SW, e * DW - PW, OW, &wlo, &whi);                                            \
            const int64_t woff = e * DW - PW;                                                    \
            for (int64_t od = 0; od < OD; od++) {                                                \
                if (od < dlo || od >= dhi) {                                                     \
                    src += OH * OW;                                                              \
                    continue;                                                                    \
                }                                                                                \
                T *xd = xc + (od * SD + a * DD - PD) * H * W;                                    \
                for (int64_t oh = 0; oh < OH; oh++, src += OW) {                                 \
                    if (oh < hlo || oh >= hhi) continue;                                         \
                    T *xr = xd + (oh * SH + b * DH - PH) * W + woff;                             \
                    if (SW == 1) {                                                               \
                        _Pragma("omp simd")                                                      \
                        for (int64_t ow = wlo; ow < whi; ow++) xr[ow] += src[ow];                \
                    } else {                                                                     \
                        for (int64_t ow = wlo; ow < whi; ow++) xr[ow * SW] += src[ow];           \
                    }                                                                            \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
}

IM2COL(float, im2col_f32)
IM2COL(double, im2col_f64)
COL2IM(float, col2im_f32)
COL2IM(double, col2im_f64)

/* y (Cout, O) += bias (Cout) broadcast over O */
#define ADD_BIAS(T, NAME)                                                                        \
void NAME(T *y, const T *bias, int64_t cout, int64_t o) {                                        \
    for (int64_t c = 0; c < cout; c++) {                                                         \
        const T v = bias[c];                                                                     \
        T *r = y + c * o;                                                                        \
        _Pragma("omp simd")                                                                      \
        for (int64_t i = 0; i < o; i++) r[i] += v;                                               \
    }                                                                                            \
}

ADD_BIAS(float, add_bias_f32)
ADD_BIAS(double, add_bias_f64)


/* im2col of images x[0..m) (each C*D*H*W) side by side: image i at column i*o of rows ld apart */
#define IM2COL_BATCH(T, NAME, ONE)                                                               \
void NAME(const T *x, T *cols, const int64_t *g, int64_t C, int64_t m) {                         \
    const int64_t s = C * g[0] * g[1] * g[2], o = g[6] * g[7] * g[8];                            \
    for (int64_t i = 0; i < m; i++) ONE(x + i * s, cols + i * o, g, C, m * o);                  \
}

/* col2im of images gi[0..m) (each C*D*H*W, added to) from columns side by side as above */
#define COL2IM_BATCH(T, NAME, ONE)                                                               \
void NAME(const T *cols, T *x, const int64_t *g, int64_t C, int64_t m) {                         \
    const int64_t s = C * g[0] * g[1] * g[2], o = g[6] * g[7] * g[8];                            \
    for (int64_t i = 0; i < m; i++) ONE(cols + i * o, x + i * s, g, C, m * o);                  \
}

IM2COL_BATCH(float, im2col_batch_f32, im2col_f32)
IM2COL_BATCH(double, im2col_batch_f64, im2col_f64)
COL2IM_BATCH(float, col2im_batch_f32, col2im_f32)
COL2IM_BATCH(double, col2im_batch_f64, col2im_f64)

/* y (m, cout, o) = res (cout, m*o) regrouped by image, + bias (cout) unless NULL */
#define UNPACK(T, NAME)                                                                          \
void NAME(const T *res, T *y, const T *bias, int64_t cout, int64_t m, int64_t o) {               \
    for (int64_t i = 0; i < m; i++)                                                              \
        for (int64_t c = 0; c < cout; c++) {                                                     \
            const T *src = res + c * m * o + i * o;                                              \
            T *dst = y + (i * cout + c) * o;                                                     \
            if (!bias) {                                                                         \
                memcpy(dst, src, sizeof(T) * o);                                                 \
                continue;                                                                        \
            }                                                                                    \
            const T v = bias[c];                                                                 \
            _Pragma("omp simd")                                                                  \
            for (int64_t j = 0; j < o; j++) dst[j] = src[j] + v;                                 \
        }                                                                                        \
}

/* res (cout, m*o) = y (m, cout, o) side by side by image (the inverse regrouping) */
#define PACK(T, NAME)                                                                            \
void NAME(const T *y, T *res, int64_t cout, int64_t m, int64_t o) {                              \
    for (int64_t i = 0; i < m; i++)                                                              \
        for (int64_t c = 0; c < cout; c++)                                                       \
            memcpy(res + c * m * o + i * o, y + (i * cout + c) * o, sizeof(T) * o);              \
}

UNPACK(float, unpack_f32)
UNPACK(double, unpack_f64)
PACK(float, pack_f32)
PACK(double, pack_f64)
