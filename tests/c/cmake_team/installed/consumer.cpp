// The installed catalog, from a program that only found it: the library
// serves the header's catalog, and decides in the catalog's own codes.
#include <cstdio>

#include <xdnaops/xdnaops.h>

int main()
{
    char why[512];
    int32_t s = xdnaops_check_catalog(XDNAOPS_CATALOG_NAME, XDNAOPS_CATALOG_DIGEST, why, sizeof why,
                                      nullptr);
    std::printf("check %d %s\n", (int)s, why);
    const xdnaops_table *t = nullptr;
    xdnaops_library_table(&t);
    std::printf("families %u\n", t ? t->family_count : 0u);
    xdnaops_capability_result r{};
    r.struct_size = sizeof r;
    s = xdnaops_capability("example_add", XDNAOPS_PLATFORM_XDNA3, XDNAOPS_EXECUTION_MODE_SIM,
                           XDNAOPS_CONTRACT_KERNEL, &r);
    std::printf("capability %d %s\n", (int)s, xdnaops_capability_outcome_name(r.outcome));
    s = xdnaops_capability("missing", XDNAOPS_PLATFORM_XDNA3, XDNAOPS_EXECUTION_MODE_SIM,
                           XDNAOPS_CONTRACT_KERNEL, &r);
    std::printf("unknown %d %s\n", (int)s, xdnaops_status_name(s));
    return 0;
}
