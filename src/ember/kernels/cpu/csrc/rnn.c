/* One time step of an LSTM or GRU layer's pointwise part (kernels/cpu/rnn_layer.py calls it once per step):
   numpy's float32 exp and tanh are scalar loops (~10 ns an element), so a small layer's steps were mostly
   transcendental math; here sigmoid and tanh use vmath.h's vectorisable exp, in one pass over the step.
   tanh(x) = 1 - 2 / (1 + exp(2x)) (exp overflowing to inf gives 1, underflowing to 0 gives -1); its error is
   absolute (about one ulp of 1), like torch's vectorised tanh near 0.

   lstm_step: z (n, 6, h) holds the input part of the pre-activations of [i, f, g, o] (biases included) in its
   first four gate rows, gh (n, 4h) the hidden part; writes the activated gates there, c = f * c_prev + i * g
   into the fifth row, tanh(c) into the sixth and h = o * tanh(c) into h_out. c_prev's rows are cp_stride apart.
   gru_step: gi (n, 3, h) the input gates with both biases of r, z and the input bias of n added; gh (n, 3, h)
   the hidden gates without bias; b_hn the hidden bias of n (or NULL); z (n, 4, h) gets [r, z, n, gh_n + b_hn];
   h = n + z * (h_prev - n).
   lstm_back_step / gru_back_step: one step of the backward from that step's workspace row. dh (n, h) holds the
   grad flowing in from the later step and gets go (the output's grad at this step, or NULL) added; the gates'
   grads go to d: (n, 4h) [i, f, g, o] for the LSTM, whose dc (n, h) is updated to the grad of c_prev; for the
   GRU (n, 4, h) [r, z, hidden n (dn * r), input n (dn)] and dh_direct = dh * z, the part of h_prev's grad that
   does not go through the hidden gemm.
   lstm_cell / gru_cell: a whole one-step layer (an LSTMCell / GRUCell call) in one call: gi and gh are the two
   gemms' results read through (row, column) strides, so the swapped product (w @ x^T, a (gates, n) array) needs
   no copy; the biases are added in the order the layer path adds them (((gi + b_ih) + b_hh) then + gh inside
   the step for the LSTM; b_hh for r and z only, n's inside r * (.) for the GRU) and the step is the layer's
   own function, so a cell's bits are a one-step layer's. hy gets a copy of h_out and (LSTM) cy one of c, the
   layer op's separate outputs. */
#pragma GCC optimize ("no-trapping-math")
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "vmath.h"

#define RNN_STEPS(T, EXP, SFX)                                                                   \
static inline T sig_##SFX(T x) { return (T)1 / ((T)1 + EXP(-x)); }                              \
static inline T tanh_##SFX(T x) { return (T)1 - (T)2 / ((T)1 + EXP((T)2 * x)); }                 \
void lstm_step_##SFX(T *z, const T *gh, const T *c_prev, int64_t cp_stride, T *h_out, int64_t n,  \
                     int64_t h) {                                                                \
    for (int64_t r = 0; r < n; r++) {                                                            \
        T *zi = z + r * 6 * h, *zf = zi + h, *zg = zf + h, *zo = zg + h, *zc = zo + h, *t = zc + h; \
        const T *gi_ = gh + r * 4 * h, *gf = gi_ + h, *gg = gf + h, *go = gg + h;                \
        const T *cp = c_prev + r * cp_stride;                                                    \
        T *ho = h_out + r * h;                                                                   \
        _Pragma("omp simd")                                                                      \
        for (int64_t j = 0; j < h; j++) {                                                        \
            T i = sig_##SFX(zi[j] + gi_[j]), f = sig_##SFX(zf[j] + gf[j]);                       \
            T g = tanh_##SFX(zg[j] + gg[j]), o = sig_##SFX(zo[j] + go[j]);                       \
            T c = f * cp[j] + i * g;                                                             \
            T tcv = tanh_##SFX(c);                                                               \
            zi[j] = i; zf[j] = f; zg[j] = g; zo[j] = o; zc[j] = c;                               \
            t[j] = tcv;                                                                          \
            ho[j] = o * tcv;                                                                     \
        }                                                                                        \
    }                                                                                            \
}                                                                                                \
void gru_step_##SFX(const T *gi, const T *gh, const T *b_hn, const T *h_prev, T *z, T *h_out,    \
                    int64_t n, int64_t h) {                                                      \
    for (int64_t r = 0; r < n; r++) {                                                            \
        const T *ir = gi + r * 3 * h, *iz = ir + h, *in = iz + h;                                \
        const T *hr = gh + r * 3 * h, *hz = hr + h, *hn = hz + h;                                \
        const T *hp = h_prev + r * h;                                                            \
        T *zr = z + r * 4 * h, *zz = zr + h, *zn = zz + h, *zh = zn + h, *ho = h_out + r * h;    \
        _Pragma("omp simd")                                                                      \
        for (int64_t j = 0; j < h; j++) {                                                        \
            T rv = sig_##SFX(ir[j] + hr[j]), zv = sig_##SFX(iz[j] + hz[j]);                      \
            T hnv = hn[j] + (b_hn ? b_hn[j] : (T)0);                                             \
            T nv = tanh_##SFX(in[j] + rv * hnv);                                                 \
            zr[j] = rv; zz[j] = zv; zn[j] = nv; zh[j] = hnv;                                     \
            ho[j] = nv + zv * (hp[j] - nv);                                                      \
        }                                                                                        \
    }                                                                                            \
}

