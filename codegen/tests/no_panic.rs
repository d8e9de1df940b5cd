//! load + check never panic, whatever the manifest text.
//!
//! Random edits of the shipped files (the inputs closest to real mistakes)
//! and fully random text go through `check_sources`; every run must end in
//! either IR without errors or at least one error without IR, with every
//! diagnostic span inside its source and on char boundaries, and the report
//! must render. 10,500 cases per run in all (see `CASES_*`).

use crate::support::seeded;

use annotate_snippets::Renderer;
use kfam_codegen::diag::{Location, Report};
use kfam_codegen::ir::Ir;
use proptest::prelude::*;
use proptest::sample::Index;

const ABI: &str = include_str!("../../manifest/abi.toml");
const FAMILIES: [(&str, &str); 4] = [
    (
        "add_bf16_1024",
        include_str!("../../manifest/families/add_bf16_1024.toml"),
    ),
    (
        "matmul_acc_nz_bf16",
        include_str!("../../manifest/families/matmul_acc_nz_bf16.toml"),
    ),
    (
        "matmul_bf16_128x64x128",
        include_str!("../../manifest/families/matmul_bf16_128x64x128.toml"),
    ),
    (
        "mul_fp4_dequant",
        include_str!("../../manifest/families/mul_fp4_dequant.toml"),
    ),
];

const CASES_MUTATED_FAMILY: u32 = 3_000;
const CASES_EDITED_VALUES: u32 = 3_000;
const CASES_MUTATED_MANIFEST: u32 = 2_000;
const CASES_RANDOM_TEXT: u32 = 1_250;
const CASES_RANDOM_TOML: u32 = 1_250;

/// Values that a mutation puts in place of a token: wrong types, boundary
/// numbers, valid vocabulary in the wrong place, hostile text.
const POOL: &[&str] = &[
    "-1",
    "0",
    "1",
    "2",
    "3",
    "5",
    "-2",
    "16",
    "255",
    "4294967295",
    "4294967296",
    "65536",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "1e309",
    "-0.0",
    "nan",
    "inf",
    "0x10",
    "1_000",
    "true",
    "false",
    "[]",
    "{}",
    "[[]]",
    "{ a = 1 }",
    "[1, 2]",
    "[-1, -1]",
    "[0]",
    "[-1, 64]",
    "[64, 128]",
    "[4294967295, 4294967295, 4294967295]",
    "[1, 2, 3, 4, 5, 6, 7, 8, 9]",
    "[1, \"2\"]",
    "\"\"",
    "\"x\"",
    "\"nz\"",
    "\"nchw\"",
    "\"nd\"",
    "\"in\"",
    "\"out\"",
    "\"inout\"",
    "\"scalar\"",
    "\"tensor\"",
    "\"fp4\"",
    "\"fp32\"",
    "\"int8\"",
    "\"uint64\"",
    "\"bf16\"",
    "\"fp8e8m0\"",
    "\"a5\"",
    "\"a2a3\"",
    "\"xdna2\"",
    "\"cce\"",
    "\"aie\"",
    "\"xrt_direct\"",
    "\"host_build_graph\"",
    "\"sim\"",
    "\"kernel\"",
    "\"program\"",
    "\"buffer_object\"",
    "\"scalar_arg\"",
    "\"tensor_arg\"",
    "\"lhs\"",
    "\"rhs\"",
    "\"out\"",
    "\"acc\"",
    "\"alpha\"",
    "\"a2a3_sim\"",
    "\"class\"",
    "\"Add\"",
    "\"a__b\"",
    "\"../x\"",
    "\"/abs/x.so\"",
    "\"C:/x\"",
    "'a\\b'",
    "\"a/./b\"",
    "\"2026-02-30\"",
    "\"9999-99-99\"",
    "\"5C1F0E3C8F0A4A57F0D7A3C2A7E1A4B0F6B3D5D8E2C9A1B7F4E6D3C2B1A09876\"",
    "\"0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0\"",
    "\"\\u202E\"",
    "\"\u{202E}rtl\"",
    "\"\u{2066}\u{2069}\"",
    "\"\u{200B}\"",
    "\"\u{FEFF}\"",
    "\"a\\u0000b\"",
    "\"\\t\"",
    "\"\\r\\n\"",
    "\"é\"",
    "\"𝔘\"",
    "\"\u{0301}\"",
    "\"\"\"\nmulti\nline\"\"\"",
    "'''\n'''",
    "\"unterminated",
    "[",
    "}",
    "=",
    "#",
    "\\",
    "\u{1F600}",
];

