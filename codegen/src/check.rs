//! Check: enforce every manifest rule and, for declarations without errors,
//! lower them into the IR. One walk per family, so each name is resolved once
//! and a rule is stated in one place. All diagnostics of a run are collected.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::Path;

use crate::diag::{Code, Diagnostic, FileId, Report, SourceMap};
use crate::ir::{self, fp4_lowered, nz_lowered, static_byte_size};
use crate::load::Loaded;
use crate::model::{self, AliasRef, Spanned};
use crate::names::{identifier_problem, is_reserved};
use crate::vocab::{BindingKind, Contract, DType, Direction, Layout, ParamKind, Status};

mod abi;
mod dims;
mod operation;
mod params;
mod profiles;
mod receipts;
mod text;

use abi::{check_abi, is_lower_hex};
use dims::agree;
pub use text::{artifact_path_problem, is_forbidden_char, text_problems, MAX_LISTED_NAMES};
use text::{date_problem, is_codec, join_ticks, name_list, printable, suggest_identifier};

/// Longest free-text field.
pub const MAX_TEXT_CHARS: usize = 1000;
/// Upper bound of `max_rank` the generated tables support.
pub const RANK_CEILING: u32 = 8;
/// Upper bound of the tensor and scalar argument limits.
pub const ARG_CEILING: u32 = 65535;
/// Upper bound of `max_prepared`: a context's table of prepared callables
/// is bounded memory, and callable ids stay small.
pub const PREPARED_CEILING: u32 = 65535;

/// Check a loaded manifest; `Some(ir)` when the report (load included) has no errors.
pub fn check(loaded: &Loaded, report: &mut Report) -> Option<ir::Ir> {
    // What `load` reported stays; the checker's own findings that only
    // repeat a repaired structural mistake are dropped below.
    let loaded_count = report.diagnostics.len();
    let abi = loaded
        .abi
        .as_ref()
        .and_then(|(id, abi)| check_abi(*id, abi, report));
    // Without a valid abi.toml, keep checking families against the documented
    // default limits so one run still reports every mistake.
    let limits = abi.as_ref().map_or(DEFAULT_LIMITS, |a| Limits {
        max_tensor_args: a.max_tensor_args,
        max_scalar_args: a.max_scalar_args,
        max_rank: a.max_rank,
    });

    let mut unique = CrossFile::default();
    let mut jobs = Vec::with_capacity(loaded.families.len());
    for (id, file) in &loaded.families {
        let duplicate = unique.add(*id, file, report);
        jobs.push((*id, file, duplicate));
    }
    // Each family is checked on its own (two threads for large manifests).
    let sources = &report.sources;
    let checked = crate::par::map(&jobs, |&(id, file, duplicate)| {
        FamilyChecker::new(id, file, &limits, sources)
            .duplicate_name(duplicate)
            .tainted(loaded.tainted(id))
            .run()
    });
    let mut families = Vec::with_capacity(checked.len());
    for ((id, _, _), outcome) in jobs.iter().zip(checked) {
        report.diagnostics.extend(outcome.diagnostics);
        // A repaired document is judged, never lowered.
        if !loaded.recovered.contains_key(id) {
            families.extend(outcome.family);
        }
    }

    crate::gate::check(loaded, &families, report);
    let own = report.diagnostics.split_off(loaded_count);
    report
        .diagnostics
        .extend(own.into_iter().filter(|d| !loaded.is_cascade(d)));
    // Any error fails the manifest, including those `load` reported for
    // files that never reached the checker (syntax, types, I/O): a lock that
    // did not parse would otherwise be rewritten without its history.
    if report.has_errors() {
        return None;
    }
    let abi = abi?;
    families.sort_by(|a, b| a.name.cmp(&b.name));
    let retired = crate::gate::retired(loaded);
    Some(ir::Ir {
        abi,
        families,
        retired,
    })
}

