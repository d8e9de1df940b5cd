/* @BANNER@ */
/*
 * kfam_catalog.c - the library of the catalog `@NAME@`: its C tables and
 * the kfam_* functions kfam.h declares, each one call of kfam's prebuilt,
 * catalog-independent runtime (libkfamrt) with this catalog's descriptor.
 * The runtime opens the catalog's description below once, on the first
 * call, and checks it against this unit (docs/description.md).
 *
 * Compile it with any C99 or newer compiler into a shared or a static
 * library named lib@NAME@_catalog, and link libkfamrt:
 *
 *     cc -std=c99 -O2 -fPIC -shared -o lib@NAME@_catalog.so \
 *        kfam_catalog.c -L<runtime lib> -lkfamrt
 *
 * or let CMake do it: find_package(kfam) and kfam_add_catalog(@NAME@ ...)
 * (docs/c.md). No Rust toolchain is involved.
 */
#define KFAM_PRIVATE_TABLES
#include "@HEADER@"
#include "kfamrt.h"

/* The catalog's description: every record the runtime decides over,
 * @LENGTH@ bytes, as base64 text in rows of KFAMRT_DESCRIPTION_ROW
 * characters. */
#define KFAM_GEN_DESCRIPTION_LEN @LENGTH@u
static const unsigned char kfam_gen_description[@ROWS@][KFAMRT_DESCRIPTION_STRIDE] = {
@DESCRIPTION@
};

/* The description's length needs exactly the rows of its array: a unit
 * edited so that they disagree does not compile (the runtime checks the
 * row count the descriptor hands it too). */
typedef char kfam_gen_description_length_matches_its_rows[
    KFAMRT_DESCRIPTION_ROWS(KFAM_GEN_DESCRIPTION_LEN)
            == sizeof kfam_gen_description / KFAMRT_DESCRIPTION_STRIDE
        ? 1
        : -1];

/* sizeof each C ABI record the runtime reads or writes, as this unit's
 * header lays it out; the runtime refuses a catalog whose sizes are not its
 * own. */
static const uint32_t kfam_gen_record_sizes[] = {
@RECORD_SIZES@
};

/* The C tables are this unit's private copy (KFAM_PRIVATE_TABLES): the
 * library exports no table symbol, so a program that links it may still
 * define the tables itself with KFAM_IMPLEMENTATION. */
static const void *kfam_gen_table(void) { return &kfam_header_table; }

static const void *kfam_gen_family(size_t i)
{
    return i < kfam_header_table.family_count ? &kfam_families[i] : NULL;
}

static const void *kfam_gen_profile(size_t family, size_t i)
{
    const kfam_family *f = (const kfam_family *)kfam_gen_family(family);
    return f && i < f->profile_count ? &f->profiles[i] : NULL;
}

static const void *kfam_gen_receipt(size_t family, size_t i)
{
    const kfam_family *f = (const kfam_family *)kfam_gen_family(family);
    return f && i < f->receipt_count ? &f->receipts[i] : NULL;
}

static const char *kfam_gen_torch_schema(size_t family)
{
    const kfam_family *f = (const kfam_family *)kfam_gen_family(family);
    return f ? f->torch_schema : NULL;
}

/* A caller's family record may come from its own copy of the tables. */
static const char *kfam_gen_record_name(const void *f) { return ((const kfam_family *)f)->name; }

static const char *kfam_gen_record_identity(const void *f)
{
    return ((const kfam_family *)f)->identity;
}

static kfamrt_catalog kfam_gen_catalog = {
    sizeof(kfamrt_catalog),
    @FORMAT_MAJOR@,
    @FORMAT_MINOR@,
    {@STATUS@},
    @GENERATOR@,
    @NAME_LITERAL@,
    &kfam_gen_description[0][0],
    KFAM_GEN_DESCRIPTION_LEN,
    "@SHA256@",
    (uint32_t)(sizeof kfam_gen_record_sizes / sizeof kfam_gen_record_sizes[0]),
    kfam_gen_record_sizes,
    kfam_gen_table,
    kfam_gen_family,
    kfam_gen_profile,
    kfam_gen_receipt,
    kfam_gen_torch_schema,
    kfam_gen_record_name,
    kfam_gen_record_identity,
    NULL,
    sizeof kfam_gen_description / KFAMRT_DESCRIPTION_STRIDE,
};

KFAM_API int32_t kfam_library_table(const kfam_table **out)
{
    return kfamrt_library_table(&kfam_gen_catalog, (const void **)out);
}

KFAM_API int32_t kfam_check_catalog(const char *name, const char *digest, char *buf, size_t cap,
                                    size_t *needed)
{
    return kfamrt_check_catalog(&kfam_gen_catalog, name, digest, buf, cap, needed);
}

KFAM_API int32_t kfam_check_pairing(const kfam_pairing *header, char *buf, size_t cap,
                                    size_t *needed)
{
    return kfamrt_check_pairing(&kfam_gen_catalog, header, buf, cap, needed);
}

