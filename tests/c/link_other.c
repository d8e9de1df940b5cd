/*
 * The second translation unit of the link test (codegen/tests/c_header.rs):
 * it only includes kfam.h (declarations, no table data) and reads the
 * tables that link_main.c (C) or link_main.cpp (C++) defines with
 * KFAM_IMPLEMENTATION; neither link may see a duplicate or missing symbol.
 */
#include "kfam/kfam.h"

const kfam_family *kfam_test_other_families(void);
uint32_t kfam_test_other_count(void);

const kfam_family *kfam_test_other_families(void)
{
    return kfam_families;
}

uint32_t kfam_test_other_count(void)
{
    return kfam_header_table.family_count;
}
