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

mod operation;

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

fn check_abi(id: FileId, abi: &model::AbiFile, report: &mut Report) -> Option<ir::Abi> {
    let before = report.error_count();
    let rev = &abi.revision;
    if !is_lower_hex(&rev.value, 40) {
        report.diagnostics.push(
            err(
                Code::BadAbiRevision,
                id,
                &rev.span,
                "ABI revision is not a 40-digit lowercase hex commit",
            )
            .label("expected 40 lowercase hex digits")
            .help("pin the full commit id of the native runtime, e.g. from `git rev-parse HEAD`"),
        );
    }
    let limits = &abi.limits.value;
    const TABLES: &str = "the generated tables hold";
    for (key, v, ceiling, holder) in [
        (
            "max_tensor_args",
            &limits.max_tensor_args,
            ARG_CEILING,
            TABLES,
        ),
        (
            "max_scalar_args",
            &limits.max_scalar_args,
            ARG_CEILING,
            TABLES,
        ),
        ("max_rank", &limits.max_rank, RANK_CEILING, TABLES),
        (
            "max_prepared",
            &limits.max_prepared,
            PREPARED_CEILING,
            "a kernel context holds",
        ),
    ] {
        if v.value == 0 || v.value > ceiling {
            report.diagnostics.push(
                err(
                    Code::OutOfRange,
                    id,
                    &v.span,
                    format!("`limits.{key}` must be between 1 and {ceiling}"),
                )
                .label("out of range")
                .help(format!(
                    "{holder} 1 to {ceiling}; pick a value in that range"
                )),
            );
        }
    }
    let s = &abi.status.value;
    let status = vec![
        (Status::Ok, &s.ok),
        (Status::Internal, &s.internal),
        (Status::Unsupported, &s.unsupported),
        (Status::PreparedIncompatible, &s.prepared_incompatible),
        (Status::InvalidState, &s.invalid_state),
        (Status::InvalidArgument, &s.invalid_argument),
        (Status::NotFound, &s.not_found),
        (Status::RecompileRequired, &s.recompile_required),
        (Status::NotApproved, &s.not_approved),
    ];
    let mut values: HashMap<i32, Status> = HashMap::new();
    for (name, v) in &status {
        if *name == Status::Ok && v.value != 0 {
            report.diagnostics.push(
                err(Code::StatusCodes, id, &v.span, "status `ok` must be 0")
                    .label("expected 0")
                    .help("write `ok = 0`: C callers test `status < 0` for failure"),
            );
        } else if *name != Status::Ok && v.value >= 0 {
            report.diagnostics.push(
                err(
                    Code::StatusCodes,
                    id,
                    &v.span,
                    format!("status `{name}` must be negative"),
                )
                .label("not negative")
                .help("failure codes are negative, so C callers can test `status < 0`"),
            );
        }
        if let Some(other) = values.insert(v.value, *name) {
            report.diagnostics.push(
                err(
                    Code::StatusCodes,
                    id,
                    &v.span,
                    format!("status `{name}` reuses the value of `{other}`"),
                )
                .label("duplicate value")
                .help("give every status its own negative value, so C callers can switch on it"),
            );
        }
    }
    if report.error_count() > before {
        return None;
    }
    Some(ir::Abi {
        revision: rev.value.clone(),
        major: abi.major.value,
        minor: abi.minor.value,
        max_tensor_args: limits.max_tensor_args.value,
        max_scalar_args: limits.max_scalar_args.value,
        max_rank: limits.max_rank.value,
        max_prepared: limits.max_prepared.value,
        status: status.into_iter().map(|(k, v)| (k, v.value)).collect(),
    })
}

