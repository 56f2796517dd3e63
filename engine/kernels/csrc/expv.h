/* A vector e^x for the C kernels (attention.c's softmax, pointwise.c's SiLU): the C library's expf
   is scalar, and a prefill takes millions of them. */

#ifndef PDLAB_EXPV_H
#define PDLAB_EXPV_H

#include "block.h"

/* e^x, LANES at a time: x = n ln2 + r, e^r by Cephes' expf polynomial (relative error ~1e-7), 2^n put
   in the exponent bits. x is clamped to [-87, 88] (e^-87 ~ 1.6e-38: a softmax's or a SiLU's zero).
   AVX-512 has an instruction each for the floor and the scaling by 2^n: fewer steps, the same numbers. */
static inline vf expv(vf x) {
#if defined(__AVX512F__)
    __m512 xv, n;
    memcpy(&xv, &x, 64);
    xv = _mm512_min_ps(_mm512_max_ps(xv, _mm512_set1_ps(-87.0f)), _mm512_set1_ps(88.0f));
    n = _mm512_roundscale_ps(_mm512_fmadd_ps(xv, _mm512_set1_ps(1.44269504088896341f), _mm512_set1_ps(0.5f)),
                             _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    vf nf;
    memcpy(&x, &xv, 64);
    memcpy(&nf, &n, 64);
#else
    const vf lo = {0}, floor_x = lo - 87.0f;
    const vf ceiling = lo + 88.0f;
    vi below = x < floor_x, above = x > ceiling; /* C has no vector ?:, so select by bits */
    x = (vf)(((vi)floor_x & below) | ((vi)x & ~below));
    x = (vf)(((vi)ceiling & above) | ((vi)x & ~above));
    vf n = x * 1.44269504088896341f + 0.5f;
    vi ni = __builtin_convertvector(n, vi);
    vf nf = __builtin_convertvector(ni, vf);
    ni -= (vi)(nf > n) & 1; /* the conversion truncates: make it floor */
    nf = __builtin_convertvector(ni, vf);
#endif
    vf r = x - nf * 0.693359375f + nf * 2.12194440e-4f;
    vf p = r * 1.9875691500E-4f + 1.3981999507E-3f;
    p = p * r + 8.3334519073E-3f;
    p = p * r + 4.1665795894E-2f;
    p = p * r + 1.6666665459E-1f;
    p = p * r + 5.0000001201E-1f;
    p = p * r * r + r + 1.0f;
#if defined(__AVX512F__)
    __m512 pv;
    memcpy(&pv, &p, 64);
    pv = _mm512_scalef_ps(pv, n);
    memcpy(&p, &pv, 64);
    return p;
#else
    vi bits = (ni + 127) << 23;
    vf scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
#endif
}

/* SiLU(g) * u = g / (1 + e^-g) * u, LANES at a time (pointwise.c's pass and gemv.c's fused product). */
static inline vf silu_times(vf g, vf u) {
    vf one = {0};
    one += 1.0f;
    return g / (one + expv(-g)) * u;
}

#endif
