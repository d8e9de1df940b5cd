/*
 * Using the runtime library's C functions (declared by kfam.h, implemented
 * by kfam-runtime): the second example of docs/c.md. codegen/tests/c_header.rs
 * compiles this file (as C99 and as C++17, -c, warnings as errors);
 * runtime/tests/c_abi.rs links it with tests/c/abi_main.c against the static
 * and the shared library and runs it.
 *
 * The pattern for every in/out struct: zero it, set struct_size to the
 * size this program was compiled with, call, check the returned status.
 */
#include <stdio.h>
#include <string.h>

#include "kfam/kfam.h"

int kfam_example_check_library(void);
int kfam_example_admit(const char *json, size_t len, const char *sha256_hex);
int kfam_example_validate_add(uint64_t lhs, uint64_t rhs, uint64_t out, int32_t device);
int kfam_example_validate_matmul_scalars(const kfam_family *family, int64_t tile_rows, double alpha);
int kfam_example_describe_artifact(const char *sha256_hex);

/* The linked library must speak this header's ABI major and serve this
 * header's catalog: call once, before anything else of the library. */
int kfam_example_check_library(void)
{
    const kfam_table *lib = NULL;
    char why[256];
    if (kfam_library_table(&lib) != KFAM_STATUS_OK || lib->abi_major != KFAM_ABI_MAJOR) {
        fprintf(stderr, "kfam runtime library has another ABI major\n");
        return -1;
    }
    if (kfam_check_catalog(KFAM_CATALOG_NAME, KFAM_CATALOG_DIGEST, why, sizeof why, NULL) !=
        KFAM_STATUS_OK) {
        fprintf(stderr, "%s\n", why);
        return -1;
    }
    return 0;
}

/* Admit one artifact before building a cache entry for it. */
int kfam_example_admit(const char *json, size_t len, const char *sha256_hex)
{
    kfam_capability_result cap;
    kfam_admission adm;
    const kfam_family *family;
    const kfam_profile *profile;
    uint32_t i;
    int32_t status;

    memset(&adm, 0, sizeof adm);
    adm.struct_size = sizeof adm;
    status = kfam_admit(json, len, sha256_hex, &adm);
    if (status != KFAM_STATUS_OK) {
        fprintf(stderr, "refused: %s (%s%s%s)\n", kfam_status_name(status),
                kfam_admission_outcome_name(adm.outcome), adm.field != NULL ? ", differs: " : "",
                adm.field != NULL ? adm.field : "");
        return status == KFAM_STATUS_RECOMPILE_REQUIRED ? 1 : -1;
    }
    family = adm.family;

    /* Library records may come from a newer ABI minor: stride arrays by
     * struct_size and test late fields with KFAM_HAS_FIELD. */
    for (i = 0; i < family->param_count; ++i) {
        const kfam_param *p = KFAM_ELEMENT(kfam_param, family->params, i);
        printf("param %s %s\n", p->name, kfam_dtype_name(p->dtype));
    }
    if (KFAM_HAS_FIELD(kfam_family, family, torch_schema) && family->torch_schema != NULL) {
        printf("torch %s\n", family->torch_schema);
    }

    /* The question a header-only consumer answers from the tables. Table
     * codes are int32_t; the functions take the enum types. */
    profile = adm.profile;
    memset(&cap, 0, sizeof cap);
    cap.struct_size = sizeof cap;
    status = kfam_capability(family->name, (kfam_platform)profile->platform,
                             (kfam_execution_mode)profile->execution_mode, (kfam_contract)adm.contract, &cap);
    if (status != KFAM_STATUS_OK) {
        /* The same decision in words, naming family, platform and mode. */
        char why[256];
        kfam_capability_message(family->name, (kfam_platform)profile->platform,
                                (kfam_execution_mode)profile->execution_mode, (kfam_contract)adm.contract,
                                why, sizeof why, NULL);
        fprintf(stderr, "not supported: %s\n", why);
        return -1;
    }
    return 0;
}

