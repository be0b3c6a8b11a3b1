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
- `vm_sinf`, `vm_cosf`, `vm_tanf`: x = k pi/2 + r, |r| <= pi/4, then the Taylor series of sin r (to r^13) and
  cos r (to r^14) in double (truncation < 1e-12 for |r| <= 0.9) picked and signed by k mod 4 (tan: sin r / cos r or
  -cos r / sin r). The reduction is right for every float32, huge ones included, without a branch to libm
  (Payne-Hanek in miniature): |x| = m 2^s with m the 24-bit integer significand, and a table holds, per s,
  (2^s 2/pi) mod 4 cut in four 24-bit pieces c0..c3 (weights 2^1 .. 2^-94, from 2/pi to 300 bits computed
  at import). Each m ci is exact in double; (m c0 mod 4) + m c1 is exact, k is its nearest integer, and the
  fraction f = that - k + m c2 + m c3 keeps ~50 significant bits even for the float32 closest to a
  multiple of pi/2 (the truncated tail of 2/pi costs < 2^-70 absolute; f is never below ~2^-32 for a float32
  input). r = f pi/2. |x| <= pi/4 skips the reduction (r = x, so sin(-0.0) = -0.0); inf and NaN give NaN.
  The pieces are float32 tables (24 bits each: exact), one per piece: gcc vectorises the lookups as
  gathers (vgatherdps with AVX2; a gather at an offset from a row pointer is not vectorised). At most 1 ulp.