fn is_lower_hex(s: &str, len: usize) -> bool {
    s.len() == len
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
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

    fn check_param(&mut self, p: &'a Spanned<model::Param>) {
        let id = self.id;
        let decl = &p.value;
        let name = &decl.name;
        self.check_name(name, "parameter");
        let index = self.params.len();
        if let Some(&first) = self.param_index.get(name.value.as_str()) {
            let first = self.file.params[first].value.name.span.clone();
            self.push(
                err(
                    Code::DuplicateParam,
                    id,
                    &name.span,
                    format!("parameter `{}` is declared twice", name.value),
                )
                .label("second declaration")
                .related(id, first, "first declared here")
                .help("parameter names are unique within a family"),
            );
        } else {
            self.param_index.insert(&name.value, index);
        }
        if let Some(doc) = &decl.doc {
            self.check_text(doc, "doc", true, false);
        }
        let kind = decl.kind.as_ref().map_or(ParamKind::Tensor, |k| k.value);
        let direction = decl.direction.as_ref().map_or(Direction::In, |d| d.value);
        let dtype = decl.dtype.value;
        let layout = decl.layout.as_ref().map_or(Layout::Nd, |l| l.value);
        let pool_index = self.params.iter().filter(|q| q.kind == kind).count();
        let dims: Vec<ir::Extent> = match (&decl.shape, kind) {
            (Some(s), ParamKind::Tensor) => s
                .value
                .iter()
                .enumerate()
                .map(|(axis, d)| {
                    let at = ir::DimUse {
                        param: index,
                        tensor: pool_index,
                        axis,
                    };
                    self.extent(d, Some(at))
                })
                .collect(),
            _ => Vec::new(),
        };
        let shape: Vec<i64> = dims.iter().map(|e| e.as_i64()).collect();
        let mut lowered = shape.clone();

        match kind {
            ParamKind::Scalar => {
                if let Some(s) = &decl.shape {
                    self.push(
                        err(
                            Code::ScalarShape,
                            id,
                            &s.span,
                            format!("scalar `{}` has a shape", name.value),
                        )
                        .label("scalars have no shape")
                        .help("remove `shape`, or remove `kind = \"scalar\"` to declare a tensor"),
                    );
                }
                if let Some(l) = &decl.layout {
                    self.push(
                        err(
                            Code::ScalarShape,
                            id,
                            &l.span,
                            format!("scalar `{}` has a layout", name.value),
                        )
                        .label("scalars have no layout")
                        .help("remove `layout`"),
                    );
                }
                if let Some(d) = decl.direction.as_ref().filter(|d| d.value != Direction::In) {
                    self.push(
                        err(
                            Code::ScalarDirection,
                            id,
                            &d.span,
                            format!("scalar `{}` is `{}`", name.value, d.value),
                        )
                        .label("scalars are always `in`")
                        .help("write results into an `out` or `inout` tensor"),
                    );
                }
                if !dtype.scalar_allowed() {
                    self.push(
                        err(
                            Code::ScalarDType,
                            id,
                            &decl.dtype.span,
                            format!("scalar `{}` cannot have dtype `{dtype}`", name.value),
                        )
                        .label("no scalar representation")
                        .help("use `fp32` or `fp16`"),
                    );
                }
            }
            ParamKind::Tensor => {
                lowered = self.check_tensor_shape(p, dtype, direction, layout, &dims);
            }
        }
        self.params.push(ir::Param {
            name: name.value.clone(),
            index,
            kind,
            direction,
            dtype,
            shape,
            dims,
            layout,
            lowered_shape: lowered,
            pool_index,
            doc: decl.doc.as_ref().map(|d| d.value.clone()),
        });
    }

    /// Shape, layout and packing rules of one tensor; returns its lowered shape.
    fn check_tensor_shape(
        &mut self,
        p: &Spanned<model::Param>,
        dtype: DType,
        direction: Direction,
        layout: Layout,
        dims: &[ir::Extent],
    ) -> Vec<i64> {
        let shape: &[i64] = &dims.iter().map(|e| e.as_i64()).collect::<Vec<_>>();
        let id = self.id;
        let decl = &p.value;
        let name = &decl.name.value;
        let max_rank = self.limits.max_rank as usize;
        let shape_span = decl
            .shape
            .as_ref()
            .map_or(p.span.clone(), |s| s.span.clone());
        if shape.is_empty() || shape.len() > max_rank {
            let mut d = err(
                Code::RankOutOfBounds,
                id,
                &shape_span,
                format!(
                    "tensor `{name}` has rank {}, outside 1..={max_rank}",
                    shape.len()
                ),
            )
            .label(if shape.is_empty() {
                "no extents"
            } else {
                "too many extents"
            });
            d = if decl.shape.is_none() {
                d.help("declare `shape = [...]`, or `kind = \"scalar\"` for a scalar")
            } else {
                d.help(format!("`limits.max_rank` in abi.toml is {max_rank}"))
            };
            self.push(d);
        }
        let mut dims_ok = true;
        for d in decl.shape.iter().flat_map(|s| s.value.iter()) {
            let model::Dim::Extent(v) = d.value else {
                continue;
            };
            if v != -1 && !(1..=i64::from(u32::MAX)).contains(&v) {
                dims_ok = false;
                self.push(
                    err(
                        Code::DimOutOfBounds,
                        id,
                        &d.span,
                        format!("dimension {v} of `{name}` is out of bounds"),
                    )
                    .label("expected 1..=4294967295, or -1 for a dynamic extent")
                    .help("write the static extent, or `-1` for an extent the caller chooses"),
                );
            }
        }
        if dims_ok && static_byte_size(shape, dtype).is_none() {
            self.push(
                err(
                    Code::ByteSizeOverflow,
                    id,
                    &shape_span,
                    format!("the byte size of `{name}` overflows 64 bits"),
                )
                .label("product of extents too large")
                .help(
                    "no such tensor can be allocated; use smaller extents or `-1` for dynamic ones",
                ),
            );
        }
        let layout_span = decl
            .layout
            .as_ref()
            .map_or(p.span.clone(), |l| l.span.clone());
        let mut lowered = shape.to_vec();
        match layout {
            Layout::Nd => {}
            Layout::Nchw => {
                if shape.len() != 4 {
                    self.push(
                        err(
                            Code::NchwRank,
                            id,
                            &layout_span,
                            format!("`nchw` tensor `{name}` has rank {}", shape.len()),
                        )
                        .label("needs rank 4")
                        .help("use `nd` for other ranks"),
                    );
                }
            }
            Layout::Nz => {
                if !dtype.nz_allowed() {
                    self.push(
                        err(
                            Code::NzDType,
                            id,
                            &decl.dtype.span,
                            format!("NZ tensor `{name}` has dtype `{dtype}`"),
                        )
                        .label("NZ is defined for fp16, bf16 and int8")
                        .help("use `nd`, or one of fp16, bf16, int8"),
                    );
                } else if direction != Direction::In {
                    let span = decl
                        .direction
                        .as_ref()
                        .map_or(layout_span.clone(), |d| d.span.clone());
                    self.push(
                        err(
                            Code::NzDirection,
                            id,
                            &span,
                            format!("NZ tensor `{name}` is `{direction}`"),
                        )
                        .label("NZ is accepted for read-only inputs only")
                        .help("make it `in`, or use `nd`"),
                    );
                } else if shape.len() < 2 {
                    self.push(
                        err(
                            Code::NzRank,
                            id,
                            &layout_span,
                            format!("NZ tensor `{name}` has rank {}", shape.len()),
                        )
                        .label("NZ blocks the last two dimensions")
                        .help("use `layout = \"nd\"` for a rank-1 tensor"),
                    );
                } else if let Some(axis) = self.symbol_axis(decl, dims.len() - 2..dims.len()) {
                    self.static_only(
                        axis,
                        &format!("NZ tensor `{name}` blocks its last two dimensions"),
                    );
                } else {
                    match nz_lowered(shape, dtype) {
                        Some(l) => lowered = l,
                        None => {
                            let c0 = ir::nz_c0(dtype);
                            self.push(
                                err(Code::NzExtent, id, &shape_span, format!("NZ tensor `{name}` cannot be blocked into 16 x {c0} fractals"))
                                    .label(format!("rows must be a static multiple of 16, columns a static multiple of {c0}"))
                                    .help("only leading dimensions may be dynamic (-1) in NZ"),
                            )
                        }
                    }
                }
            }
        }
        if dtype == DType::Fp4 && !shape.is_empty() {
            if let Some(axis) = self.symbol_axis(decl, dims.len() - 1..dims.len()) {
                self.static_only(
                    axis,
                    &format!("fp4 tensor `{name}` is packed along its last dimension"),
                );
                return lowered;
            }
            match fp4_lowered(&lowered) {
                Some(l) => lowered = l,
                None => self.push(
                    err(
                        Code::Fp4Packing,
                        id,
                        &shape_span,
                        format!("fp4 tensor `{name}` has no static even last dimension"),
                    )
                    .label("packed fp4 halves the last dimension")
                    .help("make the last extent static and even"),
                ),
            }
        }
        lowered
    }

    /// A shape entry as an extent; a symbol is interned, its use recorded.
    fn extent(&mut self, d: &'a Spanned<model::Dim>, at: Option<ir::DimUse>) -> ir::Extent {
        match &d.value {
            model::Dim::Extent(-1) => ir::Extent::Dynamic,
            model::Dim::Extent(v) => ir::Extent::Static(*v),
            model::Dim::Symbol(name) => {
                let i = match self.symbol_index.get(name.as_str()) {
                    Some(&i) => i,
                    None => {
                        self.check_name(
                            &Spanned {
                                span: d.span.clone(),
                                value: name.clone(),
                            },
                            "symbol",
                        );
                        let i = self.symbols.len();
                        self.symbol_index.insert(name, i);
                        self.symbols.push(ir::Symbol {
                            name: name.clone(),
                            min: 0,
                            max: None,
                            multiple_of: 1,
                            uses: Vec::new(),
                        });
                        self.symbol_spans.push(d.span.clone());
                        i
                    }
                };
                if let Some(at) = at {
                    self.symbols[i].uses.push(at);
                }
                ir::Extent::Symbol(i)
            }
        }
    }

    /// A payload extent: a symbol must be one the shapes declare.
    fn payload_extent(&mut self, d: &Spanned<model::Dim>, key: &str) -> Option<ir::Extent> {
        match &d.value {
            model::Dim::Extent(-1) => Some(ir::Extent::Dynamic),
            model::Dim::Extent(v) => Some(ir::Extent::Static(*v)),
            model::Dim::Symbol(name) => match self.symbol_index.get(name.as_str()) {
                Some(&i) => Some(ir::Extent::Symbol(i)),
                None => {
                    let help = self.known_symbols_help();
                    self.push(
                        err(
                            Code::UnknownSymbol,
                            self.id,
                            &d.span,
                            format!("`{key} = \"{name}\"` names a symbol no shape uses"),
                        )
                        .label("unknown symbol")
                        .help(help),
                    );
                    None
                }
            },
        }
    }

    fn known_symbols_help(&self) -> String {
        if self.symbols.is_empty() {
            return "no parameter shape uses a symbol; name the extent in the operands' `shape` first".to_owned();
        }
        let names: Vec<String> = self
            .symbols
            .iter()
            .take(MAX_LISTED_NAMES)
            .map(|s| format!("`{}`", s.name))
            .collect();
        format!("symbols used by the shapes: {}", names.join(", "))
    }

    /// The first axis in `axes` of `decl`'s shape that is a symbol.
    fn symbol_axis(
        &self,
        decl: &'a model::Param,
        axes: Range<usize>,
    ) -> Option<&'a Spanned<model::Dim>> {
        let shape = &decl.shape.as_ref()?.value;
        shape
            .get(axes)?
            .iter()
            .find(|d| matches!(d.value, model::Dim::Symbol(_)))
    }

    fn static_only(&mut self, d: &Spanned<model::Dim>, why: &str) {
        let symbol = match &d.value {
            model::Dim::Symbol(s) => s.as_str(),
            model::Dim::Extent(_) => "",
        };
        self.push(
            err(
                Code::SymbolStaticOnly,
                self.id,
                &d.span,
                format!("symbol `{}` sits where the extent must be static", symbol),
            )
            .label(why.to_owned())
            .help("write the static extent here; symbols may name the other dimensions"),
        );
    }

    /// Symbols used once (then just `-1`), and the `[dims]` constraints.
    fn check_symbols(&mut self) {
        let id = self.id;
        for (i, s) in self.symbols.iter().enumerate() {
            if s.uses.len() == 1 {
                let p = s.uses[0].param;
                let d = Diagnostic::warning(
                    Code::SymbolUsedOnce,
                    id,
                    self.symbol_spans[i].clone(),
                    format!(
                        "symbol `{}` is used only once (by `{}`)",
                        s.name, self.params[p].name
                    ),
                )
                .label("ties nothing: it is just `-1`")
                .help("use the same name for every extent that must be equal, or write -1");
                self.diagnostics.push(d);
            }
        }
        let f = self.file;
        for (name, rule) in &f.dims.0 {
            let Some(&i) = self.symbol_index.get(name.value.as_str()) else {
                let help = self.known_symbols_help();
                self.push(
                    err(
                        Code::UnknownSymbol,
                        id,
                        &name.span,
                        format!("`[dims.{}]` constrains a symbol no shape uses", name.value),
                    )
                    .label("unknown symbol")
                    .help(help),
                );
                continue;
            };
            let r = &rule.value;
            let mut ok = true;
            let mut bounded = |v: &Option<Spanned<i64>>, key: &str, lo: i64| -> Option<u32> {
                let v = v.as_ref()?;
                match u32::try_from(v.value).ok().filter(|&x| i64::from(x) >= lo) {
                    Some(x) => Some(x),
                    None => {
                        ok = false;
                        let label = if key == "multiple_of" && v.value == 0 {
                            "every extent is a multiple of 1; 0 divides nothing".to_owned()
                        } else {
                            format!("expected {lo}..=4294967295")
                        };
                        self.diagnostics.push(
                            err(
                                Code::DimConstraintValue,
                                id,
                                &v.span,
                                format!(
                                    "`{key} = {}` of symbol `{}` is out of bounds",
                                    v.value, name.value
                                ),
                            )
                            .label(label),
                        );
                        None
                    }
                }
            };
            let min = bounded(&r.min, "min", 0);
            let max = bounded(&r.max, "max", 1);
            let multiple_of = bounded(&r.multiple_of, "multiple_of", 1);
            if !ok {
                continue;
            }
            let s = &mut self.symbols[i];
            s.min = min.unwrap_or(0);
            s.max = max;
            s.multiple_of = multiple_of.unwrap_or(1);
            // The smallest accepted extent: the first multiple at or above min.
            let m = u64::from(s.multiple_of);
            let first = u64::from(s.min).div_ceil(m) * m;
            if let Some(hi) = s.max.filter(|&hi| first > u64::from(hi)) {
                let msg = if s.min > hi {
                    format!(
                        "symbol `{}` has `min = {}` above `max = {hi}`",
                        s.name, s.min
                    )
                } else {
                    format!(
                        "no multiple of {} lies in {}..={hi} for symbol `{}`",
                        s.multiple_of, s.min, s.name
                    )
                };
                self.push(
                    err(Code::DimConstraintEmpty, id, &rule.span, msg)
                        .label("no extent satisfies these constraints")
                        .help("widen the range, or fix the bounds"),
                );
            }
        }
    }

    /// `[-1, "rows", 128]`: a shape as the manifest spells it.
    fn shape_text(&self, dims: &[ir::Extent]) -> String {
        let items: Vec<String> = dims
            .iter()
            .map(|&e| match e {
                ir::Extent::Symbol(i) => format!("{:?}", self.symbols[i].name),
                e => e.as_i64().to_string(),
            })
            .collect();
        format!("[{}]", items.join(", "))
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

    fn check_profiles(&mut self) -> Vec<ir::Profile> {
        let id = self.id;
        let mut out = Vec::new();
        let mut names = HashSet::new();
        for pr in &self.file.profiles {
            let decl = &pr.value;
            self.check_name(&decl.name, "profile");
            if !names.insert(decl.name.value.as_str()) {
                self.push(
                    err(
                        Code::DuplicateProfile,
                        id,
                        &decl.name.span,
                        format!("profile `{}` is declared twice", decl.name.value),
                    )
                    .label("second declaration")
                    .help("profile names are unique within a family; rename one"),
                );
            }
            let platform = decl.platform.value;
            if !platform.backends().contains(&decl.backend.value) {
                self.push(
                    err(
                        Code::PlatformBackend,
                        id,
                        &decl.backend.span,
                        format!(
                            "backend `{}` is not available on `{platform}`",
                            decl.backend.value
                        ),
                    )
                    .label("wrong backend")
                    .help(format!(
                        "`{platform}` supports: {}",
                        join_ticks(platform.backends())
                    )),
                );
            }
            if !platform.runtimes().contains(&decl.runtime.value) {
                self.push(
                    err(
                        Code::PlatformBackend,
                        id,
                        &decl.runtime.span,
                        format!(
                            "runtime `{}` is not available on `{platform}`",
                            decl.runtime.value
                        ),
                    )
                    .label("wrong runtime")
                    .help(format!(
                        "`{platform}` supports: {}",
                        join_ticks(platform.runtimes())
                    )),
                );
            }
            if !platform.supports_nz() {
                if let Some(p) = self.params.iter().find(|p| p.layout == Layout::Nz) {
                    let msg = format!("NZ tensor `{}` cannot run on `{platform}`", p.name);
                    self.push(
                        err(Code::NzPlatform, id, &decl.platform.span, msg)
                            .label("platform without NZ support")
                            .help("NZ is supported on `a2a3`; use `nd` or another platform"),
                    );
                }
            }
            let bindings = self.check_bindings(pr);
            out.push(ir::Profile {
                name: decl.name.value.clone(),
                platform,
                backend: decl.backend.value,
                runtime: decl.runtime.value,
                execution_mode: decl.execution_mode.value,
                bindings,
            });
        }
        out
    }

    fn check_bindings(&mut self, pr: &Spanned<model::Profile>) -> Vec<ir::Binding> {
        let id = self.id;
        let mut bound: BTreeMap<usize, ()> = BTreeMap::new();
        let mut slots: HashMap<u32, &str> = HashMap::new();
        let mut out = Vec::new();
        let mut unknown = Vec::new();
        for b in &pr.value.bindings {
            let b = &b.value;
            let target = self.param_index.get(b.param.value.as_str()).copied();
            self.refer(&b.param.span, target);
            let Some(i) = target else {
                unknown.push(&b.param);
                continue;
            };
            if bound.insert(i, ()).is_some() {
                self.push(
                    err(
                        Code::BindingDuplicateParam,
                        id,
                        &b.param.span,
                        format!("parameter `{}` is bound twice", b.param.value),
                    )
                    .label("second binding")
                    .help("each parameter sits in exactly one slot"),
                );
            }
            if let Some(other) = slots.insert(b.slot.value, &b.param.value) {
                self.push(
                    err(
                        Code::BindingDuplicateSlot,
                        id,
                        &b.slot.span,
                        format!(
                            "slot {} is bound to `{other}` and `{}`",
                            b.slot.value, b.param.value
                        ),
                    )
                    .label("slot already taken")
                    .help("each parameter sits in its own slot; renumber the slots"),
                );
            }
            let p = &self.params[i];
            let fits = match b.kind.value {
                BindingKind::ScalarArg => !p.is_tensor(),
                BindingKind::TensorArg | BindingKind::BufferObject => p.is_tensor(),
            };
            if !fits {
                let want = if p.is_tensor() {
                    "`tensor_arg` or `buffer_object`"
                } else {
                    "`scalar_arg`"
                };
                self.push(
                    err(
                        Code::BindingKindMismatch,
                        id,
                        &b.kind.span,
                        format!(
                            "{} `{}` cannot bind to a `{}` slot",
                            p.kind, p.name, b.kind.value
                        ),
                    )
                    .label("wrong slot kind")
                    .help(format!("use {want}")),
                );
            }
            out.push(ir::Binding {
                param: i,
                slot: b.slot.value,
                kind: b.kind.value,
            });
        }
        // A parameter declared twice is reported as a duplicate; only its
        // first declaration can be bound by name.
        let missing: Vec<String> = self
            .params
            .iter()
            .filter(|p| {
                !bound.contains_key(&p.index)
                    && self.param_index.get(p.name.as_str()) == Some(&p.index)
            })
            .map(|p| format!("`{}`", p.name))
            .collect();
        // An unknown name in a binding is usually a misspelt or renamed
        // parameter: name the unbound ones there instead of reporting them again.
        for param in &unknown {
            let help = if missing.is_empty() {
                self.known_params_help()
            } else {
                format!("parameters without a binding: {}", name_list(&missing))
            };
            self.push(
                err(
                    Code::BindingUnknownParam,
                    id,
                    &param.span,
                    format!("binding names unknown parameter `{}`", param.value),
                )
                .label("unknown parameter")
                .help(help),
            );
        }
        if !missing.is_empty() && unknown.is_empty() {
            self.push(
                err(
                    Code::BindingMissing,
                    id,
                    &pr.value.name.span,
                    format!(
                        "profile `{}` binds no slot for {}",
                        pr.value.name.value,
                        name_list(&missing)
                    ),
                )
                .label("incomplete final ABI")
                .help("add a `[[profiles.bindings]]` entry for every parameter"),
            );
        }
        out.sort_by_key(|b| b.slot);
        out
    }

    fn check_receipts(&mut self, profiles: &[ir::Profile]) -> Vec<ir::Receipt> {
        let id = self.id;
        let mut out = Vec::new();
        for r in &self.file.receipts {
            let r = &r.value;
            let profile = profiles.iter().position(|p| p.name == r.profile.value);
            if profile.is_none() {
                let names: Vec<&str> = profiles
                    .iter()
                    .take(MAX_LISTED_NAMES + 1)
                    .map(|p| p.name.as_str())
                    .collect();
                self.push(
                    err(
                        Code::ReceiptUnknownProfile,
                        id,
                        &r.profile.span,
                        format!("receipt names unknown profile `{}`", r.profile.value),
                    )
                    .label("unknown profile")
                    .help(if names.is_empty() {
                        "declare the profile under `[[profiles]]`".to_owned()
                    } else {
                        format!("declared profiles: {}", {
                            let mut listed: Vec<String> = names
                                .iter()
                                .take(MAX_LISTED_NAMES)
                                .map(|n| format!("`{n}`"))
                                .collect();
                            let more = profiles.len() - listed.len();
                            if more > 0 {
                                listed.push(format!("and {more} more"));
                            }
                            listed.join(", ")
                        })
                    }),
                );
            }
            if !is_lower_hex(&r.sha256.value, 64) {
                self.push(
                    err(
                        Code::BadDigest,
                        id,
                        &r.sha256.span,
                        "artifact digest is not 64 lowercase hex digits",
                    )
                    .label("not a SHA-256 digest")
                    .help("write the output of `sha256sum ARTIFACT`, lowercase")
                    .fix_if(
                        is_lower_hex(&r.sha256.value.to_ascii_lowercase(), 64),
                        || {
                            (
                                "lowercase the digest".to_owned(),
                                r.sha256.span.clone(),
                                format!("\"{}\"", r.sha256.value.to_ascii_lowercase()),
                            )
                        },
                    ),
                );
            }
            if let Some(problem) = artifact_path_problem(&r.artifact.value) {
                self.push(
                    err(
                        Code::BadArtifactPath,
                        id,
                        &r.artifact.span,
                        format!(
                            "artifact path `{}` is not allowed",
                            printable(&r.artifact.value)
                        ),
                    )
                    .label(problem)
                    .help("use a relative path below the artifact root, with `/` separators"),
                );
            }
            if !is_codec(&r.codec.value) {
                self.push(
                    err(
                        Code::BadCodec,
                        id,
                        &r.codec.span,
                        format!(
                            "codec `{}` is not a valid identifier",
                            printable(&r.codec.value)
                        ),
                    )
                    .label("expected lowercase letters, digits, `_`, `.`, `-`")
                    .help("a codec starts with a lowercase letter, at most 64 characters, e.g. `xdna.generated_add.v1`"),
                );
            }
            let ev = &r.evidence.value;
            if let Some(problem) = date_problem(&ev.date.value) {
                self.push(
                    err(
                        Code::BadDate,
                        id,
                        &ev.date.span,
                        format!("`{}` is not a date", printable(&ev.date.value)),
                    )
                    .label(problem)
                    .help("write the day the qualification ran as `YYYY-MM-DD`, e.g. `2026-10-14`"),
                );
            }
            self.check_text(&ev.hardware, "evidence.hardware", false, true);
            if let Some(note) = &ev.note {
                self.check_text(note, "evidence.note", true, false);
            }
            if let Some(profile) = profile {
                out.push(ir::Receipt {
                    profile,
                    codec: r.codec.value.clone(),
                    artifact: r.artifact.value.clone(),
                    sha256: r.sha256.value.clone(),
                    evidence: ir::Evidence {
                        date: ev.date.value.clone(),
                        hardware: ev.hardware.value.clone(),
                        note: ev.note.as_ref().map(|n| n.value.clone()),
                    },
                });
            }
        }
        for (i, pr) in self.file.profiles.iter().enumerate() {
            // A profile whose name repeats an earlier one is reported as a
            // duplicate; no receipt can name it.
            let first = profiles.iter().position(|p| p.name == pr.value.name.value);
            if !out.iter().any(|r| r.profile == i) && first == Some(i) {
                self.push(
                    Diagnostic::warning(
                        Code::ProfileWithoutReceipt,
                        id,
                        pr.value.name.span.clone(),
                        format!("profile `{}` has no receipt", pr.value.name.value),
                    )
                    .label("not loadable here")
                    .help(
                        "add a `[[receipts]]` entry once an artifact has qualified on this profile",
                    ),
                );
            }
        }
        out
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

/// `s` with control, bidirectional and invisible characters escaped, for
/// quoting user text in a message (other characters, `\` included, as is).
/// Two shapes that may describe equal operands ([`ir::Extent::agrees`]).
fn agree(a: &[ir::Extent], b: &[ir::Extent]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.agrees(*y))
}

fn printable(s: &str) -> String {
    s.chars()
        .map(|c| {
            if is_forbidden_char(c, false) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Where `c` is written in the source of a TOML string: literally, or as an
/// escape (`\t`, `\u202E`, ...) that is not itself an escaped backslash.
fn find_char_or_escape(src: &str, c: char) -> Option<Range<usize>> {
    if let Some(at) = src.find(c) {
        return Some(at..at + c.len_utf8());
    }
    let short = match c {
        '\t' => Some("\\t"),
        '\r' => Some("\\r"),
        '\u{8}' => Some("\\b"),
        '\u{c}' => Some("\\f"),
        '\u{1b}' => Some("\\e"),
        _ => None,
    };
    let code = c as u32;
    let escapes = [
        format!("\\u{code:04X}"),
        format!("\\u{code:04x}"),
        format!("\\U{code:08X}"),
        format!("\\U{code:08x}"),
        format!("\\x{code:02X}"),
        format!("\\x{code:02x}"),
    ];
    for e in short.into_iter().map(str::to_owned).chain(escapes) {
        for (at, _) in src.match_indices(e.as_str()) {
            let backslashes = src[..at].bytes().rev().take_while(|&b| b == b'\\').count();
            if backslashes % 2 == 0 {
                return Some(at..at + e.len());
            }
        }
    }
    None
}

/// Names of the forbidden characters people actually paste.
fn char_name(c: char) -> Option<&'static str> {
    Some(match c {
        '\t' => "TAB",
        '\n' => "LINE FEED",
        '\r' => "CARRIAGE RETURN",
        '\u{200B}' => "ZERO WIDTH SPACE",
        '\u{200C}' => "ZERO WIDTH NON-JOINER",
        '\u{200D}' => "ZERO WIDTH JOINER",
        '\u{200E}' => "LEFT-TO-RIGHT MARK",
        '\u{200F}' => "RIGHT-TO-LEFT MARK",
        '\u{202A}' => "LEFT-TO-RIGHT EMBEDDING",
        '\u{202B}' => "RIGHT-TO-LEFT EMBEDDING",
        '\u{202C}' => "POP DIRECTIONAL FORMATTING",
        '\u{202D}' => "LEFT-TO-RIGHT OVERRIDE",
        '\u{202E}' => "RIGHT-TO-LEFT OVERRIDE",
        '\u{2066}' => "LEFT-TO-RIGHT ISOLATE",
        '\u{2067}' => "RIGHT-TO-LEFT ISOLATE",
        '\u{2068}' => "FIRST STRONG ISOLATE",
        '\u{2069}' => "POP DIRECTIONAL ISOLATE",
        '\u{FEFF}' => "ZERO WIDTH NO-BREAK SPACE",
        _ => return None,
    })
}

/// Most names one message lists: a diagnostic stays proportional to the
/// mistake, not to the file (a list of every name in every one of many
/// errors made a 1 MiB file produce gigabytes of diagnostics).
pub const MAX_LISTED_NAMES: usize = 12;

/// `a, b, c`, or the first [`MAX_LISTED_NAMES`] and how many more.
fn name_list(names: &[String]) -> String {
    if names.len() <= MAX_LISTED_NAMES {
        return names.join(", ");
    }
    format!(
        "{} and {} more",
        names[..MAX_LISTED_NAMES].join(", "),
        names.len() - MAX_LISTED_NAMES
    )
}

fn join_ticks<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The problems of free text `text` (field `field` of file `id`): a
/// forbidden character, or an empty (when `required`) or overlong text.
/// Free text goes into comments and strings of every generated language.
pub fn text_problems(
    sources: &SourceMap,
    id: FileId,
    text: &Spanned<String>,
    field: &str,
    allow_newline: bool,
    required: bool,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(c) = text
        .value
        .chars()
        .find(|&c| is_forbidden_char(c, allow_newline))
    {
        let name = char_name(c).map_or(String::new(), |n| format!(" ({n})"));
        // Point at the character (it may be invisible) or its escape.
        let src = &sources.get(id).text;
        let literal = src
            .get(text.span.clone())
            .filter(|_| c != '\n')
            .and_then(|s| find_char_or_escape(s, c))
            .map(|r| text.span.start + r.start..text.span.start + r.end);
        out.push(
            err(Code::ControlCharacter, id, &literal.clone().unwrap_or(text.span.clone()), format!("`{field}` contains U+{:04X}{name}", c as u32))
                .label(if literal.is_some() { "this character" } else { "in this text" })
                .help("remove it; free text is copied into comments and strings of every generated language"),
        );
    }
    let chars = text.value.chars().count();
    if (required && text.value.trim().is_empty()) || chars > MAX_TEXT_CHARS {
        let msg = if chars > MAX_TEXT_CHARS {
            format!("`{field}` is {chars} characters, over the limit of {MAX_TEXT_CHARS}")
        } else {
            format!("`{field}` is empty")
        };
        let help = if chars > MAX_TEXT_CHARS {
            "shorten it; longer documentation belongs in `docs/`"
        } else {
            "write a sentence that says what the family computes"
        };
        out.push(
            err(Code::TextLength, id, &text.span, msg)
                .label("here")
                .help(help),
        );
    }
    out
}

/// Characters free text may not contain: controls (newline allowed where
/// `allow_newline`), bidirectional controls and invisible format characters.
pub fn is_forbidden_char(c: char, allow_newline: bool) -> bool {
    if c == '\n' {
        return !allow_newline;
    }
    c.is_control()
        || matches!(c,
            '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// Why an artifact path is unsafe, if it is.
pub fn artifact_path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("empty path");
    }
    if path.starts_with('/') {
        return Some("absolute path");
    }
    if path.contains('\\') {
        return Some("backslash separator");
    }
    if path.len() >= 2 && path.as_bytes()[1] == b':' {
        return Some("drive prefix");
    }
    if path.chars().any(|c| is_forbidden_char(c, false)) {
        return Some("control character");
    }
    for seg in path.split('/') {
        match seg {
            "" => return Some("empty path segment"),
            "." => return Some("`.` segment"),
            ".." => return Some("climbs out with `..`"),
            _ => {}
        }
    }
    None
}

fn is_codec(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.as_bytes()[0].is_ascii_lowercase()
        && s.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'.' | b'-')
        })
}

/// Why `s` is not a real calendar date `YYYY-MM-DD` (proleptic Gregorian:
/// 2024-02-29 is one, 2026-02-29 and 2026-04-31 are not), if it is not.
fn date_problem(s: &str) -> Option<&'static str> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return Some("expected YYYY-MM-DD");
    }
    let num = |r: Range<usize>| {
        s.get(r)
            .filter(|t| t.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|t| t.parse::<u32>().ok())
    };
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return Some("expected YYYY-MM-DD");
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return Some("no such month"),
    };
    (!(1..=days).contains(&d)).then_some("no such day in that month")
}

/// A snake_case spelling of an invalid name, when one exists.
fn suggest_identifier(name: &str) -> Option<String> {
    let s = heck::ToSnakeCase::to_snake_case(name);
    let s: String = s
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (identifier_problem(&s).is_none() && !is_reserved(&s) && s != name).then_some(s)
}
