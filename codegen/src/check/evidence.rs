//! A receipt's evidence: free text (date, hardware, note), or structured
//! evidence from a qualification run (docs/qualify.md), whose numbers are
//! checked here so that a receipt never claims a run that cannot have
//! happened.

use super::family::{err, FamilyChecker};
use super::text::{date_problem, printable};
use crate::diag::Code;
use crate::ir;
use crate::limits::MAX_EVIDENCE_ENTRIES;
use crate::model::{self, Spanned};
use crate::vocab::Direction;

/// The qualification tools whose evidence kfam knows how to read: the
/// `tool` of structured evidence names one of them.
pub const QUALIFICATION_TOOLS: &[&str] = &["kfam.qualify"];

impl FamilyChecker<'_> {
    pub(super) fn check_evidence(&mut self, ev: &Spanned<model::Evidence>) -> ir::Evidence {
        let id = self.id;
        let e = &ev.value;
        if let Some(problem) = date_problem(&e.date.value) {
            self.push(
                err(
                    Code::BadDate,
                    id,
                    &e.date.span,
                    format!("`{}` is not a date", printable(&e.date.value)),
                )
                .label(problem)
                .help("write the day the qualification ran as `YYYY-MM-DD`, e.g. `2026-10-14`"),
            );
        }
        self.check_text(&e.hardware, "evidence.hardware", false, true);
        if let Some(note) = &e.note {
            self.check_text(note, "evidence.note", true, false);
        }
        let texts = |list: &Option<Spanned<Vec<Spanned<String>>>>| -> Vec<String> {
            list.iter()
                .flat_map(|l| &l.value)
                .map(|s| s.value.clone())
                .collect()
        };
        let mut out = ir::Evidence {
            date: e.date.value.clone(),
            hardware: e.hardware.value.clone(),
            note: e.note.as_ref().map(|n| n.value.clone()),
            tool: e.tool.as_ref().map(|t| t.value.clone()),
            versions: texts(&e.versions),
            cases: e.cases.as_ref().map_or(0, |c| c.value),
            seed: e.seed.as_ref().map_or(0, |s| s.value),
            shapes: texts(&e.shapes),
            errors: Vec::new(),
            runs: e.runs.as_ref().map_or(0, |r| r.value),
            deterministic: e.deterministic.as_ref().is_some_and(|d| d.value),
            run_max_abs: e.run_max_abs.as_ref().map_or(0.0, |m| m.value),
        };
        for (list, field) in [
            (&e.versions, "evidence.versions"),
            (&e.shapes, "evidence.shapes"),
        ] {
            for entry in list.iter().flat_map(|l| &l.value) {
                self.check_text(entry, field, false, true);
            }
        }
        let lengths = [
            e.versions
                .as_ref()
                .map(|l| ("versions", l.value.len(), &l.span)),
            e.shapes
                .as_ref()
                .map(|l| ("shapes", l.value.len(), &l.span)),
            e.errors
                .as_ref()
                .map(|l| ("errors", l.value.len(), &l.span)),
        ];
        for (field, len, span) in lengths.into_iter().flatten() {
            if len > MAX_EVIDENCE_ENTRIES {
                self.push(
                    err(
                        Code::BadEvidence,
                        id,
                        span,
                        format!("`evidence.{field}` has {len} entries"),
                    )
                    .label(format!("more than {MAX_EVIDENCE_ENTRIES}"))
                    .help("record one entry per tool, symbol or written tensor"),
                );
            }
        }
        let Some(tool) = &e.tool else {
            self.free_text_only(e);
            return out;
        };
        if !QUALIFICATION_TOOLS.contains(&tool.value.as_str()) {
            self.push(
                err(
                    Code::UnknownTool,
                    id,
                    &tool.span,
                    format!("unknown qualification tool `{}`", printable(&tool.value)),
                )
                .label("not a tool kfam reads evidence from")
                .help(format!(
                    "structured evidence comes from {}; for other evidence drop `tool` and keep \
                     `date`, `hardware` and `note`",
                    QUALIFICATION_TOOLS
                        .iter()
                        .map(|t| format!("`{t}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            );
        }
        match &e.cases {
            None => self.missing(ev, "cases", "the number of cases the run passed"),
            Some(c) if c.value == 0 => self.push(
                err(
                    Code::BadEvidence,
                    id,
                    &c.span,
                    "a qualification run of no cases",
                )
                .label("0 cases")
                .help("a receipt's evidence records a run that passed at least one case"),
            ),
            Some(_) => {}
        }
        if e.versions.as_ref().is_none_or(|v| v.value.is_empty()) {
            self.missing(
                ev,
                "versions",
                "the versions of the run's tools, e.g. `[\"torch 2.9.1\"]`",
            );
        }
        if let Some(seed) = e.seed.as_ref().filter(|s| s.value < 0) {
            self.push(
                err(Code::BadEvidence, id, &seed.span, "a negative seed")
                    .label("below 0")
                    .help("write the seed the run reported"),
            );
        }
        out.errors = self.check_output_errors(ev);
        self.check_runs(e);
        if tool.value == QUALIFICATION_TOOLS[0] {
            self.check_shapes(ev);
            self.check_qualify_can_run(tool);
        }
        out
    }

    /// `runs`, `deterministic` and `run_max_abs` agree: determinism is
    /// measured by two runs or more and then recorded, and runs of a
    /// deterministic kernel do not differ.
    fn check_runs(&mut self, e: &model::Evidence) {
        let id = self.id;
        let runs = e.runs.as_ref().filter(|r| r.value >= 2);
        if let Some(r) = e.runs.as_ref().filter(|r| r.value == 0) {
            self.push(
                err(Code::BadEvidence, id, &r.span, "a run of no kernel calls")
                    .label("0 runs")
                    .help(
                        "write the runs per case the run reported (1, or 2 to measure determinism)",
                    ),
            );
            return;
        }
        let Some(runs) = runs else {
            let measured = [
                e.deterministic.as_ref().map(|v| ("deterministic", &v.span)),
                e.run_max_abs.as_ref().map(|v| ("run_max_abs", &v.span)),
            ];
            for (field, span) in measured.into_iter().flatten() {
                self.push(
                    err(
                        Code::BadEvidence,
                        id,
                        span,
                        format!("`evidence.{field}` from one run per case"),
                    )
                    .label("determinism needs two runs or more")
                    .help(
                        "record `runs = 2` (or more) with it, as `kfam.qualify` does, or drop it",
                    ),
                );
            }
            return;
        };
        let Some(deterministic) = &e.deterministic else {
            self.push(
                err(
                    Code::BadEvidence,
                    id,
                    &runs.span,
                    format!("{} runs per case without `deterministic`", runs.value),
                )
                .label("determinism measured, not recorded")
                .help("add `deterministic = true` or `false`, as the run reported"),
            );
            return;
        };
        let Some(max) = &e.run_max_abs else { return };
        if deterministic.value {
            self.push(
                err(
                    Code::BadEvidence,
                    id,
                    &max.span,
                    "`run_max_abs` with `deterministic = true`",
                )
                .label("runs of a deterministic kernel do not differ")
                .help("drop `run_max_abs`, or record `deterministic = false` as the run reported"),
            );
        } else if !(max.value.is_finite() && max.value >= 0.0) {
            self.push(
                err(
                    Code::BadEvidence,
                    id,
                    &max.span,
                    format!("`run_max_abs` is {}", max.value),
                )
                .label("not a finite, non-negative difference")
                .help("write the largest difference between runs the run reported"),
            );
        }
    }

    /// `evidence.shapes`: one `SYMBOL = V1, V2, ...` entry per symbol of the
    /// family, each value an extent its `[dims]` accepts.
    fn check_shapes(&mut self, ev: &Spanned<model::Evidence>) {
        let id = self.id;
        let names: Vec<String> = self
            .symbols
            .iter()
            .map(|s| format!("`{}`", s.name))
            .collect();
        let mut seen: Vec<&str> = Vec::new();
        let mut malformed = false;
        for entry in ev.value.shapes.iter().flat_map(|l| &l.value) {
            let Some((name, values)) = parse_shape(&entry.value) else {
                malformed = true;
                self.push(
                    err(
                        Code::EvidenceShapes,
                        id,
                        &entry.span,
                        format!(
                            "`{}` is not `SYMBOL = V1, V2, ...`",
                            printable(&entry.value)
                        ),
                    )
                    .label("not a symbol's covered extents")
                    .help("one entry per named symbol, as `kfam.qualify` writes it: `rows = 1, 16, 4096`"),
                );
                continue;
            };
            let Some(symbol) = self.symbols.iter().find(|s| s.name == name).cloned() else {
                let help = if names.is_empty() {
                    "the family names no symbol: drop `shapes`".to_owned()
                } else {
                    format!("the family's symbols: {}", names.join(", "))
                };
                self.push(
                    err(
                        Code::EvidenceShapes,
                        id,
                        &entry.span,
                        format!("`{}` is not a symbol of this family", printable(name)),
                    )
                    .label("no such symbol")
                    .help(help),
                );
                continue;
            };
            if seen.contains(&name) {
                self.push(
                    err(
                        Code::EvidenceShapes,
                        id,
                        &entry.span,
                        format!("`{name}` is covered twice"),
                    )
                    .label("a second entry")
                    .help("list a symbol's covered extents in one entry"),
                );
                continue;
            }
            seen.push(name);
            for v in values {
                let problem = if v < u64::from(symbol.min) {
                    Some(format!("below `min = {}`", symbol.min))
                } else if symbol.max.is_some_and(|m| v > u64::from(m)) {
                    Some(format!("above `max = {}`", symbol.max.unwrap_or_default()))
                } else if v % u64::from(symbol.multiple_of.max(1)) != 0 {
                    Some(format!(
                        "not a multiple of `multiple_of = {}`",
                        symbol.multiple_of
                    ))
                } else {
                    None
                };
                if let Some(problem) = problem {
                    self.push(
                        err(
                            Code::EvidenceShapeOutsideDims,
                            id,
                            &entry.span,
                            format!(
                                "evidence covers `{name} = {v}`, outside the symbol's `[dims]`"
                            ),
                        )
                        .label(problem)
                        .help(format!(
                            "a run covers only extents a call may pass: rerun the qualification, \
                             or widen `[dims.{name}]` in a new revision"
                        )),
                    );
                    break;
                }
            }
        }
        // `kfam.qualify` covers every symbol; a symbol with no entry was
        // not drawn by it (unless a malformed entry was meant for it).
        if malformed {
            return;
        }
        let missing: Vec<String> = self
            .symbols
            .iter()
            .filter(|s| !seen.contains(&s.name.as_str()))
            .map(|s| s.name.clone())
            .collect();
        let span = ev.value.shapes.as_ref().map_or(&ev.span, |s| &s.span);
        for name in missing {
            self.push(
                err(
                    Code::EvidenceShapes,
                    id,
                    span,
                    format!("evidence covers no extent of `{name}`"),
                )
                .label(format!("no `{name} = ...` entry"))
                .help(format!(
                    "the run's entry for `{name}` lists the extents it drew, e.g. `{name} = 1, 16`"
                )),
            );
        }
    }

    /// `kfam.qualify` cannot have run on a family with an NZ or fp4
    /// parameter: it refuses them (`kfam_runtime._reference.refuse_untensorable`).
    fn check_qualify_can_run(&mut self, tool: &Spanned<String>) {
        let Some((p, why)) = self
            .params
            .iter()
            .find_map(|p| qualify_refuses(p).map(|w| (p, w)))
        else {
            return;
        };
        let name = p.name.clone();
        self.push(
            err(
                Code::QualifyCannotRun,
                self.id,
                &tool.span,
                format!("`{}` cannot have run on this family", tool.value),
            )
            .label(format!("parameter `{name}` is {why}"))
            .help(
                "`kfam.qualify` refuses NZ and fp4 parameters (docs/qualify.md): keep this \
                 artifact's evidence as free text (drop `tool` and the run's fields), or qualify \
                 the ND form of the kernel",
            ),
        );
    }

    /// Structured fields without `tool` say a run happened without saying
    /// which tool measured it.
    fn free_text_only(&mut self, e: &model::Evidence) {
        let spans = [
            e.versions.as_ref().map(|v| ("versions", v.span.clone())),
            e.cases.as_ref().map(|v| ("cases", v.span.clone())),
            e.seed.as_ref().map(|v| ("seed", v.span.clone())),
            e.shapes.as_ref().map(|v| ("shapes", v.span.clone())),
            e.errors.as_ref().map(|v| ("errors", v.span.clone())),
            e.runs.as_ref().map(|v| ("runs", v.span.clone())),
            e.deterministic
                .as_ref()
                .map(|v| ("deterministic", v.span.clone())),
            e.run_max_abs
                .as_ref()
                .map(|v| ("run_max_abs", v.span.clone())),
        ];
        for (field, span) in spans.into_iter().flatten() {
            self.push(
                err(
                    Code::BadEvidence,
                    self.id,
                    &span,
                    format!("`evidence.{field}` without `evidence.tool`"),
                )
                .label("a qualification run's result")
                .help(format!(
                    "name the tool that produced it (`tool = \"{}\"`), or drop the field",
                    QUALIFICATION_TOOLS[0]
                )),
            );
        }
    }

    fn missing(&mut self, ev: &Spanned<model::Evidence>, field: &str, what: &str) {
        self.push(
            err(
                Code::BadEvidence,
                self.id,
                &ev.span,
                format!("structured evidence without `{field}`"),
            )
            .label(format!("no `{field}`"))
            .help(format!("add `{field}`: {what}")),
        );
    }

    /// One entry per written tensor, each naming one; finite, non-negative
    /// errors.
    fn check_output_errors(&mut self, ev: &Spanned<model::Evidence>) -> Vec<ir::OutputError> {
        let id = self.id;
        let mut out: Vec<ir::OutputError> = Vec::new();
        // An entry refused for its name most likely meant a written tensor:
        // that tensor is not reported unmeasured as well.
        let mut misnamed = false;
        for entry in ev.value.errors.iter().flat_map(|l| &l.value) {
            let o = &entry.value;
            let found = self.params.iter().position(|p| p.name == o.output.value);
            let Some(index) = found else {
                self.push(
                    err(
                        Code::BadEvidence,
                        id,
                        &o.output.span,
                        format!("`{}` is not a parameter", printable(&o.output.value)),
                    )
                    .label("unknown output")
                    .help("name a tensor the family writes (`direction = \"out\"` or `\"inout\"`)"),
                );
                misnamed = true;
                continue;
            };
            let p = &self.params[index];
            if !p.is_tensor() || p.direction == Direction::In {
                self.push(
                    err(
                        Code::BadEvidence,
                        id,
                        &o.output.span,
                        format!("`{}` is not written by the family", p.name),
                    )
                    .label("an input")
                    .help("errors are measured on the tensors the family writes"),
                );
                misnamed = true;
                continue;
            }
            if out.iter().any(|e| e.output == index) {
                self.push(
                    err(
                        Code::BadEvidence,
                        id,
                        &o.output.span,
                        format!("the error of `{}` recorded twice", p.name),
                    )
                    .label("repeated")
                    .help("keep one entry per written tensor: the worst over every case"),
                );
                continue;
            }
            for (value, what) in [(&o.max_abs, "max_abs"), (&o.max_rel, "max_rel")] {
                if !(value.value.is_finite() && value.value >= 0.0) {
                    self.push(
                        err(
                            Code::BadEvidence,
                            id,
                            &value.span,
                            format!("`{what}` is {}", value.value),
                        )
                        .label("not a finite, non-negative error")
                        .help("write the worst difference the run reported"),
                    );
                }
            }
            out.push(ir::OutputError {
                output: index,
                max_abs: o.max_abs.value,
                max_rel: o.max_rel.value,
            });
        }
        let written: Vec<&ir::Param> = self
            .params
            .iter()
            .filter(|p| p.is_tensor() && p.direction != Direction::In)
            .collect();
        let unmeasured: Vec<String> = written
            .iter()
            .filter(|p| !out.iter().any(|e| e.output == p.index))
            .map(|p| format!("`{}`", p.name))
            .collect();
        if !unmeasured.is_empty() && !misnamed {
            let span = ev.value.errors.as_ref().map_or(&ev.span, |e| &e.span);
            self.push(
                err(
                    Code::BadEvidence,
                    id,
                    span,
                    format!("no error recorded for {}", unmeasured.join(", ")),
                )
                .label("every written tensor is compared")
                .help("add `{ output = NAME, max_abs = ..., max_rel = ... }` per written tensor"),
            );
        }
        out.sort_by_key(|e| e.output);
        out
    }
}

/// `SYMBOL = V1, V2, ...`: the symbol and its values, or `None` when the
/// entry is not of that form.
fn parse_shape(entry: &str) -> Option<(&str, Vec<u64>)> {
    let (name, values) = entry.split_once('=')?;
    let name = name.trim();
    let identifier = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !identifier {
        return None;
    }
    let values = values
        .split(',')
        .map(|v| v.trim().parse::<u64>().ok())
        .collect::<Option<Vec<u64>>>()?;
    Some((name, values))
}

/// Why `kfam.qualify` refuses a family with parameter `p`, if it does: the
/// rule of `kfam_runtime._reference.refuse_untensorable`, which a test holds
/// this to.
pub fn qualify_refuses(p: &ir::Param) -> Option<&'static str> {
    if p.layout == crate::vocab::Layout::Nz {
        Some("NZ")
    } else if p.dtype == crate::vocab::DType::Fp4 {
        Some("fp4")
    } else {
        None
    }
}
