/* The inner loops the C kernels share: a block of 16 packed weight rows (k-major: 16 weights per input
   index, one 64-byte line) against a few rows of x (gemv.c's matrix products, attention.c's scores
   against packed keys), and a dot product (norm.c, decode.c).

   Vectors are the machine's own width: 16 floats with AVX-512, 8 with AVX2 (two per 16-wide group),
   else 4. gcc keeps a vector wider than the machine's in memory, not in registers, and every operation
   on it becomes loads and stores: 64-byte vectors on an AVX2 machine ran these kernels 5-10 x slower. */

#ifndef PDLAB_BLOCK_H
#define PDLAB_BLOCK_H

#include <stdint.h>
#include <string.h>
#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#define BLOCK 16
/* ROWS (rows of x per pass over a block) and ACC (accumulators per row, by input index mod ACC) are
   sized so the accumulators and the loaded weights fit the registers: 32 with AVX-512, 16 with AVX2. */
#if defined(__AVX512F__)
#define LANES 16
#define ROWS 4
#define ACC 4
#elif defined(__AVX2__)
#define LANES 8
#define ROWS 2
#define ACC 2
#else /* 16-byte vectors: SSE, NEON */
#define LANES 4
#define ROWS 2
#define ACC 2
#endif
#define PARTS (BLOCK / LANES) /* vectors per 16-wide group */
/* Row-wise passes (norms, SiLU, RoPE) over fewer floats than this stay on one thread: waking the
   others costs more than the work (a decode step's few rows), a prefill's rows are split. */
#define PARALLEL_FLOATS (1L << 16)
typedef float vf __attribute__((vector_size(LANES * 4)));
typedef int vi __attribute__((vector_size(LANES * 4)));

/* Keep a loaded vector in a register: gcc otherwise folds the load into each multiply-add that uses
   it, reading the same line once per use (four times the cache traffic in attention's weighted sum). */
#if defined(__AVX512F__)
#define IN_REGISTER(x) __asm__("" : "+v"(x))
#else
#define IN_REGISTER(x) ((void)0)
#endif

static inline vf load(const float *p) {
    vf v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void store(float *p, vf v) { memcpy(p, &v, sizeof v); }

/* The larger of a and b, lane by lane: one instruction where the machine has one (C has no vector max). */
static inline vf vmax(vf a, vf b) {
#if defined(__AVX512F__)
    return (vf)_mm512_max_ps((__m512)a, (__m512)b);
#elif defined(__AVX2__)
    return (vf)_mm256_max_ps((__m256)a, (__m256)b);
#else
    vi more = a > b;
    return (vf)(((vi)a & more) | ((vi)b & ~more));
#endif
}

/* LANES int8 -> float32. gcc's generic vector conversion goes through scalar code, so the x86
   sign-extend-and-convert instructions are named where the compiler targets them. */
static inline vf widen(const int8_t *q) {
    vf f;
#if defined(__AVX512F__)
    __m512 w = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)q)));
    memcpy(&f, &w, 64);
#elif defined(__AVX2__)
    __m256 w = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)q)));
    memcpy(&f, &w, 32);
#else
    for (int j = 0; j < LANES; j++) f[j] = (float)q[j];
#endif
    return f;
}

/* Part p of group i of a packed block (its 16 weights at input i) as floats: int8 ones widened.
   `i8` is a constant wherever this is inlined, so each kernel compiles to its own loop. */
static inline vf group(const void *w, long i, int p, int i8) {
    if (i8) return widen((const int8_t *)w + i * BLOCK + p * LANES);
    return load((const float *)w + i * BLOCK + p * LANES);
}

/* Each row's ACC accumulators summed into its 16 results, in one fixed order (gguf.c's products on
   quantised blocks end the same way, so they give the float32 kernel's numbers to the bit). */
static inline void sum_accumulators(vf a[ROWS][ACC][PARTS], int rows, float out[][BLOCK]) {
    for (int r = 0; r < rows; r++)
        for (int p = 0; p < PARTS; p++) {
#if ACC == 4
            store(out[r] + p * LANES, (a[r][0][p] + a[r][1][p]) + (a[r][2][p] + a[r][3][p]));
#else
            store(out[r] + p * LANES, a[r][0][p] + a[r][1][p]);
#endif
        }
}

/* One packed block against `rows` rows of x (1 .. ROWS): the 16 dot products of each row into
   out[r][0 .. 15]. Each row sums in the same order whatever `rows` is (ACC accumulators by i mod ACC),
   so a row's numbers do not depend on how many rows share the call; with several rows each group of
   weights is loaded (and widened) once for all of them: what makes the kernel usable for a prefill. */
static inline void block(const void *w, const float *x, long k, int rows, int i8, float out[][BLOCK]) {
    vf a[ROWS][ACC][PARTS] = {{{{0}}}};
    long i = 0;
    for (; i + ACC <= k; i += ACC)
        for (int p = 0; p < PARTS; p++) {
            vf g[ACC];
            for (int u = 0; u < ACC; u++) g[u] = group(w, i + u, p, i8);
            for (int r = 0; r < rows; r++)
                for (int u = 0; u < ACC; u++) a[r][u][p] += g[u] * x[r * k + i + u];
        }
    for (; i < k; i++)
        for (int p = 0; p < PARTS; p++) {
            vf g = group(w, i, p, i8);
            for (int r = 0; r < rows; r++) a[r][0][p] += g * x[r * k + i];
        }
    sum_accumulators(a, rows, out);
}

/* The dot product of two float rows of d, 16 lanes at a time (the rest one by one). */
static inline float dot(const float *a, const float *b, long d) {
    vf acc[PARTS] = {{0}};
    long i = 0;
    for (; i + 16 <= d; i += 16)
        for (int p = 0; p < PARTS; p++) acc[p] += load(a + i + p * LANES) * load(b + i + p * LANES);
    float s = 0;
    for (int p = 0; p < PARTS; p++)
        for (int j = 0; j < LANES; j++) s += acc[p][j];
    for (; i < d; i++) s += a[i] * b[i];
    return s;
}

#endif
