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

/**
 * The library's own tables and ABI version: compare (*out)->abi_major with
 * KFAM_ABI_MAJOR before using anything else of the library.
 * Returns KFAM_STATUS_OK, or KFAM_STATUS_INVALID_ARGUMENT when out is NULL.
 */
KFAM_API int32_t kfam_library_table(const kfam_table **out);

/**
 * Whether the library serves the catalog of the header the caller was
 * compiled with: pass KFAM_CATALOG_NAME and KFAM_CATALOG_DIGEST. A program
 * calls it once, before anything else of the library. Writes a message
 * into buf (at most cap bytes, NUL-terminated; buf may be NULL when cap is
 * 0) and its full length into *needed (when not NULL): when they differ it
 * names both catalogs, their versions' digests and what to rebuild.
 * Returns KFAM_STATUS_OK when the digests are equal, or
 * KFAM_STATUS_PREPARED_INCOMPATIBLE; KFAM_STATUS_INVALID_ARGUMENT for a
 * NULL or non-UTF-8 name or digest, or a NULL buf with a nonzero cap.
 */
KFAM_API int32_t kfam_check_catalog(const char *name, const char *digest, char *buf, size_t cap,
                                    size_t *needed);

/**
 * Whether the library pairs with the header the caller was compiled with,
 * from what the header compiled in (kfam_gen_pairing(); call it through
 * KFAM_CHECK_CATALOG(buf, cap, needed), once, before anything else of the
 * library). It pairs when the catalog, the ABI major, the status codes,
 * the limits and the record sizes are the library's, every target of the
 * header is the library's with its code, and the library's families of
 * the header's approval (KFAM_CATALOG_APPROVAL) and older are the
 * header's: a library whose catalog only added families and targets pairs
 * with a program built against an earlier header. Otherwise the message
 * names the first difference (see docs/compatibility.md). buf, cap and
 * needed as for kfam_check_catalog.
 * Returns KFAM_STATUS_OK, KFAM_STATUS_PREPARED_INCOMPATIBLE, or
 * KFAM_STATUS_INVALID_ARGUMENT for a NULL or too small pairing record or a
 * NULL buf with a nonzero cap.
 */
KFAM_API int32_t kfam_check_pairing(const kfam_pairing *header, char *buf, size_t cap,
                                    size_t *needed);

/**
 * Look up an approved family by name.
 * Returns KFAM_STATUS_OK and sets *out; KFAM_STATUS_NOT_FOUND (and sets *out
 * to NULL) when no approved family has this name; or
 * KFAM_STATUS_INVALID_ARGUMENT when name or out is NULL.
 */
KFAM_API int32_t kfam_find_family(const char *name, const kfam_family **out);

/**
 * Look up the (family, profile, receipt) that records an artifact digest.
 * Digests are unique across the manifest, so there is at most one match.
 * Returns KFAM_STATUS_OK; KFAM_STATUS_NOT_FOUND when no receipt records the
 * digest; or KFAM_STATUS_INVALID_ARGUMENT when sha256_hex is not 64
 * lowercase hex digits or out is NULL or too small.
 */
KFAM_API int32_t kfam_find_artifact(const char *sha256_hex, kfam_artifact_match *out);

/**
 * Is `family` supported on `platform` in `mode` under `contract`? Supported
 * means: the family declares this contract, one of its profiles has this
 * platform and execution mode, and a receipt qualifies that profile (the
 * first such profile in declaration order is reported). out->outcome says
 * why not otherwise.
 * Returns KFAM_STATUS_OK (KFAM_CAPABILITY_SUPPORTED); KFAM_STATUS_NOT_FOUND
 * (KFAM_CAPABILITY_UNKNOWN_FAMILY); KFAM_STATUS_UNSUPPORTED
 * (KFAM_CAPABILITY_CONTRACT_MISMATCH, _NO_PROFILE); KFAM_STATUS_NOT_APPROVED
 * (KFAM_CAPABILITY_NO_RECEIPT: declared there, but no artifact qualified); or
 * KFAM_STATUS_INVALID_ARGUMENT (KFAM_CAPABILITY_INVALID_CALL) for NULL
 * pointers, a too small out or an unknown enum code. Whenever out is usable
 * every field of it is written; 0 is never a decision.
 */
KFAM_API int32_t kfam_capability(const char *family, kfam_platform platform, kfam_execution_mode mode,
                                 kfam_contract contract, kfam_capability_result *out);

/**
 * Why kfam_capability decides as it does, in words: the same decision, with
 * a NUL-terminated English message written into `buf` (at most `cap` bytes,
 * truncated at a character boundary; `buf` may be NULL when `cap` is 0) and
 * its full length, without the NUL, into `*needed` (when not NULL), as
 * kfam_admit_message does. The message names the family, platform and mode
 * ("no_profile: family `silu_bf16` has no profile for platform `a5` in `sim`
 * mode"; "supported: family ... with profile `a2a3_sim`"). Returns the status
 * kfam_capability returns (KFAM_STATUS_INVALID_ARGUMENT for bad pointers or
 * codes). Call it after a refusal: kfam_capability builds no message.
 */
