/*
 * The C-layout tables the runtime library's C functions hand out: the
 * generated header compiled once into the library, so the header stays the
 * only authority on record layout. Rust reaches the records through these
 * accessors (by index, in the same name order as its own tables) and never
 * mirrors the record structs.
 */
#include <stddef.h>
/* A private copy (internal linkage): the library exports no table symbol,
 * so a program that links it may still define the tables itself with
 * KFAM_IMPLEMENTATION. */
#define KFAM_PRIVATE_TABLES
#include "kfam/kfam.h"

const kfam_table *kfam_shim_table(void) { return &kfam_header_table; }

const kfam_family *kfam_shim_family(size_t i) {
    return i < KFAM_FAMILY_COUNT ? &kfam_families[i] : NULL;
}

const kfam_profile *kfam_shim_profile(size_t family, size_t i) {
    const kfam_family *f = kfam_shim_family(family);
    return f && i < f->profile_count ? &f->profiles[i] : NULL;
}

const kfam_receipt *kfam_shim_receipt(size_t family, size_t i) {
    const kfam_family *f = kfam_shim_family(family);
    return f && i < f->receipt_count ? &f->receipts[i] : NULL;
}

const char *kfam_shim_torch_schema(size_t family) {
    const kfam_family *f = kfam_shim_family(family);
    return f ? f->torch_schema : NULL;
}

/* Name and identity of a caller's family record (which may come from the
 * caller's own copy of the header). */
const char *kfam_shim_record_name(const kfam_family *f) { return f->name; }
const char *kfam_shim_record_identity(const kfam_family *f) { return f->identity; }
