//! Fuzz target bodies, shared by the libFuzzer targets in `fuzz_targets/`
//! (`cargo +nightly fuzz run TARGET`) and by stable-Rust drivers: the
//! `drive` example of this crate and the workspace test
//! `runtime/tests/fuzz_drive.rs`, which includes this file as a module.
//! Keep it free of `crate::` paths; its one submodule, `wellformed.rs`, is
//! also included by the codegen tests.
//!
//! Each body takes arbitrary bytes, must never panic for any input, and
//! asserts properties (oracles) on what the code under test decides:
//!
//! - [`manifest`]: load + check + lower + emit. IR exactly when there is no
//!   error; every diagnostic span inside its source; every emitted file
//!   marked, Rust parsing with `syn`, JSON parsing, the C header lexing as
//!   well-formed C (no comment or string ended early), Python and C ASCII;
//!   the expected `compiled_meta.json` of every receipt round-tripping.
//! - [`check`]: the inputs of [`manifest`], loaded and checked only: the
//!   soundness oracle at many more executions per second.
//! - [`manifest_structured`]: a well-typed family record (shipped or
//!   synthetic) edited as TOML values, then the full oracle of [`manifest`]
//!   (`structured.rs`).
//! - [`compiled_meta`]: runtime admission of a `compiled_meta.json` against
//!   the reference reader in `kfam_codegen::compiled_meta`: an admitted
//!   document parses there and equals the exact expected document, and the
//!   exact expected document is admitted.
//! - [`call`]: call validation with random descriptors; an accepted call is
//!   re-checked by an exact (128-bit, overflow-checked) oracle: ranks,
//!   dtypes, static extents, contiguity, storage bounds, overlap, scalars.
//! - [`description`]: a catalog's description, as the prebuilt runtime
//!   opens it: raw bytes, or the shipped description with bytes changed
//!   (`description.rs`).
//! - `unit` (`unit.rs`, a module of its own target, of the `drive`
//!   example and of `native/tests/fuzz_unit.rs`, since it needs the
//!   prebuilt runtime's crate): the unit's layout as the runtime reads it.

#![allow(clippy::missing_panics_doc)]

use std::path::{Path, PathBuf};

#[path = "description.rs"]
mod description;
#[path = "legal.rs"]
pub mod legal;
#[path = "structured.rs"]
mod structured;
#[path = "wellformed.rs"]
mod wellformed;
pub use description::{description, shipped_description};
use std::sync::OnceLock;
pub use wellformed::{c_well_formed, py_well_formed};

use kfam_codegen::compiled_meta::{self as meta, CompiledMeta};
use kfam_codegen::diag::{Location, Report};
use kfam_codegen::ir::Ir;
use kfam_codegen::load::{self, Loaded};
use kfam_codegen::model::{AbiFile, FamilyFile};
use kfam_runtime::{
    validate_call, DType, Direction, Family, Layout, OwnedTensorArg, Param, ParamKind,
    ScalarDomain, ScalarValue, StorageFormat, TensorArg,
};

// ---------------------------------------------------------------------------
// The shipped manifest, read once.

/// The shipped manifest's documents and IR.
pub struct Shipped {
    pub abi: String,
    /// `(file stem, text)`, sorted.
    pub families: Vec<(String, String)>,
    pub ir: Ir,
}

/// The repository root: this file is `fuzz/src/lib.rs`, and both users
/// (`fuzz/` and `runtime/`) sit one level below the root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn shipped() -> &'static Shipped {
    static SHIPPED: OnceLock<Shipped> = OnceLock::new();
    SHIPPED.get_or_init(|| {
        let dir = repo_root().join("manifest");
        let abi = std::fs::read_to_string(dir.join("abi.toml")).expect("manifest/abi.toml");
        let mut families: Vec<(String, String)> = std::fs::read_dir(dir.join("families"))
            .expect("manifest/families")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .map(|p| {
                let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
                (stem, std::fs::read_to_string(&p).unwrap())
            })
            .collect();
        families.sort();
        let (ir, report) = kfam_codegen::check_dir(&dir);
        let ir = ir.unwrap_or_else(|| panic!("shipped manifest has errors: {report:?}"));
        Shipped { abi, families, ir }
    })
}

// ---------------------------------------------------------------------------
// Target 1: manifest load + check + lower + emit.

/// Separates family documents in mode 3 of [`manifest`].
pub const DOC_SEPARATOR: &str = "\n%%\n";

/// The first byte selects what the rest (read as UTF-8, lossily) is:
/// `0` one family file checked with the shipped `abi.toml`; `1` the
/// `abi.toml` of the shipped families; `2` one more family beside the
/// shipped ones (cross-file rules: duplicates); `3` up to 8 family files
/// separated by [`DOC_SEPARATOR`].
pub fn manifest(data: &[u8]) {
    let Some((abi, families)) = manifest_sources(data) else {
        return;
    };
    let (ir, report) = kfam_codegen::check_sources(abi, families);
    assert_sound(ir.as_ref(), &report);
    if let Some(ir) = ir {
        check_outputs(&ir);
    }
}

