/*
 * The second translation unit of the link test (codegen/tests/c_header.rs):
 * it includes kfam.h too, so it holds its own private copy of the static
 * tables. Linked with link_main.c (C) and link_main.cpp (C++); neither link
 * may see a duplicate symbol.
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
