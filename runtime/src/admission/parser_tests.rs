//! The hand-written reader (`json.rs`) against the serde_json-derived
//! reader it replaced, kept here as the oracle: the same documents are
//! accepted, with the same values (a string borrowed exactly when it has no
//! escape), and the same are refused. Inputs: every admission conformance
//! document, every shipped example, and fixed-seed mutations of them.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde::Deserialize;

#[path = "../../../codegen/tests/support/seeded.rs"]
mod seeded;

// The former document type, exactly as `admit` read it with serde_json.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamDoc<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    direction: Cow<'a, str>,
    #[serde(borrow)]
    dtype: Cow<'a, str>,
    shape: Vec<i64>,
    #[serde(borrow)]
    layout: Cow<'a, str>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CapabilityDoc<'a> {
    #[serde(borrow)]
    contract: Cow<'a, str>,
    #[serde(borrow)]
    execution_mode: Cow<'a, str>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArtifactDoc<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    #[serde(borrow)]
    sha256: Cow<'a, str>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc<'a> {
    #[serde(rename = "$comment", default, borrow, deserialize_with = "present")]
    _comment: Option<Cow<'a, str>>,
    schema: u32,
    #[serde(default, borrow, deserialize_with = "present")]
    family: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "present")]
    revision: Option<u32>,
    #[serde(default, borrow, deserialize_with = "present")]
    contract: Option<Cow<'a, str>>,
    #[serde(borrow)]
    params: Vec<Obj<ParamDoc<'a>>>,
    #[serde(default, borrow, deserialize_with = "present")]
    lowered_params: Option<Vec<Obj<ParamDoc<'a>>>>,
    #[serde(default, deserialize_with = "present")]
    return_count: Option<u32>,
    #[serde(default, deserialize_with = "present")]
    return_aliases: Option<Vec<u32>>,
    #[serde(borrow)]
    platform: Cow<'a, str>,
    #[serde(borrow)]
    backend: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "present")]
    runtime: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "present")]
    execution_mode: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "present")]
    capabilities: Option<Vec<Obj<CapabilityDoc<'a>>>>,
    #[serde(default, borrow, deserialize_with = "present")]
    artifact: Option<Obj<ArtifactDoc<'a>>>,
    #[serde(default, borrow, deserialize_with = "present")]
    abi_revision: Option<Cow<'a, str>>,
}

struct Obj<T>(T);

impl<T> std::ops::Deref for Obj<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// A string and whether it borrows from the document.
#[allow(clippy::ptr_arg)] // the variant is what is checked
fn cow(c: &Cow<'_, str>) -> String {
    let borrowed = matches!(c, Cow::Borrowed(_));
    format!("{borrowed}:{c:?}")
}

/// A string only: the old reader filled an optional `Cow` through
/// `deserialize_with`, which always copies.
fn text(c: &str) -> String {
    format!("{c:?}")
}

/// Every value of a document, old or new type, as text.
macro_rules! view {
    ($doc:expr) => {{
        let d = &$doc;
        let params = |ps: &mut dyn Iterator<
            Item = (
                &Cow<str>,
                &Cow<str>,
                &Cow<str>,
                &Cow<str>,
                &[i64],
                &Cow<str>,
            ),
        >| {
            ps.map(|(a, b, c, e, s, f)| {
                format!(
                    "{} {} {} {} {:?} {}",
                    cow(a),
                    cow(b),
                    cow(c),
                    cow(e),
                    s,
                    cow(f)
                )
            })
            .collect::<Vec<_>>()
        };
        vec![
            format!("{:?}", d._comment.as_deref().map(text)),
            format!("{:?}", d.schema),
            format!("{:?}", d.family.as_deref().map(text)),
            format!("{:?}", d.revision),
            format!("{:?}", d.contract.as_deref().map(text)),
            format!(
                "{:?}",
                params(&mut d.params.iter().map(|p| (
                    &p.name,
                    &p.kind,
                    &p.direction,
                    &p.dtype,
                    &p.shape[..],
                    &p.layout
                )))
            ),
            format!(
                "{:?}",
                d.lowered_params
                    .as_ref()
                    .map(|l| params(&mut l.iter().map(|p| (
                        &p.name,
                        &p.kind,
                        &p.direction,
                        &p.dtype,
                        &p.shape[..],
                        &p.layout
                    ))))
            ),
            format!("{:?}", d.return_count),
            format!("{:?}", d.return_aliases.as_ref().map(|a| a[..].to_vec())),
            cow(&d.platform),
            cow(&d.backend),
            format!("{:?}", d.runtime.as_deref().map(text)),
            format!("{:?}", d.execution_mode.as_deref().map(text)),
            format!(
                "{:?}",
                d.capabilities.as_ref().map(|c| c
                    .iter()
                    .map(|c| (cow(&c.contract), cow(&c.execution_mode)))
                    .collect::<Vec<_>>())
            ),
            format!(
                "{:?}",
                d.artifact.as_ref().map(|a| (cow(&a.path), cow(&a.sha256)))
            ),
            format!("{:?}", d.abi_revision.as_deref().map(text)),
        ]
    }};
}