/// The light target: the inputs of [`manifest`], loaded and checked only
/// (no emission), so far more of them run per second. The shipped
/// documents are parsed once ([`check_light`]); only the input is parsed
/// per execution.
pub fn check(data: &[u8]) {
    let Some((abi, families)) = light_docs(data) else {
        return;
    };
    let (ir, report) = check_light(abi, families);
    assert_sound(ir.as_ref(), &report);
}

/// [`check`]'s shortcut decides exactly as `kfam_codegen::check_sources`
/// on the same documents: the same IR and the same diagnostics, rendered
/// both ways. Run by the stable drivers, not per libFuzzer execution.
pub fn check_light_matches_full(data: &[u8]) {
    let (Some((abi, families)), Some((abi_text, family_texts))) =
        (light_docs(data), manifest_sources(data))
    else {
        return;
    };
    let (ir, report) = check_light(abi, families);
    let (full_ir, full_report) = kfam_codegen::check_sources(abi_text, family_texts);
    let json = |ir: Option<&Ir>| ir.map(|ir| serde_json::to_string(ir).expect("IR serializes"));
    assert_eq!(json(ir.as_ref()), json(full_ir.as_ref()), "IR differs");
    assert_eq!(report.render_json(), full_report.render_json());
    let plain = annotate_snippets::Renderer::plain();
    assert_eq!(
        report.render_human(&plain),
        full_report.render_human(&plain)
    );
}

/// The structure-aware target: a well-typed family record edited as TOML
/// values ([`structured`]), checked with the shipped `abi.toml`, alone
/// (first byte even) or beside the shipped families (odd); the full oracle
/// of [`manifest`]. The shipped documents are parsed once
/// ([`check_light`]).
pub fn manifest_structured(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let text = structured::family_text(rest);
    let mut families = Vec::new();
    if mode % 2 == 1 {
        families.extend((0..shipped().families.len()).map(Doc::ShippedFamily));
    }
    families.push(Doc::Text(("manifest/families/fuzz.toml".to_owned(), text)));
    let (ir, report) = check_light(Doc::ShippedAbi, families);
    assert_sound(ir.as_ref(), &report);
    if let Some(ir) = ir {
        check_outputs(&ir);
    }
}

type Source = (String, String);

/// The documents [`manifest`] checks for `data`.
fn manifest_sources(data: &[u8]) -> Option<(Option<Source>, Vec<Source>)> {
    let (&mode, rest) = data.split_first()?;
    let text = String::from_utf8_lossy(rest).into_owned();
    let s = shipped();
    let abi = || Some(("manifest/abi.toml".to_owned(), s.abi.clone()));
    let fam = |name: &str, text: String| (format!("manifest/families/{name}.toml"), text);
    Some(match mode % 4 {
        0 => (abi(), vec![fam("fuzz", text)]),
        1 => (
            Some(("manifest/abi.toml".to_owned(), text)),
            s.families
                .iter()
                .take(1)
                .map(|(n, t)| fam(n, t.clone()))
                .collect(),
        ),
        2 => {
            let mut v: Vec<_> = s.families.iter().map(|(n, t)| fam(n, t.clone())).collect();
            v.push(fam("fuzz", text));
            (abi(), v)
        }
        _ => (
            abi(),
            text.split(DOC_SEPARATOR)
                .take(8)
                .enumerate()
                .map(|(i, t)| fam(&format!("f{i}"), t.to_owned()))
                .collect(),
        ),
    })
}

/// One document of a [`check_light`] run: a shipped one (whose parse is
/// cached) or text from the input.
pub enum Doc {
    /// `manifest/abi.toml`.
    ShippedAbi,
    /// The shipped family file of this index in [`Shipped::families`].
    ShippedFamily(usize),
    /// `(path, text)`.
    Text(Source),
}

/// [`manifest_sources`] with the shipped documents named, not copied.
fn light_docs(data: &[u8]) -> Option<(Doc, Vec<Doc>)> {
    let (&mode, rest) = data.split_first()?;
    let text = String::from_utf8_lossy(rest).into_owned();
    let fam =
        |name: &str, text: String| Doc::Text((format!("manifest/families/{name}.toml"), text));
    let shipped = || (0..shipped().families.len()).map(Doc::ShippedFamily);
    Some(match mode % 4 {
        0 => (Doc::ShippedAbi, vec![fam("fuzz", text)]),
        1 => (
            Doc::Text(("manifest/abi.toml".to_owned(), text)),
            shipped().take(1).collect(),
        ),
        2 => (
            Doc::ShippedAbi,
            shipped().chain([fam("fuzz", text)]).collect(),
        ),
        _ => (
            Doc::ShippedAbi,
            text.split(DOC_SEPARATOR)
                .take(8)
                .enumerate()
                .map(|(i, t)| fam(&format!("f{i}"), t.to_owned()))
                .collect(),
        ),
    })
}

