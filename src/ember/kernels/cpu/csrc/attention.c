/* The attention kernels of kernels/cpu/attention.py (torch's _scaled_dot_product_flash_attention_for_cpu).
 * First, row kernels for paths whose matrix products run in BLAS (attention.py's numpy path with the C rows, and
 * the C that ember._inductor generates for compiled attention): they do the per-row softmax work on a contiguous
 * (rows, n) block of raw scores s = q.k, row r being query position i = (r0 + r) % L. A row's valid keys are
 * j < min(i + 1, n) when causal (torch's top-left aligned is_causal mask), every j < n otherwise; masked entries
 * come out 0. Python splits the rows over threads, one call per chunk (r0 = the chunk's first row).
 * Then the fused kernel (attn_flash_*, below): whole (batch, head) pairs without BLAS, what eager runs. */
#pragma GCC optimize ("no-trapping-math")    /* the selects of the row loops vectorise (values unchanged) */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "vmath.h"

/* BLOCKED_SUM, shared with softmax.c */
#include "blocked_sum.h"

static inline int64_t valid_keys(int64_t r0, int64_t r, int64_t L, int64_t n, int causal) {
    if (!causal) return n;
    const int64_t i = (r0 + r) % L;
    return i + 1 < n ? i + 1 : n;
}

/* In place: p = softmax(scale * s) over the valid keys, 0 elsewhere; lse[r] = log(sum(exp(scale * s)))
 * over the valid keys. As softmax: a row holding NaN or +inf gives NaN. */
#define ATTN_FWD(T, SUF, EXP)                                                            \
void attn_softmax_fwd_##SUF(T *s, T *lse, int64_t rows, int64_t n, int64_t L, int64_t r0, \
                           double scale, int causal) {                                  \
    const T sc = (T)scale;                                                              \
    for (int64_t r = 0; r < rows; r++) {                                                \
        T *sr = s + r * n;                                                              \
        const int64_t v = valid_keys(r0, r, L, n, causal);                              \
        T m = sr[0] * sc;                                                               \
        _Pragma("omp simd reduction(max:m)")                                            \
        for (int64_t j = 0; j < v; j++) { const T x = sr[j] * sc; m = x > m ? x : m; }  \
        _Pragma("omp simd")                                                             \
        for (int64_t j = 0; j < v; j++) sr[j] = EXP(sr[j] * sc - m);                    \
        BLOCKED_SUM(T, tot, v, j, sr[j])                                                \
        const T inv = (T)(1.0 / tot);                                                   \
        _Pragma("omp simd")                                                             \
        for (int64_t j = 0; j < v; j++) sr[j] *= inv;                                   \
        for (int64_t j = v; j < n; j++) sr[j] = 0;                                      \
        lse[r] = (T)((double)m + log(tot));                                             \
    }                                                                                   \
}

/* In place: p = exp(scale * s - lse[r]) over the valid keys, 0 elsewhere (the forward's probabilities
 * rebuilt from the saved log-sum-exp). */
#define ATTN_PROBS(T, SUF, EXP)                                                          \
void attn_probs_##SUF(T *s, const T *lse, int64_t rows, int64_t n, int64_t L, int64_t r0, \
                      double scale, int causal) {                                       \
    const T sc = (T)scale;                                                              \
    for (int64_t r = 0; r < rows; r++) {                                                \
        T *sr = s + r * n;                                                              \
        const int64_t v = valid_keys(r0, r, L, n, causal);                              \
        const T l = lse[r];                                                             \
        _Pragma("omp simd")                                                             \
        for (int64_t j = 0; j < v; j++) sr[j] = EXP(sr[j] * sc - l);                    \
        for (int64_t j = v; j < n; j++) sr[j] = 0;                                      \
    }                                                                                   \
}

/* In place in dp: ds = scale * p * (dp - d[r]) over the valid keys, 0 elsewhere; d[r] = sum(dO * O) of
 * the row, which equals sum(p * dp). */
#define ATTN_BWD(T, SUF)                                                                 \
void attn_softmax_bwd_##SUF(const T *p, T *dp, const T *d, int64_t rows, int64_t n, int64_t L, \
                           int64_t r0, double scale, int causal) {                      \
    const T sc = (T)scale;                                                              \
    for (int64_t r = 0; r < rows; r++) {                                                \
        const T *pr = p + r * n;                                                        \
        T *gr = dp + r * n;                                                             \
        const int64_t v = valid_keys(r0, r, L, n, causal);                              \
        const T dr = d[r];                                                              \
        _Pragma("omp simd")                                                             \
        for (int64_t j = 0; j < v; j++) gr[j] = sc * (pr[j] * (gr[j] - dr));            \
        for (int64_t j = v; j < n; j++) gr[j] = 0;                                      \
    }                                                                                   \
}

