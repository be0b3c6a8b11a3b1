/* nll_loss on log-probabilities laid out as a contiguous (outer, c, inner) array with one class index
 * per (outer, inner) position (int64, in that order): inner = 1 for the (rows, c) input of nll_loss,
 * inner = H*W for nll_loss2d's (N, C, H, W). Optional per-class weight and an ignore_index. The forward
 * gathers one value per position; the backward writes the whole gradient (zeros except one entry per
 * position) in one pass. */
#include <stdint.h>
#include <string.h>

/* losses[p] = -x[class t[p] at position p] * w[t[p]] (0 where t[p] == ignore; losses may be NULL) for
 * the n = outer*inner positions; sums[0] += the losses, sums[1] += the weights of the positions not
 * ignored (in double). Returns -1, or the last position whose target is out of [0, c). */
#define NLL_FWD(T, SUF)                                                                 \
int64_t nll_fwd_##SUF(const T *x, const int64_t *t, int64_t n, int64_t c, int64_t inner, \
                      const T *w, int64_t ignore, T *losses, double *sums) {            \
    int64_t bad = -1;                                                                   \
    double s = 0, tw = 0;                                                               \
    for (int64_t p = 0; p < n; p++) {                                                   \
        int64_t k = t[p];                                                               \
        T l = 0;                                                                        \
        if (k != ignore) {                                                              \
            if (k < 0 || k >= c) { bad = p; continue; }                                 \
            T wk = w ? w[k] : (T)1;                                                     \
            int64_t o = p / inner, i = p - o * inner;                                   \
            l = -x[(o * c + k) * inner + i] * wk;                                       \
            s += (double)l;                                                             \
            tw += (double)wk;                                                           \
        }                                                                               \
        if (losses) losses[p] = l;                                                      \
    }                                                                                   \
    sums[0] += s;                                                                       \
    sums[1] += tw;                                                                      \
    return bad;                                                                         \
}

/* For `outer` slabs: gi[o] = 0 except gi[o, t[o, i], i] = -w[t[o, i]] * go[o, i] (positions with
 * t == ignore stay zero). The targets were checked by the forward. */
#define NLL_BWD(T, SUF)                                                                 \
void nll_bwd_##SUF(T *gi, const int64_t *t, const T *go, int64_t outer, int64_t c, int64_t inner, \
                   const T *w, int64_t ignore) {                                        \
    for (int64_t o = 0; o < outer; o++) {                                               \
        T *slab = gi + o * c * inner;                                                   \
        memset(slab, 0, (size_t)(c * inner) * sizeof(T));                               \
        for (int64_t i = 0; i < inner; i++) {                                           \
            int64_t k = t[o * inner + i];                                               \
            if (k != ignore && k >= 0 && k < c)                                         \
                slab[k * inner + i] = -(w ? w[k] : (T)1) * go[o * inner + i];           \
        }                                                                               \
    }                                                                                   \
}

NLL_FWD(float, f32)
NLL_FWD(double, f64)
NLL_BWD(float, f32)
NLL_BWD(double, f64)