/// The shipped documents as parsed by `kfam_codegen::load` (they parse
/// without a diagnostic). A value is lent to one run and given back after
/// it; one missing (a run panicked) makes the next run parse them again.
#[derive(Default)]
struct ParsedShipped {
    abi: Option<AbiFile>,
    families: Vec<Option<FamilyFile>>,
}

impl ParsedShipped {
    fn parse() -> Self {
        let s = shipped();
        let mut report = Report::default();
        let loaded = load::load_sources(
            Some(("manifest/abi.toml".to_owned(), s.abi.clone())),
            s.families
                .iter()
                .map(|(n, t)| (format!("manifest/families/{n}.toml"), t.clone()))
                .collect(),
            &mut report,
        );
        assert!(
            report.diagnostics.is_empty(),
            "shipped manifest: {report:?}"
        );
        assert_eq!(loaded.families.len(), s.families.len());
        ParsedShipped {
            abi: loaded.abi.map(|(_, a)| a),
            families: loaded.families.into_iter().map(|(_, f)| Some(f)).collect(),
        }
    }

    fn complete(&self) -> bool {
        self.abi.is_some() && self.families.iter().all(Option::is_some)
    }
}

thread_local! {
    static PARSED: std::cell::RefCell<ParsedShipped> = std::cell::RefCell::default();
}

/// `kfam_codegen::check_sources` for documents some of which are shipped:
/// the same loading steps (`kfam_codegen::load`: each text normalized and
/// parsed in order, diagnostics kept in document order) and the same
/// `check_loaded` (check, then the review gate), but a shipped document's parse is the cached one, not
/// repeated on every execution. [`check_light_matches_full`] holds it to
/// `check_sources`.
pub fn check_light(abi: Doc, families: Vec<Doc>) -> (Option<Ir>, Report) {
    PARSED.with(|cell| {
        let mut cache = cell.replace(ParsedShipped::default());
        if !cache.complete() {
            cache = ParsedShipped::parse();
        }
        let s = shipped();
        let mut report = Report::default();
        let mut loaded = match abi {
            Doc::Text(text) => load::load_sources(Some(text), Vec::new(), &mut report),
            Doc::ShippedAbi => {
                let id = report.sources.add(
                    "manifest/abi.toml".to_owned(),
                    load::normalize(s.abi.clone()),
                );
                Loaded {
                    abi: cache.abi.take().map(|a| (id, a)),
                    ..Loaded::default()
                }
            }
            Doc::ShippedFamily(_) => unreachable!("a family document as the abi"),
        };
        let mut lent = Vec::new();
        for doc in families {
            match doc {
                Doc::Text((path, text)) => {
                    let id = report.sources.add(path, load::normalize(text));
                    if let Some(f) = load::parse_family(id, &mut report, &mut loaded) {
                        loaded.families.push((id, f));
                    }
                }
                Doc::ShippedFamily(i) => {
                    let (name, text) = &s.families[i];
                    let id = report.sources.add(
                        format!("manifest/families/{name}.toml"),
                        load::normalize(text.clone()),
                    );
                    let f = cache.families[i].take().expect("complete cache");
                    loaded.families.push((id, f));
                    lent.push((id, i));
                }
                Doc::ShippedAbi => unreachable!("the abi as a family document"),
            }
        }
        let ir = kfam_codegen::check_loaded(&loaded, &mut report);
        report.sort();
        if cache.abi.is_none() {
            cache.abi = loaded.abi.take().map(|(_, a)| a);
        }
        for (id, f) in loaded.families {
            if let Some(&(_, i)) = lent.iter().find(|(l, _)| *l == id) {
                cache.families[i] = Some(f);
            }
        }
        cell.replace(cache);
        (ir, report)
    })
}

/// IR exactly when there is no error; spans inside their source and on
/// char boundaries; both renderings work.
pub fn assert_sound(ir: Option<&Ir>, report: &Report) {
    let errors = report.diagnostics.iter().filter(|d| d.is_error()).count();
    assert_eq!(ir.is_some(), errors == 0, "IR iff no errors: {report:?}");
    for d in &report.diagnostics {
        if let Location::Span { file, span } = &d.location {
            let text = &report.sources.get(*file).text;
            assert!(
                span.start <= span.end && span.end <= text.len(),
                "{}: span {span:?} outside 0..{}",
                d.code,
                text.len()
            );
            assert!(
                text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
                "{}: span {span:?} not on char boundaries",
                d.code
            );
        }
    }
    let human = report.render_human(&annotate_snippets::Renderer::plain());
    assert_eq!(human.is_empty(), report.diagnostics.is_empty());
    for line in report.render_json().lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("diagnostic JSON line");
    }
}

