//! Every bound of docs/security.md, each at its limit and just past it:
//! manifest file size, TOML nesting depth, counts (rank, parameters,
//! entries within one file) and the diagnostics they produce,
//! overflow-checked dims, element counts and byte sizes, and
//! `compiled_meta.json` size and nesting depth (the reader here; the
//! runtime's admission is tested in `runtime/tests/fuzz_drive.rs` and
//! `runtime/tests/bounds.rs`).

use std::fmt::Write as _;
use std::fs;
use std::time::{Duration, Instant};

use kfam_codegen::compiled_meta::{CompiledMeta, MetaError, MAX_DOCUMENT_BYTES};
use kfam_codegen::diag::Report;
use kfam_codegen::ir::Ir;
use kfam_codegen::load::MAX_FILE_BYTES;

const ABI: &str = include_str!("../../manifest/abi.toml");
const ADD: &str = include_str!("../../manifest/families/add_bf16_1024.toml");

fn check_family(name: &str, text: String) -> (Option<Ir>, Report) {
    kfam_codegen::check_sources(
        Some(("manifest/abi.toml".into(), ABI.into())),
        vec![(format!("manifest/families/{name}.toml"), text)],
    )
}

fn codes(report: &Report) -> Vec<&'static str> {
    let mut c: Vec<&'static str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
    c.dedup();
    c
}

/// A manifest directory with the shipped abi and one family file.
fn manifest_dir(family: &str, text: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("families")).unwrap();
    fs::write(dir.path().join("abi.toml"), ABI).unwrap();
    fs::write(dir.path().join(format!("families/{family}.toml")), text).unwrap();
    dir
}

// ---------------------------------------------------------------- file size

#[test]
fn manifest_files_are_bounded_at_one_mebibyte() {
    assert_eq!(MAX_FILE_BYTES, 1 << 20);
    // At the limit: read (and checked; here a valid family padded with a comment).
    let mut at = ADD.to_owned();
    at.push('#');
    while at.len() < MAX_FILE_BYTES as usize - 1 {
        at.push('x');
    }
    at.push('\n');
    assert_eq!(at.len() as u64, MAX_FILE_BYTES);
    let dir = manifest_dir("add_bf16_1024", at.as_bytes());
    let (ir, report) = kfam_codegen::check_dir(dir.path());
    assert!(ir.is_some(), "{:?}", codes(&report));
    // One byte over: an I/O diagnostic, the file is not parsed.
    let mut over = at.clone();
    over.insert(over.len() - 1, 'x');
    let dir = manifest_dir("add_bf16_1024", over.as_bytes());
    let (ir, report) = kfam_codegen::check_dir(dir.path());
    assert!(ir.is_none());
    assert_eq!(codes(&report), ["KF0001"]);
    let msg = &report.diagnostics[0].message;
    assert!(msg.contains("over the limit of 1048576"), "{msg}");
    // The in-memory entry point applies the same bound.
    let (ir, report) = check_family("add_bf16_1024", over);
    assert!(ir.is_none());
    assert_eq!(codes(&report), ["KF0001"]);
}

// ------------------------------------------------------------ nesting depth

/// Deeply nested TOML (arrays, inline tables, dotted tables) is refused by
/// the parser's depth limit with a syntax diagnostic; it never overflows
/// the stack. The depths are the worst a 1 MiB file can hold.
#[test]
fn deeply_nested_toml_is_a_diagnostic_not_a_stack_overflow() {
    let depth = (MAX_FILE_BYTES as usize - 64) / 2;
    let arrays = format!("x = {}{}\n", "[".repeat(depth), "]".repeat(depth));
    let tables = format!(
        "x = {}1{}\n",
        "{a=".repeat(depth / 4),
        "}".repeat(depth / 4)
    );
    let dotted = format!("{} = 1\n", vec!["a"; depth / 2].join("."));
    let headers = format!("[{}]\n", vec!["a"; depth / 2].join("."));
    let unclosed = format!("x = {}\n", "[".repeat(depth));
    for (what, text) in [
        ("arrays", arrays),
        ("inline tables", tables),
        ("dotted keys", dotted),
        ("table headers", headers),
        ("unclosed arrays", unclosed),
    ] {
        // A thread with a small stack: a recursive descent without a depth
        // limit would overflow it.
        let handle = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || {
                let (ir, report) = check_family("deep", text);
                (ir.is_some(), codes(&report))
            })
            .unwrap();
        let (ok, codes) = handle.join().unwrap_or_else(|_| panic!("{what}: panicked"));
        assert!(!ok, "{what}: accepted");
        assert!(
            codes.iter().all(|c| c.starts_with("KF000")),
            "{what}: {codes:?}"
        );
    }
}

