//! Markdown outputs under `generated/docs/`:
//!
//! - `families.md`: a reference page of every approved family, like a
//!   generated operator reference (summary, contract, operation, signature,
//!   returns, profiles with binding slots, receipts, identity digest).
//! - `diagnostics.md`: every diagnostic code with its category, title and
//!   explanation (the text of `kfam explain`).
//!
//! Free text from the manifest (summaries, docs, evidence) is escaped with
//! [`escape_text`], so it renders as written and can never open a table
//! cell, a code span, an HTML tag or a heading.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::output::GeneratedFile;
use super::writer::Writer;
use crate::codes::Code;
use crate::ir::{Extent, Family, Ir, Param, ScalarRef};
use crate::record::values::{Row, Value};
use crate::record::DtypeClass;
use crate::record::OperationKind;
use crate::record::{Ty, SYMBOL};
use crate::vocab::ParamKind;

pub const FAMILIES_MD: &str = "docs/families.md";
pub const DIAGNOSTICS_MD: &str = "docs/diagnostics.md";

/// The Markdown pages, each under `banner` ([`crate::origin::Origin::banner`]).
pub fn emit(ir: &Ir, banner: &str) -> Vec<GeneratedFile> {
    vec![
        GeneratedFile::new(FAMILIES_MD, families_md(ir, banner)),
        GeneratedFile::new(DIAGNOSTICS_MD, diagnostics_md(banner)),
    ]
}

fn header(w: &mut Writer, banner: &str, title: &str) {
    w.line(format_args!("<!-- {banner} -->"));
    w.blank();
    w.line(format_args!("# {title}"));
    w.blank();
}