/// Properties of every output of a clean manifest.
pub fn check_outputs(ir: &Ir) {
    let files = kfam_codegen::emit::generate(ir);
    for f in &files {
        let head: String = f.contents.chars().take(256).collect();
        assert!(
            head.contains(kfam_codegen::emit::MARKER),
            "{}: no marker",
            f.path
        );
        assert!(
            !f.path.starts_with('/') && !f.path.split('/').any(|s| s.is_empty() || s == ".."),
            "bad output path {}",
            f.path
        );
        let ext = f.path.rsplit('.').next().unwrap_or("");
        match ext {
            "rs" => {
                if let Err(e) = syn::parse_file(&f.contents) {
                    panic!("{}: emitted Rust does not parse: {e}", f.path);
                }
                assert!(
                    !f.contents.contains("compile_error!"),
                    "{}: emitter reported a token error",
                    f.path
                );
            }
            "json" => {
                serde_json::from_str::<serde_json::Value>(&f.contents)
                    .unwrap_or_else(|e| panic!("{}: emitted JSON does not parse: {e}", f.path));
            }
            "h" => {
                assert!(f.contents.is_ascii(), "{}: not ASCII", f.path);
                if let Err(e) = c_well_formed(&f.contents) {
                    panic!("{}: {e}", f.path);
                }
            }
            "py" | "pyi" => {
                assert!(f.contents.is_ascii(), "{}: not ASCII", f.path);
                if let Err(e) = py_well_formed(&f.contents) {
                    panic!("{}: {e}", f.path);
                }
            }
            _ => {}
        }
    }
    for fam in &ir.families {
        for r in &fam.receipts {
            let doc = meta::expected(&ir.abi, fam, r);
            let text = serde_json::to_string(&doc).expect("serialize compiled_meta");
            let back = CompiledMeta::parse(&text).expect("expected document parses");
            assert_eq!(back, CompiledMeta::V3(doc), "compiled_meta round trip");
        }
    }
    assert!(
        kfam_codegen::diff::diff(ir, ir).is_empty(),
        "a manifest differs from itself"
    );
}

// ---------------------------------------------------------------------------
// Target 2: compiled_meta.json admission.

