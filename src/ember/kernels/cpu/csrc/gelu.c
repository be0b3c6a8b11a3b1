/* GELU forward and backward over contiguous float32 / float64 arrays (kernels/cpu/activations.py).
 *
 * approx 0 ("none"): gelu(x) = x Phi(x), gelu'(x) = Phi(x) + x phi(x).
 *   float32: Phi and exp(-x^2/2) from gelu_math.h (vectorised): Phi by a polynomial inside |x| < 3 (torch's
 *   absolute accuracy, see gm_phi_central), by the erfc form beyond (float32 relative accuracy in both tails).
 *   float64: torch's formula 0.5 x (1 + erf(x / sqrt 2)) with libm erf/exp (not vectorised).
 * approx 1 ("tanh"): with u = sqrt(2/pi) (x + 0.044715 x^3), 0.5 (1 + tanh u) = s = 1 / (1 + exp(-2u)),
 *   so gelu(x) = x s and gelu'(x) = s + 2 x s (1 - s) sqrt(2/pi) (1 + 3 * 0.044715 x^2); this form has
 *   no cancellation near 0 where 1 - tanh^2 or 1 + tanh would lose digits, and 1 - s = e s with
 *   e = exp(-2u) keeps the small s (1 - s) term accurate for large x.
 *   float64 uses libm tanh in torch's own form.
 * Callers split n over threads (ctypes releases the GIL); every element is independent.
 *
 * no-trapping-math: gcc keeps the selects of gelu_math.h (clamps, sign choice) as branches when it
 * must preserve floating-point exception flags, which blocks vectorisation; nothing in ember reads
 * those flags, and results (values, NaN, inf, signed zeros) are unchanged: it is not fast-math.
 */
#pragma GCC optimize ("no-trapping-math")
#include <stdint.h>
#include <float.h>
#include <math.h>
#include "gelu_math.h"

#define GK 0.7978845608028654f          /* sqrt(2 / pi) */
#define GC 0.044715f
#define INV_SQRT_2PI_F 0.3989422804014327f

static inline float sig2u_f(float x) {   /* 0.5 (1 + tanh(u(x))) */
    float u = GK * (x + GC * (x * x * x));
    return 1.0f / (1.0f + gm_expf(-2.0f * u));
}

/* Phi(x) for the erf form: gm_phi_central inside (-3, 3), else gm_phi's erfc form; a NaN takes the latter. The
   choice is made per element (the bits of an element depend on its value only, never on its neighbours or on
   where a thread's chunk starts). */
static inline float phi_f(float a) {
    return fabsf(a) < GM_CENTRAL ? gm_phi_central(a) : gm_phi(a, gm_gauss(a));
}

/* Blocks of GB elements: when every element of a block is central (about 98% of 16-element blocks of
   standard normal data) only the polynomial runs (no exp, no division), the backward with gm_gauss_central;
   otherwise both forms run and each element takes its own. 1M standard normal float32 on one thread
   (cpu-time minima, load 8.8 on 2 cores): forward 835 -> 350 us (torch 487), backward 884 -> 716 us (torch 844). */
#define GB 16

static inline int far_block(const float *x) {
    int far = 0;
#pragma omp simd reduction(|:far)
    for (int j = 0; j < GB; j++)
        far |= !(fabsf(x[j]) < GM_CENTRAL);
    return far;
}

void gelu_f32(const float *x, float *out, int64_t n, int approx) {
    if (approx == 0) {
        int64_t i = 0;
        for (; i + GB <= n; i += GB) {
            const float *xb = x + i;
            float *ob = out + i;
            if (!far_block(xb)) {
#pragma omp simd
                for (int j = 0; j < GB; j++)
                    ob[j] = xb[j] * gm_phi_central(xb[j]);
            } else {
#pragma omp simd
                for (int j = 0; j < GB; j++)
                    ob[j] = xb[j] * phi_f(xb[j]);
            }
        }
        for (; i < n; i++)
            out[i] = x[i] * phi_f(x[i]);
    } else {
#pragma omp simd
        for (int64_t i = 0; i < n; i++) {
            float a = x[i];
            out[i] = a * sig2u_f(a);
        }
    }
}

