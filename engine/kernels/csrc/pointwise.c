/* The forward's elementwise steps on float32, one pass each where torch takes several operators and
   temporaries: SiLU(gate) * up, and RoPE (rotate-half, the sign kept in the sin table as in
   engine/model.apply_rope). Used by the torch forward (engine/kernels/native.py) and by decode.c.
   Built and loaded with the other kernels by engine/kernels/native.py. */

#include <string.h>

#include "expv.h"

/* gu: rows of [gate (f) | up (f)]; out: rows of f. */
void silu_mul_f32(const float *gu, float *out, long rows, long f, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) if (rows * f >= PARALLEL_FLOATS)
    for (long r = 0; r < rows; r++) {
        const float *g = gu + r * 2 * f, *u = g + f;
        float *o = out + r * f;
        long i = 0;
        for (; i + LANES <= f; i += LANES) {
            store(o + i, silu_times(load(g + i), load(u + i)));
        }
        for (; i < f; i++) {
            vf gv = {0};
            gv[0] = -g[i];
            o[i] = g[i] / (1.0f + expv(gv)[0]) * u[i];
        }
    }
}

/* x: rows of `heads` vectors of d floats (row `row` floats apart); out: the same, contiguous (may be x
   itself when row == heads * d). Row r rotates by its table row cos + r * table_row (and sin_rot). */
void rope_f32(const float *x, long row, float *out, long rows, long heads, long d, const float *cos,
              const float *sin_rot, long table_row, int threads) {
    long half = d / 2;
#pragma omp parallel for schedule(static) num_threads(threads) if (rows * heads * d >= PARALLEL_FLOATS)
    for (long r = 0; r < rows; r++) {
        const float *c = cos + r * table_row, *s = sin_rot + r * table_row;
        float tmp[d];
        for (long h = 0; h < heads; h++) {
            float *o = out + (r * heads + h) * d;
            memcpy(tmp, x + r * row + h * d, d * sizeof(float));
            for (long j = 0; j < half; j++) o[j] = tmp[j] * c[j] + tmp[j + half] * s[j];
            for (long j = half; j < d; j++) o[j] = tmp[j] * c[j] + tmp[j - half] * s[j];
        }
    }
}
