/*
 * Links against the kfam runtime library (static or shared) and calls every
 * C function it exports, printing one line per call; runtime/tests/c_abi.rs
 * builds it as C99 and as C++17 and checks the output. argv[1] is a
 * compiled_meta.json example, argv[2] its artifact digest. It also defines
 * the tables itself (KFAM_IMPLEMENTATION): the library keeps its own private
 * copy, so the program links without a duplicate symbol and both copies
 * hold the same families.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KFAM_IMPLEMENTATION
#include "kfam/kfam.h"

int kfam_example_check_library(void);
int kfam_example_admit(const char *json, size_t len, const char *sha256_hex);
int kfam_example_validate_add(uint64_t lhs, uint64_t rhs, uint64_t out, int32_t device);
int kfam_example_validate_matmul_scalars(const kfam_family *family, int64_t tile_rows, double alpha);
int kfam_example_describe_artifact(const char *sha256_hex);

/* Every way kfam_capability and kfam_admit refuse the call itself: the status
 * is INVALID_ARGUMENT, and the result never reads as a decision, let alone a
 * success: filled with garbage first, a usable result is fully rewritten
 * (outcome INVALID_CALL, pointers NULL, indices 0); a zeroed one too small to
 * write into still reads INVALID_CALL. Returns the number of failures. */
static int check_refusals(const char *json, size_t len, const char *sha256_hex)
{
    kfam_capability_result cap;
    kfam_admission adm;
    int failures = 0;
    int i;
    for (i = 0; i < 6; ++i) {
        const char *name = i == 0 ? NULL : "matmul_acc_nz_bf16";
        kfam_platform platform = i == 1 ? (kfam_platform)999 : KFAM_PLATFORM_A2A3;
        kfam_execution_mode mode = i == 2 ? (kfam_execution_mode)-1 : KFAM_EXECUTION_MODE_SIM;
        kfam_contract contract = i == 3 ? (kfam_contract)77 : KFAM_CONTRACT_KERNEL;
        memset(&cap, i >= 4 ? 0 : 0xA5, sizeof cap);
        cap.struct_size = i == 4 ? 4u : i == 5 ? 0u : (uint32_t)sizeof cap;
        if (kfam_capability(name, platform, mode, contract, &cap) != KFAM_STATUS_INVALID_ARGUMENT ||
            cap.outcome != KFAM_CAPABILITY_INVALID_CALL || cap.outcome == KFAM_CAPABILITY_SUPPORTED ||
            cap.family != NULL || cap.profile != NULL || cap.receipt != NULL || cap.family_index != 0) {
            printf("capability refusal %d reads as a decision\n", i);
            ++failures;
        }
    }
    if (kfam_capability("matmul_acc_nz_bf16", KFAM_PLATFORM_A2A3, KFAM_EXECUTION_MODE_SIM, KFAM_CONTRACT_KERNEL,
                        NULL) != KFAM_STATUS_INVALID_ARGUMENT) {
        printf("capability NULL out accepted\n");
        ++failures;
    }
    for (i = 0; i < 4; ++i) {
        memset(&adm, i >= 2 ? 0 : 0xA5, sizeof adm);
        adm.struct_size = i == 2 ? 8u : i == 3 ? 0u : (uint32_t)sizeof adm;
        if (kfam_admit(i == 1 ? NULL : json, len, i == 0 ? NULL : sha256_hex, &adm) !=
                KFAM_STATUS_INVALID_ARGUMENT ||
            adm.outcome != KFAM_ADMISSION_INVALID_CALL || adm.outcome == KFAM_ADMISSION_ADMITTED ||
            adm.family != NULL || adm.profile != NULL || adm.receipt != NULL || adm.field != NULL) {
            printf("admission refusal %d reads as a decision\n", i);
            ++failures;
        }
    }
    if (kfam_admit(json, len, sha256_hex, NULL) != KFAM_STATUS_INVALID_ARGUMENT) {
        printf("admission NULL out accepted\n");
        ++failures;
    }
    return failures;
}