/// One family file checked against the rest of a loaded manifest: the rules
/// of [`check`] that concern this file, and nothing else (the language
/// server's per-keystroke check; `kfam check` runs the same pieces over every
/// file). `others` is the manifest as loaded, in which a family read from
/// `id`'s path is replaced by `file`; `repaired` records what loading `id`
/// repaired (`load::parse_family`); diagnostics go to `report`, whose
/// sources hold every file of `others` and `id`.
pub fn check_one(
    others: &Loaded,
    id: FileId,
    file: &model::FamilyFile,
    repaired: &Loaded,
    report: &mut Report,
) -> FamilyOutcome {
    // abi.toml's own diagnostics belong to that file; only its limits matter here.
    let limits = others
        .abi
        .as_ref()
        .and_then(|(abi_id, a)| check_abi(*abi_id, a, &mut Report::default()))
        .map_or(DEFAULT_LIMITS, |a| Limits {
            max_tensor_args: a.max_tensor_args,
            max_scalar_args: a.max_scalar_args,
            max_rank: a.max_rank,
        });
    let path = report.sources.get(id).path.clone();
    // The cross-file rules in file order, as `check` runs them: a duplicate
    // is reported on the later file, against the first.
    let mut unique = CrossFile::default();
    let mut scratch = Report {
        sources: std::mem::take(&mut report.sources),
        diagnostics: Vec::new(),
    };
    let mut duplicate = false;
    let mut placed = false;
    for (other, f) in &others.families {
        let other_path = &scratch.sources.get(*other).path;
        if *other_path == path {
            continue;
        }
        if !placed && *other_path > path {
            placed = true;
            duplicate = unique.add(id, file, &mut scratch);
        }
        unique.add(*other, f, &mut scratch);
    }
    if !placed {
        duplicate = unique.add(id, file, &mut scratch);
    }
    report.sources = scratch.sources;
    report.diagnostics.extend(
        scratch
            .diagnostics
            .into_iter()
            .filter(|d| d.file() == Some(id)),
    );
    let mut outcome = FamilyChecker::new(id, file, &limits, &report.sources)
        .duplicate_name(duplicate)
        .tainted(repaired.tainted(id))
        .run();
    // As in `check`: findings that only repeat a repaired structural mistake
    // are dropped, and a repaired document is judged, never lowered.
    outcome.diagnostics.retain(|d| !repaired.is_cascade(d));
    if repaired.recovered.contains_key(&id) {
        outcome.family = None;
    }
    report.diagnostics.append(&mut outcome.diagnostics);
    if let Some(f) = &outcome.family {
        crate::gate::Gate::new(others).family(id, file, f, report);
    }
    outcome
}

/// What checking one family file found.
#[derive(Debug)]
pub struct FamilyOutcome {
    /// The lowered family, when the file has no errors of its own.
    pub family: Option<ir::Family>,
    pub diagnostics: Vec<Diagnostic>,
    /// Every name the checker resolved to a parameter, in check order.
    pub references: Vec<Reference>,
}

/// A place where the family refers to a parameter by name or index (a
/// return alias, an operation operand, a binding): the checker records each
/// one as it resolves it, so editors find references without knowing which
/// fields hold them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The referring value (a string or integer, quotes included).
    pub span: Range<usize>,
    /// Index into the file's `params` of the parameter it names; `None`
    /// when it names none.
    pub param: Option<usize>,
}

/// Names and digests are unique across files: one pass in file order, so
/// the first declaration is the one the others are reported against.
#[derive(Default)]
struct CrossFile<'a> {
    names: HashMap<&'a str, (FileId, Range<usize>)>,
    digests: HashMap<&'a str, (FileId, Range<usize>)>,
}

impl<'a> CrossFile<'a> {
    /// Record one family file; report its duplicates. True when its name is
    /// declared by an earlier file.
    fn add(&mut self, id: FileId, file: &'a model::FamilyFile, report: &mut Report) -> bool {
        let name = &file.name;
        let duplicate = if let Some((first, span)) = self.names.get(name.value.as_str()) {
            let first_at = position(report, *first, span);
            report.diagnostics.push(
                Diagnostic::error(
                    Code::DuplicateFamily,
                    id,
                    name.span.clone(),
                    format!("family `{}` is declared twice", name.value),
                )
                .label("second declaration")
                .note(format!("first declared at {first_at}"))
                .related(*first, span.clone(), "first declared here")
                .help(
                    "family names are unique; rename one, or bump `revision` in the existing file",
                ),
            );
            true
        } else {
            self.names.insert(&name.value, (id, name.span.clone()));
            false
        };
        for r in &file.receipts {
            let sha = &r.value.sha256;
            if let Some((first_id, first_span)) = self.digests.get(sha.value.as_str()) {
                let first_at = position(report, *first_id, first_span);
                report.diagnostics.push(
                    Diagnostic::error(Code::DuplicateDigest, id, sha.span.clone(), "artifact digest recorded twice")
                        .label("already recorded by another receipt")
                        .note(format!("first recorded at {first_at}"))
                        .related(*first_id, first_span.clone(), "first recorded here")
                        .help("each qualified artifact has its own digest; write the output of `sha256sum ARTIFACT`"),
                );
            } else {
                self.digests.insert(&sha.value, (id, sha.span.clone()));
            }
        }
        duplicate
    }
}

