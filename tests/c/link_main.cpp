// Link test, C++ side: a C++ translation unit that defines the tables
// (KFAM_IMPLEMENTATION) and a C one (link_other.c) that only includes
// kfam.h; the program links (extern "C" names agree) and both see the same
// tables.
#include <cstdio>
#include <cstring>

#define KFAM_IMPLEMENTATION
#include "kfam/kfam.h"

extern "C" {
const kfam_family *kfam_test_other_families(void);
uint32_t kfam_test_other_count(void);
}

int main()
{
    const kfam_family *other = kfam_test_other_families();
    if (kfam_test_other_count() != KFAM_FAMILY_COUNT) {
        std::printf("family counts differ\n");
        return 1;
    }
    if (other != kfam_families) {
        std::printf("the tables are defined twice\n");
        return 1;
    }
    for (uint32_t i = 0; i < KFAM_FAMILY_COUNT; ++i) {
        if (std::strcmp(other[i].name, kfam_families[i].name) != 0 ||
            std::strcmp(other[i].identity, kfam_families[i].identity) != 0) {
            std::printf("family %u differs\n", static_cast<unsigned>(i));
            return 1;
        }
    }
    std::printf("linked %u families\n", static_cast<unsigned>(KFAM_FAMILY_COUNT));
    return 0;
}
