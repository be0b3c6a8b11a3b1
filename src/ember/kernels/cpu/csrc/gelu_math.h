/* Vectorisable single-precision exp and the standard normal CDF for the GELU kernels (gelu.c).
 *
 * libm's expf/erff are calls gcc cannot vectorise without -ffast-math, so the float32 path uses
 * these inline versions; every function is branch-free (selects only) so `#pragma omp simd` loops
 * over them become AVX code.
 *
 * gm_expf(x): n = round(x / ln 2), r = x - n ln 2 (ln 2 split into a 16-bit head, exact times n,
 * and a tail), exp(r) by its Taylor series to degree 8 on |r| <= ln2 / 2 (truncation < 2e-10
 * relative), times 2^n built from exponent bits in two halves so results down in the subnormal
 * range (n < -126) round once, like a correctly scaled product. x is clamped to [-104, 89] first:
 * below, exp underflows to 0; above, it overflows to inf. NaN passes through.
 *
 * gm_phi_neg_abs(x) = Phi(-|x|) = erfc(|x| / sqrt 2) / 2, as in kernels/cpu/normal_cdf.py (which
 * documents the fit): erfc(z) = t exp(-z^2) Q(t), t = 1 / (1 + 0.3 z), Q a degree-8 polynomial.
 * Its exp(-x^2/2) also serves the PDF. x^2 is formed with its rounding error (fmaf), so the
 * Gaussian keeps float32 accuracy for large |x| where exp amplifies the error of a rounded x^2.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

/* a * b + c with one rounding where the cpu has FMA (one instruction; -std=c11 never contracts on its own),
 * else two roundings: without hardware FMA, fmaf would be a slow library call. */
#ifdef __FMA__
#define GM_FMA(a, b, c) fmaf((a), (b), (c))
#else
#define GM_FMA(a, b, c) ((a) * (b) + (c))
#endif

static inline float gm_bits_to_f(int32_t i) { float f; memcpy(&f, &i, 4); return f; }
static inline int32_t gm_f_to_bits(float f) { int32_t i; memcpy(&i, &f, 4); return i; }

static inline float gm_expf(float x) {
    float xc = x > 89.0f ? 89.0f : x;
    xc = xc < -104.0f ? -104.0f : xc;
    const float shifter = 12582912.0f;                 /* 1.5 * 2^23: adding it rounds to an integer */
    float kf = xc * 1.44269504088896341f + shifter;
    int32_t n = gm_f_to_bits(kf) - gm_f_to_bits(shifter);
    float nf = kf - shifter;
    float r = xc - nf * 0.693145751953125f;
    r = r - nf * 1.428606765330187045e-06f;
    float p = 1.0f / 40320.0f;
    p = GM_FMA(p, r, 1.0f / 5040.0f);
    p = GM_FMA(p, r, 1.0f / 720.0f);
    p = GM_FMA(p, r, 1.0f / 120.0f);
    p = GM_FMA(p, r, 1.0f / 24.0f);
    p = GM_FMA(p, r, 1.0f / 6.0f);
    p = GM_FMA(p, r, 0.5f);
    p = GM_FMA(p, r, 1.0f);
    p = GM_FMA(p, r, 1.0f);
    int32_t n1 = n >> 1;
    int32_t n2 = n - n1;
    float s1 = gm_bits_to_f((n1 + 127) << 23);
    float s2 = gm_bits_to_f((n2 + 127) << 23);
    float y = (p * s1) * s2;
    return x != x ? x : y;
}

/* exp(-x^2 / 2) with x^2 = h + e exactly (h = fl(x*x)): exp(-h/2) * (1 - e/2) (e/2 < 1 ulp of h, so the
 * first-order correction is exact to float32). */
static inline float gm_gauss(float x) {
    float h = x * x;
    float e = GM_FMA(x, x, -h);                      /* the rounding error of h (0 without FMA) */
    e = h <= 3.40282347e+38f ? e : 0.0f;            /* x^2 = inf: exp gives 0, no inf correction */
    return gm_expf(-0.5f * h) * (1.0f - 0.5f * e);
}

/* Phi(-|x|) given g = gm_gauss(x). */
static inline float gm_phi_neg_abs(float x, float g) {
    float t = 1.0f + fabsf(x) * (0.3f * 0.70710678118654752f);
    t = 1.0f / t;
    float q = -0.13188359249949533f;
    q = GM_FMA(q, t, 0.49702726737793551f);
    q = GM_FMA(q, t, -0.53603178333123958f);
    q = GM_FMA(q, t, 0.57510250626789927f);
    q = GM_FMA(q, t, -0.11382712398670984f);
    q = GM_FMA(q, t, 0.22326760945486232f);
    q = GM_FMA(q, t, 0.14614114142461815f);
    q = GM_FMA(q, t, 0.17103568122008364f);
    q = GM_FMA(q, t, 0.16916832327842712f);
    return ((q * t) * g) * 0.5f;
}

/* Phi(x): exactly the tail value below 0 (keeps its relative accuracy), 1 - tail above. */
static inline float gm_phi(float x, float g) {
    float q = gm_phi_neg_abs(x, g);
    return x >= 0.0f ? 1.0f - q : q;
}
