/* vmath.h: exp for float and double written so gcc vectorises the loops that call it (libm's expf/exp
 * are opaque calls that stop vectorisation without -ffast-math).
 *
 * Method: exp(x) = 2^n * exp(r), n = round(x / ln2), r = x - n*ln2 (ln2 split in a high part exact for
 * small n and a low part), |r| <= ln2/2; exp(r) by its Taylor polynomial (degree 7 for float, 13 for
 * double: truncation error well under half an ulp) in Horner form with fused multiply-adds. n comes from
 * the round-to-nearest "add 1.5*2^p" trick, read back from the bits. 2^n is applied as two factors
 * 2^n1 * 2^n2 (n1 = floor(n/2)) so that results that overflow give +inf and results in the subnormal
 * range are rounded once from a normal intermediate. x is clamped first to a range where the result is
 * already 0 or inf; NaN passes through the clamps (comparisons with NaN are false) and gives NaN.
 * Max error about 1 ulp over the whole range. */
#ifndef EMBER_VMATH_H
#define EMBER_VMATH_H
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __FMA__
#define VM_FMAF(a, b, c) fmaf((a), (b), (c))
#define VM_FMA(a, b, c) fma((a), (b), (c))
#else
#define VM_FMAF(a, b, c) ((a) * (b) + (c))
#define VM_FMA(a, b, c) ((a) * (b) + (c))
#endif

static inline float vm_bits2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t vm_f2bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline double vm_bits2d(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
static inline uint64_t vm_d2bits(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }

static inline float vm_expf(float x) {
    x = x < -110.0f ? -110.0f : x;              /* exp(-110) rounds to 0 in float */
    x = x > 100.0f ? 100.0f : x;                /* exp(100) overflows to inf */
    const float shift = 12582912.0f;            /* 1.5 * 2^23: adding it rounds to an integer */
    float k = VM_FMAF(x, 1.44269504088896341f, shift);
    float n = k - shift;
    float r = VM_FMAF(-n, 0.693145751953125f, x);          /* ln2 high part: n * it is exact */
    r = VM_FMAF(-n, 1.428606765330187e-06f, r);            /* ln2 low part */
    float p = 1.0f / 5040.0f;
    p = VM_FMAF(p, r, 1.0f / 720.0f);
    p = VM_FMAF(p, r, 1.0f / 120.0f);
    p = VM_FMAF(p, r, 1.0f / 24.0f);
    p = VM_FMAF(p, r, 1.0f / 6.0f);
    p = VM_FMAF(p, r, 0.5f);
    p = VM_FMAF(p, r, 1.0f);
    p = VM_FMAF(p, r, 1.0f);
    uint32_t u = vm_f2bits(k) - 0x4B400000u + 256u;        /* n + 256, positive in the clamped range */
    uint32_t h = u >> 1;                                   /* n1 + 128 */
    float s1 = vm_bits2f((h - 1u) << 23);                  /* 2^n1: biased exponent n1 + 127 */
    float s2 = vm_bits2f((u - h - 1u) << 23);              /* 2^(n - n1) */
    return p * s1 * s2;
}

static inline double vm_exp(double x) {
    x = x < -760.0 ? -760.0 : x;
    x = x > 720.0 ? 720.0 : x;
    const double shift = 6755399441055744.0;     /* 1.5 * 2^52 */
    double k = VM_FMA(x, 1.4426950408889634074, shift);
    double n = k - shift;
    double r = VM_FMA(-n, 6.93147180369123816490e-01, x);
    r = VM_FMA(-n, 1.90821492927058770002e-10, r);
    double p = 1.0 / 6227020800.0;               /* 1/13! */
    p = VM_FMA(p, r, 1.0 / 479001600.0);
    p = VM_FMA(p, r, 1.0 / 39916800.0);
    p = VM_FMA(p, r, 1.0 / 3628800.0);
    p = VM_FMA(p, r, 1.0 / 362880.0);
    p = VM_FMA(p, r, 1.0 / 40320.0);
    p = VM_FMA(p, r, 1.0 / 5040.0);
    p = VM_FMA(p, r, 1.0 / 720.0);
    p = VM_FMA(p, r, 1.0 / 120.0);
    p = VM_FMA(p, r, 1.0 / 24.0);
    p = VM_FMA(p, r, 1.0 / 6.0);
    p = VM_FMA(p, r, 0.5);
    p = VM_FMA(p, r, 1.0);
    p = VM_FMA(p, r, 1.0);
    uint64_t u = vm_d2bits(k) - 0x4338000000000000ull + 2048u;   /* n + 2048 */
    uint64_t h = u >> 1;                                          /* n1 + 1024 */
    double s1 = vm_bits2d((h - 1u) << 52);
    double s2 = vm_bits2d((u - h - 1u) << 52);
    return p * s1 * s2;
}
#endif