ATTN_FWD(float, f32, vm_expf)
ATTN_FWD(double, f64, vm_exp)
ATTN_PROBS(float, f32, vm_expf)
ATTN_PROBS(double, f64, vm_exp)
ATTN_BWD(float, f32)
ATTN_BWD(double, f64)

/* ---- The fused kernel: whole (batch, head) attention matrices without BLAS -------------------------------------
 * The counterpart of ATen's cpu flash attention (aten/src/ATen/native/cpu/FlashAttentionKernel.cpp), run by
 * kernels/cpu/attention.py over the (batch, head) pairs on csrc/parallel.c's pool (chunks of pairs; any thread
 * count, the calling thread alone for small work). Per pair, query rows go in blocks of FA_R:
 *   forward:  s = q k^T (k transposed once per pair into a zero-padded scratch), p = softmax(scale * s) per row
 *             with lse = its log-sum-exp, out = p v;
 *   backward: p = exp(scale * q k^T - lse), dp = dO v^T, ds = scale * p * (dp - D) with D = rowsum(dO * O),
 *             dv += p^T dO, dk += ds^T q, dq = ds k (dv, dk accumulate over the blocks of one pair).
 * Causal (torch's top-left is_causal: query i sees keys j <= i): a group of query rows computes and reads only
 * the keys up to its last row's limit (scores of FA_G rows, products of 8), so about half the multiply-adds of
 * the full matrices are skipped at T = 64 (torch's kernel skips whole key blocks); keys past a row's own limit
 * inside its group have p = 0 exactly and add nothing (a NaN or inf in such a key's v still gives NaN, 0 * inf).
 *
 * The bits ember promises: every product element is one chain of fused multiply-adds in ascending order of the
 * summed index, started from 0 (dv, dk: one chain over all query rows of the pair, in order); row sums (softmax
 * denominators, D) add in 16 lanes (element j into lane j % 16) folded as fold16.h's fold16_f32 (lane + 8, + 4,
 * + 2, + 1); exp is vmath.h's. The AVX-512 tiles and the portable loops compute exactly these operations, so
 * the results do not depend on the thread count, the chunking, or AVX-512 (tests compare both paths on one
 * machine: attn_flash_set_portable). They are not the bits of the unfused composition (BLAS gemms, softmax.c)
 * nor torch's (MKL gemms, its own exp): equal to those within float32 rounding, tested with tolerances.
 *
 * Descriptor d = p[0] (int64): [0] H [1] L [2] S [3] E [4] causal; then tensors as (address, batch stride, head
 * stride, row stride), in elements, unit inner stride: q [5] k [9] v [13] out [17] lse [21] (its row stride:
 * between query positions) dO [25] dq [29] dk [33] dv [37] (backward); [41] address of an int64 set to 1 when
 * the scratch could not be allocated; [42] an additive attn_mask broadcast to (B, H, L, S) like the tensors (0:
 * none; unit key stride), added to the scaled scores. s[0] = scale.
 * A row whose valid scores are all -inf (masked out) gives out 0, lse 0 and no gradient, as torch's kernel; a NaN
 * score or an inf - inf makes its row NaN. */
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#define FA_R 16         /* query rows per block */
#define FA_G 4          /* query rows per group of the score products */
#define FA_P 8          /* rows per group of the p @ v style products */

static int fa_portable;                 /* 1: the portable loops also on an AVX-512 build (tests: same bits) */
void attn_flash_set_portable(int on) { fa_portable = on; }
int attn_flash_avx512(void) {
#if defined(__AVX512F__)
    return 1;
#else
    return 0;
#endif
}

static inline int64_t fa_up16(int64_t n) { return (n + 15) & ~(int64_t)15; }
static inline int64_t fa_min(int64_t a, int64_t b) { return a < b ? a : b; }

/* Portable loops (float and double). fa_qk: c[r][j] = sum_d a[r][d] bt[d][j] for r < rows, j < n.
 * fa_pv: c[r][e] (+)= sum_t p[r * prs + t * pts] b[t][e] for r < rows, t < n, e < E (acc: onto c). */