// ------------------------------------------------------------------ counts

fn params(n: usize, kind: &str) -> String {
    let mut s = String::new();
    for i in 0..n {
        let _ = write!(
            s,
            "\n[[params]]\nname = \"p{i}\"\n{}dtype = \"fp32\"\n{}",
            if kind == "scalar" {
                "kind = \"scalar\"\n"
            } else {
                ""
            },
            if kind == "scalar" {
                ""
            } else {
                "shape = [4]\n"
            }
        );
    }
    s
}

const HEAD: &str = r#"name = "counts"
revision = 1
summary = "Counts."
contract = "program"

[operation.elementwise_binary]
op = "add"
lhs = "p0"
rhs = "p1"
out = "p2"
"#;

#[test]
fn tensor_and_scalar_counts_are_bounded_by_abi_limits() {
    // p2 must be an output for the operation: make every tensor `inout`.
    let at = format!("{HEAD}{}", params(256, "tensor"))
        .replace("shape = [4]\n", "direction = \"inout\"\nshape = [4]\n");
    let (ir, report) = check_family("counts", at.clone());
    assert!(ir.is_some(), "256 tensors: {:?}", codes(&report));
    let over = format!("{at}{}", params(1, "tensor").replace("p0", "extra"));
    let (ir, report) = check_family("counts", over);
    assert!(ir.is_none());
    assert_eq!(codes(&report), ["KF0801"], "257 tensors");

    let base = format!("{HEAD}{}", params(3, "tensor"))
        .replace("shape = [4]\n", "direction = \"inout\"\nshape = [4]\n");
    let scalars = |n| params(n, "scalar").replace("name = \"p", "name = \"s");
    let (ir, report) = check_family("counts", format!("{base}{}", scalars(128)));
    assert!(ir.is_some(), "128 scalars: {:?}", codes(&report));
    let (ir, report) = check_family("counts", format!("{base}{}", scalars(129)));
    assert!(ir.is_none());
    assert_eq!(codes(&report), ["KF0802"], "129 scalars");
}

#[test]
fn rank_is_bounded_by_max_rank() {
    let with_shape = |dims: &str| ADD.replacen("shape = [1024]", &format!("shape = [{dims}]"), 1);
    let (ir, report) = check_family("add_bf16_1024", with_shape("1, 1, 1, 1, 1024"));
    // Rank 5 is allowed, but the operands' shapes now differ.
    assert!(ir.is_none());
    assert!(!codes(&report).contains(&"KF0201"), "{:?}", codes(&report));
    let (ir, report) = check_family("add_bf16_1024", with_shape("1, 1, 1, 1, 1, 1024"));
    assert!(ir.is_none());
    assert!(codes(&report).contains(&"KF0201"), "{:?}", codes(&report));
    // The abi itself cannot raise max_rank past the tables' ceiling (8).
    let abi = ABI.replace("max_rank = 5", "max_rank = 9");
    let (ir, report) = kfam_codegen::check_sources(
        Some(("manifest/abi.toml".into(), abi)),
        vec![("manifest/families/add_bf16_1024.toml".into(), ADD.into())],
    );
    assert!(ir.is_none(), "max_rank 9 accepted: {:?}", codes(&report));
}

