//! The vocabularies as C enums with explicit values, the status codes of
//! `abi.toml`, and a `kfam_<type>_name` function per enum.

use std::collections::HashMap;

use super::out::Out;
use crate::ir::Ir;
use crate::names::{shouty, vocab_snake};
use crate::record::VOCABULARIES;
use crate::vocab::Status;

/// `kfam_dtype`, `kfam_execution_mode`, `kfam_capability_outcome`.
pub(super) fn c_type(vocab_name: &str) -> String {
    crate::names::c_vocab_type(vocab_name)
}

/// `KFAM_DTYPE`: the prefix of a vocabulary's enumerators and macros.
fn enum_prefix(vocab_name: &str) -> String {
    // Every table row names several enumerators: the prefixes of the
    // vocabularies are computed once.
    static PREFIXES: std::sync::OnceLock<Vec<(&'static str, String)>> = std::sync::OnceLock::new();
    let known = PREFIXES.get_or_init(|| {
        VOCABULARIES
            .iter()
            .map(|c| c.name)
            .chain([Status::NAME, "Capability", "Admission", "CallRule"])
            .map(|n| (n, format!("KFAM_{}", shouty(&vocab_snake(n)))))
            .collect()
    });
    match known.iter().find(|(n, _)| *n == vocab_name) {
        Some((_, prefix)) => prefix.clone(),
        None => format!("KFAM_{}", shouty(&vocab_snake(vocab_name))),
    }
}

/// `KFAM_DTYPE_BF16`.
pub(super) fn enumerator(vocab_name: &str, member: &str) -> String {
    // Table rows name an enumerator of a manifest vocabulary in most fields:
    // those are spelled once.
    static KNOWN: std::sync::OnceLock<HashMap<(&'static str, &'static str), String>> =
        std::sync::OnceLock::new();
    let known = KNOWN.get_or_init(|| {
        let members = VOCABULARIES
            .iter()
            .flat_map(|c| c.members.iter().map(move |m| (c.name, m.spelling)));
        members
            .map(|(v, m)| ((v, m), spell_enumerator(v, m)))
            .collect()
    });
    match known.get(&(vocab_name, member)) {
        Some(spelled) => spelled.clone(),
        None => spell_enumerator(vocab_name, member),
    }
}

fn spell_enumerator(vocab_name: &str, member: &str) -> String {
    format!("{}_{}", enum_prefix(vocab_name), shouty(member))
}

/// Whether the codes are exactly 0..n-1, so `<PREFIX>_COUNT` bounds them.
fn is_dense(codes: impl IntoIterator<Item = i32>) -> bool {
    codes
        .into_iter()
        .enumerate()
        .all(|(i, c)| usize::try_from(c) == Ok(i))
}

fn emit_enum(w: &mut Out, name: &str, prefix: &str, doc: &str, members: &[(i32, String, &str)]) {
    w.doc(doc);
    w.record(name);
    w.w.open(format_args!("typedef enum {name} {{"));
    for (i, (value, ident, mdoc)) in members.iter().enumerate() {
        w.doc(mdoc);
        w.record(ident);
        let comma = if i + 1 < members.len() { "," } else { "" };
        w.line(format_args!("{ident} = {value}{comma}"));
    }
    w.w.close(format_args!("}} {name};"));
    if is_dense(members.iter().map(|m| m.0)) {
        let count = format!("{prefix}_COUNT");
        w.doc(&format!(
            "Members of {name}; their codes run from 0 to {count} - 1."
        ));
        w.define(&count, members.len());
    }
    w.blank();
}

/// `static inline const char *kfam_dtype_name(int32_t code)`: the manifest
/// spelling of a code, NULL for an unknown code.
fn emit_name_fn(w: &mut Out, type_name: &str, members: &[(i32, String, &str)], spellings: &[&str]) {
    w.doc(&format!(
        "The spelling of a {type_name} code, or NULL for an unknown code."
    ));
    let fn_name = format!("{type_name}_name");
    w.record(&fn_name);
    w.line(format_args!(
        "static inline const char *{fn_name}(int32_t code)"
    ));
    w.w.open("{");
    w.line("switch (code) {");
    for ((_, ident, _), spelling) in members.iter().zip(spellings) {
        let lit = w.string(spelling);
        w.line(format_args!("case {ident}: return {lit};"));
    }
    w.line("default: return NULL;");
    w.line("}");
    w.w.close("}");
    w.blank();
}

pub(super) fn emit_vocabularies(w: &mut Out, ir: &Ir) {
    w.line("/* ------------------------------------------------------------------------");
    w.line(" * Vocabularies: closed enums with stable codes. Codes are part of the ABI:");
    w.line(" * never reused or renumbered, new members are added at the end. C enums are");
    w.line(" * int-sized, which is not a fixed width, so every table and descriptor");
    w.line(" * stores codes as int32_t; the enum types name the codes, and the functions");
    w.line(" * that take them by value are guarded by the size check below.");
    w.line(" * <PREFIX>_COUNT exists where the codes run from 0 without gaps.");
    w.line(" * --------------------------------------------------------------------- */");
    w.blank();
    let mut types = Vec::new();
    for cat in VOCABULARIES {
        let ty = c_type(cat.name);
        let listed = ir.members(cat);
        let members: Vec<(i32, String, &str)> = listed
            .iter()
            .map(|m| (m.code, enumerator(cat.name, m.spelling), m.doc))
            .collect();
        emit_enum(w, &ty, &enum_prefix(cat.name), cat.doc, &members);
        let spellings: Vec<&str> = listed.iter().map(|m| m.spelling).collect();
        emit_name_fn(w, &ty, &members, &spellings);
        types.push(ty);
    }
    // Status codes: the values come from abi.toml, the names and docs from
    // the vocabulary.
    let status = Status::VOCABULARY;
    let status_ty = c_type(status.name);
    let status_doc = |s: Status| {
        status
            .members
            .iter()
            .find(|m| m.spelling == s.as_str())
            .map_or("", |m| m.doc)
    };
    let members: Vec<(i32, String, &str)> = ir
        .abi
        .status
        .iter()
        .map(|(s, value)| (*value, enumerator(status.name, s.as_str()), status_doc(*s)))
        .collect();
    let doc = format!(
        "{}\nEvery function of the runtime library returns one of these as int32_t.",
        status.doc.trim()
    );
    emit_enum(w, &status_ty, &enum_prefix(status.name), &doc, &members);
    let spellings: Vec<&str> = ir.abi.status.iter().map(|(s, _)| s.as_str()).collect();
    emit_name_fn(w, &status_ty, &members, &spellings);
    types.push(status_ty);

    w.comment("Compile-time check: every kfam enum is exactly as wide as int32_t (fails on -fshort-enums).");
    let cond = types
        .iter()
        .map(|t| format!("sizeof({t}) == sizeof(int32_t)"))
        .collect::<Vec<_>>()
        .join(" &&\n    ");
    w.line(format!(
        "typedef char kfam_gen_enums_are_int32[({cond}) ? 1 : -1];"
    ));
    w.blank();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{BindingKind, DType, EXECUTION_MODE};

    #[test]
    fn count_only_for_dense_codes() {
        assert!(is_dense([0, 1, 2]));
        assert!(!is_dense([0, 2, 29]));
        assert!(!is_dense([1, 2]));
        assert!(is_dense(Vec::<i32>::new()));
    }

    #[test]
    fn enumerator_names() {
        assert_eq!(c_type(DType::NAME), "kfam_dtype");
        assert_eq!(
            enumerator(DType::NAME, DType::Fp8e4m3fn.as_str()),
            "KFAM_DTYPE_FP8E4M3FN"
        );
        assert_eq!(
            enumerator(EXECUTION_MODE.name, "onboard"),
            "KFAM_EXECUTION_MODE_ONBOARD"
        );
        assert_eq!(
            enumerator(Status::NAME, "not_found"),
            "KFAM_STATUS_NOT_FOUND"
        );
        assert_eq!(c_type(BindingKind::NAME), "kfam_binding_kind");
        assert_eq!(c_type("Capability"), "kfam_capability_outcome");
        assert_eq!(
            enumerator("Capability", "no_receipt"),
            "KFAM_CAPABILITY_NO_RECEIPT"
        );
        assert_eq!(enumerator("CallRule", "dtype"), "KFAM_CALL_RULE_DTYPE");
    }
}