#define RNN_BACK_STEPS(T, SFX)                                                                   \
void lstm_back_step_##SFX(const T *z, const T *c_prev, int64_t cp_stride, const T *go, T *dh, T *dc, \
                          T *d, int64_t n, int64_t h) {                                          \
    for (int64_t r = 0; r < n; r++) {                                                            \
        const T *zi = z + r * 6 * h, *zf = zi + h, *zg = zf + h, *zo = zg + h, *zt = zo + 2 * h; \
        const T *cp = c_prev + r * cp_stride, *g_o = go ? go + r * h : NULL;                     \
        T *dhr = dh + r * h, *dcr = dc + r * h;                                                  \
        T *di = d + r * 4 * h, *df = di + h, *dg = df + h, *dout = dg + h;                        \
        _Pragma("omp simd")                                                                      \
        for (int64_t j = 0; j < h; j++) {                                                        \
            T i = zi[j], f = zf[j], g = zg[j], o = zo[j], tc = zt[j];                            \
            T dhv = dhr[j] + (g_o ? g_o[j] : (T)0);                                              \
            T dcv = dcr[j] + dhv * o * ((T)1 - tc * tc);                                         \
            dout[j] = dhv * tc * o * ((T)1 - o);                                                 \
            di[j] = dcv * g * i * ((T)1 - i);                                                    \
            df[j] = dcv * cp[j] * f * ((T)1 - f);                                                \
            dg[j] = dcv * i * ((T)1 - g * g);                                                    \
            dcr[j] = dcv * f;                                                                    \
        }                                                                                        \
    }                                                                                            \
}                                                                                                \
void gru_back_step_##SFX(const T *z, const T *h_prev, const T *go, const T *dh, T *d, T *dh_direct, \
                         int64_t n, int64_t h) {                                                 \
    for (int64_t r = 0; r < n; r++) {                                                            \
        const T *zr = z + r * 4 * h, *zz = zr + h, *zn = zz + h, *zh = zn + h;                   \
        const T *hp = h_prev + r * h, *g_o = go ? go + r * h : NULL, *dhr = dh + r * h;          \
        T *dr = d + r * 4 * h, *dz = dr + h, *dhn = dz + h, *dn = dhn + h, *dd = dh_direct + r * h; \
        _Pragma("omp simd")                                                                      \
        for (int64_t j = 0; j < h; j++) {                                                        \
            T rv = zr[j], zv = zz[j], nv = zn[j];                                                \
            T dhv = dhr[j] + (g_o ? g_o[j] : (T)0);                                              \
            T dnv = dhv * ((T)1 - zv) * ((T)1 - nv * nv);                                        \
            dr[j] = dnv * zh[j] * rv * ((T)1 - rv);                                              \
            dz[j] = dhv * (hp[j] - nv) * zv * ((T)1 - zv);                                       \
            dhn[j] = dnv * rv;                                                                   \
            dn[j] = dnv;                                                                         \
            dd[j] = dhv * zv;                                                                    \
        }                                                                                        \
    }                                                                                            \
}