/// Entries within one file (profiles, receipts, bindings, returns) are
/// bounded by the file size; the worst 1 MiB file is checked in bounded
/// time, and its diagnostics stay proportional to the file (a help text
/// names at most a few parameters, never all of them for every error).
#[test]
fn worst_case_files_are_checked_in_bounded_time_and_output() {
    // Many parameters, and one profile binding as many unknown names.
    let n = 8_000;
    let mut text = format!("{HEAD}{}", params(n, "tensor"));
    text.push_str("\n[[profiles]]\nname = \"p\"\nplatform = \"a5\"\nbackend = \"cce\"\nruntime = \"host_build_graph\"\nexecution_mode = \"sim\"\nbindings = [\n");
    for i in 0..n {
        let _ = writeln!(
            text,
            "{{ param = \"u{i}\", slot = {i}, kind = \"tensor_arg\" }},"
        );
    }
    text.push_str("]\n");
    assert!(text.len() < MAX_FILE_BYTES as usize);
    let start = Instant::now();
    let (ir, report) = check_family("counts", text.clone());
    let checked = start.elapsed();
    let rendered = report.render_human(&annotate_snippets::Renderer::plain());
    let elapsed = start.elapsed();
    eprintln!(
        "bindings: checked in {checked:?}, rendered by {elapsed:?}, {} diagnostics",
        report.diagnostics.len()
    );
    assert!(ir.is_none());
    assert!(
        rendered.len() < 64 * text.len(),
        "{} bytes of diagnostics for a {}-byte file",
        rendered.len(),
        text.len()
    );
    assert!(elapsed < Duration::from_secs(30), "took {elapsed:?}");

    // Many receipts naming unknown profiles while many profiles exist.
    let mut text = ADD.to_owned();
    for i in 0..2_000 {
        let _ = write!(
            text,
            "\n[[profiles]]\nname = \"q{i}\"\nplatform = \"xdna2\"\nbackend = \"aie\"\nruntime = \"xrt_direct\"\nexecution_mode = \"sim\"\nbindings = [{{ param = \"lhs\", slot = 0, kind = \"buffer_object\" }}, {{ param = \"rhs\", slot = 1, kind = \"buffer_object\" }}, {{ param = \"out\", slot = 2, kind = \"buffer_object\" }}]\n"
        );
    }
    for i in 0..2_000 {
        let _ = write!(
            text,
            "\n[[receipts]]\nprofile = \"nope{i}\"\ncodec = \"c\"\nartifact = \"a\"\nsha256 = \"{i:064x}\"\nevidence = {{ date = \"2026-01-01\", hardware = \"h\" }}\n"
        );
    }
    assert!(text.len() < MAX_FILE_BYTES as usize);
    let start = Instant::now();
    let (ir, report) = check_family("add_bf16_1024", text.clone());
    let rendered = report.render_human(&annotate_snippets::Renderer::plain());
    assert!(ir.is_none());
    assert!(
        rendered.len() < 64 * text.len(),
        "{} bytes of diagnostics for a {}-byte file",
        rendered.len(),
        text.len()
    );
    assert!(start.elapsed() < Duration::from_secs(30));
}

// ------------------------------------------------- overflow-checked sizes

#[test]
fn byte_sizes_that_overflow_u64_are_diagnostics() {
    let with = |dtype: &str, dims: &str| {
        ADD.replace("dtype = \"bf16\"", &format!("dtype = \"{dtype}\""))
            .replace("shape = [1024]", &format!("shape = [{dims}]"))
    };
    // 2^32-1 is the largest static extent.
    let (_, report) = check_family("add_bf16_1024", with("bf16", "4294967296"));
    assert!(codes(&report).contains(&"KF0202"), "{:?}", codes(&report));
    // (2^32-1)^2 elements of 8 bytes: 2^67 bytes, past u64.
    let (ir, report) = check_family("add_bf16_1024", with("int64", "4294967295, 4294967295"));
    assert!(ir.is_none());
    assert!(codes(&report).contains(&"KF0206"), "{:?}", codes(&report));
    // 2^62 one-byte elements (2^62 bytes) fit; 2^62 of 8 bytes do not.
    let (ir, report) = check_family("add_bf16_1024", with("int8", "4294967295, 1073741825"));
    assert!(!codes(&report).contains(&"KF0206"), "{:?}", codes(&report));
    assert!(ir.is_some(), "{:?}", codes(&report));
    let (_, report) = check_family("add_bf16_1024", with("int64", "4294967295, 1073741825"));
    assert!(codes(&report).contains(&"KF0206"), "{:?}", codes(&report));
    // Dynamic extents count as 1: the static part must fit on its own.
    let (ir, _) = check_family("add_bf16_1024", with("int64", "-1, -1, -1, 1024"));
    assert!(ir.is_some());
}

#[test]
fn byte_size_is_exact_up_to_u64_max() {
    use kfam_codegen::ir::static_byte_size;
    use kfam_codegen::vocab::DType;
    // 2^61 elements of 8 bits: exactly 2^61 bytes, though 2^61 * 8 bits
    // overflows u64 when counted in bits first... (2^64 does).
    assert_eq!(
        static_byte_size(&[1 << 31, 1 << 30], DType::Int8),
        Some(1 << 61)
    );
    // 2^63 bytes of int8: the bit count (2^66) overflows, the byte count does not.
    assert_eq!(
        static_byte_size(&[1 << 31, 1 << 31, 2], DType::Int8),
        Some(1 << 63)
    );
    // 2^64 bytes do not fit.
    assert_eq!(static_byte_size(&[1 << 32, 1 << 32], DType::Int8), None);
    // Packed fp4: two elements per byte, rounded up.
    assert_eq!(static_byte_size(&[3], DType::Fp4), Some(2));
    assert_eq!(
        static_byte_size(&[1 << 32, 1 << 32], DType::Fp4),
        Some(1 << 63)
    );
    assert_eq!(static_byte_size(&[u32::MAX as i64; 3], DType::Fp4), None);
}