- `vm_sinf_small`, `vm_cosf_small`, `vm_tanf_small`: the same for |x| <= SMALL_LIMIT (2^20) without the table
  (its four gathers cost 60% of vm_sinf on AVX2): 2/pi = C1 + C2 + C3 + C4 with C1..C3 of 29 bits, so x Ci is
  exact in double; k = nearbyint(x C1), and f = ((x C1 - k) + x C2) + (x C3 + x C4) is exact up to the last
  two roundings (x C1 - k is exact, and adding x C2 is exact by Sterbenz's lemma when it cancels), with the
  tail of 2/pi beyond C4 under 2^-140 x. |f| may exceed 1/2 by |x C2| < 2^-8, so the polynomials are
  accurate to |r| <= 0.8. Larger |x|, inf and NaN are wrong here: a kernel using them ORs `!(|x| <=
  SMALL_LIMIT)` into a flag and, when it is set, runs its loop again with vm_sinf & co (cpp.py). At most 1 ulp.
float64 values keep libm's calls (exact, scalar), and so do the other functions (asin, atan, sinh, lgamma, ...).
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

/* (k mod 4, r) with |x| = k pi/2 + r, |r| <= pi/4 (see the module docstring); the caller handles |x| <= pi/4,
   inf and NaN (whose table row is a clamped one). */
static inline double vm_rem_pio2f(float xf, int32_t* quadrant) {
    const uint32_t u = vm_f2bits(xf) & 0x7fffffffu;
    int32_t row = (int32_t)(u >> 23) - {ROW0};                  /* s = e - 150, row = s + 24 */
    row = row < 0 ? 0 : row;
    row = row > {ROWMAX} ? {ROWMAX} : row;
    const double m = (double)(int32_t)((u & 0x007fffffu) | 0x00800000u);
    double p0 = m * (double)vm_two_over_pi_0[row];
    p0 = p0 - 4.0 * floor(0.25 * p0);                           /* exact: (m c0) mod 4 */
    const double s01 = p0 + m * (double)vm_two_over_pi_1[row];  /* exact, in [0, 8) */
    const double k = nearbyint(s01);
    const double f = (s01 - k) + (m * (double)vm_two_over_pi_2[row] + m * (double)vm_two_over_pi_3[row]);
    *quadrant = (int32_t)k & 3;
    return VM_FMA(f, 1.5707963267948966192, f * 6.123233995736766036e-17);
}

static inline double vm_sin_poly(double r) {
    const double z = r * r;
{SIN_SERIES}    return VM_FMA(r * z, p, r);
}

static inline double vm_cos_poly(double r) {
    const double z = r * r;
{COS_SERIES}    return VM_FMA(z, p, 1.0);
}

/* (k mod 4, r) for |x| <= SMALL_LIMIT, without the table (see the module docstring). */
static inline double vm_rem_pio2f_small(float a, int32_t* quadrant) {
    const double x = (double)a;
    const double p = x * {C1};
    const double k = nearbyint(p);
    const double f = ((p - k) + x * {C2}) + (x * {C3} + x * {C4});
    *quadrant = (int32_t)k & 3;
    return VM_FMA(f, 1.5707963267948966192, f * 6.123233995736766036e-17);
}

static inline float vm_sinf_small(float xf) {
    int32_t q;
    const double r = vm_rem_pio2f_small(fabsf(xf), &q);
    const double sp = vm_sin_poly(r), cp = vm_cos_poly(r);
    double v = (q & 1) ? cp : sp;
    v = (q & 2) ? -v : v;
    return copysignf(1.0f, xf) * (float)v;
}

static inline float vm_cosf_small(float xf) {
    int32_t q;
    const double r = vm_rem_pio2f_small(fabsf(xf), &q);
    const double sp = vm_sin_poly(r), cp = vm_cos_poly(r);
    double v = (q & 1) ? sp : cp;
    v = ((q + 1) & 2) ? -v : v;
    return (float)v;
}

static inline float vm_tanf_small(float xf) {
    int32_t q;
    const double r = vm_rem_pio2f_small(fabsf(xf), &q);
    const double sp = vm_sin_poly(r), cp = vm_cos_poly(r);
    const double v = (q & 1) ? -cp / sp : sp / cp;
    return copysignf(1.0f, xf) * (float)v;
}

static inline float vm_sinf(float xf) {
    int32_t q;
    const float a = fabsf(xf);
    const double rr = vm_rem_pio2f(a, &q);
    const int small = a <= 0.785398163f;
    const double r = small ? (double)a : rr;
    q = small ? 0 : q;
    const double sp = vm_sin_poly(r), cp = vm_cos_poly(r);
    double v = (q & 1) ? cp : sp;
    v = (q & 2) ? -v : v;
    const float res = copysignf(1.0f, xf) * (float)v;
    return a <= 3.40282347e+38f ? res : xf - xf;                  /* inf, NaN -> NaN */
}

static inline float vm_cosf(float xf) {
    int32_t q;
    const float a = fabsf(xf);
    const double rr = vm_rem_pio2f(a, &q);
    const int small = a <= 0.785398163f;
    const double r = small ? (double)a : rr;
    q = small ? 0 : q;
    const double sp = vm_sin_poly(r), cp = vm_cos_poly(r);
    double v = (q & 1) ? sp : cp;
    v = ((q + 1) & 2) ? -v : v;
    return a <= 3.40282347e+38f ? (float)v : xf - xf;
}

static inline float vm_tanf(float xf) {
    int32_t q;
    const float a = fabsf(xf);
    const double rr = vm_rem_pio2f(a, &q);
    const int small = a <= 0.785398163f;
    const double r = small ? (double)a : rr;
    q = small ? 0 : q;
    const double sp = vm_sin_poly(r), cp = vm_cos_poly(r);
    const double v = (q & 1) ? -cp / sp : sp / cp;
    const float res = copysignf(1.0f, xf) * (float)v;
    return a <= 3.40282347e+38f ? res : xf - xf;
}
"""


def _two_over_pi(bits):
    """floor(2/pi * 2^bits), from pi by Machin's formula in integer arithmetic."""
    guard = bits + 40
    one = 1 << guard

    def atan_inv(n):                     # atan(1/n) * 2^guard
        total, term, k, sign = 0, one // n, 1, 1
        while term:
            total += sign * (term // k)
            term //= n * n
            k += 2
            sign = -sign
        return total
    pi = 16 * atan_inv(5) - 4 * atan_inv(239)
    return (2 << (guard + bits)) // pi


ROW_S0 = -24          # s of the table's first row (|x| = m 2^s >= pi/4 needs s >= -24)
ROW_S1 = 105          # s of inf/NaN (exponent 255); larger rows are clamped


def _two_over_pi_table():
    """Rows s = ROW_S0 .. ROW_S1: the 24-bit pieces of (2^s 2/pi) mod 4 at weights 2^1..2^-22, ..., 2^-71..2^-94."""
    top = 300
    b = _two_over_pi(top)
    mask = (1 << 24) - 1
    cols = [[], [], [], []]
    for s in range(ROW_S0, ROW_S1 + 1):
        v = b >> (top - s - 94)               # floor(2/pi 2^(s+94)); its low 96 bits are the weights 2^1..2^-94
        for col, sh in zip(cols, (72, 48, 24, 0)):
            col.append(((v >> sh) & mask) * 2.0 ** (-94 + sh))     # 24 bits: exact in float32
    n = ROW_S1 - ROW_S0 + 1
    return "".join(f"static const float vm_two_over_pi_{i}[{n}] = {{" + ", ".join(x.hex() for x in col) + "};\n"
                   for i, col in enumerate(cols))


def _two_over_pi_split():
    """C1..C4 with C1 + C2 + C3 + C4 = 2/pi to ~140 bits, C1..C3 of 29 significant bits each (hex literals)."""
    from fractions import Fraction
    top = 300
    rest = Fraction(_two_over_pi(top), 1 << top)
    parts = []
    for _ in range(3):
        e = rest.numerator.bit_length() - rest.denominator.bit_length()    # 2^e <= rest < 2^(e+2)
        e = e if Fraction(2) ** e <= rest else e - 1
        scale = Fraction(2) ** (28 - e)
        piece = Fraction(int(rest * scale)) / scale                          # the top 29 bits
        parts.append(piece)
        rest -= piece
    parts.append(rest)
    return [float(p).hex() for p in parts]


SMALL_LIMIT = 1048576.0      # 2^20: the range of the table-free reduction


def _series(first, n_terms):
    """Horner lines for p = sum_i (-1)^(i+1) z^i / (first + 2i)! (z = r^2): sin r = r + r z p (first = 3),
    cos r = 1 + z p (first = 2)."""
    import math
    coef = [(-1) ** (i + 1) / math.factorial(first + 2 * i) for i in range(n_terms)]
    lines = [f"    double p = {coef[-1]!r};"]
    lines += [f"    p = VM_FMA(p, z, {c!r});" for c in reversed(coef[:-1])]
    return "\n".join(lines) + "\n"


def _erf_series(n_max=18):
    """Horner lines for sum_{n <= n_max} (-1)^n z^n / (n! (2n + 1)) (z = x^2): truncation < 1e-11 for z < 2.25."""
    import math
    coef = [(-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(n_max + 1)]
    lines = [f"    double p = {coef[-1]!r};"]
    lines += [f"    p = VM_FMA(p, z, {c!r});" for c in reversed(coef[:-1])]
    return "\n".join(lines) + "\n"


C_SOURCE = (_two_over_pi_table() + C_SOURCE_TEMPLATE.replace("{ERF_SERIES}", _erf_series())
            .replace("{SIN_SERIES}", _series(3, 6)).replace("{COS_SERIES}", _series(2, 7))
            .replace("{C1}", _two_over_pi_split()[0]).replace("{C2}", _two_over_pi_split()[1])
            .replace("{C3}", _two_over_pi_split()[2]).replace("{C4}", _two_over_pi_split()[3])
            .replace("{ROW0}", str(150 + ROW_S0)).replace("{ROWMAX}", str(ROW_S1 - ROW_S0)))

# op name -> the float32 function replacing libm's call
# op name -> the table-free variant for |x| <= SMALL_LIMIT (the caller checks the range and falls back)
SMALL_RANGE_FUNCTIONS = {"sin": "vm_sinf_small", "cos": "vm_cosf_small", "tan": "vm_tanf_small"}
FLOAT32_FUNCTIONS = {"log": "vm_logf", "tanh": "vm_tanhf", "erf": "vm_erff", "sin": "vm_sinf", "cos": "vm_cosf",
                     "tan": "vm_tanf"}
