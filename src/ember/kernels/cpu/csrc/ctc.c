/* The CTC recursions in log space (torch's LossCTC.cpp), one batch element at a time; numpy's version
   (kernels/cpu/ctc.py, nn_backward2.py) loops over time steps in Python around small array ops.

   lpe (T, B, K): log-probabilities of the extended labels (blank, l1, blank, l2, ..., blank), K = 2S+1.
   alpha_t(s) = lse(alpha_{t-1}(s), alpha_{t-1}(s-1), [skip(s)] alpha_{t-1}(s-2)) + lpe_t(s), with
   alpha_0 = lpe_0 at s = 0 and (when the target is not empty) s = 1, -inf elsewhere.
   beta_t(s) (it includes the emission at t) starts at t = input_length - 1 from the one or two end
   positions and runs backwards with the mirrored rule; it is -inf from input_length on.
   lse3 is numpy's: the max is taken out (0 when it is not finite), and NaN propagates. */
#include <math.h>
#include <stdint.h>

#define CTC(T, SFX, EXP, LOG)                                                                    \
static inline T nmax_##SFX(T a, T b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }     \
static inline T lse3_##SFX(T a, T b, T c) {                                                      \
    T m = nmax_##SFX(nmax_##SFX(a, b), c);                                                       \
    T ms = isfinite(m) ? m : (T)0;                                                               \
    return ms + LOG(EXP(a - ms) + EXP(b - ms) + EXP(c - ms));                                    \
}                                                                                                \
                                                                                                 \
/* alpha (T, B, K) from lpe; skip (B, K): position s may come from s-2; tl (B) target lengths */  \
void ctc_alpha_##SFX(const T *lpe, const uint8_t *skip, const int64_t *tl, T *alpha, int64_t nt,  \
                     int64_t nb, int64_t k) {                                                    \
    const T ninf = -INFINITY;                                                                    \
    for (int64_t b = 0; b < nb; b++) {                                                           \
        const uint8_t *sk = skip + b * k;                                                        \
        for (int64_t t = 0; t < nt; t++) {                                                       \
            const T *e = lpe + (t * nb + b) * k;                                                 \
            T *a = alpha + (t * nb + b) * k;                                                     \
            if (t == 0) {                                                                        \
                for (int64_t s = 0; s < k; s++) a[s] = ninf;                                     \
                if (k > 0) a[0] = e[0];                                                          \
                if (k > 1 && tl[b] > 0) a[1] = e[1];                                             \
                continue;                                                                        \
            }                                                                                    \
            const T *p = alpha + ((t - 1) * nb + b) * k;                                         \
            for (int64_t s = 0; s < k; s++) {                                                    \
                T a1 = s >= 1 ? p[s - 1] : ninf, a2 = s >= 2 && sk[s] ? p[s - 2] : ninf;        \
                a[s] = lse3_##SFX(p[s], a1, a2) + e[s];                                          \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
}                                                                                                \
                                                                                                 \
/* beta (T, B, K); skip2 (B, K): position s may go on to s+2; il, tl (B) input / target lengths */ \
void ctc_beta_##SFX(const T *lpe, const uint8_t *skip2, const int64_t *il, const int64_t *tl,    \
                    T *beta, int64_t nt, int64_t nb, int64_t k) {                                \
    const T ninf = -INFINITY;                                                                    \
    for (int64_t b = 0; b < nb; b++) {                                                           \
        const uint8_t *sk = skip2 + b * k;                                                       \
        const int64_t last = il[b] - 1, end = 2 * tl[b];                                         \
        for (int64_t t = nt - 1; t >= 0; t--) {                                                  \
            const T *e = lpe + (t * nb + b) * k;                                                 \
            T *c = beta + (t * nb + b) * k;                                                      \
            if (t > last) {                                                                      \
                for (int64_t s = 0; s < k; s++) c[s] = ninf;                                     \
            } else if (t == last) {                                                              \
                for (int64_t s = 0; s < k; s++)                                                  \
                    c[s] = (s == end || (s == end - 1 && tl[b] > 0)) ? e[s] : ninf;              \
            } else {                                                                             \
                const T *n = beta + ((t + 1) * nb + b) * k;                                      \
                for (int64_t s = 0; s < k; s++) {                                                \
                    T b1 = s + 1 < k ? n[s + 1] : ninf, b2 = s + 2 < k && sk[s] ? n[s + 2] : ninf; \
                    c[s] = lse3_##SFX(n[s], b1, b2) + e[s];                                      \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
}

CTC(float, f32, expf, logf)
CTC(double, f64, exp, log)