/// Both readers on `text`: `Some(view)` when accepted. Panics when they
/// disagree.
fn compare(text: &str) -> Option<Vec<String>> {
    let old = serde_json::from_str::<Obj<Doc<'_>>>(text)
        .ok()
        .map(|d| view!(d.0));
    let new = super::json::parse(text).ok().map(|d| view!(d));
    assert_eq!(old, new, "the readers disagree on {text:?}");
    new
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The admission documents of the conformance vectors and the shipped
/// examples, as text.
fn documents() -> Vec<String> {
    let mut docs = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join("tests/conformance"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let vectors: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for case in vectors["cases"].as_array().unwrap() {
            if let Some(doc) = case.get("document") {
                docs.push(serde_json::to_string(doc).unwrap());
                docs.push(serde_json::to_string_pretty(doc).unwrap());
            }
            if let Some(text) = case.get("document_text") {
                docs.push(text.as_str().unwrap().to_owned());
            }
        }
    }
    let mut examples: Vec<PathBuf> = std::fs::read_dir(root().join("generated/schema/examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".compiled_meta.json"))
        .collect();
    examples.sort();
    for path in examples {
        let text = std::fs::read_to_string(&path).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        docs.push(text);
        docs.push(serde_json::to_string(&value).unwrap());
    }
    docs
}

#[test]
fn conformance_and_examples_read_alike() {
    let docs = documents();
    assert!(docs.len() > 400, "{} documents", docs.len());
    let accepted = docs.iter().filter(|d| compare(d).is_some()).count();
    // Most are well-formed (their refusals come later); some are not JSON.
    assert!(
        accepted > 100 && accepted < docs.len(),
        "{accepted} accepted"
    );
}

/// Text edits that probe the strict rules.
const TOKENS: &[&str] = &[
    "-0",
    "0",
    "1",
    "-1",
    "01",
    "1.0",
    "1e0",
    "1E2",
    "1.",
    ".5",
    "+1",
    "-",
    "2.5e-3",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "\\u0065",
    "\\u0000",
    "\\ud800",
    "\\udc00",
    "\\ud800\\udc00",
    "\\ud83d\\ude00",
    "\\ud800\\u0041",
    "\\ud800\\n",
    "\\uD834\\uDD1E",
    "\\uDBFF\\uDFFF",
    "\\u00e9",
    "\\u12G4",
    "\\u12",
    "\\n",
    "\\\"",
    "\\\\",
    "\\/",
    "\\b",
    "\\f",
    "\\r",
    "\\t",
    "\\x",
    "\\'",
    "\\",
    "\"",
    " ",
    "\t",
    "\n",
    "\r",
    "\u{c}",
    "\u{0}",
    "\u{1}",
    "\u{1f}",
    "\u{7f}",
    "é",
    "😀",
    "\u{a0}",
    "\u{feff}",
    "null",
    "true",
    "false",
    "nul",
    ",",
    ":",
    "[",
    "]",
    "{",
    "}",
    "[]",
    "{}",
    ",,",
    "NaN",
    "Infinity",
    "-Infinity",
];

const KEYS: &[&str] = &[
    "$comment",
    "schema",
    "family",
    "revision",
    "contract",
    "params",
    "lowered_params",
    "return_count",
    "return_aliases",
    "platform",
    "backend",
    "runtime",
    "execution_mode",
    "capabilities",
    "artifact",
    "abi_revision",
    "name",
    "kind",
    "direction",
    "dtype",
    "shape",
    "layout",
    "path",
    "sha256",
    "sch\\u0065ma",
    "\\u0024comment",
    "Schema",
    "unknown",
    "",
];

const VALUES: &[&str] = &[
    "null", "3", "2", "1", "0", "-0", "1.0", "1e0", "true", "\"x\"", "\"a2a3\"", "[]", "{}",
    "[1,2]", "[-1,64]", "[1.0]", "[-0]", "[true]", "[\"x\"]", "[{}]", "[[]]",
    "{\"contract\":\"kernel\",\"execution_mode\":\"graph\"}", "{\"path\":\"p\",\"sha256\":\"s\"}",
    "[{\"name\":\"x\",\"kind\":\"tensor\",\"direction\":\"in\",\"dtype\":\"bf16\",\"shape\":[],\"layout\":\"nd\"}]",
    "4294967296", "\"\\ud800\"",
];

#[derive(Clone, Debug)]
enum Edit {
    Insert(prop::sample::Index, &'static str),
    Delete(prop::sample::Index, usize),
    Replace(prop::sample::Index, u8),
    /// `"key": value,` right after an opening brace (a duplicate, unknown
    /// or null key, a wrong type).
    Member(prop::sample::Index, &'static str, &'static str),
    /// The same, before a closing brace.
    MemberLast(prop::sample::Index, &'static str, &'static str),
}

fn edit() -> impl Strategy<Value = Edit> {
    let token = prop::sample::select(TOKENS);
    let key = prop::sample::select(KEYS);
    let value = prop::sample::select(VALUES);
    prop_oneof![
        3 => (any::<prop::sample::Index>(), token).prop_map(|(i, t)| Edit::Insert(i, t)),
        1 => (any::<prop::sample::Index>(), 1..4usize).prop_map(|(i, n)| Edit::Delete(i, n)),
        2 => (any::<prop::sample::Index>(), prop::sample::select(b" \"\\,:[]{}-0123456789.eEnulltrufas\x01\x7f".as_slice()))
            .prop_map(|(i, b)| Edit::Replace(i, b)),
        2 => (any::<prop::sample::Index>(), key.clone(), value.clone()).prop_map(|(i, k, v)| Edit::Member(i, k, v)),
        1 => (any::<prop::sample::Index>(), key, value).prop_map(|(i, k, v)| Edit::MemberLast(i, k, v)),
    ]
}

/// The char boundary at or before `at`.
fn boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The position of the `n`th (mod count) occurrence of `byte`, if any.
fn nth(text: &str, byte: u8, i: &prop::sample::Index) -> Option<usize> {
    let found: Vec<usize> = text
        .bytes()
        .enumerate()
        .filter(|(_, b)| *b == byte)
        .map(|(i, _)| i)
        .collect();
    (!found.is_empty()).then(|| found[i.index(found.len())])
}

fn apply(text: &mut String, e: &Edit) {
    match e {
        Edit::Insert(i, t) => {
            let at = boundary(text, i.index(text.len() + 1));
            text.insert_str(at, t);
        }
        Edit::Delete(i, n) if !text.is_empty() => {
            let at = boundary(text, i.index(text.len()));
            let end = boundary(text, (at + n).min(text.len()));
            text.replace_range(at..end, "");
        }
        Edit::Replace(i, b) if !text.is_empty() => {
            let at = boundary(text, i.index(text.len()));
            let end = (at + 1..=text.len())
                .find(|&e| text.is_char_boundary(e))
                .unwrap();
            text.replace_range(at..end, &(*b as char).to_string());
        }
        Edit::Member(i, k, v) => {
            if let Some(at) = nth(text, b'{', i) {
                text.insert_str(at + 1, &format!("\"{k}\": {v},"));
            }
        }
        Edit::MemberLast(i, k, v) => {
            if let Some(at) = nth(text, b'}', i) {
                text.insert_str(at, &format!(",\"{k}\":{v}"));
            }
        }
        _ => {}
    }
}

#[test]
fn mutated_documents_read_alike() {
    let docs = documents();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        failure_persistence: None,
        ..seeded::config(20_000)
    });
    let accepted = std::cell::Cell::new(0u32);
    runner
        .run(
            &(
                any::<prop::sample::Index>(),
                prop::collection::vec(edit(), 1..4),
            ),
            |(which, edits)| {
                let mut text = docs[which.index(docs.len())].clone();
                for e in &edits {
                    apply(&mut text, e);
                }
                if compare(&text).is_some() {
                    accepted.set(accepted.get() + 1);
                }
                Ok(())
            },
        )
        .unwrap();
    // The edits reach accepted documents too, not only refusals.
    assert!(accepted.get() > 500, "{} accepted", accepted.get());
}

/// Every single-token insertion at every position of one compact document.
#[test]
fn every_insertion_reads_alike() {
    let text = documents().into_iter().rev().nth(1).unwrap();
    for at in 0..=text.len() {
        if !text.is_char_boundary(at) {
            continue;
        }
        for t in TOKENS {
            let mut edited = text.clone();
            edited.insert_str(at, t);
            compare(&edited);
        }
        let mut cut = text.clone();
        if at < text.len() {
            cut.remove(at);
            compare(&cut);
        }
    }
}

/// The cases the rules name, one by one.
#[test]
fn named_cases_read_alike() {
    let base = r#"{"schema":2,"params":[{"name":"x","kind":"tensor","direction":"in","dtype":"bf16","shape":[S],"layout":"nd"}],"return_count":1,"platform":"a5","backend":"cce"}"#;
    assert!(compare(&base.replace('S', "1")).is_some());
    for shape in [
        "-0",
        "0",
        "-1",
        "01",
        "1.0",
        "1e0",
        "true",
        "\"1\"",
        "null",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616",
        "1,2,3,4,5,6,7,8,9,10",
        "1,",
        ",1",
        "[1]",
        " 1 ",
        "1 ,\t2",
    ] {
        compare(&base.replace('S', shape));
    }
    for count in [
        "-0",
        "0",
        "4294967295",
        "4294967296",
        "-1",
        "1.0",
        "1e0",
        "true",
        "null",
    ] {
        compare(&base.replace("\"return_count\":1", &format!("\"return_count\":{count}")));
    }
    for text in [
        "",
        " ",
        "{}",
        "[]",
        "null",
        "{\"schema\":2}",
        r#"{"sch\u0065ma":2,"params":[],"return_count":0,"platform":"a5","backend":"cce"}"#,
        r#"{"schema":2,"schema":2,"params":[],"return_count":0,"platform":"a5","backend":"cce"}"#,
        r#"{"schema":2,"params":[],"return_count":0,"platform":"a\ud800","backend":"cce"}"#,
        r#"{"schema":2,"params":[],"return_count":0,"platform":"a\ud83d\ude00","backend":"cce"}"#,
        r#"{"schema":2,"params":[],"return_count":0,"platform":"a5","backend":"cce"} x"#,
        r#"{"schema":2,"params":[],"return_count":0,"platform":"a5","backend":"cce"}
 "#,
        r#"{"schema":2,"params":[[]],"return_count":0,"platform":"a5","backend":"cce"}"#,
        r#"{"schema":3,"params":[],"artifact":["p","s"],"platform":"a5","backend":"cce"}"#,
        r#"{"schema":3,"params":[],"capabilities":[["kernel","graph"]],"platform":"a5","backend":"cce"}"#,
        r#"{"schema":3,"params":[],"return_aliases":[0,1,2,3,4,5,6,7,8,9],"platform":"a5","backend":"cce"}"#,
        r#"{"schema":3,"params":[],"capabilities":[{"contract":"a","execution_mode":"b"},{"contract":"c","execution_mode":"d"}],"platform":"a5","backend":"cce"}"#,
    ] {
        compare(text);
    }
    // Optional strings borrow too (the old reader copied them).
    let doc = r#"{"schema":3,"family":"f","params":[],"platform":"a5","backend":"c\u0065"}"#;
    let doc = super::json::parse(doc).unwrap();
    assert!(matches!(doc.family, Some(Cow::Borrowed("f"))));
    assert!(matches!(doc.platform, Cow::Borrowed("a5")));
    assert!(matches!(doc.backend, Cow::Owned(ref s) if s == "ce"));
}

/// The eight-byte string scan finds the first byte that needs attention,
/// whatever the bytes around it.
#[test]
fn string_scan_finds_the_first_special_byte() {
    let is_special = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
    for at in 0..8 {
        for b in 0..=255u8 {
            for fill in [b'a', 0x80, 0xff, b'!', b']', 0x20] {
                for after in [fill, b'"', 0x00, 0x1f, b'\\', 0xe2] {
                    let mut bytes = [fill; 8];
                    bytes[at] = b;
                    if at < 7 {
                        bytes[at + 1] = after;
                    }
                    let first = bytes.iter().position(|&b| is_special(b));
                    let found = super::json::special(u64::from_le_bytes(bytes));
                    let got = (found != 0).then(|| (found.trailing_zeros() / 8) as usize);
                    assert_eq!(got, first, "{bytes:?}");
                }
            }
        }
    }
}