#define FA_PORTABLE(T, SUF, FMA)                                                                          \
static void fa_qk_port_##SUF(const T *a, int64_t lda, int64_t rows, const T *bt, int64_t ldb, int64_t E,    \
                             int64_t n, T *c, int64_t ldc) {                                             \
    n = fa_up16(n);                                                                                       \
    for (int64_t r = 0; r < rows; r++) {                                                                  \
        T *cr = c + r * ldc;                                                                              \
        for (int64_t j = 0; j < n; j++) cr[j] = 0;                                                        \
        for (int64_t d = 0; d < E; d++) {                                                                 \
            const T x = a[r * lda + d];                                                                   \
            const T *br = bt + d * ldb;                                                                   \
            _Pragma("omp simd")                                                                           \
            for (int64_t j = 0; j < n; j++) cr[j] = FMA(x, br[j], cr[j]);                                 \
        }                                                                                                 \
    }                                                                                                     \
}                                                                                                         \
static void fa_pv_port_##SUF(const T *p, int64_t prs, int64_t pts, int64_t rows, int64_t n, const T *b,    \
                             int64_t ldb, int64_t E, T *c, int64_t ldc, int acc) {                        \
    for (int64_t r = 0; r < rows; r++) {                                                                  \
        T *cr = c + r * ldc;                                                                              \
        if (!acc) for (int64_t e = 0; e < E; e++) cr[e] = 0;                                              \
        for (int64_t t = 0; t < n; t++) {                                                                 \
            const T x = p[r * prs + t * pts];                                                             \
            const T *bt = b + t * ldb;                                                                    \
            _Pragma("omp simd")                                                                           \
            for (int64_t e = 0; e < E; e++) cr[e] = FMA(x, bt[e], cr[e]);                                 \
        }                                                                                                 \
    }                                                                                                     \
}

FA_PORTABLE(float, f32, fmaf)
FA_PORTABLE(double, f64, fma)

#if defined(__AVX512F__)
/* AVX-512 tiles of the same products, float32. Scores: R (<= 4) rows x NV (<= 4) vectors of 16 keys, bt and c
 * padded to whole vectors. Products: R (<= 8) rows x NV (<= 2) vectors of 16 elements, the last one masked. */
#define FA_INL static inline __attribute__((always_inline))
FA_INL void fa_qk_tile(const float *a, int64_t lda, const float *bt, int64_t ldb, int64_t E, float *c,
                       int64_t ldc, const int R, const int NV) {
    __m512 acc[4][4];
    for (int r = 0; r < R; r++)
        for (int v = 0; v < NV; v++) acc[r][v] = _mm512_setzero_ps();
    for (int64_t d = 0; d < E; d++) {
        __m512 b[4];
        for (int v = 0; v < NV; v++) b[v] = _mm512_loadu_ps(bt + d * ldb + 16 * v);
        for (int r = 0; r < R; r++) {
            const __m512 x = _mm512_set1_ps(a[r * lda + d]);
            for (int v = 0; v < NV; v++) acc[r][v] = _mm512_fmadd_ps(x, b[v], acc[r][v]);
        }
    }
    for (int r = 0; r < R; r++)
        for (int v = 0; v < NV; v++) _mm512_storeu_ps(c + r * ldc + 16 * v, acc[r][v]);
}

#define FA_QK_CASE(R, NV) case (R) * 8 + (NV): fa_qk_tile(a, lda, bt + j, ldb, E, c + j, ldc, R, NV); break;
static void fa_qk_avx(const float *a, int64_t lda, int64_t rows, const float *bt, int64_t ldb, int64_t E,
                      int64_t n, float *c, int64_t ldc) {
    const int64_t nv = fa_up16(n) / 16;
    for (int64_t v0 = 0; v0 < nv; v0 += 4) {
        const int64_t j = 16 * v0;
        switch ((int)(rows * 8 + fa_min(4, nv - v0))) {
            FA_QK_CASE(1, 1) FA_QK_CASE(1, 2) FA_QK_CASE(1, 3) FA_QK_CASE(1, 4)
            FA_QK_CASE(2, 1) FA_QK_CASE(2, 2) FA_QK_CASE(2, 3) FA_QK_CASE(2, 4)
            FA_QK_CASE(3, 1) FA_QK_CASE(3, 2) FA_QK_CASE(3, 3) FA_QK_CASE(3, 4)
            FA_QK_CASE(4, 1) FA_QK_CASE(4, 2) FA_QK_CASE(4, 3) FA_QK_CASE(4, 4)
            default: break;
        }
    }
}

