/* A 16-wide e^x for the C kernels (attention.c's softmax, pointwise.c's SiLU): the C library's expf
   is scalar, and a prefill takes millions of them. */

#ifndef PDLAB_EXP16_H
#define PDLAB_EXP16_H

#include "block.h"

/* e^x, 16 at a time: x = n ln2 + r, e^r by Cephes' expf polynomial (relative error ~1e-7), 2^n put
   in the exponent bits. x is clamped to [-87, 88] (e^-87 ~ 1.6e-38: a softmax's or a SiLU's zero). */
static inline v16f exp16(v16f x) {
    typedef int v16i __attribute__((vector_size(64)));
    const v16f lo = {0}, floor_x = lo - 87.0f;
    const v16f ceiling = lo + 88.0f;
    v16i below = x < floor_x, above = x > ceiling; /* C has no vector ?:, so select by bits */
    x = (v16f)(((v16i)floor_x & below) | ((v16i)x & ~below));
    x = (v16f)(((v16i)ceiling & above) | ((v16i)x & ~above));
    v16f n = x * 1.44269504088896341f + 0.5f;
    v16i ni = __builtin_convertvector(n, v16i);
    v16f nf = __builtin_convertvector(ni, v16f);
    ni -= (v16i)(nf > n) & 1; /* the conversion truncates: make it floor */
    nf = __builtin_convertvector(ni, v16f);
    v16f r = x - nf * 0.693359375f + nf * 2.12194440e-4f;
    v16f p = r * 1.9875691500E-4f + 1.3981999507E-3f;
    p = p * r + 8.3334519073E-3f;
    p = p * r + 4.1665795894E-2f;
    p = p * r + 1.6666665459E-1f;
    p = p * r + 5.0000001201E-1f;
    p = p * r * r + r + 1.0f;
    v16i bits = (ni + 127) << 23;
    v16f scale;
    memcpy(&scale, &bits, 64);
    return p * scale;
}

#endif
