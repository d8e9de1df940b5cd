//! `[[platforms]]`, `[[backends]]`, `[[runtimes]]`, `[[execution_modes]]`
//! and `[[codecs]]` of `abi.toml`: checked and resolved, each list that is
//! not declared taking kfam's default. Profiles and receipts are resolved
//! against the result ([`Declared`]), whose spans let their diagnostics
//! point at the declaration too.

use std::collections::HashMap;
use std::ops::Range;

use super::text::{is_codec, join_ticks, printable};
use crate::diag::{Code, Diagnostic, FileId, Report, SourceMap};
use crate::ir::{self, Target, Targets};
use crate::limits::MAX_TARGET_CODE;
use crate::model::{self, targets as decl, Spanned};
use crate::names::{did_you_mean, identifier_problem, is_reserved};
use crate::vocab::{DType, Layout};

/// The resolved targets and where `abi.toml` declares them (nothing for a
/// list that takes kfam's default).
#[derive(Debug, Default)]
pub struct Declared {
    pub targets: Targets,
    /// The file `abi.toml` is, when it declares any list.
    file: Option<FileId>,
    /// Per platform (in `targets.platforms` order), where it is declared.
    platforms: Vec<PlatformAt>,
    /// The span of each declared list: platforms, backends, runtimes,
    /// execution modes, codecs.
    lists: [Option<Range<usize>>; 5],
}

#[derive(Debug, Default, Clone)]
struct PlatformAt {
    name: Range<usize>,
    backends: Range<usize>,
    runtimes: Range<usize>,
    /// `None`: not declared (the default).
    layouts: Option<Range<usize>>,
    dtypes: Option<Range<usize>>,
    /// Its `backends` or `runtimes` names an undeclared member (reported
    /// there): profiles are not judged against that list.
    bad_backends: bool,
    bad_runtimes: bool,
}

/// Which list a profile field or receipt resolves against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Platform,
    Backend,
    Runtime,
    ExecutionMode,
    Codec,
}

impl Kind {
    fn index(self) -> usize {
        self as usize
    }
    /// The key of `abi.toml` that declares the list.
    pub fn key(self) -> &'static str {
        match self {
            Kind::Platform => "platforms",
            Kind::Backend => "backends",
            Kind::Runtime => "runtimes",
            Kind::ExecutionMode => "execution_modes",
            Kind::Codec => "codecs",
        }
    }
    fn what(self) -> &'static str {
        match self {
            Kind::Platform => "platform",
            Kind::Backend => "backend",
            Kind::Runtime => "runtime",
            Kind::ExecutionMode => "execution mode",
            Kind::Codec => "codec",
        }
    }
}

impl Declared {
    /// kfam's defaults, declared nowhere.
    pub fn defaults() -> Self {
        Declared {
            platforms: vec![PlatformAt::default(); Targets::default_platforms().len()],
            ..Declared::default()
        }
    }
}

/// A catalog with a name of its own that declares no platforms: kfam's
/// platforms are kfam's catalog's, which another catalog takes only by an
/// oversight (KF1207).
fn warn_own_catalog(id: FileId, abi: &model::AbiFile, targets: &Targets, report: &mut Report) {
    let Some(name) = abi
        .catalog
        .as_ref()
        .map(|c| &c.value.name)
        .filter(|n| n.value != crate::limits::DEFAULT_CATALOG_NAME)
    else {
        return;
    };
    // The quick fix appends the platforms to the file.
    let end = report.sources.get(id).text.len();
    let platforms: Vec<&str> = targets
        .platforms
        .iter()
        .map(|p| p.target.name.as_str())
        .collect();
    report.diagnostics.push(
        Diagnostic::warning(
            Code::PlatformsNotDeclared,
            id,
            name.span.clone(),
            format!("catalog `{}` declares no `[[platforms]]`", name.value),
        )
        .label("a catalog of its own")
        .note(format!(
            "its profiles can name only kfam's first platforms: {}",
            join_ticks(&platforms)
        ))
        .help(
            "declare where its artifacts run in `abi.toml`: `[[platforms]]` with \
             `name`, `code`, `doc`, `backends` and `runtimes` (docs/manifest.md, \
             \"Declared platforms\"); to keep these, copy them with their layouts \
             (`a2a3` accepts `nz`: docs/manifest.md, \"Platform\")",
        )
        .fix(
            "declare these platforms",
            end..end,
            platforms_toml(&targets.platforms),
        ),
    );
}