FA_INL void fa_pv_tile(const float *p, int64_t prs, int64_t pts, int64_t n, const float *b, int64_t ldb,
                       float *c, int64_t ldc, int acc, __mmask16 last, const int R, const int NV) {
    __m512 s[8][2];
    for (int r = 0; r < R; r++)
        for (int v = 0; v < NV; v++)
            s[r][v] = acc ? _mm512_maskz_loadu_ps(v == NV - 1 ? last : 0xFFFF, c + r * ldc + 16 * v)
                          : _mm512_setzero_ps();
    for (int64_t t = 0; t < n; t++) {
        __m512 bv[2];
        for (int v = 0; v < NV; v++)
            bv[v] = _mm512_maskz_loadu_ps(v == NV - 1 ? last : 0xFFFF, b + t * ldb + 16 * v);
        for (int r = 0; r < R; r++) {
            const __m512 x = _mm512_set1_ps(p[r * prs + t * pts]);
            for (int v = 0; v < NV; v++) s[r][v] = _mm512_fmadd_ps(x, bv[v], s[r][v]);
        }
    }
    for (int r = 0; r < R; r++)
        for (int v = 0; v < NV; v++)
            _mm512_mask_storeu_ps(c + r * ldc + 16 * v, v == NV - 1 ? last : 0xFFFF, s[r][v]);
}

#define FA_PV_CASE(R, NV) case (R) * 4 + (NV): \
    fa_pv_tile(p + r0 * prs, prs, pts, n, b + e0, ldb, c + r0 * ldc + e0, ldc, acc, last, R, NV); break;
static void fa_pv_avx(const float *p, int64_t prs, int64_t pts, int64_t rows, int64_t n, const float *b,
                      int64_t ldb, int64_t E, float *c, int64_t ldc, int acc) {
    for (int64_t e0 = 0; e0 < E; e0 += 32) {
        const int64_t w = fa_min(32, E - e0);
        const int nvec = w > 16 ? 2 : 1;
        const int64_t tail = w - 16 * (nvec - 1);
        const __mmask16 last = (__mmask16)(tail >= 16 ? 0xFFFF : (1u << tail) - 1u);
        for (int64_t r0 = 0; r0 < rows; r0 += FA_P) {
            switch ((int)(fa_min(FA_P, rows - r0) * 4 + nvec)) {
                FA_PV_CASE(1, 1) FA_PV_CASE(1, 2) FA_PV_CASE(2, 1) FA_PV_CASE(2, 2)
                FA_PV_CASE(3, 1) FA_PV_CASE(3, 2) FA_PV_CASE(4, 1) FA_PV_CASE(4, 2)
                FA_PV_CASE(5, 1) FA_PV_CASE(5, 2) FA_PV_CASE(6, 1) FA_PV_CASE(6, 2)
                FA_PV_CASE(7, 1) FA_PV_CASE(7, 2) FA_PV_CASE(8, 1) FA_PV_CASE(8, 2)
                default: break;
            }
        }
    }
}
#endif

static void fa_qk_f32(const float *a, int64_t lda, int64_t rows, const float *bt, int64_t ldb, int64_t E,
                      int64_t n, float *c, int64_t ldc) {
#if defined(__AVX512F__)
    if (!fa_portable) { fa_qk_avx(a, lda, rows, bt, ldb, E, n, c, ldc); return; }
#endif
    fa_qk_port_f32(a, lda, rows, bt, ldb, E, n, c, ldc);
}
static void fa_pv_f32(const float *p, int64_t prs, int64_t pts, int64_t rows, int64_t n, const float *b,
                      int64_t ldb, int64_t E, float *c, int64_t ldc, int acc) {
#if defined(__AVX512F__)
    if (!fa_portable) { fa_pv_avx(p, prs, pts, rows, n, b, ldb, E, c, ldc, acc); return; }
#endif
    fa_pv_port_f32(p, prs, pts, rows, n, b, ldb, E, c, ldc, acc);
}
#define fa_qk_f64 fa_qk_port_f64
#define fa_pv_f64 fa_pv_port_f64

/* Row kernels on the scratch rows (x: scores, columns [0, z) are read later by the products): v valid keys,
 * entries [v, z) set to 0. The loops run over whole 16-element blocks up to vv = v rounded up (the scratch is that
 * wide; the QK products wrote those columns) and zero the entries past v afterwards, so no row has a scalar tail;
 * a sum over the zeroed entries adds +0 to lanes that started at +0 (the same bits as a sum over [0, v)). The
 * 16-lane sum as fold16.h's fold16_f32. */
