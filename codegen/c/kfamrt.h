/*
 * kfamrt.h - the ABI of kfam's prebuilt runtime library (libkfamrt), which
 * a catalog's generated C unit (<prefix>_catalog.c) calls. A program never
 * includes it: it calls its catalog's functions (<prefix>_capability, ...),
 * which the unit defines as calls of these with the catalog's descriptor.
 * See docs/description.md.
 *
 * The runtime holds no catalog. Each function takes the descriptor of the
 * catalog it serves: the catalog's serialized description (the records
 * the runtime decides over, with its SHA-256), the header's status codes
 * and record sizes, and the accessors of the unit's C tables. The runtime
 * opens the description once, on the first call, and refuses it (every
 * function returns the catalog's PREPARED_INCOMPATIBLE status, and
 * <prefix>_check_catalog says why) when it cannot read it: another format,
 * a damaged or truncated description, record sizes or status codes that
 * are not the ones it was built with, C tables that disagree with it.
 *
 * Record pointers are passed as void pointers: the catalog's header types
 * them (<prefix>_capability_result, ...), with layouts kfam fixes.
 */
#ifndef KFAMRT_H
#define KFAMRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI of these functions and of kfamrt_catalog: the SONAME's number
 * (libkfamrt.so.1). */
#define KFAMRT_ABI 1

/* A description is held as its base64 text (RFC 4648, with padding) in
 * rows of a [rows][KFAMRT_DESCRIPTION_STRIDE] array, each a string literal
 * of KFAMRT_DESCRIPTION_ROW characters (the last one shorter): the longest
 * literal C99 requires a compiler to accept, and far faster to compile
 * than a list of numbers. KFAMRT_DESCRIPTION_TEXT(len) is the text of a
 * description of len bytes, KFAMRT_DESCRIPTION_ROWS(len) its rows: the
 * unit asserts at compile time that its array holds exactly those, and
 * hands the runtime the array's row count, which the runtime checks the
 * length against before it reads a byte. (A unit of format 1.4 or earlier
 * holds the bytes themselves, with octal escapes, and no row count.) */
#define KFAMRT_DESCRIPTION_ROW 4095
#define KFAMRT_DESCRIPTION_STRIDE 4096
#define KFAMRT_DESCRIPTION_TEXT(len) (((len) + 2u) / 3u * 4u)
#define KFAMRT_DESCRIPTION_ROWS(len) \
    ((KFAMRT_DESCRIPTION_TEXT(len) + (KFAMRT_DESCRIPTION_ROW - 1u)) / KFAMRT_DESCRIPTION_ROW)

/* Any function pointer, as the runtime stores the embedding runtime's
 * launcher (cast back to the catalog's launch type when called). */
typedef void (*kfamrt_fn)(void);

/*
 * One catalog, as its generated unit hands it to the runtime: a static
 * object of the unit (not const: the runtime keeps the opened catalog in
 * `opened`, which the unit initializes to NULL and never touches again).
 */
typedef struct kfamrt_catalog {
    uint32_t struct_size;          /* sizeof(kfamrt_catalog) as the unit compiled it */
    uint16_t format_major;         /* the description's format */
    uint16_t format_minor;
    int32_t status[9];             /* the header's status codes: ok, internal, unsupported,
                                      prepared_incompatible, invalid_state, invalid_argument,
                                      not_found, recompile_required, not_approved */
    const char *generator;         /* "kfam VERSION", the generator that wrote the unit */
    const char *name;              /* the catalog's name */
    const unsigned char *description; /* row 0 of the rows above */
    size_t description_len;        /* bytes of the description, not of its text */
    const char *description_sha256; /* 64 lowercase hex digits */
    uint32_t record_count;         /* entries of record_sizes */
    const uint32_t *record_sizes;  /* sizeof each C ABI record, in the header's order:
                                      artifact_match, capability_result, admission, tensor_arg,
                                      scalar_value, scalar_arg, call_error, context_options,
                                      pairing */
    /* The unit's C tables, by index in the description's order; NULL past the end. */
    const void *(*table)(void);
    const void *(*family)(size_t i);
    const void *(*profile)(size_t family, size_t i);
    const void *(*receipt)(size_t family, size_t i);
    const char *(*torch_schema)(size_t family);
    /* The name and identity of a caller's family record (of any copy of the tables). */
    const char *(*record_name)(const void *family);
    const char *(*record_identity)(const void *family);
    void *opened;                  /* the runtime's; NULL until the first call */
    /* Appended with description format 1.5 (struct_size tells a runtime
     * whether it is there): */
    size_t description_rows;       /* rows of the description's array, as sizeof counts them */
} kfamrt_catalog;

/* The layout libkfamrt was built with (64-bit targets): a unit compiled
 * otherwise does not compile. */
#if defined(UINTPTR_MAX) && UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
typedef char kfamrt_layout_size[sizeof(kfamrt_catalog) == 176 ? 1 : -1];
typedef char kfamrt_layout_status[offsetof(kfamrt_catalog, status) == 8 ? 1 : -1];
typedef char kfamrt_layout_generator[offsetof(kfamrt_catalog, generator) == 48 ? 1 : -1];
typedef char kfamrt_layout_record_count[offsetof(kfamrt_catalog, record_count) == 88 ? 1 : -1];
typedef char kfamrt_layout_table[offsetof(kfamrt_catalog, table) == 104 ? 1 : -1];
typedef char kfamrt_layout_opened[offsetof(kfamrt_catalog, opened) == 160 ? 1 : -1];
typedef char kfamrt_layout_rows[offsetof(kfamrt_catalog, description_rows) == 168 ? 1 : -1];
#endif

/* The runtime's version, "0.1.0". */
const char *kfamrt_version(void);

/* Every function of the catalog's header (<prefix>_capability, ...) as
 * the runtime exports it: the descriptor first, then the header's
 * arguments, their record types erased to void. */
@FUNCTIONS@

#ifdef __cplusplus
}
#endif

#endif /* KFAMRT_H */