KFAM_API int32_t kfam_capability_message(const char *family, kfam_platform platform, kfam_execution_mode mode,
                                         kfam_contract contract, char *buf, size_t cap, size_t *needed);

/**
 * Admit a compiled artifact before any cache entry is built: `json` (`len`
 * bytes, need not be NUL-terminated) is its compiled_meta.json, `sha256_hex`
 * the digest of the artifact file. Strict JSON: exact types (a bool is not
 * an integer), duplicate and unknown keys refused, size bounded. Schema 1
 * and 2 reload as program only and never establish a kernel contract.
 * Params, lowered params, aliases, platform/backend, capabilities and the
 * digest must exact-match an approved family, profile and receipt.
 * Returns KFAM_STATUS_OK (KFAM_ADMISSION_ADMITTED; family, profile, receipt
 * and contract set); KFAM_STATUS_RECOMPILE_REQUIRED
 * (KFAM_ADMISSION_RECOMPILE_REQUIRED: legacy or incomplete kernel metadata);
 * KFAM_STATUS_NOT_FOUND (KFAM_ADMISSION_UNKNOWN_FAMILY);
 * KFAM_STATUS_NOT_APPROVED (KFAM_ADMISSION_NOT_APPROVED, out->field naming
 * the first difference);
 * KFAM_STATUS_PREPARED_INCOMPATIBLE (KFAM_ADMISSION_PREPARED_INCOMPATIBLE:
 * built against another native runtime revision than KFAM_ABI_REVISION);
 * KFAM_STATUS_INVALID_ARGUMENT (KFAM_ADMISSION_MALFORMED, a malformed
 * document or digest; KFAM_ADMISSION_INVALID_CALL, NULL pointers or a too
 * small out). Whenever out is usable every field of it is written; 0 is
 * never a decision.
 */
KFAM_API int32_t kfam_admit(const char *json, size_t len, const char *sha256_hex, kfam_admission *out);

/**
 * Why kfam_admit decides as it does, in words: the same decision, with a
 * NUL-terminated English message written into `buf` (at most `cap` bytes,
 * truncated at a character boundary; `buf` may be NULL when `cap` is 0) and
 * its full length, without the NUL, into `*needed` (when not NULL). The
 * message names the key that made the document malformed ("malformed:
 * `dtype` of `params` is not a known value") or the first field that is not
 * approved ("not_approved (`params` differs)"). Returns the status
 * kfam_admit returns (KFAM_STATUS_INVALID_ARGUMENT for bad pointers).
 * Call it after a refusal: kfam_admit itself builds no message.
 */
KFAM_API int32_t kfam_admit_message(const char *json, size_t len, const char *sha256_hex, char *buf, size_t cap, size_t *needed);

/**
 * Validate one call of `family` before launch (the CallFrame rules).
 * `tensors` holds the family's tensor arguments in tensor-pool order
 * (kfam_param.pool_index), `scalars` its scalar arguments in scalar-pool
 * order; each array is read with the stride of its first element's
 * struct_size (NULL with a count of 0 is allowed). `family` may be a record
 * of this header or of the library: it is resolved by name and must carry
 * the identity the library approved.
 * Rules: dtype and rank; static extents equal, KFAM_DIM_DYNAMIC takes the
 * current extent; contiguous row-major views in ND and NCHW (extents of 1
 * may carry any stride); NZ storage only for NZ parameters, at offset 0;
 * storage offsets kept and storage bounds checked for nonempty views; one
 * device for every tensor; identical byte spans and disjoint views of one
 * storage allowed, partial overlap involving a written tensor rejected;
 * integer scalars must fit their dtype, floats are never truncated to
 * integers, finite float overflow is rejected. Does not allocate.
 * Returns KFAM_STATUS_OK (err->rule KFAM_CALL_RULE_OK);
 * KFAM_STATUS_INVALID_ARGUMENT for a rejected call (err->rule and
 * err->param_index say which) or a malformed descriptor (err->rule
 * KFAM_CALL_RULE_INVALID_CALL);
 * KFAM_STATUS_NOT_FOUND when the library approves no family of that name;
 * KFAM_STATUS_PREPARED_INCOMPATIBLE when it does, with another identity (the
 * record was compiled from another revision of the manifest); on these two
 * err->rule is KFAM_CALL_RULE_INVALID_CALL too. That rule is 0, so an err
 * the library could not write (struct_size too small) reads as refused when
 * zeroed, never as KFAM_CALL_RULE_OK. `err` may be NULL.
 */
KFAM_API int32_t kfam_validate_call(const kfam_family *family, const kfam_tensor_arg *tensors, size_t n_tensors,
                                    const kfam_scalar_arg *scalars, size_t n_scalars, kfam_call_error *err);