#define FA_ROWS(T, SUF, EXP)                                                                              \
static inline T fa_fold16_##SUF(T *l) {                                                                   \
    for (int u = 0; u < 8; u++) l[u] += l[u + 8];                                                         \
    for (int u = 0; u < 4; u++) l[u] += l[u + 4];                                                         \
    l[0] += l[2];                                                                                         \
    l[1] += l[3];                                                                                         \
    return l[0] + l[1];                                                                                   \
}                                                                                                         \
static inline T fa_dot16_##SUF(const T *x, const T *y, int64_t n) {                                       \
    T l[16] = {0};                                                                                        \
    int64_t j = 0;                                                                                        \
    for (; j + 16 <= n; j += 16) for (int u = 0; u < 16; u++) l[u] += x[j + u] * y[j + u];                \
    for (int u = 0; j + u < n; u++) l[u] += x[j + u] * y[j + u];                                          \
    return fa_fold16_##SUF(l);                                                                            \
}                                                                                                         \
static T fa_softmax_row_##SUF(T *x, const T *bias, int64_t v, int64_t z, T sc) {                           \
    const int64_t vv = fa_up16(v);                                                                        \
    T l[16];                                                                                              \
    if (bias)                                                                                             \
        for (int64_t j = 0; j < v; j++) x[j] = x[j] * sc + bias[j];                                       \
    else                                                                                                  \
        for (int64_t j = 0; j < vv; j++) x[j] = x[j] * sc;                                                \
    for (int u = 0; u < 16; u++) l[u] = -(T)INFINITY;                                                     \
    for (int64_t j = 0; j < vv; j += 16)                                                                  \
        for (int u = 0; u < 16; u++) l[u] = j + u < v && x[j + u] > l[u] ? x[j + u] : l[u];               \
    T m = l[0];                                                                                           \
    for (int u = 1; u < 16; u++) m = l[u] > m ? l[u] : m;                                                 \
    m = m == -(T)INFINITY ? 0 : m;                                                                        \
    for (int64_t j = 0; j < vv; j += 16)                                                                  \
        for (int u = 0; u < 16; u++) x[j + u] = j + u < v ? EXP(x[j + u] - m) : 0;                       \
    for (int u = 0; u < 16; u++) l[u] = 0;                                                                \
    for (int64_t j = 0; j < vv; j += 16)                                                                  \
        for (int u = 0; u < 16; u++) l[u] += x[j + u];                                                    \
    const T tot = fa_fold16_##SUF(l);                                                                     \
    const T inv = tot == 0 ? 0 : (T)(1.0 / tot);                                                          \
    for (int64_t j = 0; j < vv; j += 16)                                                                  \
        for (int u = 0; u < 16; u++) x[j + u] *= inv;                                                     \
    for (int64_t j = vv; j < z; j++) x[j] = 0;                                                            \
    return tot == 0 ? 0 : (T)((double)m + log((double)tot));                                              \
}                                                                                                         \
static void fa_probs_ds_row_##SUF(T *x, T *g, const T *bias, int64_t v, int64_t z, T sc, T l, T dd) {     \
    const int64_t vv = fa_up16(v);                                                                        \
    if (bias)                                                                                             \
        for (int64_t j = 0; j < v; j++) x[j] = x[j] * sc + bias[j];                                       \
    else                                                                                                  \
        for (int64_t j = 0; j < vv; j++) x[j] = x[j] * sc;                                                \
    for (int64_t j = 0; j < vv; j += 16)                                                                  \
        for (int u = 0; u < 16; u++) {                                                                    \
            const T pj = j + u < v ? EXP(x[j + u] - l) : 0;                                               \
            x[j + u] = pj;                                                                                \
            g[j + u] = j + u < v ? sc * (pj * (g[j + u] - dd)) : 0;                                       \
        }                                                                                                 \
    for (int64_t j = vv; j < z; j++) { x[j] = 0; g[j] = 0; }                                              \
}

FA_ROWS(float, f32, vm_expf)
FA_ROWS(double, f64, vm_exp)

#if defined(__AVX512F__)
#include "fold16.h"
/* vmath.h's vm_expf on 16 lanes: the same operations in the same order (the clamps keep NaN, as its selects) */
FA_INL __m512 fa_exp16(__m512 x) {
    x = _mm512_max_ps(_mm512_set1_ps(-110.0f), x);
    x = _mm512_min_ps(_mm512_set1_ps(100.0f), x);
    const __m512 shift = _mm512_set1_ps(12582912.0f);
    const __m512 k = _mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), shift);
    const __m512 n = _mm512_sub_ps(k, shift);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.428606765330187e-06f), r);
    __m512 p = _mm512_set1_ps(1.0f / 5040.0f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 720.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    const __m512i u = _mm512_add_epi32(_mm512_sub_epi32(_mm512_castps_si512(k), _mm512_set1_epi32(0x4B400000)),
                                       _mm512_set1_epi32(256));
    const __m512i h = _mm512_srli_epi32(u, 1);
    const __m512 s1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_sub_epi32(h, _mm512_set1_epi32(1)), 23));
    const __m512 s2 = _mm512_castsi512_ps(
        _mm512_slli_epi32(_mm512_sub_epi32(_mm512_sub_epi32(u, h), _mm512_set1_epi32(1)), 23));
    return _mm512_mul_ps(_mm512_mul_ps(p, s1), s2);
}

