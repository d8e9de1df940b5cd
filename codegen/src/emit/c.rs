//! The C header `include/kfam/kfam.h`, for C99 and C++17 consumers.
//!
//! One self-contained header: ABI constants, every vocabulary as an enum with
//! explicit values, the status codes of `abi.toml`, the table structs, the
//! approved-family tables as `static const` data (header-only use, no link
//! step), per-family named constants, and the declarations of the runtime
//! library's C functions. The design is documented in `docs/c.md`.
//!
//! Free text (summaries, docs, evidence) is copied through [`c_string_literal`]
//! and [`c_comment_text`], which make any text safe inside a string literal or
//! a `/* */` comment. Every generated macro and enumerator name is recorded;
//! a name generated twice (e.g. family `abi` would make `KFAM_ABI_REVISION`
//! collide with the ABI constant) turns into an `#error` in the header, and
//! [`c_name_collisions`] reports it to Rust callers, so a collision fails
//! closed instead of silently shadowing a value.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{marker_line, needs_no_escape, GeneratedFile};
use crate::ir::{Family, Ir, Operation, Param, ScalarRef};
use crate::names::{shouty, vocab_snake};
use crate::vocab::{
    Backend, BinaryOp, BindingKind, Contract, DType, Direction, ExecutionMode, Layout, NormKind,
    OperationKind, ParamKind, Platform, ReduceOp, Runtime, Status, UnaryOp, CATALOGS,
};

/// Where the header goes, relative to the output directory.
pub const HEADER_PATH: &str = "include/kfam/kfam.h";

/// Rank of an NZ-lowered shape, `[prod(leading), C/c0, R/16, 16, c0]`.
const NZ_LOWERED_RANK: usize = 5;

/// ISO C99's minimum supported length of a string literal (5.2.4.1); longer
/// literals fail `-pedantic` (`-Woverlength-strings`).
const C99_MAX_STRING_BYTES: usize = 4095;

pub fn emit(ir: &Ir) -> Vec<GeneratedFile> {
    vec![GeneratedFile::new(HEADER_PATH, header(ir))]
}

/// The generated C macro and enumerator names that are defined more than
/// once for `ir` (empty for a usable header). The header itself turns each
/// into an `#error`; callers such as the checker can report them earlier.
pub fn c_name_collisions(ir: &Ir) -> Vec<String> {
    render(ir).1
}

fn header(ir: &Ir) -> String {
    render(ir).0
}

// ---------------------------------------------------------------------------
// Escaping

/// A C/C++ narrow string literal, quotes included, holding exactly the UTF-8
/// bytes of `text`. `"` and `\` are escaped, newline and tab use `\n` and
/// `\t`, a `?` that follows a `?` is written `\?` (no trigraph can form in
/// C99), and every other byte outside printable ASCII is a three-digit octal
/// escape (octal escapes stop after three digits, unlike `\x`, so the next
/// character can never be swallowed).
pub fn c_string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    if needs_no_escape(text) && !text.contains("??") {
        out.push_str(text);
        out.push('"');
        return out;
    }
    let mut prev = 0u8;
    for b in text.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'?' if prev == b'?' => out.push_str("\\?"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => {
                let _ = write!(out, "\\{b:03o}");
            }
        }
        prev = b;
    }
    out.push('"');
    out
}

/// Free text made safe inside a `/* ... */` comment, line breaks kept as
/// `\n`: `*/` and `/*` are split by a space (the text can neither end the
/// comment nor trip `-Wcomment`), `??` becomes `? ?` (no trigraph, in
/// particular no `??/` line splice), a backslash that would end a line (and
/// splice it with the next) is spelled `(backslash)`, trailing whitespace is
/// trimmed, and any character outside printable ASCII is written `<U+XXXX>`.
pub fn c_comment_text(text: &str) -> String {
    let mut lines = Vec::new();
    for raw in text.split('\n') {
        let mut line = String::with_capacity(raw.len());
        for c in raw.chars() {
            let last = line.chars().last();
            match c {
                ' '..='~' => {
                    let split = matches!(
                        (last, c),
                        (Some('*'), '/') | (Some('/'), '*') | (Some('?'), '?')
                    );
                    if split {
                        line.push(' ');
                    }
                    line.push(c);
                }
                '\t' => line.push(' '),
                _ => {
                    let _ = write!(line, "<U+{:04X}>", c as u32);
                }
            }
        }
        let mut line = line.trim_end().to_owned();
        if line.ends_with('\\') {
            line.pop();
            line.push_str("(backslash)");
        }
        lines.push(line);
    }
    lines.join("\n")
}

// ---------------------------------------------------------------------------
// A small source writer

struct W {
    out: String,
    /// Where each `#define`d macro name sits in `out`: a large manifest
    /// defines hundreds of thousands, so they are counted once at the end
    /// (`collisions`) instead of each being copied into a map as it is written.
    defined: Vec<std::ops::Range<usize>>,
    /// Every other name defined (types, enumerators, tables).
    named: Vec<String>,
    /// String literals over the C99 length limit (emitter-side guard; the
    /// checker's text limits keep real manifests below it).
    overlong: Vec<String>,
}

impl W {
    fn new() -> Self {
        W {
            out: String::new(),
            defined: Vec::new(),
            named: Vec::new(),
            overlong: Vec::new(),
        }
    }

    fn line(&mut self, s: &str) {
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn blank(&mut self) {
        if !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
    }

    /// A `/** */` doc comment at `indent` spaces; nothing when `text` is blank.
    fn doc(&mut self, indent: usize, text: &str) {
        let clean = c_comment_text(text);
        let lines: Vec<&str> = clean.lines().collect();
        let first = lines.iter().position(|l| !l.trim().is_empty());
        let last = lines.iter().rposition(|l| !l.trim().is_empty());
        let (Some(first), Some(last)) = (first, last) else {
            return;
        };
        let lines = &lines[first..=last];
        let pad = " ".repeat(indent);
        if let [one] = lines {
            self.line(&format!("{pad}/** {} */", one.trim()));
        } else {
            self.line(&format!("{pad}/**"));
            for l in lines {
                if l.is_empty() {
                    self.line(&format!("{pad} *"));
                } else {
                    self.line(&format!("{pad} * {l}"));
                }
            }
            self.line(&format!("{pad} */"));
        }
    }

    /// A plain `/* */` comment line (generator-written text).
    fn comment(&mut self, indent: usize, text: &str) {
        let pad = " ".repeat(indent);
        self.line(&format!(
            "{pad}/* {} */",
            c_comment_text(text).replace('\n', " ")
        ));
    }

    fn record(&mut self, name: &str) {
        self.named.push(name.to_owned());
    }

    /// `#define name value`; both are written straight into the output.
    fn define(&mut self, name: impl std::fmt::Display, value: impl std::fmt::Display) {
        self.out.push_str("#define ");
        let start = self.out.len();
        let _ = write!(self.out, "{name}");
        self.defined.push(start..self.out.len());
        let _ = writeln!(self.out, " {value}");
    }

    /// Every name defined more than once, sorted. By sorting the names'
    /// hashes and comparing only names whose hashes are equal: a hash map of
    /// the hundreds of thousands of names a large manifest defines was
    /// slower, each insertion a cache miss.
    fn collisions(&self) -> Vec<String> {
        use std::hash::BuildHasher as _;
        let defined = self.defined.iter().map(|r| &self.out[r.clone()]);
        let names: Vec<&str> = defined
            .chain(self.named.iter().map(String::as_str))
            .collect();
        let state = std::hash::RandomState::new();
        let mut hashed: Vec<(u64, usize)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (state.hash_one(n), i))
            .collect();
        hashed.sort_unstable();
        let mut twice = std::collections::BTreeSet::new();
        for run in hashed
            .chunk_by(|a, b| a.0 == b.0)
            .filter(|run| run.len() > 1)
        {
            let mut same: Vec<&str> = run.iter().map(|&(_, i)| names[i]).collect();
            same.sort_unstable();
            for pair in same.windows(2).filter(|pair| pair[0] == pair[1]) {
                twice.insert(pair[0].to_owned());
            }
        }
        twice.into_iter().collect()
    }

    /// A string literal for `text`, checked against the C99 length limit.
    fn string(&mut self, text: &str) -> String {
        if text.len() > C99_MAX_STRING_BYTES {
            self.overlong.push(text.chars().take(40).collect());
        }
        c_string_literal(text)
    }

    fn opt_string(&mut self, text: Option<&str>) -> String {
        text.map_or_else(|| "NULL".to_owned(), |t| self.string(t))
    }
}

// ---------------------------------------------------------------------------
// Struct descriptions: one field list drives both the typedef and every
// positional initializer, so they cannot disagree (C++17 has no designated
// initializers, and `-Wextra` wants every field initialized).

struct Field {
    /// The C type before the name (`const char *`, `uint32_t`).
    ty: &'static str,
    name: &'static str,
    /// Array extent (a macro name or number), for array fields.
    array: Option<&'static str>,
    doc: &'static str,
}

