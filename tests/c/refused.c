/*
 * One catalog library, as the prebuilt runtime opens it: when it refuses
 * the catalog (a damaged or truncated description, a newer format, other
 * record sizes or status codes, tables that disagree), every function
 * answers PREPARED_INCOMPATIBLE, writes its out-records as a refused call
 * does, and the message functions say why; nothing crashes. Built against
 * variants of the catalog's unit by native/tests/open.rs.
 */
#include <stdio.h>
#include <string.h>

#define KFAM_IMPLEMENTATION
#include "kfam/kfam.h"

int main(void)
{
    char why[2048];
    size_t needed = 0;
    int32_t s = kfam_check_catalog(KFAM_CATALOG_NAME, KFAM_CATALOG_DIGEST, why, sizeof why, &needed);
    printf("check %d %s\n", (int)s, why);

    kfam_capability_result c;
    memset(&c, 0xff, sizeof c);
    c.struct_size = sizeof c;
    s = kfam_capability("add_bf16_1024", KFAM_PLATFORM_XDNA2, KFAM_EXECUTION_MODE_ONBOARD,
                        KFAM_CONTRACT_KERNEL, &c);
    printf("capability %d outcome %d profile %s\n", (int)s, (int)c.outcome,
           c.profile ? c.profile->name : "-");
    s = kfam_capability_message("add_bf16_1024", KFAM_PLATFORM_XDNA2, KFAM_EXECUTION_MODE_ONBOARD,
                                KFAM_CONTRACT_KERNEL, why, sizeof why, NULL);
    printf("capability_message %d %s\n", (int)s, why);

    const kfam_family *f = &kfam_families[0];
    s = kfam_find_family("add_bf16_1024", &f);
    printf("find_family %d %s\n", (int)s, f ? f->name : "-");

    kfam_admission a;
    memset(&a, 0xff, sizeof a);
    a.struct_size = sizeof a;
    s = kfam_admit("{}", 2, "0000000000000000000000000000000000000000000000000000000000000000", &a);
    printf("admit %d outcome %d\n", (int)s, (int)a.outcome);

    kfam_call_error e;
    memset(&e, 0xff, sizeof e);
    e.struct_size = sizeof e;
    s = kfam_validate_call(&kfam_families[0], NULL, 0, NULL, 0, &e);
    printf("validate_call %d rule %d\n", (int)s, (int)e.rule);

    kfam_context *ctx = NULL;
    s = kfam_context_new(&ctx);
    printf("context_new %d %s\n", (int)s, ctx ? "context" : "-");
    if (ctx) {
        s = kfam_context_free(ctx);
        printf("context_free %d\n", (int)s);
    }
    return 0;
}