KFAM_API int32_t kfam_find_family(const char *name, const kfam_family **out)
{
    return kfamrt_find_family(&kfam_gen_catalog, name, (const void **)out);
}

KFAM_API int32_t kfam_find_artifact(const char *sha256_hex, kfam_artifact_match *out)
{
    return kfamrt_find_artifact(&kfam_gen_catalog, sha256_hex, out);
}

KFAM_API int32_t kfam_capability(const char *family, kfam_platform platform, kfam_execution_mode mode,
                                 kfam_contract contract, kfam_capability_result *out)
{
    return kfamrt_capability(&kfam_gen_catalog, family, (int32_t)platform, (int32_t)mode,
                             (int32_t)contract, out);
}

KFAM_API int32_t kfam_capability_message(const char *family, kfam_platform platform, kfam_execution_mode mode,
                                         kfam_contract contract, char *buf, size_t cap, size_t *needed)
{
    return kfamrt_capability_message(&kfam_gen_catalog, family, (int32_t)platform, (int32_t)mode,
                                     (int32_t)contract, buf, cap, needed);
}

KFAM_API int32_t kfam_admit(const char *json, size_t len, const char *sha256_hex, kfam_admission *out)
{
    return kfamrt_admit(&kfam_gen_catalog, json, len, sha256_hex, out);
}

KFAM_API int32_t kfam_admit_message(const char *json, size_t len, const char *sha256_hex, char *buf,
                                    size_t cap, size_t *needed)
{
    return kfamrt_admit_message(&kfam_gen_catalog, json, len, sha256_hex, buf, cap, needed);
}

KFAM_API int32_t kfam_validate_call(const kfam_family *family, const kfam_tensor_arg *tensors, size_t n_tensors,
                                    const kfam_scalar_arg *scalars, size_t n_scalars, kfam_call_error *err)
{
    return kfamrt_validate_call(&kfam_gen_catalog, family, tensors, n_tensors, scalars, n_scalars,
                                err);
}

KFAM_API int32_t kfam_validate_call_message(const kfam_family *family, const kfam_tensor_arg *tensors,
                                            size_t n_tensors, const kfam_scalar_arg *scalars,
                                            size_t n_scalars, char *buf, size_t cap, size_t *needed)
{
    return kfamrt_validate_call_message(&kfam_gen_catalog, family, tensors, n_tensors, scalars,
                                        n_scalars, buf, cap, needed);
}

KFAM_API int32_t kfam_torch_schema(const char *family, const char **out)
{
    return kfamrt_torch_schema(&kfam_gen_catalog, family, out);
}

KFAM_API int32_t kfam_context_new(kfam_context **out)
{
    return kfamrt_context_new(&kfam_gen_catalog, (void **)out);
}

KFAM_API int32_t kfam_context_new_with(const kfam_context_options *options, kfam_context **out)
{
    return kfamrt_context_new_with(&kfam_gen_catalog, options, (void **)out);
}

KFAM_API int32_t kfam_context_init(kfam_context *ctx, int32_t platform, int32_t execution_mode,
                                   int32_t contract, uint64_t generation, kfam_launch_fn launch,
                                   void *user)
{
    return kfamrt_context_init(&kfam_gen_catalog, ctx, platform, execution_mode, contract,
                               generation, (kfamrt_fn)launch, user);
}

KFAM_API int32_t kfam_context_init_generation(kfam_context *ctx, int32_t platform, int32_t execution_mode,
                                              int32_t contract, uint64_t generation, kfam_launch_fn launch,
                                              void *user)
{
    return kfamrt_context_init_generation(&kfam_gen_catalog, ctx, platform, execution_mode,
                                          contract, generation, (kfamrt_fn)launch, user);
}

KFAM_API int32_t kfam_context_generation(kfam_context *ctx, uint64_t *out)
{
    return kfamrt_context_generation(&kfam_gen_catalog, ctx, out);
}

KFAM_API int32_t kfam_context_supported(kfam_context *ctx, const char *family)
{
    return kfamrt_context_supported(&kfam_gen_catalog, ctx, family);
}

KFAM_API int32_t kfam_context_prepare(kfam_context *ctx, const char *compiled_meta, size_t len,
                                      const char *sha256, uint64_t *callable)
{
    return kfamrt_context_prepare(&kfam_gen_catalog, ctx, compiled_meta, len, sha256, callable);
}

KFAM_API int32_t kfam_context_launch(kfam_context *ctx, uint64_t callable,
                                     const kfam_tensor_arg *tensors, size_t n_tensors,
                                     const kfam_scalar_arg *scalars, size_t n_scalars,
                                     uint64_t stream)
{
    return kfamrt_context_launch(&kfam_gen_catalog, ctx, callable, tensors, n_tensors, scalars,
                                 n_scalars, stream);
}

KFAM_API int32_t kfam_context_close(kfam_context *ctx)
{
    return kfamrt_context_close(&kfam_gen_catalog, ctx);
}

KFAM_API int32_t kfam_context_free(kfam_context *ctx)
{
    return kfamrt_context_free(&kfam_gen_catalog, ctx);
}
