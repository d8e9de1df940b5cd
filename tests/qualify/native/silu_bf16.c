/* SiLU over bf16 for the family q_silu_bf16 (tests/qualify/manifest): a native kernel as a
 * backend ships one, compiled into a shared library and launched with the tensors' data
 * pointers; qualified through ctypes by tests/python/test_qualify.py (docs/qualify.md,
 * "Native kernels"). bf16 travels as its bits, uint16_t; `n` is the element count of `x`
 * and `y` (rows * 128).
 *
 * Each macro builds one classic mistake instead:
 *   KFAM_TAIL_OVERRUN   the loop runs to `i <= n`: one element written past the end of `y`;
 *   KFAM_WRITES_INPUT   after a correct `y`, `x` is scaled by 0.5 in place.
 *
 *   gcc -std=c11 -Wall -Wextra -Werror -O2 -shared -fPIC silu_bf16.c -o silu_bf16.so -lm
 */

#include <math.h>
#include <stdint.h>
#include <string.h>

static float bf16_to_float(uint16_t bits) {
    uint32_t u = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Round to nearest, ties to even; a NaN stays a (quiet) NaN. */
static uint16_t float_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if (isnan(f)) {
        return (uint16_t)((u >> 16) | 0x0040u);
    }
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

void silu_bf16(const uint16_t *x, uint16_t *y, int64_t n) {
#ifdef KFAM_TAIL_OVERRUN
    for (int64_t i = 0; i <= n; i++) { /* wrong: `<=` */
#else
    for (int64_t i = 0; i < n; i++) {
#endif
        float v = bf16_to_float(x[i]);
        y[i] = float_to_bf16(v / (1.0f + expf(-v)));
    }
#ifdef KFAM_WRITES_INPUT
    uint16_t *scratch = (uint16_t *)x; /* wrong: an `in` tensor used as scratch */
    for (int64_t i = 0; i < n; i++) {
        scratch[i] = float_to_bf16(bf16_to_float(scratch[i]) * 0.5f);
    }
#endif
}
