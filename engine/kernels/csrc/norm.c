/* RMSNorm on float32 rows, as Hugging Face's LlamaRMSNorm: y = x / sqrt(mean(x^2) + eps) * w.

   torch's rms_norm is a dozen small operators (conversions, pow, mean, rsqrt, two multiplies): ~10 us
   for one 576-wide row here, and a decode step runs two per layer. This is one pass per row.
   Built and loaded with the other kernels by engine/kernels/native.py. */

#include <math.h>

#include "block.h"

void rms_norm_f32(const float *x, const float *w, float *y, long m, long k, float eps, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) if (m * k >= PARALLEL_FLOATS)
    for (long r = 0; r < m; r++) {
        const float *xr = x + r * k;
        float *yr = y + r * k;
        float inv = 1.0f / sqrtf(dot(xr, xr, k) / (float)k + eps);
        for (long i = 0; i < k; i++) yr[i] = w[i] * (xr[i] * inv);
    }
}