/// `platforms` as `abi.toml` declares them, each list in full (a
/// catalog that copies them keeps what it had).
fn platforms_toml(platforms: &[ir::Platform]) -> String {
    let list = |items: &[String]| {
        let items: Vec<String> = items
            .iter()
            .map(|i| toml::Value::from(i.as_str()).to_string())
            .collect();
        format!("[{}]", items.join(", "))
    };
    let mut out = String::new();
    for p in platforms {
        let layouts: Vec<String> = p.layouts.iter().map(|l| l.to_string()).collect();
        out.push_str(&format!(
            "\n[[platforms]]\nname = {}\ncode = {}\ndoc = {}\nbackends = {}\nruntimes = {}\nlayouts = {}\n",
            toml::Value::from(p.target.name.as_str()),
            p.target.code,
            toml::Value::from(p.target.doc.as_str()),
            list(&p.backends),
            list(&p.runtimes),
            list(&layouts),
        ));
    }
    out
}

/// Check the declarations of `abi`: what they resolve to, and whether they
/// are free of errors (reported to `report`). Families are checked against
/// what resolved either way, so one run reports every mistake.
pub(super) fn check_targets(
    id: FileId,
    abi: &model::AbiFile,
    report: &mut Report,
) -> (Declared, bool) {
    let before = report.error_count();
    let mut d = Declared {
        targets: Targets {
            platforms: Vec::new(),
            ..Targets::default()
        },
        ..Declared::default()
    };
    d.targets.backends = members(id, &abi.backends, Kind::Backend, &mut d, report)
        .unwrap_or_else(Targets::default_backends);
    d.targets.runtimes = members(id, &abi.runtimes, Kind::Runtime, &mut d, report)
        .unwrap_or_else(Targets::default_runtimes);
    d.targets.execution_modes = members(
        id,
        &abi.execution_modes,
        Kind::ExecutionMode,
        &mut d,
        report,
    )
    .unwrap_or_else(Targets::default_execution_modes);
    match &abi.platforms {
        None => {
            d.targets.platforms = Targets::default_platforms();
            d.platforms = vec![PlatformAt::default(); d.targets.platforms.len()];
            warn_own_catalog(id, abi, &d.targets, report);
        }
        Some(list) => {
            d.file = Some(id);
            d.lists[Kind::Platform.index()] = Some(list.span.clone());
            let mut seen = Seen::default();
            for p in &list.value {
                let p = &p.value;
                seen.add(id, Kind::Platform, &p.name, Some(&p.code), report);
                check_doc(id, &p.doc, report);
                let before = report.error_count();
                let backends = d.refer(id, Kind::Backend, &p.name.value, &p.backends, report);
                let bad_backends = report.error_count() > before;
                let before = report.error_count();
                let runtimes = d.refer(id, Kind::Runtime, &p.name.value, &p.runtimes, report);
                let bad_runtimes = report.error_count() > before;
                let layouts = p.layouts.as_ref().map_or_else(
                    || ir::DEFAULT_LAYOUTS.to_vec(),
                    |l| unique_sorted(&l.value, Layout::code),
                );
                let dtypes = p.dtypes.as_ref().map_or_else(
                    || DType::ALL.to_vec(),
                    |l| unique_sorted(&l.value, DType::code),
                );
                d.platforms.push(PlatformAt {
                    name: p.name.span.clone(),
                    backends: p.backends.span.clone(),
                    runtimes: p.runtimes.span.clone(),
                    layouts: p.layouts.as_ref().map(|l| l.span.clone()),
                    dtypes: p.dtypes.as_ref().map(|l| l.span.clone()),
                    bad_backends,
                    bad_runtimes,
                });
                d.targets.platforms.push(ir::Platform {
                    target: target(&p.name.value, p.code.value, &p.doc.value),
                    backends,
                    runtimes,
                    layouts,
                    dtypes,
                });
            }
        }
    }
    if let Some(list) = &abi.codecs {
        d.file = Some(id);
        d.lists[Kind::Codec.index()] = Some(list.span.clone());
        let mut seen = Seen::default();
        let mut codecs = Vec::new();
        for c in &list.value {
            let c = &c.value;
            if is_codec(&c.name.value) {
                seen.add(id, Kind::Codec, &c.name, None, report);
            } else {
                report.diagnostics.push(
                    err(
                        Code::BadCodec,
                        id,
                        &c.name.span,
                        format!("codec `{}` is not a valid identifier", printable(&c.name.value)),
                    )
                    .label("not a wire-format identifier")
                    .help("a codec starts with a lowercase letter, at most 64 characters, e.g. `xdna.generated_add.v1`"),
                );
            }
            check_doc(id, &c.doc, report);
            codecs.push(ir::Codec {
                name: c.name.value.clone(),
                doc: c.doc.value.clone(),
            });
        }
        d.targets.codecs = Some(codecs);
    }
    let ok = report.error_count() == before;
    (d, ok)
}

