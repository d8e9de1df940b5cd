/*
 * Link test, C side: two translation units that both include kfam.h link
 * into one program, and both see the same families (by name and identity)
 * in their own copies of the tables.
 */
#include <stdio.h>
#include <string.h>

#include "kfam/kfam.h"

const kfam_family *kfam_test_other_families(void);
uint32_t kfam_test_other_count(void);

int main(void)
{
    const kfam_family *other = kfam_test_other_families();
    uint32_t i;
    if (kfam_test_other_count() != KFAM_FAMILY_COUNT) {
        printf("family counts differ\n");
        return 1;
    }
    for (i = 0; i < KFAM_FAMILY_COUNT; ++i) {
        if (strcmp(other[i].name, kfam_families[i].name) != 0 ||
            strcmp(other[i].identity, kfam_families[i].identity) != 0) {
            printf("family %u differs\n", (unsigned)i);
            return 1;
        }
    }
    printf("linked %u families\n", (unsigned)KFAM_FAMILY_COUNT);
    return 0;
}
