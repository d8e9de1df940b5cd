/* A program compiled with a header of another version of the catalog than
 * its library serves: npuops_check_catalog refuses it, naming both. */
#include <stdio.h>

#include <npuops/npuops.h>

int main(void)
{
    char why[512];
    int32_t s = npuops_check_catalog(NPUOPS_CATALOG_NAME, NPUOPS_CATALOG_DIGEST, why, sizeof why,
                                     NULL);
    printf("%s\n%s\n", npuops_status_name(s), why);
    return s == NPUOPS_STATUS_OK ? 0 : 1;
}
