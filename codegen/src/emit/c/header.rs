//! `kfam.h` itself: what every translation unit that includes it reads.
//! ABI constants, the vocabularies, the record structs, the runtime
//! library's declarations and the tables' `extern` declarations; its size
//! does not grow with the number of families.

use std::collections::HashMap;

use super::out::Out;
use super::prefix::Prefix;
use super::vocab::emit_vocabularies;
use crate::ir::Ir;
use crate::record::{c_fields, table_records, CForm, Layout, Record, CALL_RECORDS};

/// The table data, beside the header (which includes it by this file name).
pub const DATA_PATH: &str = "include/kfam/kfam_tables.h";

fn emit_record(w: &mut Out, r: &'static Record) {
    let CForm::Struct { c: name, union, .. } = r.c else {
        unreachable!("{} is a C struct", r.name)
    };
    let keyword = if union { "union" } else { "struct" };
    w.doc(r.doc);
    w.record(name);
    w.w.open(format_args!("typedef {keyword} {name} {{"));
    for fld in c_fields(r) {
        w.doc(&fld.doc);
        let sep = if fld.ty.ends_with('*') { "" } else { " " };
        match fld.array {
            Some(n) => w.line(format_args!("{}{sep}{}[{n}];", fld.ty, fld.name)),
            None => w.line(format_args!("{}{sep}{};", fld.ty, fld.name)),
        }
    }
    w.w.close(format_args!("}} {name};"));
    w.blank();
}

/// Every record's size and field offsets as [`Layout`] computes them from
/// the field lists the structs were printed from, asserted at compile time:
/// a compiler (or a hand edit) that lays a struct out otherwise fails the
/// build. C11 and C++ have a static assertion; C99 gets a typedef of an
/// array whose size is -1 when the condition fails.
fn layout_asserts(w: &mut Out, extents: &HashMap<&'static str, usize>) {
    let extent = |name: &str| match extents.get(name) {
        Some(&n) => n,
        None => panic!("no value for the array extent `{name}`"),
    };
    w.line("/* ------------------------------------------------------------------------");
    w.line(" * Record layouts: the size of every struct and the offset of every field,");
    w.line(" * computed by the generator from the field lists it printed the structs");
    w.line(" * from (the Rust types of the runtime library assert the same numbers).");
    w.line(" * Checked on 64-bit targets (8-byte pointers, naturally aligned fields).");
    w.line(" * --------------------------------------------------------------------- */");
    w.blank();
    for name in ["KFAM_GEN_STATIC_ASSERT", "KFAM_GEN_SIZE", "KFAM_GEN_OFFSET"] {
        w.record(name);
    }
    w.line("#if defined(__cplusplus)");
    w.line(
        "#define KFAM_GEN_STATIC_ASSERT(cond, name) static_assert(cond, \"kfam layout: \" #name)",
    );
    w.line("#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L");
    w.line(
        "#define KFAM_GEN_STATIC_ASSERT(cond, name) _Static_assert(cond, \"kfam layout: \" #name)",
    );
    w.line("#else");
    w.line("#define KFAM_GEN_STATIC_ASSERT(cond, name) typedef char kfam_gen_layout_##name[(cond) ? 1 : -1]");
    w.line("#endif");
    w.line("#define KFAM_GEN_SIZE(type, size) KFAM_GEN_STATIC_ASSERT(sizeof(type) == (size), type##__size)");
    w.line("#define KFAM_GEN_OFFSET(type, field, offset) \\");
    w.line("    KFAM_GEN_STATIC_ASSERT(offsetof(type, field) == (offset), type##__##field)");
    w.line("#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu");
    for r in table_records().chain(CALL_RECORDS.iter().copied()) {
        let fields = c_fields(r);
        let layout = Layout::of(r, &fields, &extent);
        let name = r.c_name().expect("a C struct");
        w.line(format_args!("KFAM_GEN_SIZE({name}, {}u);", layout.size));
        for (f, at) in fields.iter().zip(&layout.offsets) {
            w.line(format_args!("KFAM_GEN_OFFSET({name}, {}, {at}u);", f.name));
        }
    }
    w.line("#endif");
    w.blank();
}

