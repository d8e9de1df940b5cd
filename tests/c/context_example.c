/* The kernel context embedded by a native runtime with a fake launcher.
 * docs/c.md shows this file from `typedef struct` to the end of `embed`
 * verbatim (runtime/tests/c_context.rs checks it, then builds and runs it).
 * argv[1]: silu_bf16's a2a3 sim compiled_meta.json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfam/kfam.h"

/* Fails the program, naming the call, unless `call` returns `want`. */
#define EXPECT(call, want)                                                         \
    do {                                                                           \
        int32_t got_ = (call);                                                     \
        if (got_ != (want)) {                                                      \
            fprintf(stderr, "%s: expected %d, got %d\n", #call, (int)(want), (int)got_); \
            return 1;                                                              \
        }                                                                          \
    } while (0)

typedef struct {
    int launches;
    uint64_t last_stream;
} fake_runtime;

/* The runtime's launch entry: kfam hands it every call it validated. */
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
    return n_tensors == 2 ? 7 : -1; /* the runtime's own status: launch returns it unchanged */
}

/* One context through its lifecycle: `meta` (`len` bytes) is the artifact's
 * compiled_meta.json, `sha256` the digest of the artifact file. */
static int embed(const char *meta, size_t len, const char *sha256) {
    fake_runtime rt = {0, 0};
    kfam_context *ctx = NULL;
    kfam_context_options options;
    uint64_t callable = 0, again = 0, generation = 0;
    int64_t shape[2] = {2, 11008};
    kfam_tensor_arg args[2];
    int i;

    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.max_prepared = 8; /* 0 (or kfam_context_new) takes KFAM_MAX_PREPARED */
    EXPECT(kfam_context_new_with(&options, &ctx), KFAM_STATUS_OK);
    EXPECT(kfam_context_supported(ctx, "silu_bf16"), KFAM_STATUS_INVALID_STATE); /* no init yet */
    EXPECT(kfam_context_init(ctx, KFAM_PLATFORM_A2A3, KFAM_EXECUTION_MODE_SIM,
                             KFAM_CONTRACT_KERNEL, 0, NULL, &rt),
           KFAM_STATUS_INVALID_ARGUMENT); /* no launcher */
    EXPECT(kfam_context_init(ctx, KFAM_PLATFORM_A5, KFAM_EXECUTION_MODE_ONBOARD,
                             KFAM_CONTRACT_KERNEL, 0, fake_launch, &rt),
           KFAM_STATUS_UNSUPPORTED); /* no approved kernel profile there */
    EXPECT(kfam_context_init_generation(ctx, KFAM_PLATFORM_A2A3, KFAM_EXECUTION_MODE_SIM,
                                        KFAM_CONTRACT_KERNEL, 0, fake_launch, &rt),
           KFAM_STATUS_INVALID_ARGUMENT); /* a caller's generation is never 0 */
    EXPECT(kfam_context_init(ctx, KFAM_PLATFORM_A2A3, KFAM_EXECUTION_MODE_SIM,
                             KFAM_CONTRACT_KERNEL, 0 /* next of the process counter */,
                             fake_launch, &rt),
           KFAM_STATUS_OK);
    EXPECT(kfam_context_generation(ctx, &generation), KFAM_STATUS_OK);
    EXPECT(generation >= 1, 1);
    EXPECT(kfam_context_init(ctx, KFAM_PLATFORM_A2A3, KFAM_EXECUTION_MODE_SIM,
                             KFAM_CONTRACT_KERNEL, 0, fake_launch, &rt),
           KFAM_STATUS_INVALID_STATE); /* latched once */
    EXPECT(kfam_context_supported(ctx, "silu_bf16"), KFAM_STATUS_OK);
    EXPECT(kfam_context_supported(ctx, NULL), KFAM_STATUS_INVALID_ARGUMENT);
    EXPECT(kfam_context_prepare(ctx, meta, len, sha256, &callable), KFAM_STATUS_OK);
    EXPECT(kfam_context_prepare(ctx, meta, len, sha256, &again), KFAM_STATUS_OK);
    EXPECT(again == callable, 1); /* the same artifact, the same callable */

    memset(args, 0, sizeof args);
    for (i = 0; i < 2; i++) {
        args[i].struct_size = sizeof(kfam_tensor_arg);
        args[i].dtype = KFAM_DTYPE_BF16;
        args[i].format = KFAM_STORAGE_FORMAT_ND;
        args[i].rank = 2;
        args[i].shape = shape;
        args[i].strides = NULL; /* contiguous */
        args[i].storage_bytes = 2 * 11008 * 2;
        args[i].storage = (uint64_t)(i + 1) << 32;
    }
    EXPECT(kfam_context_launch(ctx, callable, args, 2, NULL, 0, 42), 7); /* from fake_launch */
    EXPECT(kfam_context_launch(ctx, callable, args, 1, NULL, 0, 42),
           KFAM_STATUS_INVALID_ARGUMENT); /* refused before the launcher */
    EXPECT(rt.launches, 1);
    EXPECT(rt.last_stream == 42, 1);
    EXPECT(kfam_context_close(ctx), KFAM_STATUS_OK);
    EXPECT(kfam_context_close(ctx), KFAM_STATUS_OK); /* idempotent */
    EXPECT(kfam_context_launch(ctx, callable, args, 2, NULL, 0, 42), KFAM_STATUS_INVALID_STATE);
    EXPECT(kfam_context_generation(ctx, &generation), KFAM_STATUS_INVALID_STATE);
    EXPECT(kfam_context_free(ctx), KFAM_STATUS_OK);
    return 0;
}