/// The first byte selects the artifact digest the document is admitted
/// for (one of the shipped receipts, or an unknown digest); the rest is the
/// document.
pub fn compiled_meta(data: &[u8]) {
    let Some((&sel, doc)) = data.split_first() else {
        return;
    };
    let s = shipped();
    let receipts: Vec<(&kfam_codegen::ir::Family, &kfam_codegen::ir::Receipt)> =
        s.ir.families
            .iter()
            .flat_map(|f| f.receipts.iter().map(move |r| (f, r)))
            .collect();
    let pick = sel as usize % (receipts.len() + 1);
    let sha = receipts
        .get(pick)
        .map_or("0".repeat(64), |(_, r)| r.sha256.clone());
    let admitted = kfam_catalog::CATALOG.admit(doc, &sha);
    let parsed = std::str::from_utf8(doc).ok().map(CompiledMeta::parse);

    if let Ok(a) = &admitted {
        // An admitted document is a valid document for the reference reader ...
        let meta = match &parsed {
            Some(Ok(m)) => m.clone(),
            Some(Err(e)) => panic!("runtime admitted a document the reference reader rejects: {e}"),
            None => panic!("runtime admitted a document that is not UTF-8"),
        };
        assert_eq!(a.receipt.sha256, sha, "admitted for another digest");
        let (fam, receipt) = receipts[pick];
        match meta {
            // ... and, for schema 3, exactly the document its receipt expects.
            CompiledMeta::V3(mut m) => {
                m.comment = None;
                assert_eq!(
                    m,
                    meta::expected(&s.ir.abi, fam, receipt),
                    "runtime admitted a schema 3 document that differs from the expected one"
                );
                assert_eq!(a.contract.as_str(), m.contract.as_str());
            }
            CompiledMeta::Legacy(_) => {
                assert_eq!(
                    a.contract,
                    kfam_runtime::Contract::Program,
                    "a schema 1/2 document established a kernel contract"
                );
            }
        }
    }
    // Conversely, the exact expected document is admitted.
    if let (Some(Ok(CompiledMeta::V3(m))), Some((fam, receipt))) = (&parsed, receipts.get(pick)) {
        let mut m = m.clone();
        m.comment = None;
        if m == meta::expected(&s.ir.abi, fam, receipt) {
            if let Err(e) = &admitted {
                panic!("runtime refused the exact expected document: {e}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Target 3: call validation with random descriptors.

/// Reads bytes as decisions; yields zeros once exhausted.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, pos: 0 }
    }
    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    pub fn u64(&mut self) -> u64 {
        (0..8).fold(0u64, |a, _| (a << 8) | u64::from(self.u8()))
    }
    pub fn i64(&mut self) -> i64 {
        self.u64() as i64
    }
}

const INTERESTING: &[i64] = &[
    0,
    1,
    2,
    -1,
    -2,
    16,
    64,
    4_294_967_295,
    1 << 32,
    1 << 31,
    1 << 40,
    1 << 61,
    1 << 62,
    i64::MAX,
    i64::MAX - 1,
    i64::MIN,
];

fn interesting(b: &mut Bytes<'_>) -> i64 {
    match b.u8() % 4 {
        0 => b.i64(),
        1 => i64::from(b.u8()),
        _ => INTERESTING[b.u8() as usize % INTERESTING.len()],
    }
}

fn pick<T: Copy>(b: &mut Bytes<'_>, all: &[T]) -> T {
    all[b.u8() as usize % all.len()]
}

/// Contiguous row-major strides, wrapping or saturating when the extents
/// are absurd (both are what a careless caller computes).
fn contiguous(shape: &[i64], saturating: bool) -> Vec<i64> {
    let mut strides = vec![0i64; shape.len()];
    let mut acc = 1i64;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        acc = if saturating {
            acc.saturating_mul(d.max(1))
        } else {
            acc.wrapping_mul(d.max(1))
        };
    }
    strides
}

/// Bytes a contiguous view needs (saturating), for plausible descriptors.
fn needed_bytes(dtype: DType, shape: &[i64], offset: i64) -> u64 {
    let elems = shape
        .iter()
        .fold(1u64, |a, &d| a.saturating_mul(d.max(0) as u64));
    let bits = kfam_runtime::call::dtype_bits(dtype);
    elems
        .saturating_add(offset.max(0) as u64)
        .saturating_mul(bits)
        .div_ceil(8)
}

fn tensor_for(p: Option<&Param>, b: &mut Bytes<'_>) -> OwnedTensorArg {
    let plausible = b.u8() < 200;
    let dtype = match p {
        Some(p) if b.u8() < 230 => p.dtype,
        _ => pick(b, DType::ALL),
    };
    let rank = match p {
        Some(p) if b.u8() < 230 => p.shape.len(),
        _ => (b.u8() % 9) as usize,
    };
    let mut shape = Vec::with_capacity(rank);
    for j in 0..rank {
        let declared = p.and_then(|p| p.shape.get(j)).copied();
        let c = b.u8();
        shape.push(match declared {
            Some(d) if d >= 0 && c < 200 => d,
            Some(-1) if c < 120 => i64::from(b.u8() % 65) + 1,
            Some(-1) if c < 200 => interesting(b),
            _ => interesting(b),
        });
    }
    let strides = if plausible || b.u8() < 128 {
        contiguous(&shape, b.u8() & 1 == 1)
    } else {
        (0..rank).map(|_| interesting(b)).collect()
    };
    let format = match p.map(|p| p.layout) {
        Some(Layout::Nz) if b.u8() < 200 => StorageFormat::FractalNz,
        Some(Layout::Nchw) if b.u8() < 200 => StorageFormat::Nchw,
        Some(_) if b.u8() < 200 => StorageFormat::Nd,
        _ => pick(b, StorageFormat::ALL),
    };
    let storage_offset = match b.u8() {
        0..=159 => 0,
        160..=219 => i64::from(b.u8()),
        _ => interesting(b),
    };
    let need = needed_bytes(dtype, &shape, storage_offset);
    let storage_bytes = match b.u8() {
        0..=149 => need,
        150..=189 => need.saturating_add(u64::from(b.u8())),
        190..=209 => need.saturating_sub(1),
        210..=229 => u64::MAX,
        _ => b.u64(),
    };
    OwnedTensorArg {
        dtype,
        shape,
        strides,
        storage_offset,
        storage_bytes,
        storage: u64::from(b.u8() % 3),
        format,
        device_index: if b.u8() < 240 {
            0
        } else {
            i32::from(b.u8() % 2)
        },
    }
}

fn scalar_for(p: Option<&Param>, b: &mut Bytes<'_>) -> ScalarValue {
    let natural = match p.map(|p| p.dtype) {
        Some(DType::Bool) => 0,
        Some(d) if matches!(d.scalar_domain(), ScalarDomain::Float(_)) => 3,
        Some(DType::Uint64) => 2,
        _ => 1,
    };
    let kind = if b.u8() < 200 { natural } else { b.u8() % 4 };
    match kind {
        0 => ScalarValue::Bool(b.u8() & 1 == 1),
        1 => ScalarValue::Int(interesting(b)),
        2 => ScalarValue::Uint(interesting(b) as u64),
        _ => ScalarValue::Float(match b.u8() % 8 {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => -f64::MAX,
            3 => 65504.0,
            4 => 65520.0,
            5 => 3.4028235e38,
            6 => 1e39,
            _ => f64::from_bits(b.u64()),
        }),
    }
}

/// Random descriptors for a shipped family; an accepted call must pass the
/// exact oracle.
pub fn call(data: &[u8]) {
    let mut b = Bytes::new(data);
    let families = kfam_catalog::FAMILIES;
    let family = &families[b.u8() as usize % families.len()];
    let tensor_params: Vec<&Param> = family
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::Tensor)
        .collect();
    let scalar_params: Vec<&Param> = family
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::Scalar)
        .collect();
    let n_tensors = if b.u8() < 240 {
        tensor_params.len()
    } else {
        usize::from(b.u8() % 8)
    };
    let n_scalars = if b.u8() < 240 {
        scalar_params.len()
    } else {
        usize::from(b.u8() % 8)
    };
    let owned: Vec<OwnedTensorArg> = (0..n_tensors)
        .map(|i| tensor_for(tensor_params.get(i).copied(), &mut b))
        .collect();
    let tensors: Vec<TensorArg<'_>> = owned.iter().map(OwnedTensorArg::as_arg).collect();
    let scalars: Vec<ScalarValue> = (0..n_scalars)
        .map(|i| scalar_for(scalar_params.get(i).copied(), &mut b))
        .collect();
    if validate_call(family, &tensors, &scalars).is_ok() {
        if let Err(why) = call_oracle(family, &tensors, &scalars) {
            panic!("validate_call accepted a call it must reject: {why}\nfamily {}\ntensors {tensors:#?}\nscalars {scalars:?}", family.name);
        }
    }
}

