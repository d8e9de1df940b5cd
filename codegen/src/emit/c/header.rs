//! `kfam.h` itself: what every translation unit that includes it reads.
//! ABI constants, the vocabularies, the record structs, the runtime
//! library's declarations and the tables' `extern` declarations; its size
//! does not grow with the number of families.

use super::functions::{FUNCTIONS, FUNCTION_NAMES};
use super::layout::*;
use super::out::Out;
use super::vocab::emit_vocabularies;
use super::DATA_PATH;
use crate::ir::Ir;

fn emit_struct(w: &mut Out, name: &str, doc: &str, fields: &[Field]) {
    w.doc(doc);
    w.record(name);
    w.w.open(format_args!("typedef struct {name} {{"));
    for fld in fields {
        w.doc(fld.doc);
        let sep = if fld.ty.ends_with('*') { "" } else { " " };
        match fld.array {
            Some(n) => w.line(format_args!("{}{sep}{}[{n}];", fld.ty, fld.name)),
            None => w.line(format_args!("{}{sep}{};", fld.ty, fld.name)),
        }
    }
    w.w.close(format_args!("}} {name};"));
    w.blank();
}

/// The body of `kfam.h` (after its prologue) into `w`.
pub(super) fn header(w: &mut Out, ir: &Ir, lowered_max: usize) {
    w.line("#ifndef KFAM_KFAM_H");
    w.line("#define KFAM_KFAM_H");
    w.blank();
    w.line("#include <stddef.h>");
    w.line("#include <stdint.h>");
    w.blank();
    w.line("#ifdef __cplusplus");
    w.line("extern \"C\" {");
    w.line("#endif");
    w.blank();

    // ABI constants.
    w.line("/* ------------------------------------------------------------------------");
    w.line(" * ABI constants (manifest/abi.toml).");
    w.line(" * --------------------------------------------------------------------- */");
    w.blank();
    w.doc("Major version of this C ABI: a change breaks consumers; the runtime library refuses another major.");
    w.define("KFAM_ABI_MAJOR", ir.abi.major);
    w.doc("Minor version: fields and enum members only appended; older consumers keep working.");
    w.define("KFAM_ABI_MINOR", ir.abi.minor);
    w.doc("The native runtime commit every approved artifact is built against.");
    let rev = w.string(&ir.abi.revision);
    w.define("KFAM_ABI_REVISION", &rev);
    w.doc("Most tensor parameters of one family.");
    w.define("KFAM_MAX_TENSOR_ARGS", ir.abi.max_tensor_args);
    w.doc("Most scalar parameters of one family.");
    w.define("KFAM_MAX_SCALAR_ARGS", ir.abi.max_scalar_args);
    w.doc("Highest rank of a logical tensor shape (extent of kfam_param.shape).");
    w.define("KFAM_MAX_RANK", ir.abi.max_rank);
    w.doc(
        "Most callables one kernel context holds prepared (the default limit of kfam_context_new).",
    );
    w.define("KFAM_MAX_PREPARED", ir.abi.max_prepared);
    w.doc("Highest rank of a lowered shape (extent of kfam_param.lowered_shape; NZ lowers to rank 5).");
    w.define("KFAM_MAX_LOWERED_RANK", lowered_max);
    w.doc("Entries of kfam_families.");
    w.define("KFAM_FAMILY_COUNT", ir.families.len());
    w.doc("Entries of kfam_retired_families.");
    w.define("KFAM_RETIRED_COUNT", ir.retired.len());
    w.doc("A dynamic extent in a shape: the call supplies it.");
    w.define("KFAM_DIM_DYNAMIC", "(-1)");
    w.doc("Hex digits of a SHA-256 digest (identity and artifact digests), without the NUL.");
    w.define("KFAM_SHA256_HEX_LEN", "64");
    w.doc("Entries of kfam_family.operands.");
    w.define("KFAM_OPERAND_COUNT", "3");
    w.blank();

    w.line("/* Decorates the runtime library's functions; define it (e.g. to a dllimport");
    w.line(" * attribute) before including this header when your platform needs one. */");
    w.line("#ifndef KFAM_API");
    w.line("#define KFAM_API");
    w.line("#endif");
    w.blank();
    w.line("/* Keeps compilers quiet about tables a translation unit does not use. */");
    w.line("#if defined(__GNUC__) || defined(__clang__)");
    w.line("#define KFAM_GEN_MAYBE_UNUSED __attribute__((unused))");
    w.line("#else");
    w.line("#define KFAM_GEN_MAYBE_UNUSED");
    w.line("#endif");
    w.blank();

    emit_vocabularies(w, ir);

    // Table structs.
    w.line("/* ------------------------------------------------------------------------");
    w.line(" * Table records. Every struct starts with struct_size; fields are only ever");
    w.line(" * appended (ABI minor). Codes are int32_t, counts and indices uint32_t.");
    w.line(" * --------------------------------------------------------------------- */");
    w.blank();
    emit_struct(
        w,
        "kfam_param",
        "One parameter of a family's logical signature.",
        PARAM_FIELDS,
    );
    emit_struct(
        w,
        "kfam_binding",
        "Which parameter sits in which final-ABI launch slot.",
        BINDING_FIELDS,
    );
    emit_struct(
        w,
        "kfam_profile",
        "Where and how an artifact of the family runs, with its final-ABI bindings.",
        PROFILE_FIELDS,
    );
    emit_struct(
        w,
        "kfam_receipt",
        "One artifact, identified by its SHA-256, that qualified for the family on a profile.",
        RECEIPT_FIELDS,
    );
    emit_struct(
        w,
        "kfam_elementwise_unary",
        "Payload of KFAM_OPERATION_KIND_ELEMENTWISE_UNARY: out = op(input).",
        UNARY_FIELDS,
    );
    emit_struct(
        w,
        "kfam_reduce",
        "Payload of KFAM_OPERATION_KIND_REDUCE: out = op(input) over axes.",
        REDUCE_FIELDS,
    );
    emit_struct(
        w,
        "kfam_softmax",
        "Payload of KFAM_OPERATION_KIND_SOFTMAX: out = softmax(input) along axis.",
        SOFTMAX_FIELDS,
    );
    emit_struct(
        w,
        "kfam_norm",
        "Payload of KFAM_OPERATION_KIND_NORM: rms_norm or layer_norm along axis.",
        NORM_FIELDS,
    );
    emit_struct(
        w,
        "kfam_paged_attention_decode",
        "Payload of KFAM_OPERATION_KIND_PAGED_ATTENTION_DECODE: decode attention over a paged KV cache.",
        PAGED_ATTENTION_FIELDS,
    );
    emit_struct(
        w,
        "kfam_dim_use",
        "One extent that is a named symbol: axis `axis` of parameter `param`.",
        DIM_USE_FIELDS,
    );
    emit_struct(
        w,
        "kfam_symbol",
        "A named symbolic dimension and its [dims] constraints: kfam_validate_call\n\
         refuses a call whose extents of it differ (dim_mismatch) or break them (dim_range).",
        SYMBOL_FIELDS,
    );
    emit_struct(
        w,
        "kfam_family",
        "One approved kernel family revision.",
        FAMILY_FIELDS,
    );
    emit_struct(
        w,
        "kfam_retired",
        "A family that was approved and then retired (manifest/retired.toml): the\n\
         runtime library refuses its name and artifacts as retired (KFAM_STATUS_INVALID_STATE).",
        RETIRED_FIELDS,
    );
    emit_struct(
        w,
        "kfam_table",
        "The table header: ABI version, limits and every family.",
        TABLE_FIELDS,
    );

    // Function structs.
    w.line("/* ------------------------------------------------------------------------");
    w.line(" * Arguments and results of the runtime library's functions.");
    w.line(" * --------------------------------------------------------------------- */");
    w.blank();
    emit_struct(
        w,
        "kfam_artifact_match",
        "Result of kfam_find_artifact. Pointers are library-owned.",
        ARTIFACT_MATCH_FIELDS,
    );
    emit_struct(
        w,
        "kfam_capability_result",
        "Result of kfam_capability.",
        CAPABILITY_FIELDS,
    );
    emit_struct(
        w,
        "kfam_admission",
        "Result of kfam_admit.",
        ADMISSION_FIELDS,
    );
    emit_struct(
        w,
        "kfam_tensor_arg",
        "Descriptor of one tensor argument of a call, DLPack-like; no data is read\n\
         through it. Offsets and strides count elements (fp4: two per byte).",
        TENSOR_ARG_FIELDS,
    );
    w.doc("The value of a scalar argument; kfam_scalar_arg.kind names the member.");
    w.record("kfam_scalar_value");
    w.w.open("typedef union kfam_scalar_value {");
    w.doc("KFAM_SCALAR_VALUE_KIND_INT, and KFAM_SCALAR_VALUE_KIND_BOOL (0 false, 1 true).");
    w.line("int64_t i64;");
    w.doc("KFAM_SCALAR_VALUE_KIND_UINT.");
    w.line("uint64_t u64;");
    w.doc("KFAM_SCALAR_VALUE_KIND_FLOAT.");
    w.line("double f64;");
    w.w.close("} kfam_scalar_value;");
    w.blank();
    emit_struct(
        w,
        "kfam_scalar_arg",
        "Descriptor of one scalar argument of a call.",
        SCALAR_ARG_FIELDS,
    );
    emit_struct(
        w,
        "kfam_call_error",
        "Why kfam_validate_call rejected a call (the first problem found).",
        CALL_ERROR_FIELDS,
    );

    w.line("/* ------------------------------------------------------------------------");
    w.line(" * Struct evolution helpers.");
    w.line(" * --------------------------------------------------------------------- */");
    w.blank();
    w.doc(
        "Whether `ptr` (a `const type *`) carries `field`: its producer's struct_size covers it.\n\
         Test every field added after ABI 1.0 before reading it from a library record.",
    );
    w.record("KFAM_HAS_FIELD");
    w.line("#define KFAM_HAS_FIELD(type, ptr, field) \\");
    w.line("    ((size_t)(ptr)->struct_size >= offsetof(type, field) + sizeof(((const type *)0)->field))");
    w.doc(
        "Element `i` of an array of `type` records whose producer may have a larger struct:\n\
         the stride is the first element's struct_size, not the consumer's sizeof(type).",
    );
    w.record("KFAM_ELEMENT");
    w.line("#define KFAM_ELEMENT(type, base, i) \\");
    w.line("    ((const type *)(const void *)((const char *)(base) + (size_t)(i) * (size_t)(base)[0].struct_size))");
    w.blank();

    w.w.raw(FUNCTIONS);
    for name in FUNCTION_NAMES {
        w.record(name);
    }
    w.blank();

    declare_tables(w, ir);

    w.line("#ifdef __cplusplus");
    w.line("} /* extern \"C\" */");
    w.line("#endif");
    w.blank();
    w.line("#endif /* KFAM_KFAM_H */");
}