/// A declared list of backends, runtimes or execution modes; `None` when
/// `abi.toml` does not declare it.
fn members(
    id: FileId,
    list: &Option<Spanned<Vec<Spanned<decl::Member>>>>,
    kind: Kind,
    d: &mut Declared,
    report: &mut Report,
) -> Option<Vec<Target>> {
    let list = list.as_ref()?;
    d.file = Some(id);
    d.lists[kind.index()] = Some(list.span.clone());
    let mut seen = Seen::default();
    let out = list
        .value
        .iter()
        .map(|m| {
            let m = &m.value;
            seen.add(id, kind, &m.name, Some(&m.code), report);
            check_doc(id, &m.doc, report);
            target(&m.name.value, m.code.value, &m.doc.value)
        })
        .collect();
    Some(out)
}

fn target(name: &str, code: u32, doc: &str) -> Target {
    // A code past the range is reported; the value is never emitted.
    Target::new(name, i32::try_from(code).unwrap_or(i32::MAX), doc)
}

fn unique_sorted<T: Copy + Ord>(list: &[Spanned<T>], key: fn(T) -> i32) -> Vec<T> {
    let mut v: Vec<T> = list.iter().map(|s| s.value).collect();
    v.sort_by_key(|x| key(*x));
    v.dedup();
    v
}

fn check_doc(id: FileId, doc: &Spanned<String>, report: &mut Report) {
    // Docs go into comments and strings of every language, as summaries do.
    let found = super::text::text_problems(&report.sources, id, doc, "doc", false, true);
    report.diagnostics.extend(found);
}