/* Validate a call of add_bf16_1024: three contiguous bf16[1024] tensors. */
int kfam_example_validate_add(uint64_t lhs, uint64_t rhs, uint64_t out, int32_t device)
{
    static const int64_t shape[1] = {1024};
    const uint64_t storages[3] = {lhs, rhs, out};
    kfam_tensor_arg tensors[3];
    kfam_call_error err;
    const kfam_family *family = NULL;
    int32_t status;
    size_t i;

    if (kfam_find_family("add_bf16_1024", &family) != KFAM_STATUS_OK) {
        return -1;
    }
    memset(tensors, 0, sizeof tensors);
    for (i = 0; i < 3; ++i) {
        tensors[i].struct_size = sizeof tensors[i];
        tensors[i].dtype = KFAM_DTYPE_BF16;
        tensors[i].format = KFAM_STORAGE_FORMAT_ND;
        tensors[i].rank = 1;
        tensors[i].shape = shape;
        tensors[i].strides = NULL; /* contiguous row-major */
        tensors[i].storage_offset = 0;
        tensors[i].storage_bytes = 1024 * 2;
        tensors[i].storage = storages[i];
        tensors[i].device_index = device;
    }
    memset(&err, 0, sizeof err);
    err.struct_size = sizeof err;
    status = kfam_validate_call(family, tensors, 3, NULL, 0, &err);
    if (status != KFAM_STATUS_OK) {
        /* Only now are words built: what was expected and what was passed.
         * A first call with cap 0 sizes the message; 256 bytes hold most. */
        char why[256];
        size_t needed = 0;
        fprintf(stderr, "invalid call (%s): parameter %d breaks %s\n", kfam_status_name(status),
                (int)err.param_index, err.rule != KFAM_CALL_RULE_INVALID_CALL ? kfam_call_rule_name(err.rule) : "a malformed descriptor");
        kfam_validate_call_message(family, tensors, 3, NULL, 0, why, sizeof why, &needed);
        fprintf(stderr, "%s%s\n", why, needed >= sizeof why ? "..." : "");
        return -1;
    }
    return 0;
}

/* Scalars carry their host type: an integer and a float here. (The tensors
 * are left out, so this call is rejected with KFAM_CALL_RULE_ARG_COUNT.) */
int kfam_example_validate_matmul_scalars(const kfam_family *family, int64_t tile_rows, double alpha)
{
    kfam_scalar_arg scalars[2];
    kfam_call_error err;

    memset(scalars, 0, sizeof scalars);
    scalars[0].struct_size = sizeof scalars[0];
    scalars[0].kind = KFAM_SCALAR_VALUE_KIND_INT;
    scalars[0].value.i64 = tile_rows;
    scalars[1].struct_size = sizeof scalars[1];
    scalars[1].kind = KFAM_SCALAR_VALUE_KIND_FLOAT;
    scalars[1].value.f64 = alpha;
    memset(&err, 0, sizeof err);
    err.struct_size = sizeof err;
    return kfam_validate_call(family, NULL, 0, scalars, 2, &err) == KFAM_STATUS_OK ? 0 : -1;
}

/* Which approved family, profile and receipt does an artifact digest belong
 * to, and what is the family's torch dispatcher schema? */
int kfam_example_describe_artifact(const char *sha256_hex)
{
    kfam_artifact_match match;
    const char *schema = NULL;
    int32_t status;

    memset(&match, 0, sizeof match);
    match.struct_size = sizeof match;
    status = kfam_find_artifact(sha256_hex, &match);
    if (status != KFAM_STATUS_OK) {
        fprintf(stderr, "%s: %s\n", sha256_hex, kfam_status_name(status));
        return -1;
    }
    printf("%s r%u on %s: %s\n", match.family->name, (unsigned)match.family->revision, match.profile->name,
           match.receipt->artifact);
    status = kfam_torch_schema(match.family->name, &schema);
    if (status == KFAM_STATUS_OK) {
        printf("torch: %s\n", schema);
    } else if (status == KFAM_STATUS_UNSUPPORTED) {
        printf("torch: no binding\n");
    }
    return 0;
}