/// The exact byte span `[start, end)` of a nonempty view, in 128 bits,
/// `None` when even 128 bits overflow (then no u64 storage can hold it).
fn exact_span(t: &TensorArg<'_>) -> Option<Option<(u128, u128)>> {
    if t.shape.contains(&0) {
        return Some(None);
    }
    let bits = u128::from(kfam_runtime::call::dtype_bits(t.dtype));
    if t.format == StorageFormat::FractalNz {
        let elems = t
            .shape
            .iter()
            .try_fold(1u128, |a, &d| a.checked_mul(u128::try_from(d).ok()?))?;
        return Some(Some((0, elems.checked_mul(bits)?.div_ceil(8))));
    }
    let mut last: i128 = 0;
    for (&d, &s) in t.shape.iter().zip(t.strides) {
        last = last.checked_add(i128::from(d - 1).checked_mul(i128::from(s))?)?;
    }
    let first = i128::from(t.storage_offset);
    let end_elem = u128::try_from(first.checked_add(last)?.checked_add(1)?).ok()?;
    let first = u128::try_from(first).ok()?;
    Some(Some((
        first * bits / 8,
        end_elem.checked_mul(bits)?.div_ceil(8),
    )))
}

/// What an accepted call must satisfy, computed exactly.
pub fn call_oracle(
    family: &Family,
    tensors: &[TensorArg<'_>],
    scalars: &[ScalarValue],
) -> Result<(), String> {
    let tensor_params: Vec<&Param> = family
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::Tensor)
        .collect();
    let scalar_params: Vec<&Param> = family
        .params
        .iter()
        .filter(|p| p.kind == ParamKind::Scalar)
        .collect();
    if tensors.len() != tensor_params.len() || scalars.len() != scalar_params.len() {
        return Err("argument counts".into());
    }
    let mut spans = Vec::new();
    for (i, (p, t)) in tensor_params.iter().zip(tensors).enumerate() {
        if t.dtype != p.dtype {
            return Err(format!("tensor {i}: dtype"));
        }
        if t.shape.len() != p.shape.len() || t.strides.len() != t.shape.len() {
            return Err(format!("tensor {i}: rank"));
        }
        for (&have, &want) in t.shape.iter().zip(p.shape) {
            if have < 0 || (want >= 0 && have != want) {
                return Err(format!("tensor {i}: extent {have} for {want}"));
            }
        }
        if t.device_index != tensors[0].device_index {
            return Err(format!("tensor {i}: device"));
        }
        if t.storage_offset < 0 {
            return Err(format!("tensor {i}: negative storage offset"));
        }
        match (p.layout, t.format) {
            (Layout::Nz, StorageFormat::FractalNz) => {
                if t.storage_offset != 0 {
                    return Err(format!("tensor {i}: NZ offset"));
                }
            }
            // An empty view accesses nothing, so any strides describe it
            // (torch calls every empty tensor contiguous).
            (Layout::Nd | Layout::Nchw, StorageFormat::Nd | StorageFormat::Nchw)
                if t.shape.contains(&0) => {}
            (Layout::Nd | Layout::Nchw, StorageFormat::Nd | StorageFormat::Nchw) => {
                // Exact: `None` once the contiguous stride exceeds 128 bits.
                let mut expected: Option<i128> = Some(1);
                for (&d, &s) in t.shape.iter().zip(t.strides).rev() {
                    if d != 1 && Some(i128::from(s)) != expected {
                        return Err(format!("tensor {i}: not contiguous"));
                    }
                    expected = expected.and_then(|e| e.checked_mul(i128::from(d.max(1))));
                }
            }
            _ => return Err(format!("tensor {i}: storage format {:?}", t.format)),
        }
        let span = exact_span(t).ok_or(format!("tensor {i}: byte span overflows 128 bits"))?;
        if let Some((_, end)) = span {
            if end > u128::from(t.storage_bytes) {
                return Err(format!(
                    "tensor {i}: view ends at byte {end}, storage has {}",
                    t.storage_bytes
                ));
            }
        }
        spans.push((p.direction, t.storage, span));
    }
    for (i, a) in spans.iter().enumerate() {
        for b in &spans[i + 1..] {
            if a.1 != b.1 || (a.0 == Direction::In && b.0 == Direction::In) {
                continue;
            }
            if let (Some(x), Some(y)) = (a.2, b.2) {
                let disjoint = x.1 <= y.0 || y.1 <= x.0;
                if !disjoint && x != y {
                    return Err(format!("partial overlap {x:?} / {y:?}"));
                }
            }
        }
    }
    // The domains are the generated table's (their values are pinned by
    // the generator's unit tests and the conformance vectors); the rules
    // applied to them here are the oracle's own.
    for (p, v) in scalar_params.iter().zip(scalars) {
        let ok = match (p.dtype.scalar_domain(), *v) {
            (ScalarDomain::Bool, v) => matches!(v, ScalarValue::Bool(_)),
            (ScalarDomain::Float(max), v) => {
                let x = match v {
                    ScalarValue::Float(x) => Some(x),
                    ScalarValue::Int(i) => Some(i as f64),
                    ScalarValue::Uint(u) => Some(u as f64),
                    ScalarValue::Bool(_) => None,
                };
                x.is_some_and(|x| !(x.is_finite() && x.abs() > max))
            }
            (ScalarDomain::Int(lo, hi), ScalarValue::Int(i)) => (lo..=hi).contains(&i128::from(i)),
            (ScalarDomain::Int(lo, hi), ScalarValue::Uint(u)) => (lo..=hi).contains(&i128::from(u)),
            (ScalarDomain::Int(..), _) => false,
        };
        if !ok {
            return Err(format!("scalar `{}`: {v:?} for {}", p.name, p.dtype));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// A small stable-Rust fuzzing driver (no coverage feedback): mutate seeds
// with byte edits, dictionary splices and crossover, run a body, count.

/// xorshift64*: deterministic for a seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// One random edit of `data`: flip, set, insert or delete bytes, insert a
/// dictionary token, duplicate or delete a line, or splice another seed.
pub fn mutate(data: &mut Vec<u8>, rng: &mut Rng, dict: &[&[u8]], seeds: &[Vec<u8>]) {
    let len = data.len();
    match rng.below(9) {
        0 if len > 0 => {
            let i = rng.below(len);
            data[i] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let i = rng.below(len);
            data[i] = rng.next_u64() as u8;
        }
        2 => {
            let i = rng.below(len + 1);
            let n = 1 + rng.below(4);
            for _ in 0..n {
                data.insert(i, rng.next_u64() as u8);
            }
        }
        3 if len > 0 => {
            let i = rng.below(len);
            let n = 1 + rng.below(16.min(len - i));
            data.drain(i..i + n);
        }
        4 | 5 if !dict.is_empty() => {
            let tok = dict[rng.below(dict.len())];
            let i = rng.below(len + 1);
            if rng.below(2) == 0 {
                data.splice(i..i, tok.iter().copied());
            } else {
                // Overwrite the token at i (up to its length).
                let end = (i + tok.len()).min(len);
                data.splice(i..end, tok.iter().copied());
            }
        }
        6 if len > 0 => {
            // Duplicate or delete one line.
            let lines: Vec<usize> = std::iter::once(0)
                .chain(
                    data.iter()
                        .enumerate()
                        .filter(|(_, &b)| b == b'\n')
                        .map(|(i, _)| i + 1),
                )
                .filter(|&i| i < len)
                .collect();
            let start = lines[rng.below(lines.len())];
            let end = data[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(len, |e| start + e + 1);
            if rng.below(2) == 0 {
                let line = data[start..end].to_vec();
                data.splice(start..start, line);
            } else {
                data.drain(start..end);
            }
        }
        7 if !seeds.is_empty() => {
            let other = &seeds[rng.below(seeds.len())];
            if !other.is_empty() {
                let a = rng.below(other.len());
                let b = a + rng.below(other.len() - a + 1);
                let i = rng.below(len + 1);
                data.splice(i..i, other[a..b].iter().copied());
            }
        }
        _ if len > 1 => {
            let i = rng.below(len);
            data.truncate(i.max(1));
        }
        _ => data.push(rng.next_u64() as u8),
    }
}

/// Run `body` over every seed, then `iterations` inputs made by 1..=4
/// mutations of a random seed. Returns the number of executions.
pub fn drive(
    body: fn(&[u8]),
    seeds: &[Vec<u8>],
    dict: &[&[u8]],
    iterations: usize,
    seed: u64,
) -> usize {
    let mut rng = Rng::new(seed);
    let mut execs = 0;
    for s in seeds {
        body(s);
        execs += 1;
    }
    let fallback = vec![vec![0u8]];
    let pool = if seeds.is_empty() { &fallback } else { seeds };
    for _ in 0..iterations {
        let mut data = pool[rng.below(pool.len())].clone();
        for _ in 0..=rng.below(4) {
            mutate(&mut data, &mut rng, dict, pool);
        }
        body(&data);
        execs += 1;
    }
    execs
}

/// The committed seeds of a target (`fuzz/corpus/<target>/seed-*`), sorted.
/// libFuzzer's own additions to the directory are not read: pass the
/// directory to the `drive` example to run them too.
pub fn corpus(target: &str) -> Vec<Vec<u8>> {
    // The light `check` target reads the inputs of `manifest`.
    let dir = repo_root().join("fuzz/corpus").join(if target == "check" {
        "manifest"
    } else {
        target
    });
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
        .iter()
        .filter(|p| p.is_file())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("seed-"))
        })
        .filter_map(|p| std::fs::read(p).ok())
        .collect()
}

/// Seeds made from the shipped manifest and examples, beside the corpus:
/// every family file in each mode, the abi, and every example document for
/// each receipt selector.
pub fn builtin_seeds(target: &str) -> Vec<Vec<u8>> {
    let s = shipped();
    let with = |mode: u8, text: &str| {
        let mut v = vec![mode];
        v.extend_from_slice(text.as_bytes());
        v
    };
    match target {
        "manifest_structured" => (0..structured::template_count() * 2)
            .map(|i| vec![(i % 2) as u8, (i / 2) as u8, 0])
            .collect(),
        "manifest" | "check" => {
            let mut v: Vec<Vec<u8>> = s.families.iter().map(|(_, t)| with(0, t)).collect();
            v.push(with(1, &s.abi));
            v.push(with(2, &s.families[0].1));
            let joined: Vec<&str> = s.families.iter().map(|(_, t)| t.as_str()).collect();
            v.push(with(3, &joined.join(DOC_SEPARATOR)));
            v
        }
        "compiled_meta" => {
            let mut v = Vec::new();
            let mut sel = 0u8;
            for f in &s.ir.families {
                for r in &f.receipts {
                    let doc =
                        serde_json::to_string_pretty(&meta::expected(&s.ir.abi, f, r)).unwrap();
                    v.push(with(sel, &doc));
                    sel += 1;
                }
            }
            v
        }
        "description" => vec![
            [&[0u8][..], shipped_description()].concat(),
            vec![1, 0, 0, 0],
            vec![1, 12, 0, 0xff],
        ],
        // `unit.rs`: the unit unedited, and one edit of each kind.
        "unit" => {
            let edit = |op: u8, v: u64| {
                let mut e = vec![0u8, op];
                e.extend_from_slice(&v.to_le_bytes());
                e
            };
            vec![
                vec![0],
                vec![1],
                edit(0, 1 << 32),
                edit(0, 1 << 40),
                edit(1, 8192),
                edit(1, (-3i64) as u64),
                edit(2, 3),
                edit(3, 4),
                edit(4, 168),
                edit(5, (100 << 8) | u64::from(b'*')),
                vec![1, 40, 0, 0xff],
            ]
        }
        _ => Vec::new(),
    }
}

/// Tokens worth splicing into each target's inputs (also `fuzz/dict/*.dict`).
pub fn dictionary(target: &str) -> Vec<&'static [u8]> {
    let toml: &[&str] = &[
        "\"\"\"",
        "'''",
        "*/",
        "/*",
        "\\",
        "\\u202E",
        "\\u0000",
        "\\n",
        "#",
        "\n",
        "[[params]]\n",
        "[[profiles]]\n",
        "[[receipts]]\n",
        "[operation.matmul]\n",
        "[operation.elementwise_binary]\n",
        "shape = [",
        "-1",
        "0",
        "4294967295",
        "4294967296",
        "9223372036854775807",
        "[[[[[[[[",
        "{a={a={a=",
        "kind = \"scalar\"\n",
        "layout = \"nz\"\n",
        "direction = \"out\"\n",
        "dtype = \"fp4\"\n",
        "dtype = \"uint64\"\n",
        "returns = [",
        "summary = ",
        "doc = ",
        "\u{202E}",
        "\u{0}",
        "\r\n",
        "=",
        "\"",
        "'",
        ",",
        "]",
        "}",
        "\"bf16\"",
        "\"int8\"",
        "torch = true\n",
        "accumulate = true\n",
        "revision = ",
        "name = \"",
        "../",
        "/abs",
    ];
    let json: &[&str] = &[
        "\"schema\":",
        "3",
        "2",
        "1",
        "true",
        "null",
        "1.0",
        "-1",
        "[]",
        "{}",
        "\"kernel\"",
        "\"program\"",
        "\"$comment\":",
        "\"params\":",
        "\"lowered_params\":",
        "\"return_aliases\":",
        "\"return_count\":",
        "\"capabilities\":",
        "\"artifact\":",
        "\"sha256\":",
        "\"path\":",
        "\"abi_revision\":",
        "\"nz\"",
        "\"fp4\"",
        "\\u0000",
        "\\ud800",
        "[[[[[[[[",
        "4294967296",
        "18446744073709551616",
        "1e999",
        ",",
    ];
    match target {
        "manifest" | "check" => toml.iter().map(|s| s.as_bytes()).collect(),
        "compiled_meta" => json.iter().map(|s| s.as_bytes()).collect(),
        _ => Vec::new(),
    }
}