/* Every way kfam_validate_call refuses the call itself (NULL family or
 * descriptor array, a descriptor with a short struct_size or an unknown code,
 * an unknown family or identity): err->rule reads KFAM_CALL_RULE_INVALID_CALL,
 * never KFAM_CALL_RULE_OK, and every field of a usable err is written (filled
 * with garbage first); a zeroed err too short to write into still reads
 * INVALID_CALL. `family` is add_bf16_1024 (three tensors, no scalars).
 * Returns the number of failures. */
static int check_call_refusals(const kfam_family *family)
{
    kfam_tensor_arg tensors[3];
    kfam_scalar_arg scalar;
    kfam_family other = *family;
    kfam_call_error err;
    int failures = 0;
    int i;
    for (i = 0; i < 11; ++i) {
        const kfam_family *f = i == 0 ? NULL : i == 9 || i == 10 ? &other : family;
        int32_t want = i == 9 ? KFAM_STATUS_NOT_FOUND : i == 10 ? KFAM_STATUS_PREPARED_INCOMPATIBLE
                                                                : KFAM_STATUS_INVALID_ARGUMENT;
        int32_t status;
        int j;
        memset(tensors, 0, sizeof tensors);
        for (j = 0; j < 3; ++j) {
            tensors[j].struct_size = sizeof tensors[j];
            tensors[j].dtype = KFAM_DTYPE_BF16;
            tensors[j].format = KFAM_STORAGE_FORMAT_ND;
        }
        memset(&scalar, 0, sizeof scalar);
        scalar.struct_size = sizeof scalar;
        scalar.kind = KFAM_SCALAR_VALUE_KIND_INT;
        other = *family;
        if (i == 3) tensors[0].struct_size = 4;
        if (i == 4) tensors[1].dtype = 999;
        if (i == 5) tensors[2].format = -7;
        if (i == 6) scalar.kind = 42;
        if (i == 9) other.name = "no_such_family";
        if (i == 10) other.identity = "0000000000000000000000000000000000000000000000000000000000000000";
        memset(&err, i == 7 || i == 8 ? 0 : 0xA5, sizeof err);
        err.struct_size = i == 7 ? 8u : i == 8 ? 0u : (uint32_t)sizeof err;
        status = kfam_validate_call(f, i == 1 ? NULL : tensors, 3, i == 2 ? NULL : &scalar, i == 2 || i == 6 ? 1u : 0u,
                                    &err);
        if (status != want || err.rule != KFAM_CALL_RULE_INVALID_CALL || err.rule == KFAM_CALL_RULE_OK ||
            (i != 7 && i != 8 && (err.param_index != -1 || err.symbol_index != -1 || err.other_param_index != -1))) {
            printf("call refusal %d reads as a verdict (status %s, rule %d)\n", i, kfam_status_name(status),
                   (int)err.rule);
            ++failures;
        }
    }
    if (kfam_validate_call(NULL, tensors, 3, NULL, 0, NULL) != KFAM_STATUS_INVALID_ARGUMENT) {
        printf("call refusal with NULL err accepted\n");
        ++failures;
    }
    return failures;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        return NULL;
    }
    buf = (char *)malloc((size_t)n + 1);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