int main(int argc, char **argv) {
    static char meta[1 << 16];
    const char *sha = "b1ddcd6ab66c155664717b05f6a8f6885ceae0964c4eb623ee5dfb56b155ae02";
    size_t len;
    FILE *f;
    const kfam_table *table = NULL;
    kfam_context *ctx = NULL;
    kfam_context_options options;
    uint64_t generation = 0;

    if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL) {
        return 2;
    }
    len = fread(meta, 1, sizeof meta, f);
    fclose(f);
    if (embed(meta, len, sha) != 0) {
        return 1;
    }

    /* The library's limit is the header's (abi.toml's max_prepared). */
    EXPECT(kfam_library_table(&table), KFAM_STATUS_OK);
    EXPECT(KFAM_HAS_FIELD(kfam_table, table, max_prepared), 1);
    EXPECT(table->max_prepared == KFAM_MAX_PREPARED, 1);
    /* Options refused whole, nothing allocated. */
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof(uint32_t);
    EXPECT(kfam_context_new_with(&options, &ctx), KFAM_STATUS_INVALID_ARGUMENT);
    EXPECT(ctx == NULL, 1);
    EXPECT(kfam_context_new_with(NULL, &ctx), KFAM_STATUS_INVALID_ARGUMENT);
    options.struct_size = sizeof options;
    EXPECT(kfam_context_new_with(&options, NULL), KFAM_STATUS_INVALID_ARGUMENT);
    EXPECT(kfam_context_generation(NULL, &generation), KFAM_STATUS_INVALID_ARGUMENT);
    /* A caller's own generation is latched as given. */
    EXPECT(kfam_context_new(&ctx), KFAM_STATUS_OK);
    EXPECT(kfam_context_generation(ctx, NULL), KFAM_STATUS_INVALID_ARGUMENT);
    EXPECT(kfam_context_init_generation(ctx, KFAM_PLATFORM_A2A3, KFAM_EXECUTION_MODE_SIM,
                                        KFAM_CONTRACT_KERNEL, 77, fake_launch, NULL),
           KFAM_STATUS_OK);
    EXPECT(kfam_context_generation(ctx, &generation), KFAM_STATUS_OK);
    EXPECT(generation == 77, 1);
    EXPECT(kfam_context_free(ctx), KFAM_STATUS_OK);
    puts("ok");
    return 0;
}