const fn f(ty: &'static str, name: &'static str, doc: &'static str) -> Field {
    Field {
        ty,
        name,
        array: None,
        doc,
    }
}

const fn fa(ty: &'static str, name: &'static str, array: &'static str, doc: &'static str) -> Field {
    Field {
        ty,
        name,
        array: Some(array),
        doc,
    }
}

const STRUCT_SIZE_DOC: &str =
    "`sizeof` of this struct as the producer compiled it (see KFAM_HAS_FIELD).";

const PARAM_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("uint32_t", "index", "Position in the complete signature (scalars included)."),
    f("const char *", "name", "Declared name (snake_case identifier)."),
    f("const char *", "doc", "Declared documentation, or NULL."),
    f("int32_t", "kind", "A kfam_param_kind code."),
    f("int32_t", "direction", "A kfam_direction code (always KFAM_DIRECTION_IN for scalars)."),
    f("int32_t", "dtype", "A kfam_dtype code."),
    f("int32_t", "layout", "A kfam_layout code."),
    f("uint32_t", "pool_index", "Index among the family's tensors (tensors) or scalars (scalars)."),
    f("uint32_t", "rank", "Number of used entries of `shape`; 0 for scalars."),
    f("uint32_t", "lowered_rank", "Number of used entries of `lowered_shape`; 0 for scalars."),
    fa("int64_t", "shape", "KFAM_MAX_RANK", "Logical shape; KFAM_DIM_DYNAMIC is a dynamic extent; unused entries are 0."),
    fa(
        "int64_t",
        "lowered_shape",
        "KFAM_MAX_LOWERED_RANK",
        "Assembly (lowered) shape: NZ blocked, fp4 packed, otherwise the logical shape; unused entries are 0.",
    ),
];

const BINDING_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f(
        "uint32_t",
        "param",
        "Signature index of the bound parameter (kfam_family.params).",
    ),
    f(
        "uint32_t",
        "slot",
        "Launch slot (argument position or buffer-object index).",
    ),
    f("int32_t", "kind", "A kfam_binding_kind code."),
];

const PROFILE_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("uint32_t", "index", "Position in kfam_family.profiles."),
    f(
        "const char *",
        "name",
        "Declared name (snake_case identifier).",
    ),
    f("int32_t", "platform", "A kfam_platform code."),
    f("int32_t", "backend", "A kfam_backend code."),
    f("int32_t", "runtime", "A kfam_runtime code."),
    f("int32_t", "execution_mode", "A kfam_execution_mode code."),
    f("uint32_t", "binding_count", "Entries of `bindings`."),
    f(
        "const kfam_binding *",
        "bindings",
        "Final-ABI bindings, sorted by slot; NULL when binding_count is 0.",
    ),
];

const RECEIPT_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f(
        "uint32_t",
        "profile",
        "Index of the qualified profile in kfam_family.profiles.",
    ),
    f("const char *", "codec", "Wire-format id of the artifact."),
    f(
        "const char *",
        "artifact",
        "Artifact path, relative to the artifact root, `/`-separated.",
    ),
    f(
        "const char *",
        "sha256",
        "SHA-256 of the artifact: 64 lowercase hex digits.",
    ),
    f(
        "const char *",
        "evidence_date",
        "Qualification date, YYYY-MM-DD.",
    ),
    f(
        "const char *",
        "evidence_hardware",
        "Hardware the artifact qualified on.",
    ),
    f(
        "const char *",
        "evidence_note",
        "Free-text note on the qualification, or NULL.",
    ),
];

const FAMILY_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("uint16_t", "abi_major", "KFAM_ABI_MAJOR of the producer of this record."),
    f("uint16_t", "abi_minor", "KFAM_ABI_MINOR of the producer of this record."),
    f("uint32_t", "index", "Position in kfam_families (families are sorted by name)."),
    f("uint32_t", "revision", "Approved revision of the family contract."),
    f("const char *", "name", "Family name (snake_case identifier, unique)."),
    f("const char *", "identity", "Identity digest of this revision: 64 lowercase hex digits (as in approved.lock)."),
    f("const char *", "summary", "One-paragraph description (not part of the identity)."),
    f(
        "const char *",
        "torch_schema",
        "The torch dispatcher schema (`kfam::NAME(...) -> ...`), or NULL when the signature has no torch spelling (a uint64 scalar).",
    ),
    f("int32_t", "contract", "A kfam_contract code."),
    f("int32_t", "torch", "1 when the family offers a torch dispatcher binding (manifest `torch = true`), else 0."),
    f("int32_t", "operation_kind", "A kfam_operation_kind code."),
    f("int32_t", "binary_op", "A kfam_binary_op code for KFAM_OPERATION_KIND_ELEMENTWISE_BINARY, else -1."),
    fa(
        "uint32_t",
        "operands",
        "KFAM_OPERAND_COUNT",
        "Signature indices of the operands: lhs, rhs, out (elementwise_binary) or a, b, c (matmul); 0 for other kinds (see their payload).",
    ),
    f("int32_t", "accumulate", "Matmul: 1 when c += a @ b, 0 when c = a @ b; 0 otherwise."),
    f("int64_t", "m", "Matmul M (KFAM_DIM_DYNAMIC when dynamic); 0 otherwise."),
    f("int64_t", "k", "Matmul K; 0 otherwise."),
    f("int64_t", "n", "Matmul N; 0 otherwise."),
    f("uint32_t", "param_count", "Entries of `params`."),
    f("uint32_t", "tensor_count", "Tensor parameters among `params`."),
    f("uint32_t", "scalar_count", "Scalar parameters among `params`."),
    f("uint32_t", "return_count", "Entries of `returns`."),
    f("const kfam_param *", "params", "The ordered logical signature."),
    f(
        "const uint32_t *",
        "returns",
        "Return aliases: signature indices of out/inout tensors, repeats kept; NULL when return_count is 0.",
    ),
    f("uint32_t", "profile_count", "Entries of `profiles`."),
    f("uint32_t", "receipt_count", "Entries of `receipts`."),
    f("const kfam_profile *", "profiles", "Artifact profiles, in declaration order; NULL when profile_count is 0."),
    f("const kfam_receipt *", "receipts", "Qualification receipts, in declaration order; NULL when receipt_count is 0."),
    f("uint32_t", "symbol_count", "Entries of `symbols` (appended for named symbolic dimensions)."),
    f(
        "const kfam_symbol *",
        "symbols",
        "Named symbolic dimensions, in order of first use; NULL when symbol_count is 0.",
    ),
    // Appended in ABI 2.0: the payloads of the operation kinds after matmul.
    f("const kfam_elementwise_unary *", "elementwise_unary", "The payload of KFAM_OPERATION_KIND_ELEMENTWISE_UNARY, else NULL."),
    f("const kfam_reduce *", "reduce", "The payload of KFAM_OPERATION_KIND_REDUCE, else NULL."),
    f("const kfam_softmax *", "softmax", "The payload of KFAM_OPERATION_KIND_SOFTMAX, else NULL."),
    f("const kfam_norm *", "norm", "The payload of KFAM_OPERATION_KIND_NORM, else NULL."),
    f(
        "const kfam_paged_attention_decode *",
        "paged_attention_decode",
        "The payload of KFAM_OPERATION_KIND_PAGED_ATTENTION_DECODE, else NULL.",
    ),
    f(
        "const char *",
        "semantics",
        "KFAM_OPERATION_KIND_CUSTOM: what the fused kernel computes (kfam checked its signature only); else NULL.",
    ),
];

const DIM_USE_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f(
        "uint32_t",
        "param",
        "Signature index of the parameter (kfam_family.params).",
    ),
    f(
        "uint32_t",
        "tensor",
        "The parameter's index among the family's tensors (its argument).",
    ),
    f("uint32_t", "axis", "Axis of the parameter's logical shape."),
];

const SYMBOL_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f(
        "const char *",
        "name",
        "Symbol name (snake_case identifier).",
    ),
    f(
        "int64_t",
        "min",
        "Smallest accepted extent (0 when unconstrained).",
    ),
    f(
        "int64_t",
        "max",
        "Largest accepted extent (INT64_MAX when unbounded).",
    ),
    f(
        "int64_t",
        "multiple_of",
        "Accepted extents are multiples of this (1 when unconstrained).",
    ),
    f("uint32_t", "use_count", "Entries of `uses` (at least 1)."),
    f(
        "const kfam_dim_use *",
        "uses",
        "Every extent that is this symbol, in signature order: a call passes them equal.",
    ),
];

const UNARY_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("int32_t", "op", "A kfam_unary_op code."),
    f("uint32_t", "input", "Signature index of the input tensor."),
    f(
        "uint32_t",
        "out",
        "Signature index of the result (same shape; same dtype unless the op is cast).",
    ),
];

