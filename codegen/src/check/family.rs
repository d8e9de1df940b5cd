//! [`FamilyChecker`]: one family file checked and, when it has no errors,
//! lowered into the IR. Its rules are methods, written by subject in the
//! sibling modules (`params.rs`, `dims.rs`, `operation/`, `profiles.rs`,
//! `receipts.rs`); this file holds the checker's state and the walk that
//! runs them in order.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::Path;

use super::targets::Declared;
use super::text::{suggest_identifier, text_problems, MAX_LISTED_NAMES};
use crate::diag::{Code, Diagnostic, FileId, SourceMap};
use crate::ir;
use crate::limits::{C_MAX_STRING_BYTES, TORCH_MAX_ARGS};
use crate::model::{self, AliasRef, Spanned};
use crate::names::{identifier_problem, is_reserved};
use crate::vocab::{Contract, Direction};

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

#[derive(Clone, Copy)]
pub(super) struct Limits {
    pub(super) max_tensor_args: u32,
    pub(super) max_scalar_args: u32,
    pub(super) max_rank: u32,
}

pub(super) const DEFAULT_LIMITS: Limits = Limits {
    max_tensor_args: 256,
    max_scalar_args: 128,
    max_rank: 5,
};

pub(super) fn err(
    code: Code,
    id: FileId,
    span: &Range<usize>,
    msg: impl Into<String>,
) -> Diagnostic {
    Diagnostic::error(code, id, span.clone(), msg)
}

/// Checks one family and lowers it when it has no errors.
pub(super) struct FamilyChecker<'a> {
    pub(super) id: FileId,
    pub(super) file: &'a model::FamilyFile,
    pub(super) limits: &'a Limits,
    pub(super) sources: &'a SourceMap,
    /// This family's diagnostics, merged into the report afterwards.
    pub(super) diagnostics: Vec<Diagnostic>,
    /// Name -> index into `params`, first declaration wins.
    pub(super) param_index: HashMap<&'a str, usize>,
    pub(super) params: Vec<ir::Param>,
    /// Parameters whose own declaration had errors; rules that combine
    /// parameters skip them so one mistake is reported once.
    pub(super) bad_params: HashSet<usize>,
    /// The family name is already declared by another file (reported there).
    pub(super) duplicate_name: bool,
    /// Parameter references, as resolved.
    pub(super) references: Vec<Reference>,
    /// Tables `load` repaired (see `Loaded::recovered`).
    pub(super) tainted: &'a [Range<usize>],
    /// Symbol name -> index into `symbols`.
    pub(super) symbol_index: HashMap<&'a str, usize>,
    pub(super) symbols: Vec<ir::Symbol>,
    /// Where each symbol is first used.
    pub(super) symbol_spans: Vec<Range<usize>>,
    /// The catalog's torch namespace, which the family's torch schema names.
    pub(super) torch_namespace: &'a str,
    /// The catalog's platforms, backends, runtimes, modes and codecs.
    pub(super) targets: &'a Declared,
}

/// kfam's default targets, for a family checked without a valid `abi.toml`.
static DEFAULT_TARGETS: std::sync::LazyLock<Declared> =
    std::sync::LazyLock::new(Declared::defaults);

