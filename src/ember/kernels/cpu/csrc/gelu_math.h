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

/* e^r for the reduced argument |r| <= ln(2)/2: its Taylor polynomial to r^8 in Horner form (gm_expf, gm_gauss_central) */
static inline float gm_exp_poly(float r) {
    float p = 1.0f / 40320.0f;
    p = GM_FMA(p, r, 1.0f / 5040.0f);
    p = GM_FMA(p, r, 1.0f / 720.0f);
    p = GM_FMA(p, r, 1.0f / 120.0f);
    p = GM_FMA(p, r, 1.0f / 24.0f);
    p = GM_FMA(p, r, 1.0f / 6.0f);
    p = GM_FMA(p, r, 0.5f);
    p = GM_FMA(p, r, 1.0f);
    p = GM_FMA(p, r, 1.0f);
    return p;
}

static inline float gm_expf(float x) {
    float xc = x > 89.0f ? 89.0f : x;
    xc = xc < -104.0f ? -104.0f : xc;
    const float shifter = 12582912.0f;                 /* 1.5 * 2^23: adding it rounds to an integer */
    float kf = xc * 1.44269504088896341f + shifter;
    int32_t n = gm_f_to_bits(kf) - gm_f_to_bits(shifter);
    float nf = kf - shifter;
    float r = xc - nf * 0.693145751953125f;
    r = r - nf * 1.428606765330187045e-06f;
    float p = gm_exp_poly(r);
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

/* Phi(x) for |x| < GM_CENTRAL without exp or division (the GELU kernels' common case): Phi(x) - 1/2 is odd,
 * = x Q(v), v = x^2 - 4.5, Q of degree 10 fitted to the absolute error of x Q on [0, 3] (weighted least
 * squares in a Chebyshev basis iterated towards minimax, coefficients rounded to float; centring x^2 on 4.5
 * keeps Horner's terms small), and 1/2 + x Q with one rounding (fmaf). Error against float64 over a dense
 * sweep of (-3, 3): at most 6.9e-8 absolute (torch's float32 erf form: about 1.5e-7), within 2.4 ulp of Phi
 * for x > -1; below -1 the subtraction from 1/2 costs relative accuracy as torch's 1 + erf does (at most
 * 380 ulp, 3.3e-5 relative, at x = -3, where Phi = 0.00135). From |x| = 3 on, gm_phi's erfc form keeps
 * float32's relative accuracy in the tails. */
#define GM_CENTRAL 3.0f

static inline float gm_phi_central(float x) {
    const float v = x * x - 4.5f;
    float q = 6.707146773740624e-13f;
    q = GM_FMA(q, v, -1.652031289545164e-11f);
    q = GM_FMA(q, v, 3.1272878731058995e-10f);
    q = GM_FMA(q, v, -5.813091785711322e-09f);
    q = GM_FMA(q, v, 9.846677784253188e-08f);
    q = GM_FMA(q, v, -1.4791971807426307e-06f);
    q = GM_FMA(q, v, 1.9561830413294956e-05f);
    q = GM_FMA(q, v, -0.0002257454179925844f);
    q = GM_FMA(q, v, 0.002270233817398548f);
    q = GM_FMA(q, v, -0.020629441365599632f);
    q = GM_FMA(q, v, 0.22771316766738892f);
    return GM_FMA(x, q, 0.5f);
}

/* gm_gauss(x) for |x| < GM_CENTRAL: gm_expf's steps without its clamps, NaN check and two-part scaling,
 * which an argument in (-4.5, 0] never needs (2^n is a normal float for n in [-7, 0]): the same bits as
 * gm_gauss there, in fewer instructions. */
static inline float gm_gauss_central(float x) {
    const float h = x * x;
    const float e = GM_FMA(x, x, -h);
    const float xc = -0.5f * h;
    const float shifter = 12582912.0f;
    const float kf = xc * 1.44269504088896341f + shifter;
    const int32_t n = gm_f_to_bits(kf) - gm_f_to_bits(shifter);
    const float nf = kf - shifter;
    float r = xc - nf * 0.693145751953125f;
    r = r - nf * 1.428606765330187045e-06f;
    float p = gm_exp_poly(r);
    return (p * gm_bits_to_f((n + 127) << 23)) * (1.0f - 0.5f * e);
}
