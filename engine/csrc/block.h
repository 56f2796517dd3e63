/* The inner loops the C kernels share: a block of 16 packed weight rows (k-major: 16 weights per input
   index, one 64-byte line) against a few rows of x (gemv.c's matrix products, attention.c's scores
   against packed keys), and a dot product (norm.c, decode.c). */

#ifndef PDLAB_BLOCK_H
#define PDLAB_BLOCK_H

#include <stdint.h>
#include <string.h>
#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#define BLOCK 16
typedef float v16f __attribute__((vector_size(64)));

/* 16 int8 -> 16 float32. gcc's generic vector conversion goes through scalar code, so the x86
   sign-extend-and-convert instructions are named where the compiler targets them. */
static inline v16f widen(const int8_t *q) {
    v16f f;
#if defined(__AVX512F__)
    __m512 w = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)q)));
    memcpy(&f, &w, 64);
#elif defined(__AVX2__)
    __m256 w[2] = {_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)q))),
                   _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(q + 8))))};
    memcpy(&f, w, 64);
#else
    for (int j = 0; j < BLOCK; j++) f[j] = (float)q[j];
#endif
    return f;
}

/* Group i of a packed block (its 16 weights at input i) as floats: int8 ones widened. `i8` is a
   constant wherever this is inlined, so each kernel compiles to its own loop. */
static inline v16f group(const void *w, long i, int i8) {
    if (i8) return widen((const int8_t *)w + i * BLOCK);
    v16f g;
    memcpy(&g, (const float *)w + i * BLOCK, 64);
    return g;
}

/* One packed block against R rows of x (R = 1 or 4): the 16 dot products of each row. Each row sums
   in the same order whatever R is (four accumulators by i mod 4), so a row's numbers do not depend on
   how many rows share the call; with R = 4 each group of weights is loaded (and widened) once for
   four rows: what makes the kernel usable for a prefill. */
static inline void block(const void *w, const float *x, long k, int rows, int i8, v16f *out) {
    v16f a[4][4] = {{{0}}};
    long i = 0;
    for (; i + 4 <= k; i += 4) {
        v16f g0 = group(w, i, i8), g1 = group(w, i + 1, i8), g2 = group(w, i + 2, i8), g3 = group(w, i + 3, i8);
        for (int r = 0; r < rows; r++) {
            const float *xr = x + r * k + i;
            a[r][0] += g0 * xr[0];
            a[r][1] += g1 * xr[1];
            a[r][2] += g2 * xr[2];
            a[r][3] += g3 * xr[3];
        }
    }
    for (; i < k; i++) {
        v16f g = group(w, i, i8);
        for (int r = 0; r < rows; r++) a[r][0] += g * x[r * k + i];
    }
    for (int r = 0; r < rows; r++) out[r] = (a[r][0] + a[r][1]) + (a[r][2] + a[r][3]);
}

/* The dot product of two float rows of d, 16 lanes at a time (the rest one by one). */
static inline float dot(const float *a, const float *b, long d) {
    v16f acc = {0}, x, y;
    long i = 0;
    for (; i + 16 <= d; i += 16) {
        memcpy(&x, a + i, 64);
        memcpy(&y, b + i, 64);
        acc += x * y;
    }
    float s = 0;
    for (int j = 0; j < 16; j++) s += acc[j];
    for (; i < d; i++) s += a[i] * b[i];
    return s;
}

#endif
