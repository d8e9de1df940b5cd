/* The kernel context embedded by a native runtime with a fake launcher
 * (docs/c.md). argv[1]: silu_bf16's a2a3 sim compiled_meta.json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfam/kfam.h"

typedef struct {
    int launches;
    uint64_t last_stream;
} fake_runtime;

static int32_t fake_launch(void *user, uint64_t callable, uint64_t generation,
                           const kfam_tensor_arg *tensors, size_t n_tensors,
                           const kfam_scalar_arg *scalars, size_t n_scalars, uint64_t stream) {
    fake_runtime *rt = (fake_runtime *)user;
    (void)callable;
    (void)generation;
    (void)tensors;
    (void)scalars;
    (void)n_scalars;
    rt->launches += 1;
    rt->last_stream = stream;
    return n_tensors == 2 ? 7 : -1; /* the runtime's own status, passed through */
}

#define EXPECT(call, want)                                                         \
    do {                                                                           \
        int32_t got_ = (call);                                                     \
        if (got_ != (want)) {                                                      \
            fprintf(stderr, "%s: expected %d, got %d\n", #call, (int)(want), (int)got_); \
            return 1;                                                              \
        }                                                                          \
    } while (0)

int main(int argc, char **argv) {
    static char meta[1 << 16];
    size_t len;
    FILE *f;
    fake_runtime rt = {0, 0};
    kfam_context *ctx = NULL;
    uint64_t callable = 0, again = 0;
    const char *sha = "d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3";
    int64_t shape[2] = {2, 11008};
    kfam_tensor_arg args[2];
    int i;

    if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL) {
        return 2;
    }
    len = fread(meta, 1, sizeof meta, f);
    fclose(f);

    EXPECT(kfam_context_new(&ctx), KFAM_STATUS_OK);
    EXPECT(kfam_context_supported(ctx, "silu_bf16"), KFAM_STATUS_INVALID_STATE);
    EXPECT(kfam_context_init(ctx, KFAM_PLATFORM_A2A3, KFAM_EXECUTION_MODE_SIM,
                             KFAM_CONTRACT_KERNEL, 0, NULL, &rt),
           KFAM_STATUS_INVALID_ARGUMENT);
    EXPECT(kfam_context_init(ctx, KFAM_PLATFORM_A5, KFAM_EXECUTION_MODE_ONBOARD,
                             KFAM_CONTRACT_KERNEL, 0, fake_launch, &rt),
           KFAM_STATUS_UNSUPPORTED);
    EXPECT(kfam_context_init(ctx, KFAM_PLATFORM_A2A3, KFAM_EXECUTION_MODE_SIM,
                             KFAM_CONTRACT_KERNEL, 0, fake_launch, &rt),
           KFAM_STATUS_OK);
    EXPECT(kfam_context_init(ctx, KFAM_PLATFORM_A2A3, KFAM_EXECUTION_MODE_SIM,
                             KFAM_CONTRACT_KERNEL, 0, fake_launch, &rt),
           KFAM_STATUS_INVALID_STATE);
    EXPECT(kfam_context_supported(ctx, "silu_bf16"), KFAM_STATUS_OK);
    EXPECT(kfam_context_supported(ctx, NULL), KFAM_STATUS_INVALID_ARGUMENT);
    EXPECT(kfam_context_prepare(ctx, meta, len, sha, &callable), KFAM_STATUS_OK);
    EXPECT(kfam_context_prepare(ctx, meta, len, sha, &again), KFAM_STATUS_OK);
    EXPECT(again == callable, 1);

    memset(args, 0, sizeof args);
    for (i = 0; i < 2; i++) {
        args[i].struct_size = sizeof(kfam_tensor_arg);
        args[i].dtype = KFAM_DTYPE_BF16;
        args[i].format = KFAM_STORAGE_FORMAT_ND;
        args[i].rank = 2;
        args[i].shape = shape;
        args[i].strides = NULL;
        args[i].storage_bytes = 2 * 11008 * 2;
        args[i].storage = (uint64_t)(i + 1) << 32;
    }
    EXPECT(kfam_context_launch(ctx, callable, args, 2, NULL, 0, 42), 7);
    EXPECT(kfam_context_launch(ctx, callable, args, 1, NULL, 0, 42), KFAM_STATUS_INVALID_ARGUMENT);
    EXPECT(rt.launches, 1);
    EXPECT(rt.last_stream == 42, 1);
    EXPECT(kfam_context_close(ctx), KFAM_STATUS_OK);
    EXPECT(kfam_context_close(ctx), KFAM_STATUS_OK);
    EXPECT(kfam_context_launch(ctx, callable, args, 2, NULL, 0, 42), KFAM_STATUS_INVALID_STATE);
    EXPECT(kfam_context_free(ctx), KFAM_STATUS_OK);
    puts("ok");
    return 0;
}