const REDUCE_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("int32_t", "op", "A kfam_reduce_op code."),
    f("uint32_t", "input", "Signature index of the input tensor."),
    f("uint32_t", "out", "Signature index of the result tensor."),
    f(
        "int32_t",
        "keepdim",
        "1 when reduced axes are kept with extent 1, 0 when they are dropped.",
    ),
    f("uint32_t", "axis_count", "Entries of `axes` (at least 1)."),
    f(
        "const uint32_t *",
        "axes",
        "The reduced axes of the input, sorted and distinct.",
    ),
];

const SOFTMAX_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("uint32_t", "input", "Signature index of the input tensor."),
    f(
        "uint32_t",
        "out",
        "Signature index of the result (same dtype and shape).",
    ),
    f("uint32_t", "axis", "The normalized axis of the input."),
];

const NORM_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("int32_t", "op", "A kfam_norm_kind code."),
    f("uint32_t", "input", "Signature index of the input tensor."),
    f(
        "uint32_t",
        "weight",
        "Signature index of the weight tensor [extent of input along axis].",
    ),
    f(
        "int32_t",
        "bias",
        "Signature index of the bias tensor (layer_norm), or -1 (rms_norm).",
    ),
    f(
        "uint32_t",
        "out",
        "Signature index of the result (same dtype and shape as input).",
    ),
    f("uint32_t", "axis", "The normalized axis of the input."),
    f(
        "double",
        "eps",
        "The constant epsilon when eps_param is -1, else 0.",
    ),
    f(
        "int32_t",
        "eps_param",
        "Signature index of the float scalar carrying epsilon, or -1 for the constant.",
    ),
];

const PAGED_ATTENTION_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f(
        "uint32_t",
        "query",
        "Signature index of the query [B, H, D].",
    ),
    f(
        "uint32_t",
        "key_cache",
        "Signature index of the key cache [num_blocks, block_size, H_kv, D].",
    ),
    f(
        "uint32_t",
        "value_cache",
        "Signature index of the value cache (shaped like key_cache).",
    ),
    f(
        "uint32_t",
        "block_table",
        "Signature index of the int32 block table [B, max_blocks].",
    ),
    f(
        "uint32_t",
        "context_lens",
        "Signature index of the int32 context lengths [B].",
    ),
    f(
        "uint32_t",
        "out",
        "Signature index of the result [B, H, D].",
    ),
    f(
        "double",
        "scale",
        "The constant softmax scale when scale_param is -1, else 0.",
    ),
    f(
        "int32_t",
        "scale_param",
        "Signature index of the float scalar carrying the scale, or -1 for the constant.",
    ),
];

const RETIRED_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f("uint32_t", "revision", "The last approved revision."),
    f(
        "const char *",
        "name",
        "The retired family's name, reserved from now on.",
    ),
    f(
        "const char *",
        "identity",
        "Identity digest of the last approved revision (64 lowercase hex digits).",
    ),
    f("const char *", "reason", "Why the family was retired."),
    f("uint32_t", "receipt_count", "Entries of `receipts`."),
    f(
        "const char *const *",
        "receipts",
        "Every artifact digest ever approved for the family, sorted; NULL when receipt_count is 0.",
    ),
];

const TABLE_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", STRUCT_SIZE_DOC),
    f(
        "uint16_t",
        "abi_major",
        "KFAM_ABI_MAJOR of the producer of the tables.",
    ),
    f(
        "uint16_t",
        "abi_minor",
        "KFAM_ABI_MINOR of the producer of the tables.",
    ),
    f(
        "const char *",
        "abi_revision",
        "KFAM_ABI_REVISION: the native runtime commit the artifacts target.",
    ),
    f("uint32_t", "max_tensor_args", "KFAM_MAX_TENSOR_ARGS."),
    f("uint32_t", "max_scalar_args", "KFAM_MAX_SCALAR_ARGS."),
    f("uint32_t", "max_rank", "KFAM_MAX_RANK."),
    f("uint32_t", "family_count", "Entries of `families`."),
    f(
        "const kfam_family *",
        "families",
        "Every approved family, sorted by name.",
    ),
];

const ARTIFACT_MATCH_FIELDS: &[Field] = &[
    f(
        "uint32_t",
        "struct_size",
        "In: sizeof(kfam_artifact_match) as the caller compiled it.",
    ),
    f(
        "uint32_t",
        "family_index",
        "Out: index of the family in the library's table.",
    ),
    f(
        "uint32_t",
        "profile_index",
        "Out: index of the profile in family->profiles.",
    ),
    f(
        "uint32_t",
        "receipt_index",
        "Out: index of the receipt in family->receipts.",
    ),
    f(
        "const kfam_family *",
        "family",
        "Out: the family (library-owned, valid for the life of the process).",
    ),
    f(
        "const kfam_profile *",
        "profile",
        "Out: the profile the receipt qualifies.",
    ),
    f(
        "const kfam_receipt *",
        "receipt",
        "Out: the receipt that records the digest.",
    ),
];

const CAPABILITY_FIELDS: &[Field] = &[
    f(
        "uint32_t",
        "struct_size",
        "In: sizeof(kfam_capability_result) as the caller compiled it.",
    ),
    f(
        "int32_t",
        "outcome",
        "Out: a kfam_capability_outcome code; KFAM_CAPABILITY_SUPPORTED when supported, KFAM_CAPABILITY_INVALID_CALL (0) when the call itself was refused.",
    ),
    f(
        "uint32_t",
        "family_index",
        "Out: index of the family in the library's table (when the family is known).",
    ),
    f(
        "uint32_t",
        "profile_index",
        "Out: index of the matching profile (when supported).",
    ),
    f(
        "uint32_t",
        "receipt_index",
        "Out: index of the matching receipt (when supported).",
    ),
    f(
        "const kfam_family *",
        "family",
        "Out: the family, or NULL when unknown.",
    ),
    f(
        "const kfam_profile *",
        "profile",
        "Out: the matching profile, or NULL.",
    ),
    f(
        "const kfam_receipt *",
        "receipt",
        "Out: the receipt that qualifies the profile, or NULL.",
    ),
];

const ADMISSION_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", "In: sizeof(kfam_admission) as the caller compiled it."),
    f("int32_t", "outcome", "Out: a kfam_admission_outcome code; KFAM_ADMISSION_ADMITTED when admitted, KFAM_ADMISSION_INVALID_CALL (0) when the call itself was refused."),
    f("int32_t", "contract", "Out: kfam_contract the artifact may be loaded with (schema 1 and 2: always program); -1 when refused."),
    f("uint32_t", "family_index", "Out: index of the admitted family in the library's table."),
    f("uint32_t", "profile_index", "Out: index of the matching profile."),
    f("uint32_t", "receipt_index", "Out: index of the matching receipt."),
    f("const kfam_family *", "family", "Out: the admitted family, or NULL when refused."),
    f("const kfam_profile *", "profile", "Out: the matching profile, or NULL."),
    f("const kfam_receipt *", "receipt", "Out: the matching receipt, or NULL."),
    f(
        "const char *",
        "field",
        "Out: for KFAM_ADMISSION_NOT_APPROVED, the first field that differs (e.g. \"params\", \"artifact.sha256\"); else NULL. Library-owned.",
    ),
];

const TENSOR_ARG_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", "sizeof(kfam_tensor_arg) as the caller compiled it; equal in every element of an array."),
    f("int32_t", "dtype", "A kfam_dtype code."),
    f("int32_t", "format", "Physical storage format, a kfam_storage_format code (KFAM_STORAGE_FORMAT_ND for plain strided tensors)."),
    f("uint32_t", "rank", "Entries of `shape` and `strides`."),
    f("const int64_t *", "shape", "Logical extents of the view (what kfam_param.shape describes; for NZ too), `rank` entries."),
    f(
        "const int64_t *",
        "strides",
        "Strides in elements, `rank` entries; NULL means contiguous row-major. Ignored for KFAM_STORAGE_FORMAT_FRACTAL_NZ.",
    ),
    f("int64_t", "storage_offset", "Offset of the view's first element into its storage, in elements (0 for NZ)."),
    f("uint64_t", "storage_bytes", "Capacity of the underlying storage in bytes."),
    f(
        "uint64_t",
        "storage",
        "Identity of the underlying storage (its base address, host or device): views of one storage share it.",
    ),
    f("int32_t", "device_index", "Device ordinal of the storage; every tensor of a call is on the same one."),
];

const SCALAR_ARG_FIELDS: &[Field] = &[
    f(
        "uint32_t",
        "struct_size",
        "sizeof(kfam_scalar_arg) as the caller compiled it; equal in every element of an array.",
    ),
    f(
        "int32_t",
        "kind",
        "A kfam_scalar_value_kind code: the caller's host type, which names the member of `value`.",
    ),
    f(
        "kfam_scalar_value",
        "value",
        "The value, in the member named by `kind`.",
    ),
];