// ------------------------------------------------------- compiled_meta.json

fn expected_doc() -> serde_json::Value {
    let (ir, report) = kfam_codegen::check_dir(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest"),
    );
    let ir = ir.unwrap_or_else(|| panic!("{report:?}"));
    let f = &ir.families[0];
    serde_json::to_value(kfam_codegen::compiled_meta::expected(
        &ir.abi,
        f,
        &f.receipts[0],
    ))
    .unwrap()
}

#[test]
fn compiled_meta_documents_are_bounded_at_one_mebibyte() {
    assert_eq!(MAX_DOCUMENT_BYTES, 1 << 20);
    let doc = expected_doc();
    let base = serde_json::to_string(&doc).unwrap();
    // Trailing whitespace pads the document to exactly the limit (`$comment`
    // cannot: it is bounded at 1024 characters): accepted.
    let at = format!("{base}{}", " ".repeat(MAX_DOCUMENT_BYTES - base.len()));
    assert_eq!(at.len(), MAX_DOCUMENT_BYTES);
    assert!(CompiledMeta::parse(&at).is_ok());
    let over = format!("{at} ");
    assert_eq!(
        CompiledMeta::parse(&over),
        Err(MetaError::TooLarge(MAX_DOCUMENT_BYTES + 1))
    );
}

#[test]
fn deeply_nested_json_is_refused_not_a_stack_overflow() {
    let depth = MAX_DOCUMENT_BYTES / 2 - 16;
    for doc in [
        format!("{}{}", "[".repeat(depth), "]".repeat(depth)),
        format!("{{\"params\":{}", "[".repeat(depth)),
        format!("{}1{}", "{\"a\":".repeat(depth / 5), "}".repeat(depth / 5)),
    ] {
        let handle = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || CompiledMeta::parse(&doc).is_err())
            .unwrap();
        assert!(handle.join().expect("no stack overflow"), "accepted");
    }
}

// ------------------------------------------------------------- text, names

/// Free text is at most 1000 characters (KF1002): with 4-byte characters
/// that is 4000 bytes, inside ISO C99's 4095-byte string literal minimum,
/// so the header still compiles with `-pedantic -Werror`.
#[test]
fn free_text_is_bounded_at_1000_characters() {
    // The shipped summary is a multi-line string: replace it whole.
    let start = ADD.find("summary = \"\"\"").unwrap();
    let end = start + ADD[start + 13..].find("\"\"\"").unwrap() + 16;
    let with = |s: &str| format!("{}summary = \"{s}\"{}", &ADD[..start], &ADD[end..]);
    let at = "🙂".repeat(1000);
    let (ir, report) = check_family("add_bf16_1024", with(&at));
    let ir = ir.unwrap_or_else(|| panic!("{:?}", codes(&report)));
    let (ir2, report) = check_family("add_bf16_1024", with(&"🙂".repeat(1001)));
    assert!(ir2.is_none());
    assert_eq!(codes(&report), ["KF1002"]);
    let dir = tempfile::tempdir().unwrap();
    kfam_codegen::write::write(
        dir.path(),
        &kfam_codegen::emit::c::emit(&kfam_codegen::plan::Plan::new(&ir)),
    )
    .unwrap();
    // The unit that defines the tables holds every string literal.
    let unit = dir.path().join("impl.c");
    std::fs::write(
        &unit,
        "#define KFAM_IMPLEMENTATION\n#include <kfam/kfam.h>\n",
    )
    .unwrap();
    let out = std::process::Command::new("gcc")
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-Woverlength-strings",
        ])
        .args(["-fsyntax-only", "-I"])
        .arg(dir.path().join("include"))
        .arg(&unit)
        .output()
        .expect("gcc is required (README.md)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Names are at most 64 characters.
#[test]
fn names_are_bounded_at_64_characters() {
    let name = |n: usize| format!("p{}", "a".repeat(n - 1));
    let with = |n: usize| ADD.replace("\"lhs\"", &format!("\"{}\"", name(n)));
    let (ir, report) = check_family("add_bf16_1024", with(64));
    assert!(ir.is_some(), "{:?}", codes(&report));
    let (ir, report) = check_family("add_bf16_1024", with(65));
    assert!(ir.is_none());
    assert!(codes(&report).contains(&"KF0101"), "{:?}", codes(&report));
}