impl<'a> FamilyChecker<'a> {
    pub(super) fn new(
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
            torch_namespace: crate::limits::DEFAULT_CATALOG_NAME,
            targets: &DEFAULT_TARGETS,
        }
    }

    pub(super) fn targets(mut self, targets: &'a Declared) -> Self {
        self.targets = targets;
        self
    }

    pub(super) fn torch_namespace(mut self, namespace: &'a str) -> Self {
        self.torch_namespace = namespace;
        self
    }

    pub(super) fn tainted(mut self, tainted: &'a [Range<usize>]) -> Self {
        self.tainted = tainted;
        self
    }

    /// Whether `load` repaired parameter `i`'s declaration.
    pub(super) fn repaired(&self, i: usize) -> bool {
        self.file
            .params
            .get(i)
            .is_some_and(|p| self.tainted.contains(&p.span))
    }

    pub(super) fn duplicate_name(mut self, duplicate: bool) -> Self {
        self.duplicate_name = duplicate;
        self
    }

    pub(super) fn push(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    pub(super) fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// The family's IR when it has no errors, its diagnostics and references.
    pub(super) fn run(mut self) -> FamilyOutcome {
        let family = self.lower();
        FamilyOutcome {
            family,
            diagnostics: self.diagnostics,
            references: self.references,
        }
    }

    pub(super) fn refer(&mut self, span: &Range<usize>, param: Option<usize>) {
        self.references.push(Reference {
            span: span.clone(),
            param,
        });
    }

    pub(super) fn lower(&mut self) -> Option<ir::Family> {
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
        self.check_torch(&returns);

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
            approval: 0,
        };
        family.canonical = family.canonical_identity();
        family.identity = ir::sha256_hex(family.canonical.as_bytes());
        // Offered only when requested (KF0901 guarantees it then exists).
        family.torch_schema = family
            .torch
            .then(|| family.torch_schema_string(self.torch_namespace))
            .flatten();
        Some(family)
    }

    pub(super) fn check_name(&mut self, name: &Spanned<String>, what: &str) {
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
    pub(super) fn check_text(
        &mut self,
        text: &Spanned<String>,
        field: &str,
        allow_newline: bool,
        required: bool,
    ) {
        let found = text_problems(self.sources, self.id, text, field, allow_newline, required);
        self.diagnostics.extend(found);
    }

    pub(super) fn check_counts(&mut self) {
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

    pub(super) fn check_returns(&mut self) -> Vec<usize> {
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

    pub(super) fn known_params_help(&self) -> String {
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

    pub(super) fn output_help(&self) -> String {
        match self
            .params
            .iter()
            .find(|p| p.is_tensor() && p.direction != Direction::In)
        {
            Some(p) => format!("return the tensor that holds the result, e.g. `{}`", p.name),
            None => "declare the result as an `out` tensor and return it".to_owned(),
        }
    }

    /// A torch family's schema must be one PyTorch can define and the C
    /// tables can hold: representable scalars (KF0901), at most
    /// [`TORCH_MAX_ARGS`] arguments (KF0902) and a schema within C99's
    /// string-literal length (KF0903).
    pub(super) fn check_torch(&mut self, returns: &[usize]) {
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
            return;
        }
        let count = self.file.params.len();
        if count > TORCH_MAX_ARGS {
            let first_over = &self.file.params[TORCH_MAX_ARGS].value.name;
            self.push(
                err(
                    Code::TorchArgumentLimit,
                    self.id,
                    &torch.span,
                    format!("a torch operator takes at most {TORCH_MAX_ARGS} arguments, but this family declares {count} parameters"),
                )
                .label(format!("{count} arguments requested here"))
                .related(
                    self.id,
                    first_over.span.clone(),
                    format!("argument {} of {count}", TORCH_MAX_ARGS + 1),
                )
                .help(format!("declare at most {TORCH_MAX_ARGS} parameters (group scalars into a tensor, or split the family), or set `torch = false`")),
            );
            return;
        }
        if returns.iter().any(|&r| r >= self.params.len()) || self.params.len() != count {
            return;
        }
        let Some(schema) = ir::torch_schema(
            self.torch_namespace,
            &self.file.name.value,
            &self.params,
            returns,
        ) else {
            return;
        };
        if schema.len() > C_MAX_STRING_BYTES {
            let start: String = schema.chars().take(48).collect();
            self.push(
                err(
                    Code::TorchSchemaLength,
                    self.id,
                    &torch.span,
                    format!(
                        "the torch schema of this family is {} bytes, over the {C_MAX_STRING_BYTES} a C99 string literal holds",
                        schema.len()
                    ),
                )
                .label(format!("a {}-byte schema", schema.len()))
                .note(format!("the schema begins `{start}...`"))
                .help(format!("shorten the parameter names (the schema spells each one; {} bytes to save), or set `torch = false`", schema.len() - C_MAX_STRING_BYTES)),
            );
        }
    }
}
