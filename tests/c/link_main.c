/*
 * Link test, C side: two translation units that both include kfam.h link
 * into one program. This one defines KFAM_IMPLEMENTATION, so it holds the
 * tables; link_other.c only includes the header and reaches the same
 * tables through their extern declarations.
 */
#include <stdio.h>
#include <string.h>

#define KFAM_IMPLEMENTATION
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
    /* One definition: both units see the very same records. */
    if (other != kfam_families) {
        printf("the tables are defined twice\n");
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