/// The body of `kfam.h` (after its prologue) into `w`, with kfam's prefix
/// but for the include guard and the string literals that name C names or
/// files, which `prefix` spells (the rest is renamed by [`Prefix::apply`]).
pub(super) fn header(w: &mut Out, ir: &Ir, extent: &HashMap<&'static str, usize>, prefix: &Prefix) {
    let lowered_max = extent["KFAM_MAX_LOWERED_RANK"];
    let guard = format!("{p}_{p}_H", p = prefix.upper);
    w.line(format_args!("#ifndef {guard}"));
    w.line(format_args!("#define {guard}"));
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
    w.doc("The catalog's name (`[catalog] name`): what kfam_check_catalog names.");
    let name = w.string(&ir.catalog.name);
    w.define("KFAM_CATALOG_NAME", &name);
    w.doc(
        "The digest of the catalog's content: kfam_check_catalog compares it with the library's.",
    );
    let digest = w.string(&crate::ir::catalog_digest(ir));
    w.define("KFAM_CATALOG_DIGEST", &digest);
    w.doc("The digest of the approved families (names, revisions, identities): what the library pairs a program with.");
    let families = w.string(&crate::ir::families_digest(&ir.families));
    w.define("KFAM_CATALOG_FAMILIES", &families);
    w.doc("The newest approval among the families (approved.lock): a library accepts a program whose families of approval up to this are its own.");
    w.define(
        "KFAM_CATALOG_APPROVAL",
        format!(
            "{}u",
            ir.families.iter().map(|f| f.approval).max().unwrap_or(0)
        ),
    );
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
    w.define("KFAM_OPERAND_COUNT", extent["KFAM_OPERAND_COUNT"]);
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
    for r in table_records() {
        emit_record(w, r);
    }

    // Function structs.
    w.line("/* ------------------------------------------------------------------------");
    w.line(" * Arguments and results of the runtime library's functions.");
    w.line(" * --------------------------------------------------------------------- */");
    w.blank();
    for r in CALL_RECORDS {
        emit_record(w, r);
    }
    layout_asserts(w, extent);

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

    super::functions::declare(w);
    w.blank();
    pairing(w, ir);

    declare_tables(w, ir, prefix);

    w.line("#ifdef __cplusplus");
    w.line("} /* extern \"C\" */");
    w.line("#endif");
    w.blank();
    w.line(format_args!("#endif /* {guard} */"));
}

/// The tables' declarations, and the data file where this unit defines
/// them (docs/c.md, "Tables are defined once").
fn declare_tables(w: &mut Out, ir: &Ir, prefix: &Prefix) {
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
    w.line(format_args!(
        "#error \"kfam: define {P}_IMPLEMENTATION or {P}_PRIVATE_TABLES, not both\"",
        P = prefix.upper
    ));
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
    let data = prefix.file("_tables");
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

/// `kfam_gen_pairing()`, what a program compiled in from this header, and
/// `KFAM_CHECK_CATALOG`, which hands it to the library (docs/compatibility.md).
fn pairing(w: &mut Out, ir: &Ir) {
    use crate::vocab::{Status, BACKEND, EXECUTION_MODE, PLATFORM, RUNTIME};
    let status: Vec<String> = Status::ALL
        .iter()
        .map(|s| format!("KFAM_STATUS_{}", s.as_str().to_ascii_uppercase()))
        .collect();
    let sizes: Vec<String> = CALL_RECORDS
        .iter()
        .filter_map(|r| match r.c {
            CForm::Struct { c, .. } => Some(format!("sizeof({c})")),
            _ => None,
        })
        .collect();
    let mut targets = String::new();
    for (kind, vocab) in [
        ("platform", &PLATFORM),
        ("backend", &BACKEND),
        ("runtime", &RUNTIME),
        ("execution_mode", &EXECUTION_MODE),
    ] {
        for m in ir.members(vocab) {
            targets.push_str(&format!("{kind} {} {}\n", m.spelling, m.code));
        }
    }
    let targets = w.string(&targets);
    w.doc(
        "What this header compiled in (its catalog, ABI, status codes, limits, record sizes, \
         targets and families), for kfam_check_pairing.",
    );
    w.record("kfam_gen_pairing");
    w.line("static inline const kfam_pairing *kfam_gen_pairing(void)");
    w.line("{");
    w.line(format_args!(
        "    static const int32_t status[{}] = {{{}}};",
        status.len(),
        status.join(", ")
    ));
    w.line(format_args!(
        "    static const uint32_t sizes[{}] = {{{}}};",
        sizes.len(),
        sizes.join(", ")
    ));
    w.line("    static const kfam_pairing pairing = {");
    w.line("        sizeof(kfam_pairing), KFAM_ABI_MAJOR, KFAM_ABI_MINOR,");
    w.line("        KFAM_CATALOG_NAME, KFAM_CATALOG_DIGEST, KFAM_CATALOG_FAMILIES, KFAM_CATALOG_APPROVAL,");
    w.line("        KFAM_MAX_TENSOR_ARGS, KFAM_MAX_SCALAR_ARGS, KFAM_MAX_RANK, KFAM_MAX_PREPARED,");
    w.line(format_args!(
        "        {}, status, {}, sizes,",
        status.len(),
        sizes.len()
    ));
    w.line(format_args!("        {targets}}};"));
    w.line("    return &pairing;");
    w.line("}");
    w.blank();
    w.doc(
        "Whether the library pairs with this header: kfam_check_pairing of what the program \
         compiled in. Call it once, before anything else of the library.",
    );
    w.record("KFAM_CHECK_CATALOG");
    w.line("#define KFAM_CHECK_CATALOG(buf, cap, needed) \\");
    w.line("    kfam_check_pairing(kfam_gen_pairing(), (buf), (cap), (needed))");
    w.blank();
}