void gelu_backward_f32(const float *g, const float *x, float *out, int64_t n, int approx) {
    if (approx == 0) {
        int64_t i = 0;
        for (; i + GB <= n; i += GB) {
            const float *xb = x + i, *gb = g + i;
            float *ob = out + i;
            if (!far_block(xb)) {
#pragma omp simd
                for (int j = 0; j < GB; j++) {
                    float a = xb[j];
                    ob[j] = gb[j] * (gm_phi_central(a) + a * (gm_gauss_central(a) * INV_SQRT_2PI_F));
                }
            } else {
#pragma omp simd
                for (int j = 0; j < GB; j++) {
                    float a = xb[j], e = gm_gauss(a);
                    float c = fabsf(a) < GM_CENTRAL ? gm_phi_central(a) : gm_phi(a, e);
                    ob[j] = gb[j] * (c + a * (e * INV_SQRT_2PI_F));
                }
            }
        }
        for (; i < n; i++) {
            float a = x[i], e = gm_gauss(a);
            float c = fabsf(a) < GM_CENTRAL ? gm_phi_central(a) : gm_phi(a, e);
            out[i] = g[i] * (c + a * (e * INV_SQRT_2PI_F));
        }
    } else {
#pragma omp simd
        for (int64_t i = 0; i < n; i++) {
            float a = x[i];
            float u = GK * (a + GC * (a * a * a));
            float e = gm_expf(-2.0f * u);
            float s = 1.0f / (1.0f + e);
            float sm = e > FLT_MAX ? 1.0f : e * s;     /* 1 - s; e = inf gives s = 0, 1 - s = 1 */
            float d = s + ((2.0f * GK) * a * s) * sm * (1.0f + (3.0f * GC) * (a * a));
            out[i] = g[i] * d;
        }
    }
}

void gelu_f64(const double *x, double *out, int64_t n, int approx) {
    const double k = 0.79788456080286535588, c = 0.044715;
    for (int64_t i = 0; i < n; i++) {
        double a = x[i];
        out[i] = approx == 0 ? 0.5 * a * (1.0 + erf(a * 0.70710678118654752440))
                             : 0.5 * a * (1.0 + tanh(k * (a + c * a * a * a)));
    }
}

void gelu_backward_f64(const double *g, const double *x, double *out, int64_t n, int approx) {
    const double k = 0.79788456080286535588, c = 0.044715;
    for (int64_t i = 0; i < n; i++) {
        double a = x[i], d;
        if (approx == 0) {
            double cdf = 0.5 * (1.0 + erf(a * 0.70710678118654752440));
            d = cdf + a * exp(-0.5 * a * a) * 0.39894228040143267794;
        } else {
            double t = tanh(k * (a + c * a * a * a));
            d = 0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * k * (1.0 + 3.0 * c * a * a);
        }
        out[i] = g[i] * d;
    }
}

/* The same kernels with csrc/parallel.c's chunk signature (runtime/flat.py's run_address): p[0] the input
   (p[0] grad, p[1] input for the backward), p[2] the output, s[0] approx; elements [b, e). */
#define GELU_PART(T, SFX)                                                                          \
void gelu_part_##SFX(void *const *p, const double *s, int64_t b, int64_t e) {                      \
    gelu_##SFX((const T *)p[0] + b, (T *)p[2] + b, e - b, (int)s[0]);                              \
}                                                                                                  \
void gelu_backward_part_##SFX(void *const *p, const double *s, int64_t b, int64_t e) {             \
    gelu_backward_##SFX((const T *)p[0] + b, (const T *)p[1] + b, (T *)p[2] + b, e - b, (int)s[0]); \
}
GELU_PART(float, f32)
GELU_PART(double, f64)