#define RNN_CELLS(T, SFX)                                                                        \
/* dst (n, m) contiguous = src read through (row, column) strides; the swapped product's (m, n) layout \
   (rs 1, cs n) in 8-row tiles so that both sides stream */                                      \
static void transpose_##SFX(const T *src, int64_t rs, int64_t cs, T *dst, int64_t n, int64_t m) { \
    if (cs == 1) {                                                                               \
        for (int64_t r = 0; r < n; r++) memcpy(dst + r * m, src + r * rs, (size_t)m * sizeof(T)); \
        return;                                                                                  \
    }                                                                                            \
    for (int64_t r0 = 0; r0 < n; r0 += 8) {                                                      \
        int64_t r1 = r0 + 8 < n ? r0 + 8 : n;                                                    \
        for (int64_t k = 0; k < m; k++)                                                          \
            for (int64_t r = r0; r < r1; r++) dst[r * m + k] = src[r * rs + k * cs];             \
    }                                                                                            \
}                                                                                                \
int lstm_cell_##SFX(const T *gi, int64_t gi_rs, int64_t gi_cs, const T *gh, int64_t gh_rs, int64_t gh_cs,   \
                    const T *b_ih, const T *b_hh, const T *c_prev, int64_t cp_stride, T *z, T *h_out,     \
                    T *hy, T *cy, int64_t n, int64_t h) {                                               \
    T *ghc = (T *)malloc((size_t)(n * 4 * h) * sizeof(T));                                           \
    if (!ghc) return -1;                                                                         \
    for (int64_t r = 0; r < n; r++) {                                                            \
        T *zr = z + r * 6 * h;                                                                   \
        const T *ir = gi + r * gi_rs;                                                            \
        if (gi_cs == 1) for (int64_t k = 0; k < 4 * h; k++) zr[k] = (ir[k] + b_ih[k]) + b_hh[k]; \
        else for (int64_t k = 0; k < 4 * h; k++) zr[k] = (ir[k * gi_cs] + b_ih[k]) + b_hh[k];    \
    }                                                                                            \
    transpose_##SFX(gh, gh_rs, gh_cs, ghc, n, 4 * h);                                            \
    lstm_step_##SFX(z, ghc, c_prev, cp_stride, h_out, n, h);                                     \
    free(ghc);                                                                                   \
    memcpy(hy, h_out, (size_t)(n * h) * sizeof(T));                                              \
    for (int64_t r = 0; r < n; r++)                                                              \
        memcpy(cy + r * h, z + r * 6 * h + 4 * h, (size_t)h * sizeof(T));                        \
    return 0;                                                                                    \
}                                                                                                \
int gru_cell_##SFX(const T *gi, int64_t gi_rs, int64_t gi_cs, const T *gh, int64_t gh_rs, int64_t gh_cs,    \
                   const T *b_ih, const T *b_hh, const T *h_prev, T *z, T *h_out, T *hy, int64_t n,       \
                   int64_t h) {                                                                  \
    T *gic = (T *)malloc((size_t)(n * 6 * h) * sizeof(T)), *ghc = gic + n * 3 * h;               \
    if (!gic) return -1;                                                                         \
    transpose_##SFX(gi, gi_rs, gi_cs, gic, n, 3 * h);                                            \
    for (int64_t r = 0; r < n; r++) {                                                            \
        T *ic = gic + r * 3 * h;                                                                 \
        for (int64_t k = 0; k < 2 * h; k++) ic[k] = (ic[k] + b_ih[k]) + b_hh[k];                 \
        for (int64_t k = 2 * h; k < 3 * h; k++) ic[k] = ic[k] + b_ih[k];                         \
    }                                                                                            \
    transpose_##SFX(gh, gh_rs, gh_cs, ghc, n, 3 * h);                                            \
    gru_step_##SFX(gic, ghc, b_hh + 2 * h, h_prev, z, h_out, n, h);                              \
    free(gic);                                                                                   \
    memcpy(hy, h_out, (size_t)(n * h) * sizeof(T));                                              \
    return 0;                                                                                    \
}

RNN_STEPS(float, vm_expf, f32)
RNN_STEPS(double, vm_exp, f64)
RNN_BACK_STEPS(float, f32)
RNN_BACK_STEPS(double, f64)
RNN_CELLS(float, f32)
RNN_CELLS(double, f64)