pub fn families_md(ir: &Ir, banner: &str) -> String {
    // About 2 KiB per family; reserved, so a large manifest's text is not
    // copied again each time the buffer would have grown.
    let mut w = Writer::with_capacity("", 4096 + ir.families.len() * 2048);
    header(&mut w, banner, "Approved kernel families");
    let abi = &ir.abi;
    w.line(format_args!(
        "{} approved {}, targeting native ABI {}.{} at runtime revision `{}` (limits: {} tensor and {} scalar \
         parameters, rank {}, {} prepared callables per kernel context). Each section is generated from `manifest/families/<name>.toml`; see \
         `docs/manifest.md` for the format and `docs/identity.md` for the identity digest.",
        ir.families.len(),
        if ir.families.len() == 1 { "family" } else { "families" },
        abi.major,
        abi.minor,
        abi.revision,
        abi.max_tensor_args,
        abi.max_scalar_args,
        abi.max_rank,
        abi.max_prepared,
    ));
    w.blank();
    // The fields of each section's lists, named once for every section.
    w.line(
        "Each section gives the summary, the revision, contract and identity, the operation, then:",
    );
    w.blank();
    w.line(
        "- **Signature**, one item per parameter: index `name`: direction, dtype, shape, layout, \
         lowered shape where it differs, pool index;",
    );
    w.line("- **Returns**: the return aliases;");
    w.line(
        "- **Profiles**, one item per profile: `name`: platform · backend · runtime · execution mode; \
         bindings as slot `parameter` per binding kind;",
    );
    w.line(
        "- **Receipts**, one item per qualified artifact: `profile`: artifact · SHA-256 · codec · date \
         · hardware · note.",
    );
    w.blank();
    // The operation kinds of this catalog, each described once.
    let mut kinds: Vec<_> = ir.families.iter().map(|f| f.operation.kind()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    if !kinds.is_empty() {
        w.line("The operations, each followed by its payload's fields:");
        w.blank();
        for kind in kinds {
            let doc = crate::record::operation(kind)
                .doc
                .split_whitespace()
                .collect::<Vec<_>>();
            w.line(format_args!("- `{kind}`: {}", escape_prose(&doc.join(" "))));
        }
        w.blank();
    }
    w.line("| Family | Revision | Contract | Operation | Profiles | Identity |");
    w.line("|---|---|---|---|---|---|");
    for f in &ir.families {
        let profiles: Vec<String> = f.profiles.iter().map(|p| format!("`{}`", p.name)).collect();
        w.line(format_args!(
            "| [`{}`](#{}) | {} | `{}` | `{}` | {} | `{}` |",
            f.name,
            anchor(&f.name),
            f.revision,
            f.contract,
            f.operation.kind(),
            if profiles.is_empty() {
                "none".to_owned()
            } else {
                profiles.join(", ")
            },
            &f.identity[..16],
        ));
    }
    w.blank();
    // Each section ends with an empty line.
    for f in &ir.families {
        family_section(&mut w, f);
    }
    if !ir.retired.is_empty() {
        w.line("## Retired families");
        w.blank();
        w.line(
            "Approved once, withdrawn in `manifest/retired.toml`. The names stay reserved; capability \
             queries and admission of their artifacts are refused as `retired` (status `invalid_state`).",
        );
        w.blank();
        w.line("| Family | Last revision | Identity | Reason |");
        w.line("|---|---|---|---|");
        for r in &ir.retired {
            w.line(format_args!(
                "| `{}` | {} | `{}` | {} |",
                r.name,
                r.revision,
                &r.identity[..16],
                escape_text(&one_line(&r.reason)),
            ));
        }
    }
    let mut o = w.finish();
    // Exactly one trailing newline.
    while o.ends_with("\n\n") {
        o.pop();
    }
    o
}

/// One family's section: everything a reviewer needs, one list item per
/// record (parameter, profile, receipt), whose fields the page's
/// introduction names once, so the page grows with the declaration and no
/// faster (a table, or a legend per list, would repeat in every section).
fn family_section(w: &mut Writer, f: &Family) {
    w.line(format_args!("## `{}`", f.name));
    w.blank();
    for para in paragraphs(&f.summary) {
        w.line(escape_text(&para));
        w.blank();
    }
    w.line(format_args!(
        "Revision {} · contract `{}` · torch dispatcher schema: {} · identity `{}`",
        f.revision,
        f.contract,
        if f.torch { "yes" } else { "no" },
        f.identity
    ));
    w.blank();
    w.raw(&operation_text(f));
    signature(w, f);
    returns(w, f);
    profiles(w, f);
    receipts(w, f);
}

/// The operation paragraph(s), each followed by an empty line: the kind,
/// then each field of its payload as its declaration names it (parameters
/// and symbols by name); text fields (a custom kind's semantics) quoted
/// below.
fn operation_text(f: &Family) -> String {
    let mut o = String::new();
    let kind = f.operation.kind();
    let _ = write!(o, "**Operation:** `{kind}`");
    if !f.operation.is_checked() {
        o.push_str(" (**not cross-checked**: kfam checks the signature only)");
    }
    let record = f.operation.record();
    let values = f.operation.values();
    let mut texts = Vec::new();
    let mut first = true;
    for (field, v) in record.logical().zip(values) {
        if let Value::Str(text) = v {
            texts.push((field.name, text));
            continue;
        }
        o.push_str(if first { ": " } else { ", " });
        first = false;
        let _ = write!(o, "{} {}", field.name, value_text(f, field.ty, v));
    }
    o.push_str("\n\n");
    for (name, text) in texts {
        let _ = writeln!(o, "{}:\n", capitalize(name));
        for para in paragraphs(text) {
            let _ = writeln!(o, "> {}\n", escape_text(&para));
        }
    }
    o
}

/// A payload field's value: parameters and symbols by name.
fn value_text(f: &Family, ty: Ty, v: Value<'_>) -> String {
    let pname = |i: i64| {
        usize::try_from(i)
            .ok()
            .and_then(|i| f.params.get(i))
            .map_or("?", |p| p.name.as_str())
    };
    match (ty, v) {
        (Ty::Param | Ty::OptParam, Value::Int(i)) => format!("`{}`", pname(i)),
        (_, Value::Absent) => "none".to_owned(),
        (_, Value::Extent(e)) => payload_extent(f, e),
        (_, Value::Vocab(c)) => format!("`{}`", c.spelling),
        (_, Value::Bool(b)) => if b { "yes" } else { "no" }.to_owned(),
        (_, Value::Int(n)) => n.to_string(),
        (_, Value::Ints(items)) => {
            let items: Vec<String> = items.iter().map(|n| n.to_string()).collect();
            format!("`[{}]`", items.join(", "))
        }
        (_, Value::ScalarRef(ScalarRef::Constant(x))) => format!("`{x}`"),
        (_, Value::ScalarRef(ScalarRef::Param(i))) => {
            format!("from scalar parameter `{}`", pname(i as i64))
        }
        (ty, _) => unreachable!("no docs text for a payload field of {ty:?}"),
    }
}

fn signature(w: &mut Writer, f: &Family) {
    if f.params.is_empty() {
        w.line("**Signature:** no parameters.");
        w.blank();
        return;
    }
    w.line(format_args!(
        "**Signature** ({} tensors, {} scalars):",
        f.tensor_count, f.scalar_count
    ));
    w.blank();
    for p in &f.params {
        let doc = p
            .doc
            .as_deref()
            .map(|d| format!(" · {}", escape_text(&one_line(d))))
            .unwrap_or_default();
        if p.kind == ParamKind::Scalar {
            w.line(format_args!(
                "- {} `{}`: {} {} (scalar {}){doc}",
                p.index, p.name, p.direction, p.dtype, p.pool_index
            ));
            continue;
        }
        let dims = dims_cell(f, p);
        let lowered = shape_cell(p, &p.lowered_shape);
        let lowered = if p
            .dims
            .iter()
            .map(|e| e.as_i64())
            .eq(p.lowered_shape.iter().copied())
        {
            String::new()
        } else {
            format!(", lowered {lowered}")
        };
        w.line(format_args!(
            "- {} `{}`: {} {} {dims} {}{lowered} (tensor {}){doc}",
            p.index, p.name, p.direction, p.dtype, p.layout, p.pool_index
        ));
    }
    w.blank();
    if f.symbols.is_empty() {
        return;
    }
    w.line(
        "**Symbols:** each is one extent: a call passes it equal wherever it appears (`dim_mismatch`), \
         within its constraints (`dim_range`).",
    );
    w.blank();
    // One column per field of the symbol's declaration.
    let fields: Vec<_> = SYMBOL.logical().collect();
    let heads: Vec<String> = fields
        .iter()
        .map(|f| capitalize(&f.name.replace('_', " ")))
        .collect();
    w.line(format_args!("| {} |", heads.join(" | ")));
    w.line(format_args!("|{}", "---|".repeat(fields.len())));
    for s in &f.symbols {
        let cells: Vec<String> = fields
            .iter()
            .zip(s.values())
            .map(|(field, v)| match v {
                Value::Str(name) => format!("`{name}`"),
                Value::Absent => "-".to_owned(),
                Value::List(uses) => {
                    let uses: Vec<String> =
                        (0..uses.len()).map(|i| dim_use(f, uses.row(i))).collect();
                    uses.join(", ")
                }
                v => value_text(f, field.ty, v),
            })
            .collect();
        w.line(format_args!("| {} |", cells.join(" | ")));
    }
    w.blank();
}

/// One use of a symbol: `` `param`[axis] ``.
fn dim_use(f: &Family, u: &dyn Row) -> String {
    let mut param = String::new();
    let mut axis = String::new();
    for (field, v) in u.record().logical().zip(u.values()) {
        match (field.ty, v) {
            (Ty::Param, v) => param = value_text(f, Ty::Param, v),
            (Ty::U32, Value::Int(a)) => axis = a.to_string(),
            _ => {}
        }
    }
    format!("{param}[{axis}]")
}

fn returns(w: &mut Writer, f: &Family) {
    if f.returns.is_empty() {
        w.line("**Returns:** no return aliases: results are written into the `out`/`inout` parameters only.");
    } else {
        let names: Vec<String> = f
            .returns
            .iter()
            .map(|&i| format!("`{}`", f.params[i].name))
            .collect();
        let indices: Vec<String> = f.returns.iter().map(usize::to_string).collect();
        w.line(format_args!(
            "**Returns:** {} ({} {}): `return_aliases = [{}]`.",
            names.join(", "),
            f.returns.len(),
            if f.returns.len() == 1 {
                "value"
            } else {
                "values"
            },
            indices.join(", "),
        ));
    }
    w.blank();
}

/// One line per profile; its bindings as `slot name` lists per binding kind.
fn profiles(w: &mut Writer, f: &Family) {
    if f.profiles.is_empty() {
        w.line("**Profiles:** none: the family is supported nowhere.");
        w.blank();
        return;
    }
    w.line("**Profiles:**");
    w.blank();
    for (i, pr) in f.profiles.iter().enumerate() {
        // Binding kinds in order of first appearance, each with its slots.
        let mut kinds: Vec<crate::vocab::BindingKind> = Vec::new();
        for b in &pr.bindings {
            if !kinds.contains(&b.kind) {
                kinds.push(b.kind);
            }
        }
        let mut bindings = String::new();
        for (ki, &k) in kinds.iter().enumerate() {
            if ki > 0 {
                bindings.push_str("; ");
            }
            let _ = write!(bindings, "{k}: ");
            for (bi, b) in pr.bindings.iter().filter(|b| b.kind == k).enumerate() {
                if bi > 0 {
                    bindings.push_str(", ");
                }
                let _ = write!(bindings, "{} `{}`", b.slot, f.params[b.param].name);
            }
        }
        w.line(format_args!(
            "- `{}`: {} · {} · {} · {}; {}{}",
            pr.name,
            pr.platform,
            pr.backend,
            pr.runtime,
            pr.execution_mode,
            if bindings.is_empty() {
                "no bindings"
            } else {
                &bindings
            },
            if f.receipts.iter().any(|r| r.profile == i) {
                ""
            } else {
                " (no receipt: no artifact can be admitted)"
            },
        ));
    }
    w.blank();
}

fn receipts(w: &mut Writer, f: &Family) {
    if f.receipts.is_empty() {
        w.line("**Receipts:** none: no artifact of this family can be admitted.");
        w.blank();
        return;
    }
    w.line("**Receipts:**");
    w.blank();
    for r in &f.receipts {
        let ev = &r.evidence;
        w.line(format_args!(
            "- `{}`: {} · `{}` · {} · {} · {}{}",
            f.profiles[r.profile].name,
            code(&r.artifact),
            r.sha256,
            code(&r.codec),
            escape_text(&ev.date),
            escape_text(&one_line(&ev.hardware)),
            ev.note
                .as_deref()
                .map(|n| format!(" · {}", escape_text(&one_line(n))))
                .unwrap_or_default(),
        ));
        qualification(w, f, ev);
    }
    w.blank();
}

/// Structured evidence under its receipt: the run, what it covered and
/// the worst error per written tensor.
fn qualification(w: &mut Writer, f: &Family, ev: &crate::ir::Evidence) {
    let Some(tool) = &ev.tool else { return };
    w.line(format_args!(
        "  - {}: {} cases from seed {} ({})",
        code(tool),
        ev.cases,
        ev.seed,
        escape_text(&ev.versions.join(", ")),
    ));
    if !ev.shapes.is_empty() {
        w.line(format_args!(
            "  - covered: {}",
            ev.shapes
                .iter()
                .map(|s| code(s))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    for e in &ev.errors {
        w.line(format_args!(
            "  - worst error of `{}`: {:e} absolute, {:e} relative",
            f.params[e.output].name, e.max_abs, e.max_rel
        ));
    }
    if ev.runs >= 2 {
        w.line(format_args!(
            "  - determinism: {} runs per case, {}",
            ev.runs,
            if ev.deterministic {
                "outputs bitwise identical".to_owned()
            } else {
                format!("outputs differ by up to {:e}", ev.run_max_abs)
            }
        ));
    }
}

fn extent(d: i64) -> String {
    if d < 0 {
        "dynamic (`-1`)".to_owned()
    } else {
        d.to_string()
    }
}

/// A payload extent: a symbol by name, otherwise as [`extent`].
fn payload_extent(f: &Family, e: Extent) -> String {
    match f.symbol_name(e) {
        Some(name) => format!("`{name}`"),
        None => extent(e.as_i64()),
    }
}

/// The logical shape as declared: symbols by name.
fn dims_cell(f: &Family, p: &Param) -> String {
    if p.kind == ParamKind::Scalar {
        return "-".to_owned();
    }
    let dims: Vec<String> = p.dims.iter().map(|&e| f.extent_text(e)).collect();
    format!("`[{}]`", dims.join(", "))
}

fn shape_cell(p: &Param, shape: &[i64]) -> String {
    if p.kind == ParamKind::Scalar {
        return "-".to_owned();
    }
    let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
    format!("`[{}]`", dims.join(", "))
}

/// GitHub's heading anchor of a `` `name` `` heading (names are snake_case).
fn anchor(name: &str) -> String {
    name.to_owned()
}

pub fn diagnostics_md(banner: &str) -> String {
    let mut w = Writer::new("");
    header(&mut w, banner, "kfam diagnostic codes");
    w.line(
        "Every diagnostic `kfam check` (and the build) can report. Codes are stable and never reused; \
         `kfam explain KFnnnn` prints the same explanation. The category is the folder of the \
         diagnostics corpus (`tests/diagnostics/<category>/`) that holds its cases.",
    );
    w.blank();
    w.line("| Code | Category | Title |");
    w.line("|---|---|---|");
    for c in Code::ALL {
        w.line(format_args!(
            "| [{}](#{}) | `{}` | {} |",
            c.as_str(),
            c.as_str().to_lowercase(),
            c.category(),
            escape_prose(c.title())
        ));
    }
    for c in Code::ALL {
        w.blank();
        w.line(format_args!("## {}", c.as_str()));
        w.blank();
        w.line(format_args!("**{}**", capitalize(&escape_prose(c.title()))));
        w.blank();
        w.line(format_args!("Category: `{}`", c.category()));
        for para in paragraphs(c.explanation()) {
            w.blank();
            w.line(escape_prose(&para));
        }
    }
    w.finish()
}

/// The operand table of `kind`, rendered from its declaration
/// ([`crate::record::Operands`]): docs/manifest.md shows it under a
/// `<!-- operands: <kind> -->` marker, held to this rendering by a test.
pub fn operand_table(kind: OperationKind) -> String {
    let decl = crate::record::operands(kind);
    let record = crate::record::operation(kind);
    let mut out = String::from("| Operand | Role | Shape | DType |\n|---|---|---|---|\n");
    for o in decl.tensors {
        let optional = record
            .field(o.key)
            .is_some_and(|f| matches!(f.ty, Ty::OptParam));
        let role = match (o.written, optional) {
            (true, _) => "written",
            (false, true) => "read, optional",
            (false, false) => "read",
        };
        let dtype = decl
            .dtypes
            .iter()
            .find(|g| g.members.contains(&o.key))
            .map_or_else(
                || "any".to_owned(),
                |g| {
                    let first = g.members[0];
                    let mut d = match (g.class, first == o.key) {
                        (DtypeClass::Int32, _) => "int32".to_owned(),
                        (DtypeClass::Float, true) => "a float dtype".to_owned(),
                        (DtypeClass::Same, true) => "any".to_owned(),
                        (_, false) => format!("that of `{first}`"),
                    };
                    if let (Some((key, member)), false) = (g.unless, first == o.key) {
                        let _ = write!(d, " unless `{key} = \"{member}\"`");
                    }
                    d
                },
            );
        let _ = writeln!(
            out,
            "| `{}` | {role} | {} | {dtype} |",
            o.key,
            decl.shape_text(o.key)
        );
    }
    out
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_lowercase() => c.to_ascii_uppercase().to_string() + chars.as_str(),
        _ => s.to_owned(),
    }
}

/// Hard-wrapped text as paragraphs (split at blank lines), each on one line.
fn paragraphs(s: &str) -> Vec<String> {
    s.split("\n\n")
        .map(|p| one_line(p).into_owned())
        .filter(|p| !p.is_empty())
        .collect()
}

/// `s` on one line, single-spaced; borrowed when it already is (most text).
fn one_line(s: &str) -> Cow<'_, str> {
    let spaced = !s.starts_with(char::is_whitespace)
        && !s.ends_with(char::is_whitespace)
        && !s.contains("  ")
        && !s.contains(|c: char| c.is_whitespace() && c != ' ');
    if spaced {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(s.split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

/// Escape manifest free text for Markdown, table cells included: every
/// character that could start markup is backslash-escaped, `&` becomes an
/// entity (so `&lt;` stays literal), line breaks become spaces, and a line
/// start that would open a list or heading is escaped.
pub fn escape_text(s: &str) -> Cow<'_, str> {
    if !s.contains(needs_escape) && !opens_block(s) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(escape_line_start(escape_chars(s)))
}

/// The characters [`escape_chars`] changes.
fn needs_escape(c: char) -> bool {
    matches!(
        c,
        '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '~' | '!' | '&' | '\n' | '\r'
    )
}

fn escape_chars(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// A line that starts with `-`, `+`, `=` or `1.` would become a list item or
/// a heading underline.
fn escape_line_start(s: String) -> String {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if s.starts_with(['-', '+', '=']) {
        format!("\\{s}")
    } else if digits > 0 && matches!(s.as_bytes().get(digits), Some(b'.' | b')')) {
        format!("{}\\{}", &s[..digits], &s[digits..])
    } else {
        s
    }
}

/// Whether `s` starts with what [`escape_line_start`] escapes.
fn opens_block(s: &str) -> bool {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    s.starts_with(['-', '+', '='])
        || (digits > 0 && matches!(s.as_bytes().get(digits), Some(b'.' | b')')))
}

/// Escape kfam's own prose (titles, explanations): code spans written in
/// backticks are kept (pipes in them escaped for tables); everything outside
/// them is escaped like free text.
pub fn escape_prose(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut rest = s;
    while let Some(i) = rest.find('`') {
        out.push_str(&escape_chars(&rest[..i]));
        match rest[i + 1..].find('`') {
            Some(j) => {
                out.push_str(&rest[i..i + j + 2].replace('|', "\\|"));
                rest = &rest[i + j + 2..];
            }
            None => {
                // An unclosed backtick is text.
                out.push_str(&escape_chars(&rest[i..]));
                rest = "";
            }
        }
    }
    out.push_str(&escape_chars(rest));
    escape_line_start(out)
}

/// An inline code span for any text: fenced with enough backticks, pipes
/// escaped for table cells.
pub fn code(s: &str) -> String {
    let s = one_line(s);
    if !s.contains(['`', '|']) {
        return format!("`{s}`");
    }
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{}{pad}{fence}", s.replace('|', "\\|"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_free_text() {
        assert_eq!(escape_text("a | b"), "a \\| b");
        assert_eq!(escape_text("`x`"), "\\`x\\`");
        assert_eq!(escape_text("<script>"), "\\<script\\>");
        assert_eq!(escape_text("# not a heading"), "\\# not a heading");
        assert_eq!(escape_text("- not a list"), "\\- not a list");
        assert_eq!(escape_text("1. not a list"), "1\\. not a list");
        assert_eq!(escape_text("a & b &lt;"), "a &amp; b &amp;lt;");
        assert_eq!(escape_text("two\nlines"), "two lines");
        assert_eq!(escape_text("snake_case *x*"), "snake\\_case \\*x\\*");
        assert_eq!(escape_text("[link](http://x)"), "\\[link\\](http://x)");
        assert_eq!(
            escape_text("plain text, 2026-10-14"),
            "plain text, 2026-10-14"
        );
    }

    #[test]
    fn prose_keeps_code_spans() {
        assert_eq!(
            escape_prose("scalar parameter is not `in`"),
            "scalar parameter is not `in`"
        );
        assert_eq!(escape_prose("`a|b` or <c>"), "`a\\|b` or \\<c\\>");
        assert_eq!(escape_prose("use `x` - then y"), "use `x` - then y");
        assert_eq!(escape_prose("unclosed `tick"), "unclosed \\`tick");
    }

    #[test]
    fn code_spans_survive_backticks_and_pipes() {
        assert_eq!(code("a/b.so"), "`a/b.so`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`a"), "`` `a ``");
        assert_eq!(code("a|b"), "`a\\|b`");
    }
}