static inline __mmask16 fa_lanes(int64_t j, int64_t v) {
    return v - j >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (v - j)) - 1u);
}

/* fa_softmax_row_f32 / fa_probs_ds_row_f32 / fa_dot16_f32 in AVX-512 (the same bits) */
static inline __m512 fa_scaled(const float *x, const float *bias, int64_t j, int64_t v, __m512 sc) {
    const __m512 y = _mm512_mul_ps(_mm512_loadu_ps(x + j), sc);
    return bias ? _mm512_add_ps(y, _mm512_maskz_loadu_ps(fa_lanes(j, v), bias + j)) : y;
}

static float fa_softmax_row_avx(float *x, const float *bias, int64_t v, int64_t z, float scf) {
    const int64_t vv = fa_up16(v);
    const __m512 sc = _mm512_set1_ps(scf);
    __m512 mx = _mm512_set1_ps(-INFINITY);
    for (int64_t j = 0; j < vv; j += 16) {
        const __m512 y = fa_scaled(x, bias, j, v, sc);
        _mm512_storeu_ps(x + j, y);
        mx = _mm512_mask_max_ps(mx, fa_lanes(j, v), y, mx);
    }
    float l[16];
    _mm512_storeu_ps(l, mx);
    float m = l[0];
    for (int u = 1; u < 16; u++) m = l[u] > m ? l[u] : m;
    m = m == -INFINITY ? 0 : m;
    const __m512 mv = _mm512_set1_ps(m);
    __m512 tot = _mm512_setzero_ps();
    for (int64_t j = 0; j < vv; j += 16) {
        const __m512 e = _mm512_maskz_mov_ps(fa_lanes(j, v), fa_exp16(_mm512_sub_ps(_mm512_loadu_ps(x + j), mv)));
        tot = _mm512_add_ps(tot, e);
        _mm512_storeu_ps(x + j, e);
    }
    const float t = fold16_f32(tot);
    const __m512 inv = _mm512_set1_ps(t == 0 ? 0 : (float)(1.0 / t));
    for (int64_t j = 0; j < vv; j += 16) _mm512_storeu_ps(x + j, _mm512_mul_ps(_mm512_loadu_ps(x + j), inv));
    for (int64_t j = vv; j < z; j++) x[j] = 0;
    return t == 0 ? 0 : (float)((double)m + log((double)t));
}

static void fa_probs_ds_row_avx(float *x, float *g, const float *bias, int64_t v, int64_t z, float scf, float lf,
                                float ddf) {
    const int64_t vv = fa_up16(v);
    const __m512 sc = _mm512_set1_ps(scf), l = _mm512_set1_ps(lf), dd = _mm512_set1_ps(ddf);
    for (int64_t j = 0; j < vv; j += 16) {
        const __mmask16 k = fa_lanes(j, v);
        const __m512 pj = _mm512_maskz_mov_ps(k, fa_exp16(_mm512_sub_ps(fa_scaled(x, bias, j, v, sc), l)));
        _mm512_storeu_ps(x + j, pj);
        const __m512 gj = _mm512_mul_ps(sc, _mm512_mul_ps(pj, _mm512_sub_ps(_mm512_loadu_ps(g + j), dd)));
        _mm512_storeu_ps(g + j, _mm512_maskz_mov_ps(k, gj));
    }
    for (int64_t j = vv; j < z; j++) { x[j] = 0; g[j] = 0; }
}

static float fa_dot16_avx(const float *x, const float *y, int64_t n) {
    __m512 s = _mm512_setzero_ps();
    for (int64_t j = 0; j < n; j += 16) {
        const __mmask16 k = fa_lanes(j, n);
        s = _mm512_add_ps(s, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, x + j), _mm512_maskz_loadu_ps(k, y + j)));
    }
    return fold16_f32(s);
}
#define FA_SOFTMAX_ROW_f32(...) (fa_portable ? fa_softmax_row_f32(__VA_ARGS__) : fa_softmax_row_avx(__VA_ARGS__))
#define FA_PROBS_DS_ROW_f32(...) \
    do { if (fa_portable) fa_probs_ds_row_f32(__VA_ARGS__); else fa_probs_ds_row_avx(__VA_ARGS__); } while (0)