const CALL_ERROR_FIELDS: &[Field] = &[
    f("uint32_t", "struct_size", "In: sizeof(kfam_call_error) as the caller compiled it."),
    f(
        "int32_t",
        "rule",
        "Out: the kfam_call_rule the call broke (KFAM_CALL_RULE_OK when valid), or -1 when a descriptor itself is malformed (NULL pointer, bad struct_size, unknown code).",
    ),
    f("int32_t", "param_index", "Out: signature index of the parameter concerned, or -1 (argument counts)."),
    f(
        "int32_t",
        "symbol_index",
        "Out (appended; written when struct_size covers it): for dim_mismatch and dim_range, the named symbol (an index into kfam_family.symbols), otherwise -1.",
    ),
    f(
        "int32_t",
        "other_param_index",
        "Out (appended; written when struct_size covers it): for dim_mismatch, the parameter whose extent the symbol took first, otherwise -1.",
    ),
];

fn emit_struct(w: &mut W, name: &str, doc: &str, fields: &[Field]) {
    w.doc(0, doc);
    w.record(name);
    w.line(&format!("typedef struct {name} {{"));
    for fld in fields {
        w.doc(4, fld.doc);
        let sep = if fld.ty.ends_with('*') { "" } else { " " };
        match fld.array {
            Some(n) => w.line(&format!("    {}{sep}{}[{n}];", fld.ty, fld.name)),
            None => w.line(&format!("    {}{sep}{};", fld.ty, fld.name)),
        }
    }
    w.line(&format!("}} {name};"));
    w.blank();
}

/// A positional initializer for `fields` from `(field, value)` pairs, one
/// field per line with its name in a comment. Panics on a missing or extra
/// field: an emitter bug, caught by the tests.
fn initializer(indent: usize, fields: &[Field], values: &[(&str, String)]) -> String {
    assert_eq!(
        fields.len(),
        values.len(),
        "initializer and field list disagree"
    );
    // Pushed piece by piece rather than through `write!`: a large manifest
    // has millions of these lines, and the formatting machinery per line was
    // most of the C emitter's time.
    let pad = &" ".repeat(indent);
    let mut s = String::with_capacity(values.iter().map(|(n, v)| n.len() + v.len() + 16).sum());
    s.push_str(pad);
    s.push_str("{\n");
    for (i, fld) in fields.iter().enumerate() {
        let value = values
            .iter()
            .find(|(n, _)| *n == fld.name)
            .map(|(_, v)| v)
            .unwrap_or_else(|| panic!("no value for field `{}`", fld.name));
        let comma = if i + 1 < fields.len() { "," } else { "" };
        for part in [
            pad.as_str(),
            "    ",
            value,
            comma,
            " /* ",
            fld.name,
            " */\n",
        ] {
            s.push_str(part);
        }
    }
    s.push_str(pad);
    s.push('}');
    s
}

/// `{a, b, c}`: a brace initializer of `values`.
fn braced<T: std::fmt::Display>(values: impl IntoIterator<Item = T>) -> String {
    let mut s = String::from("{");
    for (i, v) in values.into_iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{v}");
    }
    s.push('}');
    s
}

/// `values` padded with zeros to the array extent `len` (more values than
/// that stay, so the compiler rejects them instead of the emitter dropping
/// them). Written with itoa: two of these per parameter, millions of
/// integers at scale.
fn padded(values: &[i64], len: usize) -> String {
    let mut s = String::with_capacity(2 + 8 * len);
    let mut buf = itoa::Buffer::new();
    s.push('{');
    for i in 0..len.max(values.len()) {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(buf.format(values.get(i).copied().unwrap_or(0)));
    }
    s.push('}');
    s
}

// ---------------------------------------------------------------------------
// Vocabularies

/// C type names that differ from `kfam_<vocabulary>`, because that name is
/// taken by a function or struct of the C ABI (`kfam_capability()`,
/// `struct kfam_admission`). Their enumerators keep the vocabulary prefix
/// (`KFAM_CAPABILITY_SUPPORTED`).
const C_TYPE_RENAMES: &[(&str, &str)] = &[
    ("Capability", "kfam_capability_outcome"),
    ("Admission", "kfam_admission_outcome"),
];

/// `kfam_dtype`, `kfam_execution_mode`, `kfam_capability_outcome`.
fn c_type(vocab_name: &str) -> String {
    C_TYPE_RENAMES
        .iter()
        .find(|(v, _)| *v == vocab_name)
        .map_or_else(
            || format!("kfam_{}", vocab_snake(vocab_name)),
            |(_, c)| (*c).to_owned(),
        )
}