int main(int argc, char **argv)
{
    const kfam_family *family = NULL;
    const kfam_table *lib = NULL;
    const char *schema = NULL;
    kfam_capability_result cap;
    kfam_admission adm;
    kfam_artifact_match match;
    size_t len = 0;
    int32_t status;
    char *json;

    if (argc != 3 || (json = read_file(argv[1], &len)) == NULL) {
        fprintf(stderr, "usage: abi_main COMPILED_META.json SHA256\n");
        return 2;
    }
    /* Each call is made before its results are printed: C leaves the order
     * of argument evaluation unspecified. */
    status = kfam_library_table(&lib);
    printf("library_table %d families %u\n", (int)status, (unsigned)lib->family_count);
    printf("library_table(NULL) %s\n", kfam_status_name(kfam_library_table(NULL)));
    printf("check_library %d\n", kfam_example_check_library());
    printf("own_tables families %u first %s same %d\n", (unsigned)kfam_header_table.family_count,
           kfam_families[0].name,
           lib->family_count == KFAM_FAMILY_COUNT && strcmp(lib->families[0].name, kfam_families[0].name) == 0);

    {
        /* The library decides over its Rust tables and hands out records of
         * its C tables by the same index: both follow the generator's one
         * order, so family i found by name is C record i, with its name. */
        uint32_t i, paired = 0;
        for (i = 0; i < KFAM_FAMILY_COUNT; i++) {
            const kfam_family *found = NULL;
            if (kfam_find_family(kfam_families[i].name, &found) == KFAM_STATUS_OK && found == &lib->families[i] &&
                strcmp(found->name, kfam_families[i].name) == 0 &&
                strcmp(found->identity, kfam_families[i].identity) == 0) {
                paired++;
            }
        }
        printf("paired %u of %u\n", (unsigned)paired, (unsigned)KFAM_FAMILY_COUNT);
    }

    status = kfam_find_family("add_bf16_1024", &family);
    printf("find_family %s %s\n", kfam_status_name(status), family->name);
    printf("find_family unknown %s\n", kfam_status_name(kfam_find_family("add_bf16_2048", &family)));

    memset(&match, 0, sizeof match);
    match.struct_size = sizeof match;
    status = kfam_find_artifact(argv[2], &match);
    printf("find_artifact %s %s\n", kfam_status_name(status), match.family->name);
    printf("find_artifact bad %s\n", kfam_status_name(kfam_find_artifact("ABC", &match)));
    printf("describe %d\n", kfam_example_describe_artifact(argv[2]));

    memset(&cap, 0, sizeof cap);
    cap.struct_size = sizeof cap;
    status = kfam_capability("matmul_acc_nz_bf16", KFAM_PLATFORM_A2A3, KFAM_EXECUTION_MODE_SIM, KFAM_CONTRACT_KERNEL,
                             &cap);
    printf("capability %s %s %s\n", kfam_status_name(status), kfam_capability_outcome_name(cap.outcome),
           cap.profile != NULL ? cap.profile->name : "-");
    status = kfam_capability("matmul_acc_nz_bf16", KFAM_PLATFORM_XDNA2, KFAM_EXECUTION_MODE_ONBOARD,
                             KFAM_CONTRACT_KERNEL, &cap);
    printf("capability xdna2 %s %s\n", kfam_status_name(status), kfam_capability_outcome_name(cap.outcome));
    cap.struct_size = 4;
    printf("capability small struct %s\n",
           kfam_status_name(kfam_capability("matmul_acc_nz_bf16", KFAM_PLATFORM_A2A3, KFAM_EXECUTION_MODE_SIM,
                                            KFAM_CONTRACT_KERNEL, &cap)));

    memset(&adm, 0, sizeof adm);
    adm.struct_size = sizeof adm;
    status = kfam_admit(json, len, argv[2], &adm);
    printf("admit %s %s\n", kfam_status_name(status), kfam_admission_outcome_name(adm.outcome));
    status = kfam_admit(json, len / 2, argv[2], &adm);
    printf("admit truncated %s %s\n", kfam_status_name(status), kfam_admission_outcome_name(adm.outcome));
    {
        char message[160];
        size_t needed = 0;
        status = kfam_admit_message(json, len / 2, argv[2], message, sizeof message, &needed);
        printf("admit_message truncated %s %s\n", kfam_status_name(status), message);
        status = kfam_admit_message(json, len, argv[2], NULL, 0, &needed);
        printf("admit_message needed %s %d\n", kfam_status_name(status), (int)(needed > 0));
    }
    printf("example admit %d\n", kfam_example_admit(json, len, argv[2]));
    printf("refusal failures %d\n", check_refusals(json, len, argv[2]));

    printf("validate add %d\n", kfam_example_validate_add(0x1000, 0x2000, 0x3000, 0));
    kfam_find_family("matmul_acc_nz_bf16", &family);
    printf("validate scalars only %d\n", kfam_example_validate_matmul_scalars(family, 4, 0.5));
    kfam_find_family("add_bf16_1024", &family);
    printf("call refusal failures %d\n", check_call_refusals(family));

    status = kfam_torch_schema("add_bf16_1024", &schema);
    printf("torch_schema %s %s\n", kfam_status_name(status), schema);
    printf("torch_schema unknown %s\n", kfam_status_name(kfam_torch_schema("nope", &schema)));
    free(json);
    return 0;
}
