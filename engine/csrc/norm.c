/* RMSNorm on float32 rows, as Hugging Face's LlamaRMSNorm: y = x / sqrt(mean(x^2) + eps) * w.

   torch's rms_norm is a dozen small operators (conversions, pow, mean, rsqrt, two multiplies): ~10 us
   for one 576-wide row here, and a decode step runs two per layer. This is one pass per row.
   Built and loaded with gemv.c by engine/native.py. */

#include <math.h>
#include <string.h>

typedef float v16f __attribute__((vector_size(64)));

static float sum_of_squares(const float *x, long k) {
    v16f acc = {0}, g;
    long i = 0;
    for (; i + 16 <= k; i += 16) {
        memcpy(&g, x + i, 64);
        acc += g * g;
    }
    float s = 0;
    for (int j = 0; j < 16; j++) s += acc[j];
    for (; i < k; i++) s += x[i] * x[i];
    return s;
}

void rms_norm_f32(const float *x, const float *w, float *y, long m, long k, float eps) {
    for (long r = 0; r < m; r++) {
        const float *xr = x + r * k;
        float *yr = y + r * k;
        float inv = 1.0f / sqrtf(sum_of_squares(xr, k) / (float)k + eps);
        for (long i = 0; i < k; i++) yr[i] = w[i] * (xr[i] * inv);
    }
}
