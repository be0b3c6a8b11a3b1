"""torch/_inductor/codegen/cpp_prefix.h's vectorised math (Sleef calls in torch): log, tanh and erf of float32
written so that gcc vectorises the loops calling them.

libm's logf/tanhf/erff are opaque calls that stop `#pragma omp simd` loops from vectorising (glibc's vector
variants need -ffast-math, which ember never uses), so a fused kernel with one of them ran one element at a
time: GELU's backward (erf) took 15 ms per 512k elements. These functions are branch-free (selects only) and
compute in float64 lanes, which makes plain series accurate enough that the float32 result is within the
bounds below (tests/inductor/test_vec_math.py measures them against float64 references over dense sweeps):

- `vm_logf`: x = m 2^e with m in [sqrt(1/2), sqrt(2)) (subnormals scaled by 2^23 first), log m = 2 atanh(s),
  s = (m - 1) / (m + 1), |s| <= 0.1716, atanh by its series to s^13 (truncation < 1e-10 relative); 0 -> -inf,
  x < 0 -> NaN, inf -> inf, NaN -> NaN. At most 1 ulp.
- `vm_tanhf`: 1 - 2 / (exp(2|x|) + 1) in double (double's exp: vm_exp), sign copied back; |x| < 2^-12 returns x
  (tanh x = x to float32 there), |x| clamped to 20 (tanh rounds to 1 from 9.1). At most 1 ulp.
- `vm_erff`: |x| < 1.5: the Taylor series (2/sqrt pi) sum (-1)^n x^(2n+1) / (n! (2n+1)) to n = 18 in double
  (truncation < 1e-11); else 1 - 2 Phi(-|x| sqrt 2) with gelu_math.h's normal tail (the eager GELU's), whose
  error is then under 0.2 ulp of the result. At most 1 ulp.
float64 values keep libm's calls (exact, scalar). sin/cos/tan and the rest keep libm too: a reduction modulo
pi/2 that is right for every float32 (Payne-Hanek) is not written yet.
"""

C_SOURCE_TEMPLATE = r"""
static inline float vm_logf(float xf) {
    const int sub = xf < 1.17549435e-38f;                 /* subnormal (and <= 0: fixed below) */
    const float xs = sub ? xf * 8388608.0f : xf;
    const uint32_t u = vm_f2bits(xs);
    int32_t e = (int32_t)((u >> 23) & 0xffu) - 127 - (sub ? 23 : 0);
    double m = (double)vm_bits2f((u & 0x007fffffu) | 0x3f800000u);     /* [1, 2) */
    const int hi = m > 1.4142135623730951;
    m = hi ? 0.5 * m : m;
    e += hi;
    const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
    double p = 1.0 / 13.0;
    p = VM_FMA(p, s2, 1.0 / 11.0);
    p = VM_FMA(p, s2, 1.0 / 9.0);
    p = VM_FMA(p, s2, 1.0 / 7.0);
    p = VM_FMA(p, s2, 1.0 / 5.0);
    p = VM_FMA(p, s2, 1.0 / 3.0);
    p = VM_FMA(p, s2, 1.0);
    float r = (float)VM_FMA((double)e, 0.69314718055994530942, 2.0 * s * p);
    r = xf == 0.0f ? -INFINITY : r;
    r = xf < 0.0f ? NAN : r;
    r = xf == INFINITY ? INFINITY : r;
    return xf != xf ? xf : r;
}

static inline float vm_tanhf(float xf) {
    double a = fabs((double)xf);
    a = a > 20.0 ? 20.0 : a;
    const double e = vm_exp(2.0 * a);
    const float t = (float)(1.0 - 2.0 / (e + 1.0));
    const float r = copysignf(t, xf);
    return fabsf(xf) < 2.44140625e-04f ? xf : r;           /* 2^-12 */
}

static inline float vm_erff(float xf) {
    const double a = fabs((double)xf), z = a * a;
{ERF_SERIES}    const double small = 1.1283791670955125739 * a * p;
    const float y = (float)(a * 1.4142135623730950488);
    const double q = (double)gm_phi_neg_abs(y, gm_gauss(y));
    const double large = 1.0 - 2.0 * q;
    return copysignf((float)(a < 1.5 ? small : large), xf);
}
"""



def _erf_series(n_max=18):
    """Horner lines for sum_{n <= n_max} (-1)^n z^n / (n! (2n + 1)) (z = x^2): truncation < 1e-11 for z < 2.25."""
    import math
    coef = [(-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(n_max + 1)]
    lines = [f"    double p = {coef[-1]!r};"]
    lines += [f"    p = VM_FMA(p, z, {c!r});" for c in reversed(coef[:-1])]
    return "\n".join(lines) + "\n"


C_SOURCE = C_SOURCE_TEMPLATE.replace("{ERF_SERIES}", _erf_series())

# op name -> the float32 function replacing libm's call
FLOAT32_FUNCTIONS = {"log": "vm_logf", "tanh": "vm_tanhf", "erf": "vm_erff"}