/// Names and codes already declared in one list.
#[derive(Default)]
struct Seen<'a> {
    names: HashMap<&'a str, Range<usize>>,
    /// Rust spells a member in CamelCase, where `x_1` and `x1` meet.
    variants: HashMap<String, (&'a str, Range<usize>)>,
    codes: HashMap<u32, (&'a str, Range<usize>)>,
}

impl<'a> Seen<'a> {
    fn add(
        &mut self,
        id: FileId,
        kind: Kind,
        name: &'a Spanned<String>,
        code: Option<&'a Spanned<u32>>,
        report: &mut Report,
    ) {
        let what = kind.what();
        if kind != Kind::Codec {
            check_name(id, what, name, report);
        }
        if kind != Kind::Codec {
            let variant = crate::names::camel(&name.value);
            match self.variants.get(&variant) {
                Some((other, first)) if *other != name.value => {
                    report.diagnostics.push(
                        err(
                            Code::DuplicateTarget,
                            id,
                            &name.span,
                            format!(
                                "{what}s `{other}` and `{}` are both `{variant}` in Rust",
                                name.value
                            ),
                        )
                        .label("the same Rust name")
                        .related(id, first.clone(), format!("`{other}` is declared here"))
                        .help("rename one: generated enums spell members in CamelCase"),
                    );
                }
                Some(_) => {}
                None => {
                    self.variants
                        .insert(variant, (&name.value, name.span.clone()));
                }
            }
        }
        if let Some(first) = self.names.insert(&name.value, name.span.clone()) {
            report.diagnostics.push(
                err(
                    Code::DuplicateTarget,
                    id,
                    &name.span,
                    format!("{what} `{}` is declared twice", name.value),
                )
                .label("second declaration")
                .related(id, first, "first declared here")
                .help(format!(
                    "each {what} is declared once in `[[{}]]`; remove or rename one",
                    kind.key()
                )),
            );
        }
        let Some(code) = code else { return };
        if code.value > MAX_TARGET_CODE {
            report.diagnostics.push(
                err(
                    Code::OutOfRange,
                    id,
                    &code.span,
                    format!(
                        "the code of {what} `{}` must be between 0 and {MAX_TARGET_CODE}",
                        name.value
                    ),
                )
                .label("out of range")
                .help("C promises enumeration constants of 16 bits; number the members from 0"),
            );
        } else if let Some((other, first)) = self
            .codes
            .insert(code.value, (&name.value, code.span.clone()))
        {
            report.diagnostics.push(
                err(
                    Code::DuplicateTarget,
                    id,
                    &code.span,
                    format!("{what}s `{other}` and `{}` have the same code {}", name.value, code.value),
                )
                .label("code already taken")
                .related(id, first, format!("`{other}` has it"))
                .help("codes are the ABI's numbers for the members: give each its own, and never reuse one"),
            );
        }
    }
}

fn check_name(id: FileId, what: &str, name: &Spanned<String>, report: &mut Report) {
    if let Some(problem) = identifier_problem(&name.value) {
        report.diagnostics.push(
            err(
                Code::InvalidIdentifier,
                id,
                &name.span,
                format!(
                    "{what} name `{}` is not a valid identifier",
                    printable(&name.value)
                ),
            )
            .label(problem)
            .help("use lowercase snake_case ASCII, e.g. `my_npu`"),
        );
    } else if is_reserved(&name.value) {
        report.diagnostics.push(
            err(
                Code::ReservedWord,
                id,
                &name.span,
                format!("{what} name `{}` is a reserved word", name.value),
            )
            .label("reserved in Rust, C, C++ or Python")
            .help(format!("pick another name, e.g. `{}_npu`", name.value)),
        );
    }
}

impl Declared {
    /// Resolve a platform's `backends` or `runtimes`.
    fn refer(
        &self,
        id: FileId,
        kind: Kind,
        platform: &str,
        list: &Spanned<Vec<Spanned<String>>>,
        report: &mut Report,
    ) -> Vec<String> {
        if list.value.is_empty() {
            report.diagnostics.push(
                err(
                    Code::DuplicateTarget,
                    id,
                    &list.span,
                    format!("platform `{platform}` declares no {}", kind.what()),
                )
                .label("empty")
                .help(format!("name the {} that serve it", kind.key())),
            );
        }
        let mut out: Vec<String> = Vec::new();
        for name in &list.value {
            if let Err(d) = self.resolve(&report.sources, id, kind, name) {
                report.diagnostics.push(*d);
            } else if !out.contains(&name.value) {
                out.push(name.value.clone());
            }
        }
        out
    }

    fn names(&self, kind: Kind) -> Vec<&str> {
        let t = &self.targets;
        match kind {
            Kind::Platform => t.platforms.iter().map(|p| p.target.name.as_str()).collect(),
            Kind::Backend => t.backends.iter().map(|m| m.name.as_str()).collect(),
            Kind::Runtime => t.runtimes.iter().map(|m| m.name.as_str()).collect(),
            Kind::ExecutionMode => t.execution_modes.iter().map(|m| m.name.as_str()).collect(),
            Kind::Codec => t.codecs.iter().flatten().map(|c| c.name.as_str()).collect(),
        }
    }

    /// The member `name` refers to, or an unknown-value diagnostic (KF0006,
    /// or KF0708 for a codec) with a label at the declared list.
    pub fn resolve(
        &self,
        sources: &SourceMap,
        id: FileId,
        kind: Kind,
        name: &Spanned<String>,
    ) -> Result<Option<ir::TargetRef>, Box<Diagnostic>> {
        let t = &self.targets;
        let found = match kind {
            Kind::Platform => t.platform(&name.value).map(|p| Some(p.target.reference())),
            Kind::Backend => find(&t.backends, &name.value),
            Kind::Runtime => find(&t.runtimes, &name.value),
            Kind::ExecutionMode => find(&t.execution_modes, &name.value),
            Kind::Codec => match &t.codecs {
                None => Some(None),
                Some(list) => list.iter().any(|c| c.name == name.value).then_some(None),
            },
        };
        if let Some(found) = found {
            return Ok(found);
        }
        let names = self.names(kind);
        let what = kind.what();
        let code = if kind == Kind::Codec {
            Code::UndeclaredCodec
        } else {
            Code::UnknownVariant
        };
        let mut d = err(
            code,
            id,
            &name.span,
            format!("unknown {what} `{}`", printable(&name.value)),
        )
        .label(format!("not one of the catalog's {}", kind.key()));
        let list = format!("the catalog's {} are {}", kind.key(), join_ticks(&names));
        d = match did_you_mean(&name.value, names.iter().copied()) {
            Some(m) => {
                // The quick fix keeps the value's own quotes.
                let quote = sources
                    .get(id)
                    .text
                    .get(name.span.clone())
                    .and_then(|t| t.chars().next())
                    .filter(|c| matches!(c, '"' | '\''))
                    .map_or(String::new(), String::from);
                d.help(format!("did you mean `{m}`?")).note(list).fix(
                    format!("replace `{}` with `{m}`", printable(&name.value)),
                    name.span.clone(),
                    format!("{quote}{m}{quote}"),
                )
            }
            None => d.help(format!(
                "{list}; declare a new one in `[[{}]]` of `abi.toml`",
                kind.key()
            )),
        };
        match (self.file, &self.lists[kind.index()]) {
            (Some(file), Some(span)) => {
                // In another file, a note says where (the related label is
                // for editors and SARIF); in abi.toml the label is there.
                if file != id {
                    d = d.note(format!(
                        "the {} are declared at {}",
                        kind.key(),
                        place(sources, file, span)
                    ));
                }
                d = d.related(
                    file,
                    span.clone(),
                    format!("the {} are declared here", kind.key()),
                )
            }
            _ => {
                d = d.note(format!(
                    "`abi.toml` declares no `[[{}]]`: these are kfam's defaults",
                    kind.key()
                ))
            }
        }
        Err(Box::new(d))
    }

    /// Whether profiles are judged against platform `index`'s `backends`
    /// or `runtimes` (`key`): not when the list names an undeclared member.
    pub fn judges(&self, index: usize, key: &str) -> bool {
        self.platforms.get(index).is_none_or(|at| match key {
            "backends" => !at.bad_backends,
            "runtimes" => !at.bad_runtimes,
            _ => true,
        })
    }

    /// A diagnostic about platform `index`'s rule `key`, with a note and a
    /// related label at the rule's declaration (`message`), or a note that
    /// the platform is kfam's default.
    pub fn at_rule(
        &self,
        sources: &SourceMap,
        d: Diagnostic,
        index: usize,
        key: &str,
        message: String,
    ) -> Diagnostic {
        match self.platform_rule(index, key) {
            Some((file, span)) => d
                .note(format!("{message} at {}", place(sources, file, &span)))
                .related(file, span, message),
            None => d.note(
                "the platform is one of kfam's defaults (`abi.toml` declares no `[[platforms]]`)",
            ),
        }
    }

    /// Where platform `index` declares its backends, runtimes, layouts or
    /// dtypes (`key`), for a related label; `None` for kfam's defaults.
    pub fn platform_rule(&self, index: usize, key: &str) -> Option<(FileId, Range<usize>)> {
        let at = self.platforms.get(index)?;
        let file = self.file?;
        let span = match key {
            "backends" => Some(at.backends.clone()),
            "runtimes" => Some(at.runtimes.clone()),
            "layouts" => at.layouts.clone().or(Some(at.name.clone())),
            "dtypes" => at.dtypes.clone().or(Some(at.name.clone())),
            _ => None,
        }?;
        // Defaults have no span; a declared platform always does.
        (self.lists[Kind::Platform.index()].is_some()).then_some((file, span))
    }
}

fn err(code: Code, id: FileId, span: &Range<usize>, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, id, span.clone(), msg)
}

/// `path:line:column` of a span's start.
fn place(sources: &SourceMap, file: FileId, span: &Range<usize>) -> String {
    let (line, column) = sources.line_col(file, span.start);
    format!("{}:{line}:{column}", sources.get(file).path)
}

fn find(list: &[Target], name: &str) -> Option<Option<ir::TargetRef>> {
    list.iter()
        .find(|m| m.name == name)
        .map(|m| Some(m.reference()))
}