/// Lines inserted whole: keys and tables, valid and not.
const LINES: &[&str] = &[
    "[[params]]",
    "[[profiles]]",
    "[[receipts]]",
    "[operation.matmul]",
    "[operation.elementwise_binary]",
    "[operation]",
    "[params]",
    "[[params.bindings]]",
    "[receipts.evidence]",
    "[limits]",
    "[status]",
    "name = \"x\"",
    "name = \"lhs\"",
    "kind = \"scalar\"",
    "direction = \"out\"",
    "layout = \"nz\"",
    "shape = [16, 16]",
    "dtype = \"uint64\"",
    "torch = true",
    "accumulate = true",
    "returns = [0, 0, 99]",
    "bindings = [{ param = \"x\", slot = 0, kind = \"scalar_arg\" }]",
    "evidence = { date = \"2026-01-01\", hardware = \"h\" }",
    "dtpye = \"bf16\"",
    "revision = 0",
    "max_rank = 0",
    "max_prepared = 0",
    "ok = -1",
    "a.b.c = 1",
    "\"quoted key\" = 1",
    "",
    "#:schema x",
];

#[derive(Clone, Debug)]
enum Mutation {
    DeleteLine(Index),
    DuplicateLine(Index),
    SwapLines(Index, Index),
    InsertLine(Index, Index),
    ReplaceToken(Index, Index, Index),
    /// Like `ReplaceToken`, but only values (not keys): the document
    /// usually still parses, so the checker's rules run.
    ReplaceValue(Index, Index, Index),
    Truncate(Index),
    InsertBytes(Index, Vec<u8>),
    InsertChar(Index, char),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => any::<Index>().prop_map(Mutation::DeleteLine),
        2 => any::<Index>().prop_map(Mutation::DuplicateLine),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::InsertLine(a, b)),
        4 => (any::<Index>(), any::<Index>(), any::<Index>()).prop_map(|(l, t, v)| Mutation::ReplaceToken(l, t, v)),
        6 => (any::<Index>(), any::<Index>(), any::<Index>()).prop_map(|(l, t, v)| Mutation::ReplaceValue(l, t, v)),
        1 => any::<Index>().prop_map(Mutation::Truncate),
        1 => (any::<Index>(), prop::collection::vec(any::<u8>(), 1..8)).prop_map(|(i, b)| Mutation::InsertBytes(i, b)),
        1 => (any::<Index>(), any::<char>()).prop_map(|(i, c)| Mutation::InsertChar(i, c)),
    ]
}