/**
 * Why kfam_validate_call decides as it does, in words: the same arguments
 * and decision, with a NUL-terminated English message written into `buf` (at
 * most `cap` bytes, truncated at a character boundary; `buf` may be NULL
 * when `cap` is 0) and its full length, without the NUL, into `*needed`
 * (when not NULL), as kfam_admit_message does. A refused call's message says
 * what was expected and what was passed ("argument 1 (`rhs`): dtype: dtype
 * fp16, expected bf16"), in the words of the Rust runtime's
 * CallError::explain and the Python package's CallError; an accepted call's
 * is "ok". Returns the status kfam_validate_call returns. Call it after a
 * refusal: kfam_validate_call builds no message (and allocates nothing);
 * this function does.
 */
KFAM_API int32_t kfam_validate_call_message(const kfam_family *family, const kfam_tensor_arg *tensors,
                                            size_t n_tensors, const kfam_scalar_arg *scalars, size_t n_scalars,
                                            char *buf, size_t cap, size_t *needed);

/**
 * The torch dispatcher schema string of a family (kfam_family.torch_schema:
 * the same string as the Python package's), library-owned, NUL-terminated.
 * Returns KFAM_STATUS_OK; KFAM_STATUS_NOT_FOUND for an unknown family;
 * KFAM_STATUS_UNSUPPORTED when the family offers no torch binding
 * (kfam_family.torch is 0 or torch_schema is NULL); or
 * KFAM_STATUS_INVALID_ARGUMENT for NULL pointers. *out is NULL unless
 * KFAM_STATUS_OK.
 */
KFAM_API int32_t kfam_torch_schema(const char *family, const char **out);

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

/**
 * The embedding runtime's launch entry, called from the thread that called
 * kfam_context_launch, with the validated arguments (valid for the call) and
 * the caller's stream handle. Its return value is returned unchanged.
 */
typedef int32_t (*kfam_launch_fn)(void *user, uint64_t callable, uint64_t generation,
                                  const kfam_tensor_arg *tensors, size_t n_tensors,
                                  const kfam_scalar_arg *scalars, size_t n_scalars, uint64_t stream);

/**
 * A fresh context in *out, holding at most KFAM_MAX_PREPARED prepared
 * callables (the library's limit, kfam_table.max_prepared).
 * KFAM_STATUS_INVALID_ARGUMENT when out is NULL.
 */
KFAM_API int32_t kfam_context_new(kfam_context **out);

/**
 * kfam_context_new with options. KFAM_STATUS_INVALID_ARGUMENT (and nothing
 * allocated) when options or out is NULL or options->struct_size is below
 * the size of this first layout.
 */
KFAM_API int32_t kfam_context_new_with(const kfam_context_options *options, kfam_context **out);

/**
 * Latch platform, execution mode and contract (kfam_platform,
 * kfam_execution_mode, kfam_contract codes) and the launcher. generation 0
 * takes the next number of a process-wide counter starting at 1 (see
 * kfam_context_init_generation for a generation of the caller's).
 * KFAM_STATUS_INVALID_STATE when already initialised or closed, or for a
 * program contract; KFAM_STATUS_UNSUPPORTED when no approved kernel profile
 * runs on that platform and mode; KFAM_STATUS_INVALID_ARGUMENT for NULL ctx
 * or launch or an unknown code.
 */
KFAM_API int32_t kfam_context_init(kfam_context *ctx, int32_t platform, int32_t execution_mode,
                                   int32_t contract, uint64_t generation, kfam_launch_fn launch,
                                   void *user);

/**
 * kfam_context_init with the caller's own generation number instead of the
 * process-wide counter's: generation 0 is reserved and refused with
 * KFAM_STATUS_INVALID_ARGUMENT, before any state changes.
 */
KFAM_API int32_t kfam_context_init_generation(kfam_context *ctx, int32_t platform, int32_t execution_mode,
                                              int32_t contract, uint64_t generation, kfam_launch_fn launch,
                                              void *user);

/**
 * The generation latched by init in *out. KFAM_STATUS_INVALID_STATE before
 * init or after close; KFAM_STATUS_INVALID_ARGUMENT when ctx or out is NULL.
 * *out is written only on KFAM_STATUS_OK.
 */
KFAM_API int32_t kfam_context_generation(kfam_context *ctx, uint64_t *out);

/** The capability status of family for the latched identity. */
KFAM_API int32_t kfam_context_supported(kfam_context *ctx, const char *family);

/**
 * Admit compiled_meta (len bytes) for the artifact sha256 and check its
 * capability; *callable is its id (the same id for the same artifact).
 * KFAM_STATUS_INVALID_STATE past the context's limit of prepared callables.
 */
KFAM_API int32_t kfam_context_prepare(kfam_context *ctx, const char *compiled_meta, size_t len,
                                      const char *sha256, uint64_t *callable);

/** Validate a call of callable and hand it to the launcher with stream. */
KFAM_API int32_t kfam_context_launch(kfam_context *ctx, uint64_t callable,
                                     const kfam_tensor_arg *tensors, size_t n_tensors,
                                     const kfam_scalar_arg *scalars, size_t n_scalars,
                                     uint64_t stream);

/** Close the context (idempotent). */
KFAM_API int32_t kfam_context_close(kfam_context *ctx);

/** Free a context from kfam_context_new (closing it). */
KFAM_API int32_t kfam_context_free(kfam_context *ctx);