#define FA_DOT16_f32(...) (fa_portable ? fa_dot16_f32(__VA_ARGS__) : fa_dot16_avx(__VA_ARGS__))
#else
#define FA_SOFTMAX_ROW_f32 fa_softmax_row_f32
#define FA_PROBS_DS_ROW_f32 fa_probs_ds_row_f32
#define FA_DOT16_f32 fa_dot16_f32
#endif
#define FA_SOFTMAX_ROW_f64 fa_softmax_row_f64
#define FA_PROBS_DS_ROW_f64 fa_probs_ds_row_f64
#define FA_DOT16_f64 fa_dot16_f64

#define FA_PTR(T, d, at, bi, hi) ((T *)(intptr_t)(d)[at] + (bi) * (d)[(at) + 1] + (hi) * (d)[(at) + 2])

/* The valid keys of query row i, and of a group of rows ending before i1 */
static inline int64_t fa_keys(int64_t i, int64_t S, int causal) { return causal ? fa_min(i + 1, S) : S; }

#define FA_MATS(T, SUF)                                                                                   \
static void fa_transpose_##SUF(const T *a, int64_t lda, int64_t S, int64_t E, T *at, int64_t Sp) {       \
    for (int64_t d = 0; d < E; d++) {                                                                     \
        T *row = at + d * Sp;                                                                             \
        for (int64_t j = 0; j < S; j++) row[j] = a[j * lda + d];                                          \
        for (int64_t j = S; j < Sp; j++) row[j] = 0;                                                      \
    }                                                                                                     \
}                                                                                                         \
void attn_flash_fwd_##SUF(void *const *p, const double *s, int64_t b, int64_t e) {                       \
    const int64_t *d = (const int64_t *)p[0];                                                             \
    const int64_t H = d[0], L = d[1], S = d[2], E = d[3], Sp = fa_up16(S);                                \
    const int causal = (int)d[4];                                                                         \
    const T sc = (T)s[0];                                                                                 \
    T *kt = malloc(sizeof(T) * (size_t)((E + FA_R) * Sp));                                                \
    if (!kt) { *(int64_t *)(intptr_t)d[41] = 1; return; }                                                 \
    T *sb = kt + E * Sp;                                                                                  \
    const int64_t qr = d[8], kr = d[12], vr = d[16], orow = d[20], lr = d[24], br = d[45];               \
    for (int64_t bh = b; bh < e; bh++) {                                                                  \
        const int64_t bi = bh / H, hi = bh % H;                                                           \
        const T *q = FA_PTR(T, d, 5, bi, hi), *k = FA_PTR(T, d, 9, bi, hi), *v = FA_PTR(T, d, 13, bi, hi); \
        T *o = FA_PTR(T, d, 17, bi, hi), *lse = FA_PTR(T, d, 21, bi, hi);                                 \
        const T *bias = d[42] ? FA_PTR(T, d, 42, bi, hi) : NULL;                                          \
        fa_transpose_##SUF(k, kr, S, E, kt, Sp);                                                          \
        for (int64_t i0 = 0; i0 < L; i0 += FA_R) {                                                        \
            const int64_t R = fa_min(FA_R, L - i0), z = fa_keys(i0 + R - 1, S, causal);                   \
            for (int64_t g = 0; g < R; g += FA_G) {                                                       \
                const int64_t rows = fa_min(FA_G, R - g);                                                 \
                fa_qk_##SUF(q + (i0 + g) * qr, qr, rows, kt, Sp, E, fa_keys(i0 + g + rows - 1, S, causal), \
                            sb + g * Sp, Sp);                                                             \
            }                                                                                             \
            for (int64_t r = 0; r < R; r++)                                                               \
                lse[(i0 + r) * lr] = FA_SOFTMAX_ROW_##SUF(sb + r * Sp, bias ? bias + (i0 + r) * br : NULL,         \
                                                           fa_keys(i0 + r, S, causal), z, sc);                    \
            for (int64_t g = 0; g < R; g += FA_P) {                                                       \
                const int64_t rows = fa_min(FA_P, R - g);                                                 \
                fa_pv_##SUF(sb + g * Sp, Sp, 1, rows, fa_keys(i0 + g + rows - 1, S, causal), v, vr, E,    \
                            o + (i0 + g) * orow, orow, 0);                                                \
            }                                                                                             \
        }                                                                                                 \
    }                                                                                                     \
    free(kt);                                                                                             \
}                                                                                                         \
void attn_flash_bwd_##SUF(void *const *p, const double *s, int64_t b, int64_t e) {                       \
    const int64_t *d = (const int64_t *)p[0];                                                             \
    const int64_t H = d[0], L = d[1], S = d[2], E = d[3], Sp = fa_up16(S);                                \
    const int causal = (int)d[4];                                                                         \
    const T sc = (T)s[0];                                                                                 \
    T *kt = malloc(sizeof(T) * (size_t)(2 * (E + FA_R) * Sp));                                            \
    if (!kt) { *(int64_t *)(intptr_t)d[41] = 1; return; }                                                 \
    T *vt = kt + E * Sp, *pb = vt + E * Sp, *db = pb + FA_R * Sp;                                         \
    const int64_t qr = d[8], kr = d[12], vr = d[16], orow = d[20], lr = d[24], br = d[45];               \
    const int64_t gor = d[28], gqr = d[32], gkr = d[36], gvr = d[40];                                     \
    for (int64_t bh = b; bh < e; bh++) {                                                                  \
        const int64_t bi = bh / H, hi = bh % H;                                                           \
        const T *q = FA_PTR(T, d, 5, bi, hi), *k = FA_PTR(T, d, 9, bi, hi), *v = FA_PTR(T, d, 13, bi, hi); \
        const T *o = FA_PTR(T, d, 17, bi, hi), *lse = FA_PTR(T, d, 21, bi, hi);                           \
        const T *go = FA_PTR(T, d, 25, bi, hi);                                                           \
        T *gq = FA_PTR(T, d, 29, bi, hi), *gk = FA_PTR(T, d, 33, bi, hi), *gv = FA_PTR(T, d, 37, bi, hi);   \
        const T *bias = d[42] ? FA_PTR(T, d, 42, bi, hi) : NULL;                                          \
        fa_transpose_##SUF(k, kr, S, E, kt, Sp);                                                          \
        fa_transpose_##SUF(v, vr, S, E, vt, Sp);                                                          \
        int64_t zd = 0;                 /* dk, dv rows [0, zd) hold sums; a block starts rows [zd, z) from 0 */ \
        for (int64_t i0 = 0; i0 < L; i0 += FA_R) {                                                        \
            const int64_t R = fa_min(FA_R, L - i0), z = fa_keys(i0 + R - 1, S, causal);                   \
            for (int64_t g = 0; g < R; g += FA_G) {                                                       \
                const int64_t rows = fa_min(FA_G, R - g), n = fa_keys(i0 + g + rows - 1, S, causal);      \
                fa_qk_##SUF(q + (i0 + g) * qr, qr, rows, kt, Sp, E, n, pb + g * Sp, Sp);                  \
                fa_qk_##SUF(go + (i0 + g) * gor, gor, rows, vt, Sp, E, n, db + g * Sp, Sp);               \
            }                                                                                             \
            for (int64_t r = 0; r < R; r++) {                                                             \
                const int64_t i = i0 + r;                                                                 \
                const T dd = FA_DOT16_##SUF(go + i * gor, o + i * orow, E);                               \
                FA_PROBS_DS_ROW_##SUF(pb + r * Sp, db + r * Sp, bias ? bias + i * br : NULL, fa_keys(i, S, causal), z, \
                                      sc, lse[i * lr], dd);                                                     \
            }                                                                                             \
            if (zd) {                                                                                     \
                fa_pv_##SUF(pb, 1, Sp, zd, R, go + i0 * gor, gor, E, gv, gvr, 1);                         \
                fa_pv_##SUF(db, 1, Sp, zd, R, q + i0 * qr, qr, E, gk, gkr, 1);                            \
            }                                                                                             \
            if (z > zd) {                                                                                 \
                fa_pv_##SUF(pb + zd, 1, Sp, z - zd, R, go + i0 * gor, gor, E, gv + zd * gvr, gvr, 0);     \
                fa_pv_##SUF(db + zd, 1, Sp, z - zd, R, q + i0 * qr, qr, E, gk + zd * gkr, gkr, 0);        \
                zd = z;                                                                                   \
            }                                                                                             \
            for (int64_t g = 0; g < R; g += FA_P) {                                                       \
                const int64_t rows = fa_min(FA_P, R - g);                                                 \
                fa_pv_##SUF(db + g * Sp, Sp, 1, rows, fa_keys(i0 + g + rows - 1, S, causal), k, kr, E,    \
                            gq + (i0 + g) * gqr, gqr, 0);                                                 \
            }                                                                                             \
        }                                                                                                 \
        for (int64_t j = zd; j < S; j++)        /* keys no query row sees (causal, L < S) */              \
            for (int64_t c = 0; c < E; c++) { gk[j * gkr + c] = 0; gv[j * gvr + c] = 0; }                 \
    }                                                                                                     \
    free(kt);                                                                                             \
}

FA_MATS(float, f32)
FA_MATS(double, f64)
