/* @BANNER@ */
/*
 * kfam_catalog.c - the library of the catalog `@NAME@`: its C tables and
 * the kfam_* functions kfam.h declares, each one call of kfam's prebuilt,
 * catalog-independent runtime (libkfamrt) with this catalog's descriptor.
 * The runtime opens the catalog's description below once, on the first
 * call, and checks it against this unit (docs/description.md).
 *
 * Compile it with any C99 or newer compiler into a shared or a static
 * library named lib@NAME@_catalog, and link libkfamrt:
 *
 *     cc -std=c99 -O2 -fPIC -shared -o lib@NAME@_catalog.so \
 *        kfam_catalog.c -L<runtime lib> -lkfamrt
 *
 * or let CMake do it: find_package(kfam) and kfam_add_catalog(@NAME@ ...)
 * (docs/c.md). No Rust toolchain is involved.
 */
#define KFAM_PRIVATE_TABLES
#include "@HEADER@"
#include "kfamrt.h"

/* The catalog's description: every record the runtime decides over,
 * @LENGTH@ bytes, as base64 text in rows of KFAMRT_DESCRIPTION_ROW
 * characters. */
#define KFAM_GEN_DESCRIPTION_LEN @LENGTH@u
static const unsigned char kfam_gen_description[@ROWS@][KFAMRT_DESCRIPTION_STRIDE] = {
@DESCRIPTION@
};

/* The description's length needs exactly the rows of its array: a unit
 * edited so that they disagree does not compile (the runtime checks the
 * row count the descriptor hands it too). */
typedef char kfam_gen_description_length_matches_its_rows[
    KFAMRT_DESCRIPTION_ROWS(KFAM_GEN_DESCRIPTION_LEN)
            == sizeof kfam_gen_description / KFAMRT_DESCRIPTION_STRIDE
        ? 1
        : -1];

/* sizeof each C ABI record the runtime reads or writes, as this unit's
 * header lays it out; the runtime refuses a catalog whose sizes are not its
 * own. */
static const uint32_t kfam_gen_record_sizes[] = {
@RECORD_SIZES@
};

/* The C tables are this unit's private copy (KFAM_PRIVATE_TABLES): the
 * library exports no table symbol, so a program that links it may still
 * define the tables itself with KFAM_IMPLEMENTATION. */
static const void *kfam_gen_table(void) { return &kfam_header_table; }

static const void *kfam_gen_family(size_t i)
{
    return i < kfam_header_table.family_count ? &kfam_families[i] : NULL;
}

static const void *kfam_gen_profile(size_t family, size_t i)
{
    const kfam_family *f = (const kfam_family *)kfam_gen_family(family);
    return f && i < f->profile_count ? &f->profiles[i] : NULL;
}

static const void *kfam_gen_receipt(size_t family, size_t i)
{
    const kfam_family *f = (const kfam_family *)kfam_gen_family(family);
    return f && i < f->receipt_count ? &f->receipts[i] : NULL;
}

static const char *kfam_gen_torch_schema(size_t family)
{
    const kfam_family *f = (const kfam_family *)kfam_gen_family(family);
    return f ? f->torch_schema : NULL;
}

/* A caller's family record may come from its own copy of the tables. */
static const char *kfam_gen_record_name(const void *f) { return ((const kfam_family *)f)->name; }

static const char *kfam_gen_record_identity(const void *f)
{
    return ((const kfam_family *)f)->identity;
}

static kfamrt_catalog kfam_gen_catalog = {
    sizeof(kfamrt_catalog),
    @FORMAT_MAJOR@,
    @FORMAT_MINOR@,
    {@STATUS@},
    @GENERATOR@,
    @NAME_LITERAL@,
    &kfam_gen_description[0][0],
    KFAM_GEN_DESCRIPTION_LEN,
    "@SHA256@",
    (uint32_t)(sizeof kfam_gen_record_sizes / sizeof kfam_gen_record_sizes[0]),
    kfam_gen_record_sizes,
    kfam_gen_table,
    kfam_gen_family,
    kfam_gen_profile,
    kfam_gen_receipt,
    kfam_gen_torch_schema,
    kfam_gen_record_name,
    kfam_gen_record_identity,
    NULL,
    sizeof kfam_gen_description / KFAMRT_DESCRIPTION_STRIDE,
};

/* Every function kfam.h declares: one call of the runtime with this
 * catalog's descriptor. */
@FUNCTIONS@