#[derive(Clone, Copy)]
struct Limits {
    max_tensor_args: u32,
    max_scalar_args: u32,
    max_rank: u32,
}

const DEFAULT_LIMITS: Limits = Limits {
    max_tensor_args: 256,
    max_scalar_args: 128,
    max_rank: 5,
};

/// `path:line:column` of a span's start, for notes that point at a second place.
fn position(report: &Report, id: FileId, span: &Range<usize>) -> String {
    let (line, column) = report.sources.line_col(id, span.start);
    format!("{}:{line}:{column}", report.sources.get(id).path)
}

fn err(code: Code, id: FileId, span: &Range<usize>, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, id, span.clone(), msg)
}

/// Checks one family and lowers it when it has no errors.
struct FamilyChecker<'a> {
    id: FileId,
    file: &'a model::FamilyFile,
    limits: &'a Limits,
    sources: &'a SourceMap,
    /// This family's diagnostics, merged into the report afterwards.
    diagnostics: Vec<Diagnostic>,
    /// Name -> index into `params`, first declaration wins.
    param_index: HashMap<&'a str, usize>,
    params: Vec<ir::Param>,
    /// Parameters whose own declaration had errors; rules that combine
    /// parameters skip them so one mistake is reported once.
    bad_params: HashSet<usize>,
    /// The family name is already declared by another file (reported there).
    duplicate_name: bool,
    /// Parameter references, as resolved.
    references: Vec<Reference>,
    /// Tables `load` repaired (see `Loaded::recovered`).
    tainted: &'a [Range<usize>],
    /// Symbol name -> index into `symbols`.
    symbol_index: HashMap<&'a str, usize>,
    symbols: Vec<ir::Symbol>,
    /// Where each symbol is first used.
    symbol_spans: Vec<Range<usize>>,
}

impl<'a> FamilyChecker<'a> {
    fn new(
        id: FileId,
        file: &'a model::FamilyFile,
        limits: &'a Limits,
        sources: &'a SourceMap,
    ) -> Self {
        FamilyChecker {
            id,
            file,
            limits,
            sources,
            diagnostics: Vec::new(),
            param_index: HashMap::new(),
            params: Vec::new(),
            bad_params: HashSet::new(),
            duplicate_name: false,
            references: Vec::new(),
            tainted: &[],
            symbol_index: HashMap::new(),
            symbols: Vec::new(),
            symbol_spans: Vec::new(),
        }
    }

    fn tainted(mut self, tainted: &'a [Range<usize>]) -> Self {
        self.tainted = tainted;
        self
    }

    /// Whether `load` repaired parameter `i`'s declaration.
    fn repaired(&self, i: usize) -> bool {
        self.file
            .params
            .get(i)
            .is_some_and(|p| self.tainted.contains(&p.span))
    }

    fn duplicate_name(mut self, duplicate: bool) -> Self {
        self.duplicate_name = duplicate;
        self
    }