/// The tables' declarations, and the data file where this unit defines
/// them (docs/c.md, "Tables are defined once").
fn declare_tables(w: &mut Out, ir: &Ir) {
    w.line("/* ------------------------------------------------------------------------");
    w.line(" * The tables, declared here and defined once: by the one translation unit");
    w.line(" * of a program that defines KFAM_IMPLEMENTATION before including this");
    w.line(" * header (the data is in kfam_tables.h, which only that unit opens). A unit");
    w.line(" * that defines KFAM_PRIVATE_TABLES instead gets its own private copy");
    w.line(" * (internal linkage), as the runtime library does. Families are sorted by");
    w.line(" * name. kfam_gen_* names are private to the generator.");
    w.line(" * --------------------------------------------------------------------- */");
    w.blank();
    w.line("#if defined(KFAM_IMPLEMENTATION) && defined(KFAM_PRIVATE_TABLES)");
    w.line("#error \"kfam: define KFAM_IMPLEMENTATION or KFAM_PRIVATE_TABLES, not both\"");
    w.line("#endif");
    w.blank();
    w.line("#ifndef KFAM_PRIVATE_TABLES");
    w.doc("Every approved family, sorted by name; KFAM_FAMILY_COUNT entries.");
    w.record("kfam_families");
    w.line(format_args!(
        "extern const kfam_family kfam_families[{}];",
        ir.families.len().max(1)
    ));
    w.doc("Every retired family, sorted by name; KFAM_RETIRED_COUNT entries.");
    w.record("kfam_retired_families");
    w.line(format_args!(
        "extern const kfam_retired kfam_retired_families[{}];",
        ir.retired.len().max(1)
    ));
    w.doc("The table header of these tables (what kfam_library_table returns for the library's).");
    w.record("kfam_header_table");
    w.line("extern const kfam_table kfam_header_table;");
    w.line("#endif");
    w.blank();
    let data = DATA_PATH.rsplit('/').next().unwrap_or(DATA_PATH);
    w.line("#if defined(KFAM_IMPLEMENTATION) || defined(KFAM_PRIVATE_TABLES)");
    w.line("#ifdef KFAM_PRIVATE_TABLES");
    w.line("#define KFAM_GEN_LINKAGE static");
    w.line("#else");
    w.line("#define KFAM_GEN_LINKAGE");
    w.line("#endif");
    w.line(format_args!("#include \"{data}\""));
    w.line("#endif");
    w.blank();
}
