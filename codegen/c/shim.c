/*
 * The C-layout tables a catalog's C library hands out: the catalog's
 * generated header compiled once into the library, so the header stays the
 * only authority on record layout. The Rust side (`kfam_runtime::ffi`)
 * reaches the records through these accessors (by index, in the order of
 * the catalog's Rust tables) and never mirrors the record structs.
 *
 * Compiled by `kfam_codegen::build` once per catalog, with
 *   KFAM_SHIM_PREFIX      the catalog's C prefix (npu),
 *   KFAM_SHIM_HEADER      its header ("npu/npu.h"),
 *   <PREFIX>_PRIVATE_TABLES
 * defined, so that two catalogs' accessors never share a name.
 */
#include <stddef.h>

#include KFAM_SHIM_HEADER

#define KFAM_SHIM_CAT_(a, b) a##b
#define KFAM_SHIM_CAT(a, b) KFAM_SHIM_CAT_(a, b)
/* A name of the catalog's header or of this file, with the prefix. */
#define P(name) KFAM_SHIM_CAT(KFAM_SHIM_PREFIX, name)

typedef P(_table) shim_table;
typedef P(_family) shim_family;
typedef P(_profile) shim_profile;
typedef P(_receipt) shim_receipt;

/* The tables are a private copy (internal linkage): the library exports no
 * table symbol, so a program that links it may still define the tables
 * itself with <PREFIX>_IMPLEMENTATION. */
const shim_table *P(_shim_table)(void) { return &P(_header_table); }

const shim_family *P(_shim_family)(size_t i) {
    return i < P(_header_table).family_count ? &P(_families)[i] : NULL;
}

const shim_profile *P(_shim_profile)(size_t family, size_t i) {
    const shim_family *f = P(_shim_family)(family);
    return f && i < f->profile_count ? &f->profiles[i] : NULL;
}

const shim_receipt *P(_shim_receipt)(size_t family, size_t i) {
    const shim_family *f = P(_shim_family)(family);
    return f && i < f->receipt_count ? &f->receipts[i] : NULL;
}

const char *P(_shim_torch_schema)(size_t family) {
    const shim_family *f = P(_shim_family)(family);
    return f ? f->torch_schema : NULL;
}

/* Name and identity of a caller's family record (which may come from the
 * caller's own copy of the header). */
const char *P(_shim_record_name)(const shim_family *f) { return f->name; }
const char *P(_shim_record_identity)(const shim_family *f) { return f->identity; }
