/*
 * A program over the second catalog (npuops), pairing with whatever library
 * it is linked against: what its header compiled in (NPUOPS_CHECK_CATALOG),
 * then one decision. Built against headers of several versions of the
 * catalog by native/tests/open.rs.
 */
#include <stdio.h>
#include <string.h>

#include "npuops/npuops.h"

int main(void)
{
    char why[1024];
    npuops_capability_result c;
    int32_t s = NPUOPS_CHECK_CATALOG(why, sizeof why, NULL);
    printf("pair %d %s\n", (int)s, why);
    s = npuops_check_catalog(NPUOPS_CATALOG_NAME, NPUOPS_CATALOG_DIGEST, why, sizeof why, NULL);
    printf("strict %d\n", (int)s);
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    s = npuops_capability("scale_ok", NPUOPS_PLATFORM_NPU, NPUOPS_EXECUTION_MODE_ONBOARD,
                          NPUOPS_CONTRACT_KERNEL, &c);
    printf("capability %d %s %u\n", (int)s, npuops_capability_outcome_name(c.outcome),
           c.family ? c.family->revision : 0u);
    return 0;
}
