/* ------------------------------------------------------------------------
 * The catalog's own library (static or shared). These are
 * declarations only: link the library to call them. A header-only consumer
 * uses the tables above and never references these names.
 *
 * Conventions (see docs/c.md):
 *  - every function returns a kfam_status code as int32_t; KFAM_STATUS_OK is 0;
 *  - strings are NUL-terminated UTF-8; digests are 64 lowercase hex digits;
 *  - the caller zeroes every in/out struct and sets its struct_size to
 *    sizeof(struct); the library reads and writes only fields that fit in
 *    struct_size and fails with KFAM_STATUS_INVALID_ARGUMENT when
 *    struct_size is below the size of the ABI 1.0 layout;
 *  - records returned by the library (kfam_family, ...) live in the
 *    library's own tables, for the life of the process; they may come from a
 *    newer ABI minor: index their arrays with KFAM_ELEMENT and test fields
 *    added after 1.0 with KFAM_HAS_FIELD;
 *  - nothing allocates but the *_message functions, which put a decision
 *    into words after a refusal; every function is thread-safe (the tables
 *    are immutable).
 * --------------------------------------------------------------------- */

@LIBRARY@
/* ------------------------------------------------------------------------
 * The kernel context (docs/runtime.md): init latches platform, execution
 * mode and contract once; prepare admits an artifact and returns a callable
 * id; launch validates a call and hands it to the launcher registered at
 * init, returning the launcher's status unchanged; close is idempotent and
 * every other entry after it is KFAM_STATUS_INVALID_STATE. A refused entry
 * leaves the context as it was. Unlike the functions above, a context is
 * allocated (kfam_context_new) and must be freed (kfam_context_free); all
 * entries are thread-safe.
 * --------------------------------------------------------------------- */

/** A kernel context: opaque. */
typedef struct kfam_context kfam_context;

@LAUNCH_FN@

@CONTEXT@