/// `KFAM_DTYPE`: the prefix of a vocabulary's enumerators and macros.
fn enum_prefix(vocab_name: &str) -> String {
    // Every table row names several enumerators: the prefixes of the
    // vocabularies are computed once.
    static PREFIXES: std::sync::OnceLock<Vec<(&'static str, String)>> = std::sync::OnceLock::new();
    let known = PREFIXES.get_or_init(|| {
        CATALOGS
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
fn enumerator(vocab_name: &str, member: &str) -> String {
    // Table rows name an enumerator of a manifest vocabulary in most fields:
    // those are spelled once.
    static KNOWN: std::sync::OnceLock<HashMap<(&'static str, &'static str), String>> =
        std::sync::OnceLock::new();
    let known = KNOWN.get_or_init(|| {
        let members = CATALOGS
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

fn emit_enum(w: &mut W, name: &str, prefix: &str, doc: &str, members: &[(i32, String, &str)]) {
    w.doc(0, doc);
    w.record(name);
    w.line(&format!("typedef enum {name} {{"));
    for (i, (value, ident, mdoc)) in members.iter().enumerate() {
        w.doc(4, mdoc);
        w.record(ident);
        let comma = if i + 1 < members.len() { "," } else { "" };
        w.line(&format!("    {ident} = {value}{comma}"));
    }
    w.line(&format!("}} {name};"));
    if is_dense(members.iter().map(|m| m.0)) {
        let count = format!("{prefix}_COUNT");
        w.doc(
            0,
            &format!("Members of {name}; their codes run from 0 to {count} - 1."),
        );
        w.define(&count, members.len());
    }
    w.blank();
}

/// `static inline const char *kfam_dtype_name(int32_t code)`: the manifest
/// spelling of a code, NULL for an unknown code.
fn emit_name_fn(w: &mut W, type_name: &str, members: &[(i32, String, &str)], spellings: &[&str]) {
    w.doc(
        0,
        &format!("The spelling of a {type_name} code, or NULL for an unknown code."),
    );
    let fn_name = format!("{type_name}_name");
    w.record(&fn_name);
    w.line(&format!(
        "static inline const char *{fn_name}(int32_t code)"
    ));
    w.line("{");
    w.line("    switch (code) {");
    for ((_, ident, _), spelling) in members.iter().zip(spellings) {
        let lit = w.string(spelling);
        w.line(&format!("    case {ident}: return {lit};"));
    }
    w.line("    default: return NULL;");
    w.line("    }");
    w.line("}");
    w.blank();
}

fn emit_vocabularies(w: &mut W, ir: &Ir) {
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
    for cat in CATALOGS {
        let ty = c_type(cat.name);
        let members: Vec<(i32, String, &str)> = cat
            .members
            .iter()
            .map(|m| (m.code, enumerator(cat.name, m.spelling), m.doc))
            .collect();
        emit_enum(w, &ty, &enum_prefix(cat.name), cat.doc, &members);
        let spellings: Vec<&str> = cat.members.iter().map(|m| m.spelling).collect();
        emit_name_fn(w, &ty, &members, &spellings);
        types.push(ty);
    }
    // Status codes: the values come from abi.toml, the names and docs from
    // the vocabulary.
    let status = Status::CATALOG;
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

    w.comment(0, "Compile-time check: every kfam enum is exactly as wide as int32_t (fails on -fshort-enums).");
    let cond = types
        .iter()
        .map(|t| format!("sizeof({t}) == sizeof(int32_t)"))
        .collect::<Vec<_>>()
        .join(" &&\n    ");
    w.line(&format!(
        "typedef char kfam_gen_enums_are_int32[({cond}) ? 1 : -1];"
    ));
    w.blank();
}

// ---------------------------------------------------------------------------
// Per-family constants and tables

fn fam_prefix(f: &Family) -> String {
    format!("KFAM_{}", shouty(&f.name))
}

fn emit_family_constants(w: &mut W, index: usize, f: &Family) {
    let p = fam_prefix(f);
    let _ = writeln!(w.out, "/* --- {} (revision {}) --- */", f.name, f.revision);
    w.doc(0, &f.summary);
    w.define(format_args!("{p}_INDEX"), index);
    let name = w.string(&f.name);
    w.define(format_args!("{p}_NAME"), name);
    w.define(format_args!("{p}_REVISION"), f.revision);
    let identity = w.string(&f.identity);
    w.define(format_args!("{p}_IDENTITY"), identity);
    w.define(format_args!("{p}_TENSOR_COUNT"), f.tensor_count);
    w.define(format_args!("{p}_SCALAR_COUNT"), f.scalar_count);
    let params: Vec<String> = f.params.iter().map(|param| shouty(&param.name)).collect();
    for (param, shout) in f.params.iter().zip(&params) {
        if let Some(doc) = &param.doc {
            w.doc(0, doc);
        }
        w.define(format_args!("{p}_PARAM_{shout}"), param.index);
    }
    for (pi, profile) in f.profiles.iter().enumerate() {
        let pp = shouty(&profile.name);
        w.define(format_args!("{p}_PROFILE_{pp}"), pi);
        for b in &profile.bindings {
            w.define(format_args!("{p}_{pp}_SLOT_{}", params[b.param]), b.slot);
        }
    }
    // A family-wide slot constant where every profile agrees.
    for (param, shout) in f.params.iter().zip(&params) {
        if let Some(slot) = f.common_slot(param.index) {
            w.define(format_args!("{p}_SLOT_{shout}"), slot);
        }
    }
    w.blank();
}

fn param_values(w: &mut W, p: &Param, extents: (usize, usize)) -> Vec<(&'static str, String)> {
    let name = w.string(&p.name);
    let doc = w.opt_string(p.doc.as_deref());
    let (rank, lowered_rank) = (p.shape.len(), p.lowered_shape.len());
    vec![
        ("struct_size", "sizeof(kfam_param)".to_owned()),
        ("index", p.index.to_string()),
        ("name", name),
        ("doc", doc),
        ("kind", enumerator(ParamKind::NAME, p.kind.as_str())),
        (
            "direction",
            enumerator(Direction::NAME, p.direction.as_str()),
        ),
        ("dtype", enumerator(DType::NAME, p.dtype.as_str())),
        ("layout", enumerator(Layout::NAME, p.layout.as_str())),
        ("pool_index", p.pool_index.to_string()),
        ("rank", rank.to_string()),
        ("lowered_rank", lowered_rank.to_string()),
        ("shape", padded(&p.shape, extents.0)),
        ("lowered_shape", padded(&p.lowered_shape, extents.1)),
    ]
}

fn emit_family_tables(
    w: &mut W,
    f: &Family,
    extents: (usize, usize),
) -> Vec<(&'static str, String)> {
    let n = &f.name;
    // Private array names: `kfam_gen_<what>_<family>`; `<what>` never contains
    // a family name, and bindings carry the profile index, so they are unique.
    let params_name = format!("kfam_gen_params_{n}");
    w.line(&format!(
        "static const kfam_param {params_name}[{}] KFAM_GEN_MAYBE_UNUSED = {{",
        f.params.len()
    ));
    let mut items = Vec::new();
    for p in &f.params {
        let values = param_values(w, p, extents);
        items.push(initializer(4, PARAM_FIELDS, &values));
    }
    push_items(w, &items);
    w.line("};");

    let returns = if f.returns.is_empty() {
        "NULL".to_owned()
    } else {
        let name = format!("kfam_gen_returns_{n}");
        let vals = braced(&f.returns);
        w.line(&format!(
            "static const uint32_t {name}[{}] KFAM_GEN_MAYBE_UNUSED = {vals};",
            f.returns.len()
        ));
        name
    };

    let mut profile_items = Vec::new();
    for (pi, pr) in f.profiles.iter().enumerate() {
        let bindings = if pr.bindings.is_empty() {
            "NULL".to_owned()
        } else {
            let name = format!("kfam_gen_bindings_{pi}_{n}");
            w.line(&format!(
                "static const kfam_binding {name}[{}] KFAM_GEN_MAYBE_UNUSED = {{",
                pr.bindings.len()
            ));
            let items: Vec<String> = pr
                .bindings
                .iter()
                .map(|b| {
                    let kind = enumerator(BindingKind::NAME, b.kind.as_str());
                    format!(
                        "    {{sizeof(kfam_binding), {}, {}, {kind}}}",
                        b.param, b.slot
                    )
                })
                .collect();
            // One line per binding, `, /* param */` after each but the last.
            let lines: Vec<String> = items
                .iter()
                .zip(&pr.bindings)
                .enumerate()
                .map(|(i, (item, b))| {
                    let comma = if i + 1 < items.len() { "," } else { "" };
                    format!(
                        "{item}{comma} /* {} */",
                        c_comment_text(&f.params[b.param].name)
                    )
                })
                .collect();
            w.line(&lines.join("\n"));
            w.line("};");
            name
        };
        let pname = w.string(&pr.name);
        profile_items.push(initializer(
            4,
            PROFILE_FIELDS,
            &[
                ("struct_size", "sizeof(kfam_profile)".to_owned()),
                ("index", pi.to_string()),
                ("name", pname),
                ("platform", enumerator(Platform::NAME, pr.platform.as_str())),
                ("backend", enumerator(Backend::NAME, pr.backend.as_str())),
                ("runtime", enumerator(Runtime::NAME, pr.runtime.as_str())),
                (
                    "execution_mode",
                    enumerator(ExecutionMode::NAME, pr.execution_mode.as_str()),
                ),
                ("binding_count", pr.bindings.len().to_string()),
                ("bindings", bindings),
            ],
        ));
    }
    let profiles = if profile_items.is_empty() {
        "NULL".to_owned()
    } else {
        let name = format!("kfam_gen_profiles_{n}");
        w.line(&format!(
            "static const kfam_profile {name}[{}] KFAM_GEN_MAYBE_UNUSED = {{",
            profile_items.len()
        ));
        push_items(w, &profile_items);
        w.line("};");
        name
    };

    let receipts = if f.receipts.is_empty() {
        "NULL".to_owned()
    } else {
        let name = format!("kfam_gen_receipts_{n}");
        let mut items = Vec::new();
        for r in &f.receipts {
            let values = vec![
                ("struct_size", "sizeof(kfam_receipt)".to_owned()),
                ("profile", r.profile.to_string()),
                ("codec", w.string(&r.codec)),
                ("artifact", w.string(&r.artifact)),
                ("sha256", w.string(&r.sha256)),
                ("evidence_date", w.string(&r.evidence.date)),
                ("evidence_hardware", w.string(&r.evidence.hardware)),
                ("evidence_note", w.opt_string(r.evidence.note.as_deref())),
            ];
            items.push(initializer(4, RECEIPT_FIELDS, &values));
        }
        w.line(&format!(
            "static const kfam_receipt {name}[{}] KFAM_GEN_MAYBE_UNUSED = {{",
            items.len()
        ));
        push_items(w, &items);
        w.line("};");
        name
    };
    w.blank();

    let (binary_op, operands, accumulate, m, k, nn) = match &f.operation {
        Operation::ElementwiseBinary { op, lhs, rhs, out } => (
            enumerator(BinaryOp::NAME, op.as_str()),
            [*lhs, *rhs, *out],
            false,
            0,
            0,
            0,
        ),
        Operation::Matmul {
            m,
            k,
            n,
            a,
            b,
            c,
            accumulate,
        } => (
            "-1".to_owned(),
            [*a, *b, *c],
            *accumulate,
            m.as_i64(),
            k.as_i64(),
            n.as_i64(),
        ),
        _ => ("-1".to_owned(), [0, 0, 0], false, 0, 0, 0),
    };
    let payloads = emit_operation_payload(w, f);
    let symbols = emit_symbol_table(w, f);
    let name = w.string(&f.name);
    let identity = w.string(&f.identity);
    let summary = w.string(&f.summary);
    let torch_schema = w.opt_string(f.torch_schema.as_deref());
    vec![
        ("struct_size", "sizeof(kfam_family)".to_owned()),
        ("abi_major", "KFAM_ABI_MAJOR".to_owned()),
        ("abi_minor", "KFAM_ABI_MINOR".to_owned()),
        ("index", format!("{}_INDEX", fam_prefix(f))),
        ("revision", f.revision.to_string()),
        ("name", name),
        ("identity", identity),
        ("summary", summary),
        ("contract", enumerator(Contract::NAME, f.contract.as_str())),
        ("torch", i32::from(f.torch).to_string()),
        ("torch_schema", torch_schema),
        (
            "operation_kind",
            enumerator(OperationKind::NAME, f.operation.kind().as_str()),
        ),
        ("binary_op", binary_op),
        ("operands", braced(operands)),
        ("accumulate", i32::from(accumulate).to_string()),
        ("m", m.to_string()),
        ("k", k.to_string()),
        ("n", nn.to_string()),
        ("param_count", f.params.len().to_string()),
        ("tensor_count", f.tensor_count.to_string()),
        ("scalar_count", f.scalar_count.to_string()),
        ("return_count", f.returns.len().to_string()),
        ("params", params_name),
        ("returns", returns),
        ("profile_count", f.profiles.len().to_string()),
        ("receipt_count", f.receipts.len().to_string()),
        ("profiles", profiles),
        ("receipts", receipts),
        ("elementwise_unary", payloads[0].clone()),
        ("reduce", payloads[1].clone()),
        ("softmax", payloads[2].clone()),
        ("norm", payloads[3].clone()),
        ("paged_attention_decode", payloads[4].clone()),
        ("semantics", payloads[5].clone()),
        ("symbol_count", f.symbols.len().to_string()),
        ("symbols", symbols),
    ]
}

/// `kfam_gen_symbols_<family>` and its use arrays; the array's name, or
/// `NULL` when the family has no symbols.
fn emit_symbol_table(w: &mut W, f: &Family) -> String {
    if f.symbols.is_empty() {
        return "NULL".to_owned();
    }
    let n = &f.name;
    let mut items = Vec::new();
    for (si, s) in f.symbols.iter().enumerate() {
        let uses = format!("kfam_gen_dim_uses_{si}_{n}");
        let entries: Vec<String> = s
            .uses
            .iter()
            .map(|u| {
                format!(
                    "    {{sizeof(kfam_dim_use), {}, {}, {}}}",
                    u.param, u.tensor, u.axis
                )
            })
            .collect();
        w.line(&format!(
            "static const kfam_dim_use {uses}[{}] KFAM_GEN_MAYBE_UNUSED = {{",
            entries.len()
        ));
        w.line(&entries.join(",\n"));
        w.line("};");
        let (min, max, multiple_of) = super::rust::symbol_bounds(s);
        let max = if max == i64::MAX {
            "INT64_MAX".to_owned()
        } else {
            max.to_string()
        };
        let values = [
            ("struct_size", "sizeof(kfam_symbol)".to_owned()),
            ("name", w.string(&s.name)),
            ("min", min.to_string()),
            ("max", max),
            ("multiple_of", multiple_of.to_string()),
            ("use_count", s.uses.len().to_string()),
            ("uses", uses),
        ];
        items.push(initializer(4, SYMBOL_FIELDS, &values));
    }
    let name = format!("kfam_gen_symbols_{n}");
    w.line(&format!(
        "static const kfam_symbol {name}[{}] KFAM_GEN_MAYBE_UNUSED = {{",
        items.len()
    ));
    push_items(w, &items);
    w.line("};");
    name
}

/// A scalar operand as C fields: `(constant, param)`, one of them unused
/// (`0` or `-1`). The constant in Rust's `Debug` spelling, which always has
/// a `.` or an exponent, so C reads it as a double.
fn scalar_fields(s: ScalarRef) -> (String, String) {
    match s {
        ScalarRef::Constant(v) => (format!("{v:?}"), "-1".to_owned()),
        ScalarRef::Param(i) => ("0.0".to_owned(), i.to_string()),
    }
}

/// The payload record of the family's operation (for the kinds after
/// matmul) and the values of the six payload fields of `kfam_family`, in
/// `FAMILY_FIELDS` order: a pointer for the kind's field, NULL elsewhere.
fn emit_operation_payload(w: &mut W, f: &Family) -> [String; 6] {
    let n = &f.name;
    let mut fields: [String; 6] = std::array::from_fn(|_| "NULL".to_owned());
    let mut object =
        |w: &mut W, slot: usize, ty: &str, list: &[Field], values: &[(&str, String)]| {
            let name = format!("kfam_gen_operation_{n}");
            w.record(&name);
            w.line(&format!(
                "static const {ty} {name} KFAM_GEN_MAYBE_UNUSED =\n{};",
                initializer(0, list, values)
            ));
            fields[slot] = format!("&{name}");
        };
    let size = |ty: &str| ("struct_size", format!("sizeof({ty})"));
    match &f.operation {
        Operation::ElementwiseBinary { .. } | Operation::Matmul { .. } => {}
        Operation::ElementwiseUnary { op, input, out } => object(
            w,
            0,
            "kfam_elementwise_unary",
            UNARY_FIELDS,
            &[
                size("kfam_elementwise_unary"),
                ("op", enumerator(UnaryOp::NAME, op.as_str())),
                ("input", input.to_string()),
                ("out", out.to_string()),
            ],
        ),
        Operation::Reduce {
            op,
            input,
            out,
            axes,
            keepdim,
        } => {
            let axes_name = format!("kfam_gen_axes_{n}");
            w.record(&axes_name);
            w.line(&format!(
                "static const uint32_t {axes_name}[{}] KFAM_GEN_MAYBE_UNUSED = {};",
                axes.len(),
                braced(axes)
            ));
            object(
                w,
                1,
                "kfam_reduce",
                REDUCE_FIELDS,
                &[
                    size("kfam_reduce"),
                    ("op", enumerator(ReduceOp::NAME, op.as_str())),
                    ("input", input.to_string()),
                    ("out", out.to_string()),
                    ("keepdim", i32::from(*keepdim).to_string()),
                    ("axis_count", axes.len().to_string()),
                    ("axes", axes_name),
                ],
            );
        }
        Operation::Softmax { input, out, axis } => object(
            w,
            2,
            "kfam_softmax",
            SOFTMAX_FIELDS,
            &[
                size("kfam_softmax"),
                ("input", input.to_string()),
                ("out", out.to_string()),
                ("axis", axis.to_string()),
            ],
        ),
        Operation::Norm {
            op,
            input,
            weight,
            bias,
            out,
            axis,
            eps,
        } => {
            let (eps, eps_param) = scalar_fields(*eps);
            object(
                w,
                3,
                "kfam_norm",
                NORM_FIELDS,
                &[
                    size("kfam_norm"),
                    ("op", enumerator(NormKind::NAME, op.as_str())),
                    ("input", input.to_string()),
                    ("weight", weight.to_string()),
                    ("bias", bias.map_or("-1".to_owned(), |b| b.to_string())),
                    ("out", out.to_string()),
                    ("axis", axis.to_string()),
                    ("eps", eps),
                    ("eps_param", eps_param),
                ],
            );
        }
        Operation::PagedAttentionDecode {
            query,
            key_cache,
            value_cache,
            block_table,
            context_lens,
            out,
            scale,
        } => {
            let (scale, scale_param) = scalar_fields(*scale);
            object(
                w,
                4,
                "kfam_paged_attention_decode",
                PAGED_ATTENTION_FIELDS,
                &[
                    size("kfam_paged_attention_decode"),
                    ("query", query.to_string()),
                    ("key_cache", key_cache.to_string()),
                    ("value_cache", value_cache.to_string()),
                    ("block_table", block_table.to_string()),
                    ("context_lens", context_lens.to_string()),
                    ("out", out.to_string()),
                    ("scale", scale),
                    ("scale_param", scale_param),
                ],
            );
        }
        Operation::Custom { semantics } => fields[5] = w.string(semantics),
    }
    fields
}

/// `kfam_retired_families` (sorted by name, as the IR) and the digest arrays
/// its records point to.
fn emit_retired_table(w: &mut W, ir: &Ir) {
    let mut items = Vec::new();
    for r in &ir.retired {
        let receipts = if r.receipts.is_empty() {
            "NULL".to_owned()
        } else {
            let name = format!("kfam_gen_retired_receipts_{}", r.name);
            w.record(&name);
            let digests: Vec<String> = r.receipts.iter().map(|d| w.string(d)).collect();
            w.line(&format!(
                "static const char *const {name}[{}] KFAM_GEN_MAYBE_UNUSED = {};",
                digests.len(),
                braced(digests)
            ));
            name
        };
        let values = [
            ("struct_size", "sizeof(kfam_retired)".to_owned()),
            ("revision", r.revision.to_string()),
            ("name", w.string(&r.name)),
            ("identity", w.string(&r.identity)),
            ("reason", w.string(&r.reason)),
            ("receipt_count", r.receipts.len().to_string()),
            ("receipts", receipts),
        ];
        items.push(initializer(4, RETIRED_FIELDS, &values));
    }
    emit_table(
        w,
        ("kfam_retired", "kfam_retired_families", RETIRED_FIELDS),
        items,
        "Every retired family, sorted by name; KFAM_RETIRED_COUNT entries.",
        "No retired family",
    );
}

/// A public table `static const <ty> <name>[]` of `items` (initializers of
/// `fields`); with none, one all-zero placeholder, since ISO C has no empty
/// arrays (`none` says what is missing).
fn emit_table(
    w: &mut W,
    (ty, name, fields): (&str, &str, &[Field]),
    mut items: Vec<String>,
    doc: &str,
    none: &str,
) {
    if items.is_empty() {
        w.comment(
            0,
            &format!("{none}: one all-zero placeholder, since ISO C has no empty arrays."),
        );
        items.push(initializer(4, fields, &zero_values(fields)));
    }
    w.doc(0, doc);
    w.record(name);
    w.line(&format!(
        "static const {ty} {name}[{}] KFAM_GEN_MAYBE_UNUSED = {{",
        items.len()
    ));
    push_items(w, &items);
    w.line("};");
    w.blank();
}

/// `items` one after another, `,` and a newline between them and a newline
/// after the last (what `line(&items.join(",\n"))` writes, without the
/// joined copy: the family table is tens of megabytes at scale).
fn push_items(w: &mut W, items: &[String]) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            w.out.push_str(",\n");
        }
        w.out.push_str(item);
    }
    w.out.push('\n');
}

/// The all-zero initializer of a struct (placeholder element of an empty table).
fn zero_values(fields: &[Field]) -> Vec<(&'static str, String)> {
    fields
        .iter()
        .map(|fld| {
            let v = if fld.array.is_some() {
                "{0}"
            } else if fld.ty.ends_with('*') {
                "NULL"
            } else {
                "0"
            };
            (fld.name, v.to_owned())
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Functions of the runtime library

/// The functions declared in [`FUNCTIONS`] (recorded for collision checks).
const FUNCTION_NAMES: &[&str] = &[
    "kfam_library_table",
    "kfam_find_family",
    "kfam_find_artifact",
    "kfam_capability",
    "kfam_admit",
    "kfam_admit_message",
    "kfam_validate_call",
    "kfam_torch_schema",
    "kfam_context",
    "kfam_launch_fn",
    "kfam_context_new",
    "kfam_context_init",
    "kfam_context_supported",
    "kfam_context_prepare",
    "kfam_context_launch",
    "kfam_context_close",
    "kfam_context_free",
];

const FUNCTIONS: &str = r#"/* ------------------------------------------------------------------------
 * The runtime library (kfam-runtime, static or shared). These are
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
 *  - nothing allocates; every function is thread-safe (the tables are
 *    immutable).
 * --------------------------------------------------------------------- */

/**
 * The library's own tables and ABI version: compare (*out)->abi_major with
 * KFAM_ABI_MAJOR before using anything else of the library.
 * Returns KFAM_STATUS_OK, or KFAM_STATUS_INVALID_ARGUMENT when out is NULL.
 */
KFAM_API int32_t kfam_library_table(const kfam_table **out);

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
 * err->param_index say which) or a malformed descriptor (err->rule -1);
 * KFAM_STATUS_NOT_FOUND when the library approves no family of that name;
 * KFAM_STATUS_PREPARED_INCOMPATIBLE when it does, with another identity (the
 * record was compiled from another revision of the manifest). `err` may be
 * NULL.
 */
KFAM_API int32_t kfam_validate_call(const kfam_family *family, const kfam_tensor_arg *tensors, size_t n_tensors,
                                    const kfam_scalar_arg *scalars, size_t n_scalars, kfam_call_error *err);

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

/** A fresh context in *out. KFAM_STATUS_INVALID_ARGUMENT when out is NULL. */
KFAM_API int32_t kfam_context_new(kfam_context **out);

/**
 * Latch platform, execution mode and contract (kfam_platform,
 * kfam_execution_mode, kfam_contract codes) and the launcher. generation 0
 * takes the next number of a process-wide counter starting at 1.
 * KFAM_STATUS_INVALID_STATE when already initialised or closed, or for a
 * program contract; KFAM_STATUS_UNSUPPORTED when no approved kernel profile
 * runs on that platform and mode; KFAM_STATUS_INVALID_ARGUMENT for NULL ctx
 * or launch or an unknown code.
 */
KFAM_API int32_t kfam_context_init(kfam_context *ctx, int32_t platform, int32_t execution_mode,
                                   int32_t contract, uint64_t generation, kfam_launch_fn launch,
                                   void *user);

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
"#;

// ---------------------------------------------------------------------------
// The header

fn render(ir: &Ir) -> (String, Vec<String>) {
    let mut w = W::new();
    // About 11 KiB of header per family with several params and profiles:
    // reserving it spares the copies of a growing buffer.
    w.out.reserve(32 * 1024 + ir.families.len() * 12 * 1024);
    let lowered_max = ir
        .families
        .iter()
        .flat_map(|f| f.params.iter().map(|p| p.lowered_shape.len()))
        .chain([ir.abi.max_rank as usize, NZ_LOWERED_RANK])
        .max()
        .unwrap_or(NZ_LOWERED_RANK);

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
    w.doc(0, "Major version of this C ABI: a change breaks consumers; the runtime library refuses another major.");
    w.define("KFAM_ABI_MAJOR", ir.abi.major);
    w.doc(
        0,
        "Minor version: fields and enum members only appended; older consumers keep working.",
    );
    w.define("KFAM_ABI_MINOR", ir.abi.minor);
    w.doc(
        0,
        "The native runtime commit every approved artifact is built against.",
    );
    let rev = w.string(&ir.abi.revision);
    w.define("KFAM_ABI_REVISION", &rev);
    w.doc(0, "Most tensor parameters of one family.");
    w.define("KFAM_MAX_TENSOR_ARGS", ir.abi.max_tensor_args);
    w.doc(0, "Most scalar parameters of one family.");
    w.define("KFAM_MAX_SCALAR_ARGS", ir.abi.max_scalar_args);
    w.doc(
        0,
        "Highest rank of a logical tensor shape (extent of kfam_param.shape).",
    );
    w.define("KFAM_MAX_RANK", ir.abi.max_rank);
    w.doc(0, "Highest rank of a lowered shape (extent of kfam_param.lowered_shape; NZ lowers to rank 5).");
    w.define("KFAM_MAX_LOWERED_RANK", lowered_max);
    w.doc(0, "Entries of kfam_families.");
    w.define("KFAM_FAMILY_COUNT", ir.families.len());
    w.doc(0, "Entries of kfam_retired_families.");
    w.define("KFAM_RETIRED_COUNT", ir.retired.len());
    w.doc(0, "A dynamic extent in a shape: the call supplies it.");
    w.define("KFAM_DIM_DYNAMIC", "(-1)");
    w.doc(
        0,
        "Hex digits of a SHA-256 digest (identity and artifact digests), without the NUL.",
    );
    w.define("KFAM_SHA256_HEX_LEN", "64");
    w.doc(0, "Entries of kfam_family.operands.");
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

    emit_vocabularies(&mut w, ir);

    // Table structs.
    w.line("/* ------------------------------------------------------------------------");
    w.line(" * Table records. Every struct starts with struct_size; fields are only ever");
    w.line(" * appended (ABI minor). Codes are int32_t, counts and indices uint32_t.");
    w.line(" * --------------------------------------------------------------------- */");
    w.blank();
    emit_struct(
        &mut w,
        "kfam_param",
        "One parameter of a family's logical signature.",
        PARAM_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_binding",
        "Which parameter sits in which final-ABI launch slot.",
        BINDING_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_profile",
        "Where and how an artifact of the family runs, with its final-ABI bindings.",
        PROFILE_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_receipt",
        "One artifact, identified by its SHA-256, that qualified for the family on a profile.",
        RECEIPT_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_elementwise_unary",
        "Payload of KFAM_OPERATION_KIND_ELEMENTWISE_UNARY: out = op(input).",
        UNARY_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_reduce",
        "Payload of KFAM_OPERATION_KIND_REDUCE: out = op(input) over axes.",
        REDUCE_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_softmax",
        "Payload of KFAM_OPERATION_KIND_SOFTMAX: out = softmax(input) along axis.",
        SOFTMAX_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_norm",
        "Payload of KFAM_OPERATION_KIND_NORM: rms_norm or layer_norm along axis.",
        NORM_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_paged_attention_decode",
        "Payload of KFAM_OPERATION_KIND_PAGED_ATTENTION_DECODE: decode attention over a paged KV cache.",
        PAGED_ATTENTION_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_dim_use",
        "One extent that is a named symbol: axis `axis` of parameter `param`.",
        DIM_USE_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_symbol",
        "A named symbolic dimension and its [dims] constraints: kfam_validate_call\n\
         refuses a call whose extents of it differ (dim_mismatch) or break them (dim_range).",
        SYMBOL_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_family",
        "One approved kernel family revision.",
        FAMILY_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_retired",
        "A family that was approved and then retired (manifest/retired.toml): the\n\
         runtime library refuses its name and artifacts as retired (KFAM_STATUS_INVALID_STATE).",
        RETIRED_FIELDS,
    );
    emit_struct(
        &mut w,
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
        &mut w,
        "kfam_artifact_match",
        "Result of kfam_find_artifact. Pointers are library-owned.",
        ARTIFACT_MATCH_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_capability_result",
        "Result of kfam_capability.",
        CAPABILITY_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_admission",
        "Result of kfam_admit.",
        ADMISSION_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_tensor_arg",
        "Descriptor of one tensor argument of a call, DLPack-like; no data is read\n\
         through it. Offsets and strides count elements (fp4: two per byte).",
        TENSOR_ARG_FIELDS,
    );
    w.doc(
        0,
        "The value of a scalar argument; kfam_scalar_arg.kind names the member.",
    );
    w.record("kfam_scalar_value");
    w.line("typedef union kfam_scalar_value {");
    w.doc(
        4,
        "KFAM_SCALAR_VALUE_KIND_INT, and KFAM_SCALAR_VALUE_KIND_BOOL (0 false, 1 true).",
    );
    w.line("    int64_t i64;");
    w.doc(4, "KFAM_SCALAR_VALUE_KIND_UINT.");
    w.line("    uint64_t u64;");
    w.doc(4, "KFAM_SCALAR_VALUE_KIND_FLOAT.");
    w.line("    double f64;");
    w.line("} kfam_scalar_value;");
    w.blank();
    emit_struct(
        &mut w,
        "kfam_scalar_arg",
        "Descriptor of one scalar argument of a call.",
        SCALAR_ARG_FIELDS,
    );
    emit_struct(
        &mut w,
        "kfam_call_error",
        "Why kfam_validate_call rejected a call (the first problem found).",
        CALL_ERROR_FIELDS,
    );

    w.line("/* ------------------------------------------------------------------------");
    w.line(" * Struct evolution helpers.");
    w.line(" * --------------------------------------------------------------------- */");
    w.blank();
    w.doc(
        0,
        "Whether `ptr` (a `const type *`) carries `field`: its producer's struct_size covers it.\n\
         Test every field added after ABI 1.0 before reading it from a library record.",
    );
    w.record("KFAM_HAS_FIELD");
    w.line("#define KFAM_HAS_FIELD(type, ptr, field) \\");
    w.line("    ((size_t)(ptr)->struct_size >= offsetof(type, field) + sizeof(((const type *)0)->field))");
    w.doc(
        0,
        "Element `i` of an array of `type` records whose producer may have a larger struct:\n\
         the stride is the first element's struct_size, not the consumer's sizeof(type).",
    );
    w.record("KFAM_ELEMENT");
    w.line("#define KFAM_ELEMENT(type, base, i) \\");
    w.line("    ((const type *)(const void *)((const char *)(base) + (size_t)(i) * (size_t)(base)[0].struct_size))");
    w.blank();

    w.out.push_str(FUNCTIONS);
    for name in FUNCTION_NAMES {
        w.record(name);
    }
    w.blank();

    // Per-family constants.
    w.line("/* ------------------------------------------------------------------------");
    w.line(" * Per-family constants: KFAM_<FAMILY>_INDEX (into kfam_families), _NAME,");
    w.line(" * _REVISION, _IDENTITY, _TENSOR_COUNT, _SCALAR_COUNT, _PARAM_<PARAM>");
    w.line(" * (signature index), _PROFILE_<PROFILE> (profile index),");
    w.line(" * _<PROFILE>_SLOT_<PARAM> (launch slot in that profile), and _SLOT_<PARAM>");
    w.line(" * where every profile of the family binds the parameter to the same slot.");
    w.line(" * --------------------------------------------------------------------- */");
    w.blank();
    for (i, f) in ir.families.iter().enumerate() {
        emit_family_constants(&mut w, i, f);
    }

    // Tables.
    w.line("/* ------------------------------------------------------------------------");
    w.line(" * The tables, as static const data: every translation unit that includes");
    w.line(" * this header gets its own private copy, so header-only use needs no link");
    w.line(" * step and no two translation units define the same symbol. Compare");
    w.line(" * records by name or index, not by address. Families are sorted by name.");
    w.line(" * kfam_gen_* names are private to the generator.");
    w.line(" * --------------------------------------------------------------------- */");
    w.blank();
    let mut family_items = Vec::new();
    for f in &ir.families {
        w.line(&format!("/* {} */", f.name));
        let values = emit_family_tables(&mut w, f, (ir.abi.max_rank as usize, lowered_max));
        family_items.push(initializer(4, FAMILY_FIELDS, &values));
    }
    emit_table(
        &mut w,
        ("kfam_family", "kfam_families", FAMILY_FIELDS),
        family_items,
        "Every approved family, sorted by name; KFAM_FAMILY_COUNT entries.",
        "No approved family",
    );
    emit_retired_table(&mut w, ir);
    w.doc(0, "The table header of this header's tables (what kfam_library_table returns for the library's).");
    let table = initializer(
        0,
        TABLE_FIELDS,
        &[
            ("struct_size", "sizeof(kfam_table)".to_owned()),
            ("abi_major", "KFAM_ABI_MAJOR".to_owned()),
            ("abi_minor", "KFAM_ABI_MINOR".to_owned()),
            ("abi_revision", "KFAM_ABI_REVISION".to_owned()),
            ("max_tensor_args", "KFAM_MAX_TENSOR_ARGS".to_owned()),
            ("max_scalar_args", "KFAM_MAX_SCALAR_ARGS".to_owned()),
            ("max_rank", "KFAM_MAX_RANK".to_owned()),
            ("family_count", "KFAM_FAMILY_COUNT".to_owned()),
            ("families", "kfam_families".to_owned()),
        ],
    );
    w.record("kfam_header_table");
    w.line(&format!(
        "static const kfam_table kfam_header_table KFAM_GEN_MAYBE_UNUSED = {table};"
    ));
    w.blank();

    w.line("#ifdef __cplusplus");
    w.line("} /* extern \"C\" */");
    w.line("#endif");
    w.blank();
    w.line("#endif /* KFAM_KFAM_H */");

    let collisions = w.collisions();
    // The prologue names what the body turned out to define twice, so it is
    // written last and moved in front (in place: at 10,000 families the body
    // is over 100 MB, too much to copy into a second buffer).
    let mut out = format!("/* {} */\n", marker_line());
    out.push_str(&file_doc());
    for name in &collisions {
        let _ = writeln!(
            out,
            "#error \"kfam: the generated C name {name} is defined twice; rename the family, profile or parameter it comes from\""
        );
    }
    for start in &w.overlong {
        let _ = writeln!(
            out,
            "#error {}",
            c_string_literal(&format!("kfam: text over {C99_MAX_STRING_BYTES} bytes (starting {start:?}) is not a C99 string"))
        );
    }
    if !collisions.is_empty() || !w.overlong.is_empty() {
        out.push('\n');
    }
    w.out.insert_str(0, &out);
    (w.out, collisions)
}

fn file_doc() -> String {
    "/*\n\
     \x20* kfam.h - the approved accelerator kernel families, for C99 and C++17.\n\
     \x20*\n\
     \x20* Header-only use: include it and read kfam_families / kfam_header_table and\n\
     \x20* the KFAM_<FAMILY>_* constants. With the runtime library (kfam-runtime)\n\
     \x20* linked, also call the kfam_* functions declared below. See docs/c.md.\n\
     \x20*/\n\n"
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literals_escape_hostile_text() {
        assert_eq!(c_string_literal("plain text"), "\"plain text\"");
        assert_eq!(c_string_literal("a \"q\" b"), r#""a \"q\" b""#);
        assert_eq!(c_string_literal(r"back\slash"), r#""back\\slash""#);
        assert_eq!(c_string_literal("two\nlines"), r#""two\nlines""#);
        assert_eq!(c_string_literal("end */ here"), "\"end */ here\"");
        // `??/` would be a trigraph for `\` in C99: the second `?` is escaped.
        assert_eq!(c_string_literal("what??/"), r#""what?\?/""#);
        assert_eq!(c_string_literal("???"), r#""?\?\?""#);
        // Non-ASCII: the UTF-8 bytes as three-digit octal escapes; a digit after
        // one is not swallowed.
        assert_eq!(c_string_literal("é1"), r#""\303\2511""#);
        assert_eq!(c_string_literal("\u{7}\r\t"), r#""\007\015\t""#);
        let hostile = "*/ \" \\ \n ??/ ??= \u{202E} é";
        let lit = c_string_literal(hostile);
        assert!(lit.is_ascii());
        assert!(!lit.contains("??"));
        assert!(!lit[1..lit.len() - 1]
            .replace("\\\\", "")
            .replace("\\\"", "")
            .contains('"'));
        assert!(!lit.contains('\n'));
    }

    #[test]
    fn comment_text_cannot_end_a_comment() {
        assert_eq!(c_comment_text("a */ b"), "a * / b");
        assert_eq!(c_comment_text("a /* b"), "a / * b");
        assert_eq!(c_comment_text("x??/"), "x? ?/");
        assert_eq!(c_comment_text("ends with \\"), "ends with (backslash)");
        assert_eq!(
            c_comment_text("ends with \\   \nnext"),
            "ends with (backslash)\nnext"
        );
        assert_eq!(c_comment_text("mid \\ ok"), "mid \\ ok");
        assert_eq!(c_comment_text("quote \" ok"), "quote \" ok");
        assert_eq!(
            c_comment_text("é\u{202E}\u{7}\ttab"),
            "<U+00E9><U+202E><U+0007> tab"
        );
        assert_eq!(c_comment_text("**/"), "** /");
        assert_eq!(c_comment_text("/*/"), "/ * /");
        let hostile = "*/ \" \\\n??/\n*/*/ /**/ é\\";
        let out = c_comment_text(hostile);
        assert!(out.is_ascii());
        assert!(!out.contains("*/") && !out.contains("/*") && !out.contains("??"));
        assert!(out.lines().all(|l| !l.trim_end().ends_with('\\')));
    }

    #[test]
    fn doc_comments_are_well_formed() {
        let mut w = W::new();
        w.doc(4, "\n  first */\nsecond \\\n\n");
        assert_eq!(
            w.out,
            "    /**\n     *   first * /\n     * second (backslash)\n     */\n"
        );
        let mut w = W::new();
        w.doc(0, " one line ");
        assert_eq!(w.out, "/** one line */\n");
        let mut w = W::new();
        w.doc(0, " \n ");
        assert_eq!(w.out, "");
    }

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
            enumerator(ExecutionMode::NAME, "onboard"),
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