/// Tokens of a line a mutation may replace: quoted strings and bare runs
/// (numbers, words, booleans), as byte ranges.
fn tokens(line: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' {
            let end = line[i + 1..]
                .find('"')
                .map_or(line.len(), |j| i + 1 + j + 1);
            out.push(i..end);
            i = end;
        } else if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.' {
            let end = line[i..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
                .map_or(line.len(), |j| i + j);
            out.push(i..end);
            i = end;
        } else {
            i += line[i..].chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

/// The tokens of a line that are values: not followed by `=`.
fn value_tokens(line: &str) -> Vec<std::ops::Range<usize>> {
    tokens(line)
        .into_iter()
        .filter(|r| !line[r.end..].trim_start().starts_with('='))
        .collect()
}

fn apply(text: &str, mutations: &[Mutation]) -> String {
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    for m in mutations {
        if lines.is_empty() {
            lines.push(String::new());
        }
        match m {
            Mutation::DeleteLine(i) => {
                lines.remove(i.index(lines.len()));
            }
            Mutation::DuplicateLine(i) => {
                let i = i.index(lines.len());
                lines.insert(i, lines[i].clone());
            }
            Mutation::SwapLines(a, b) => {
                let (a, b) = (a.index(lines.len()), b.index(lines.len()));
                lines.swap(a, b);
            }
            Mutation::InsertLine(at, which) => {
                let at = at.index(lines.len() + 1);
                lines.insert(at, which.get(LINES).to_string());
            }
            Mutation::ReplaceToken(l, t, v) => {
                let l = l.index(lines.len());
                let toks = tokens(&lines[l]);
                if !toks.is_empty() {
                    let r = toks[t.index(toks.len())].clone();
                    let value = v.get::<&str>(POOL);
                    lines[l].replace_range(r, value);
                }
            }
            Mutation::ReplaceValue(l, t, v) => {
                let candidates: Vec<usize> = (0..lines.len())
                    .filter(|&i| !value_tokens(&lines[i]).is_empty())
                    .collect();
                if !candidates.is_empty() {
                    let l = candidates[l.index(candidates.len())];
                    let toks = value_tokens(&lines[l]);
                    let r = toks[t.index(toks.len())].clone();
                    let value = v.get::<&str>(POOL);
                    lines[l].replace_range(r, value);
                }
            }
            Mutation::Truncate(i) => {
                let joined = lines.join("\n");
                let mut at = i.index(joined.len() + 1);
                while !joined.is_char_boundary(at) {
                    at -= 1;
                }
                lines = joined[..at].split('\n').map(str::to_owned).collect();
            }
            Mutation::InsertBytes(i, bytes) => {
                let mut joined = lines.join("\n").into_bytes();
                let at = i.index(joined.len() + 1);
                joined.splice(at..at, bytes.iter().copied());
                // check_sources takes text, as the loader does after its UTF-8 check.
                lines = String::from_utf8_lossy(&joined)
                    .split('\n')
                    .map(str::to_owned)
                    .collect();
            }
            Mutation::InsertChar(i, c) => {
                let mut joined = lines.join("\n");
                let mut at = i.index(joined.len() + 1);
                while !joined.is_char_boundary(at) {
                    at -= 1;
                }
                joined.insert(at, *c);
                lines = joined.split('\n').map(str::to_owned).collect();
            }
        }
    }
    lines.join("\n")
}

fn family_path(name: &str) -> String {
    format!("manifest/families/{name}.toml")
}

/// The properties every run must have, whatever the input.
fn assert_sound(ir: Option<Ir>, report: &Report) -> Result<(), TestCaseError> {
    let errors = report.diagnostics.iter().filter(|d| d.is_error()).count();
    match &ir {
        None => prop_assert!(errors > 0, "no IR, but no error either"),
        Some(_) => prop_assert_eq!(errors, 0, "IR despite errors"),
    }
    let files: Vec<_> = report.sources.files().collect();
    for d in &report.diagnostics {
        if let Location::Span { file, span } = &d.location {
            prop_assert!(file.0 < files.len(), "{}: unknown file", d.code);
            let text = &report.sources.get(*file).text;
            prop_assert!(
                span.start <= span.end && span.end <= text.len(),
                "{}: span {span:?} outside 0..{}",
                d.code,
                text.len()
            );
            prop_assert!(
                text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
                "{}: span {span:?} not on char boundaries",
                d.code
            );
        }
    }
    // Rendering is part of every run of `kfam check`.
    let human = report.render_human(&Renderer::plain());
    prop_assert_eq!(human.is_empty(), report.diagnostics.is_empty());
    for line in report.render_json().lines() {
        prop_assert!(
            serde_json::from_str::<serde_json::Value>(line).is_ok(),
            "bad JSON line {line}"
        );
    }
    Ok(())
}

fn check_family(name: &str, text: String) -> Result<(), TestCaseError> {
    let (ir, report) = kfam_codegen::check_sources(
        Some(("manifest/abi.toml".into(), ABI.into())),
        vec![(family_path(name), text)],
    );
    assert_sound(ir, &report)
}

proptest! {
    #![proptest_config(seeded::config(CASES_MUTATED_FAMILY))]

    /// One shipped family with 1..4 random edits, checked alone.
    #[test]
    fn mutated_family(which in any::<Index>(), mutations in prop::collection::vec(mutation(), 1..4)) {
        let (name, text) = FAMILIES[which.index(FAMILIES.len())];
        check_family(name, apply(text, &mutations))?;
    }
}

proptest! {
    #![proptest_config(seeded::config(CASES_EDITED_VALUES))]

    /// One shipped family with 1..3 values replaced from the pool.
    #[test]
    fn edited_values(
        which in any::<Index>(),
        edits in prop::collection::vec((any::<Index>(), any::<Index>(), any::<Index>()), 1..3),
    ) {
        let (name, text) = FAMILIES[which.index(FAMILIES.len())];
        let mutations: Vec<Mutation> = edits.into_iter().map(|(l, t, v)| Mutation::ReplaceValue(l, t, v)).collect();
        check_family(name, apply(text, &mutations))?;
    }
}

proptest! {
    #![proptest_config(seeded::config(CASES_MUTATED_MANIFEST))]

    /// The whole shipped manifest with the abi or one family edited (so
    /// cross-file rules see duplicates), or with one family file also
    /// declared under another file name.
    #[test]
    fn mutated_manifest(
        target in any::<Index>(),
        mutations in prop::collection::vec(mutation(), 1..4),
        copy_as in prop::option::of(any::<Index>()),
    ) {
        let target = target.index(FAMILIES.len() + 1);
        let abi = if target == FAMILIES.len() { apply(ABI, &mutations) } else { ABI.to_owned() };
        let mut families: Vec<(String, String)> = FAMILIES
            .iter()
            .enumerate()
            .map(|(i, (name, text))| {
                let text = if i == target { apply(text, &mutations) } else { (*text).to_owned() };
                (family_path(name), text)
            })
            .collect();
        if let Some(i) = copy_as {
            let (_, text) = families[i.index(families.len())].clone();
            families.push((family_path("copy_of_a_family"), text));
        }
        let (ir, report) = kfam_codegen::check_sources(Some(("manifest/abi.toml".into(), abi)), families);
        assert_sound(ir, &report)?;
    }
}

proptest! {
    #![proptest_config(seeded::config(CASES_RANDOM_TEXT))]

    /// Arbitrary text as a family file and as the abi file.
    #[test]
    fn random_text(text in any::<String>(), as_abi in any::<bool>()) {
        if as_abi {
            let (ir, report) = kfam_codegen::check_sources(
                Some(("manifest/abi.toml".into(), text)),
                vec![(family_path(FAMILIES[0].0), FAMILIES[0].1.into())],
            );
            assert_sound(ir, &report)?;
        } else {
            check_family("random", text)?;
        }
    }
}

proptest! {
    #![proptest_config(seeded::config(CASES_RANDOM_TOML))]

    /// Random documents that are mostly TOML: known keys and tables with
    /// random values, so the serde model and the checker see more than
    /// syntax errors.
    #[test]
    fn random_toml(lines in prop::collection::vec(toml_line(), 0..40)) {
        check_family("random_toml", lines.join("\n"))?;
    }
}

fn toml_line() -> impl Strategy<Value = String> {
    let keys = prop::sample::select(vec![
        "name",
        "revision",
        "summary",
        "contract",
        "torch",
        "returns",
        "kind",
        "direction",
        "dtype",
        "shape",
        "layout",
        "doc",
        "op",
        "lhs",
        "rhs",
        "out",
        "m",
        "k",
        "n",
        "a",
        "b",
        "c",
        "accumulate",
        "platform",
        "backend",
        "runtime",
        "execution_mode",
        "bindings",
        "profile",
        "codec",
        "artifact",
        "sha256",
        "evidence",
        "date",
        "hardware",
        "note",
        "param",
        "slot",
        "x",
    ]);
    let value = prop_oneof![
        prop::sample::select(POOL.to_vec()).prop_map(str::to_owned),
        any::<i64>().prop_map(|i| i.to_string()),
        "\"[a-z_0-9]{0,12}\"".prop_map(|s| s),
        prop::collection::vec(-3i64..300, 0..7).prop_map(|v| format!("{v:?}")),
    ];
    prop_oneof![
        4 => (keys, value).prop_map(|(k, v)| format!("{k} = {v}")),
        1 => prop::sample::select(LINES.to_vec()).prop_map(str::to_owned),
    ]
}