    fn push(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// The family's IR when it has no errors, its diagnostics and references.
    fn run(mut self) -> FamilyOutcome {
        let family = self.lower();
        FamilyOutcome {
            family,
            diagnostics: self.diagnostics,
            references: self.references,
        }
    }

    fn refer(&mut self, span: &Range<usize>, param: Option<usize>) {
        self.references.push(Reference {
            span: span.clone(),
            param,
        });
    }

    fn lower(&mut self) -> Option<ir::Family> {
        let f = self.file;
        self.check_name(&f.name, "family");
        let stem = Path::new(&self.sources.get(self.id).path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        // A duplicate family is reported once, as a duplicate: renaming the file
        // to the family name would only collide with the first declaration.
        if stem != f.name.value
            && identifier_problem(&f.name.value).is_none()
            && !self.duplicate_name
        {
            self.push(
                err(
                    Code::FileNameMismatch,
                    self.id,
                    &f.name.span,
                    format!("family `{}` is declared in `{stem}.toml`", f.name.value),
                )
                .label("does not match the file name")
                .help(format!("rename the file to `{}.toml`", f.name.value)),
            );
        }
        if f.revision.value == 0 {
            self.push(
                err(
                    Code::OutOfRange,
                    self.id,
                    &f.revision.span,
                    "`revision` starts at 1",
                )
                .label("out of range")
                .help("use `revision = 1` for a new family"),
            );
        }
        self.check_text(&f.summary, "summary", true, true);

        for p in &f.params {
            let before = self.error_count();
            self.check_param(p);
            let repaired = self.tainted.contains(&p.span);
            if self.error_count() > before || repaired {
                self.bad_params.insert(self.params.len() - 1);
            }
        }
        self.check_counts();
        self.check_symbols();
        let returns = self.check_returns();
        let operation = self.check_operation();
        let profiles = self.check_profiles();
        let receipts = self.check_receipts(&profiles);
        self.check_torch();

        if self.error_count() > 0 {
            return None;
        }
        let tensor_count = self.params.iter().filter(|p| p.is_tensor()).count();
        let scalar_count = self.params.len() - tensor_count;
        let mut family = ir::Family {
            name: f.name.value.clone(),
            revision: f.revision.value,
            summary: f.summary.value.clone(),
            contract: f.contract.value,
            torch: f.torch.as_ref().is_some_and(|t| t.value),
            operation: operation?,
            params: std::mem::take(&mut self.params),
            returns,
            profiles,
            receipts,
            tensor_count,
            scalar_count,
            identity: String::new(),
            canonical: String::new(),
            torch_schema: None,
            symbols: std::mem::take(&mut self.symbols),
            source: self.sources.get(self.id).path.clone(),
        };
        family.canonical = family.canonical_identity();
        family.identity = ir::sha256_hex(family.canonical.as_bytes());
        // Offered only when requested (KF0901 guarantees it then exists).
        family.torch_schema = family.torch.then(|| family.torch_schema_string()).flatten();
        Some(family)
    }

    fn check_name(&mut self, name: &Spanned<String>, what: &str) {
        if let Some(problem) = identifier_problem(&name.value) {
            let suggestion = suggest_identifier(&name.value);
            let mut d = err(
                Code::InvalidIdentifier,
                self.id,
                &name.span,
                format!("{what} name `{}` is not a valid identifier", name.value),
            )
            .label(problem);
            if let Some(s) = suggestion {
                d = d.help(format!("use lowercase snake_case, e.g. `{s}`"));
            }
            self.push(d);
        } else if is_reserved(&name.value) {
            self.push(
                err(
                    Code::ReservedWord,
                    self.id,
                    &name.span,
                    format!("{what} name `{}` is a reserved word", name.value),
                )
                .label("reserved in Rust, C, C++ or Python")
                .help(format!("pick another name, e.g. `{}_value`", name.value)),
            );
        }
    }

    /// Free text goes into comments and strings of every generated language.
    fn check_text(
        &mut self,
        text: &Spanned<String>,
        field: &str,
        allow_newline: bool,
        required: bool,
    ) {
        let found = text_problems(self.sources, self.id, text, field, allow_newline, required);
        self.diagnostics.extend(found);
    }

    fn check_counts(&mut self) {
        let f = self.file;
        let (mut tensors, mut scalars) = (0u32, 0u32);
        for (p, decl) in self.params.iter().zip(&f.params) {
            let (count, limit, code, what) = if p.is_tensor() {
                tensors += 1;
                (
                    tensors,
                    self.limits.max_tensor_args,
                    Code::TensorLimit,
                    "tensor",
                )
            } else {
                scalars += 1;
                (
                    scalars,
                    self.limits.max_scalar_args,
                    Code::ScalarLimit,
                    "scalar",
                )
            };
            if count == limit + 1 {
                let key = if p.is_tensor() {
                    "max_tensor_args"
                } else {
                    "max_scalar_args"
                };
                self.diagnostics.push(
                    err(
                        code,
                        self.id,
                        &decl.value.name.span,
                        format!("more than {limit} {what} parameters"),
                    )
                    .label(format!("{what} parameter {count}"))
                    .help(format!("`limits.{key}` in abi.toml is {limit}")),
                );
            }
        }
    }

    fn check_returns(&mut self) -> Vec<usize> {
        let id = self.id;
        let f = self.file;
        let mut out = Vec::new();
        for r in &f.returns {
            let target = match &r.value {
                AliasRef::Name(n) => self.param_index.get(n.as_str()).copied(),
                AliasRef::Index(i) => usize::try_from(*i).ok().filter(|&i| i < self.params.len()),
            };
            self.refer(&r.span, target);
            let idx = match &r.value {
                AliasRef::Name(n) => match self.param_index.get(n.as_str()) {
                    Some(&i) => i,
                    None => {
                        self.push(
                            err(
                                Code::AliasUnknownParam,
                                id,
                                &r.span,
                                format!("return alias `{n}` names no parameter"),
                            )
                            .label("unknown parameter")
                            .help(self.known_params_help()),
                        );
                        continue;
                    }
                },
                AliasRef::Index(i) => {
                    match usize::try_from(*i).ok().filter(|&i| i < self.params.len()) {
                        Some(i) => i,
                        None => {
                            self.push(
                                err(
                                    Code::AliasOutOfRange,
                                    id,
                                    &r.span,
                                    format!("return alias index {i} is out of range"),
                                )
                                .label(format!(
                                    "the signature has {} parameters",
                                    self.params.len()
                                ))
                                .help("indices count every parameter, scalars included, from 0"),
                            );
                            continue;
                        }
                    }
                }
            };
            // A parameter `load` repaired may hold a stand-in kind or
            // direction; its mistake is reported already.
            if self.repaired(idx) {
                out.push(idx);
                continue;
            }
            let p = &self.params[idx];
            if !p.is_tensor() {
                let msg = format!("return alias `{}` names a scalar parameter", p.name);
                let help = self.output_help();
                self.push(
                    err(Code::AliasScalar, id, &r.span, msg)
                        .label("aliases must name `out` or `inout` tensors")
                        .help(help),
                );
                continue;
            }
            if p.direction == Direction::In {
                let msg = format!("return alias `{}` names an `in` tensor", p.name);
                let help = self.output_help();
                self.push(
                    err(Code::AliasInput, id, &r.span, msg)
                        .label("aliases must name `out` or `inout` tensors")
                        .help(help),
                );
                continue;
            }
            out.push(idx);
        }
        if f.contract.value == Contract::Kernel
            && !self
                .params
                .iter()
                .enumerate()
                .any(|(i, p)| (p.is_tensor() && p.direction != Direction::In) || self.repaired(i))
        {
            self.push(
                err(
                    Code::KernelWithoutOutput,
                    id,
                    &f.contract.span,
                    "kernel family has no `out` or `inout` tensor",
                )
                .label("kernel contract")
                .help("declare the caller-supplied result buffer as an `out` tensor"),
            );
        }
        out
    }

    fn known_params_help(&self) -> String {
        // Only the listed names are formatted: this runs once per error.
        let mut names: Vec<String> = self
            .params
            .iter()
            .take(MAX_LISTED_NAMES)
            .map(|p| format!("`{}`", p.name))
            .collect();
        if names.is_empty() {
            return "the family declares no parameters".to_owned();
        }
        let more = self.params.len() - names.len();
        if more > 0 {
            names.push(format!("and {more} more"));
            let last = names.pop().unwrap_or_default();
            return format!("declared parameters: {} {last}", names.join(", "));
        }
        format!("declared parameters: {}", names.join(", "))
    }

    fn output_help(&self) -> String {
        match self
            .params
            .iter()
            .find(|p| p.is_tensor() && p.direction != Direction::In)
        {
            Some(p) => format!("return the tensor that holds the result, e.g. `{}`", p.name),
            None => "declare the result as an `out` tensor and return it".to_owned(),
        }
    }

    fn check_torch(&mut self) {
        let Some(torch) = self.file.torch.as_ref().filter(|t| t.value) else {
            return;
        };
        if let Some((p, decl)) = self
            .params
            .iter()
            .zip(&self.file.params)
            .find(|(p, _)| !p.is_tensor() && p.dtype.torch_scalar().is_none())
        {
            let msg = format!(
                "torch cannot represent {} scalar `{}`",
                p.dtype.as_str(),
                p.name
            );
            self.push(
                err(
                    Code::TorchUnrepresentable,
                    self.id,
                    &decl.value.dtype.span,
                    msg,
                )
                .label("no torch scalar type")
                .help("use an `int64` scalar, or set `torch = false`"),
            );
        }
        let _ = torch;
    }
}
