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

/* sizeof and offsetof of every argument/result struct the Rust side reads or
 * writes, checked against its #[repr(C)] definitions by a test. */
size_t kfam_shim_layout(size_t *out, size_t cap) {
    const size_t layout[] = {
        sizeof(kfam_artifact_match), offsetof(kfam_artifact_match, family_index),
        offsetof(kfam_artifact_match, family), offsetof(kfam_artifact_match, receipt),
        sizeof(kfam_capability_result), offsetof(kfam_capability_result, outcome),
        offsetof(kfam_capability_result, family), offsetof(kfam_capability_result, receipt),
        sizeof(kfam_admission), offsetof(kfam_admission, contract),
        offsetof(kfam_admission, family), offsetof(kfam_admission, field),
        sizeof(kfam_tensor_arg), offsetof(kfam_tensor_arg, shape),
        offsetof(kfam_tensor_arg, storage), offsetof(kfam_tensor_arg, device_index),
        sizeof(kfam_scalar_arg), offsetof(kfam_scalar_arg, value),
        sizeof(kfam_call_error), offsetof(kfam_call_error, param_index),
        offsetof(kfam_call_error, symbol_index), offsetof(kfam_call_error, other_param_index),
    };
    size_t n = sizeof layout / sizeof layout[0];
    for (size_t i = 0; i < n && i < cap; ++i) out[i] = layout[i];
    return n;
}
