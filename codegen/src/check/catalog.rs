//! `[catalog]` of `abi.toml`: the catalog's identity (its names, version,
//! license and output locations), checked and resolved with its defaults.

use std::ops::Range;

use super::family::err;
use super::text::printable;
use crate::diag::{Code, Diagnostic, FileId, Report};
use crate::ir;
use crate::limits::{MAX_LICENSE_CHARS, MAX_OUTPUT_PATH_CHARS, MAX_VERSION_CHARS};
use crate::model::{self, Spanned};
use crate::names::{
    c_prefix_problem, catalog_name_problem, identifier_problem, is_reserved, kfams_distribution,
    python_package_problem, torch_namespace_problem, MAX_NAME_LEN,
};

/// The identity `catalog` declares (kfam's default identity when `None`),
/// or `None` after reporting what is wrong with it.
pub(super) fn check_catalog(
    id: FileId,
    catalog: Option<&Spanned<model::Catalog>>,
    report: &mut Report,
) -> Option<ir::Catalog> {
    let Some(catalog) = catalog else {
        return Some(ir::Catalog::default());
    };
    let c = &catalog.value;
    let before = report.error_count();
    let name = &c.name;
    // A name each key not declared takes from `name`: its value, and
    // where a diagnostic about it points.
    let or_name = |key: &Option<Spanned<String>>| -> (String, Range<usize>, bool) {
        match key {
            Some(v) => (v.value.clone(), v.span.clone(), true),
            None => (name.value.clone(), name.span.clone(), false),
        }
    };
    let mut resolved = ir::Catalog::named(&name.value, &c.license.value);
    check_identifier(
        id,
        "catalog name",
        &name.value,
        &name.span,
        Some((true, "name", catalog_name_problem(&name.value))),
        report,
    );
    // A name that is not an identifier is reported once, not again for
    // each key that takes it.
    let name_ok = report.error_count() == before;

    let (package, span, declared) = or_name(&c.python_package);
    if declared || name_ok {
        check_identifier(
            id,
            "Python package",
            &package,
            &span,
            Some((declared, "python_package", python_package_problem(&package))),
            report,
        );
    }
    resolved.python_package = package;
    let (namespace, span, declared) = or_name(&c.torch_namespace);
    if declared || name_ok {
        check_identifier(
            id,
            "torch namespace",
            &namespace,
            &span,
            Some((
                declared,
                "torch_namespace",
                torch_namespace_problem(&namespace),
            )),
            report,
        );
    }
    resolved.torch_namespace = namespace;
    let (prefix, span, declared) = or_name(&c.c_prefix);
    if declared || name_ok {
        check_identifier(
            id,
            "C prefix",
            &prefix,
            &span,
            Some((declared, "c_prefix", c_prefix_problem(&prefix))),
            report,
        );
    }
    resolved.c_prefix = prefix;

    let (distribution, span, declared) = or_name(&c.python_distribution);
    if let Some(problem) = distribution_problem(&distribution) {
        let mut d = err(
            Code::CatalogDistribution,
            id,
            &span,
            format!(
                "Python distribution name `{}` is not a PEP 508 name: {problem}",
                printable(&distribution)
            ),
        )
        .label("not a distribution name");
        d = if declared {
            d.help("write letters, digits, `.`, `_` or `-`, beginning and ending with a letter or digit (`my-kernels`)")
        } else {
            d.help("declare `python_distribution` with a PEP 508 name")
        };
        report.diagnostics.push(d);
    } else if kfams_distribution(&distribution) {
        let d = err(
            Code::CatalogDistribution,
            id,
            &span,
            format!(
                "Python distribution `{distribution}` cannot be used: it is one of kfam's own, \
                 its Python runtime (`kfam-runtime`, which every catalog's package depends on) \
                 or its command line (`kfam-cli`)"
            ),
        )
        .label("a distribution of kfam's own");
        report.diagnostics.push(if declared {
            d.help("pick a name of the catalog's own (`myteam-kernels`)")
        } else {
            d.help(
                "declare `python_distribution` with a name of the catalog's own (`myteam-kernels`)",
            )
        });
    }
    resolved.python_distribution = distribution;

    if let Some(version) = &c.version {
        if let Some((problem, help)) = version_problem(&version.value) {
            report.diagnostics.push(
                err(
                    Code::CatalogVersion,
                    id,
                    &version.span,
                    format!(
                        "version `{}` is not a normalized PEP 440 release: {problem}",
                        printable(&version.value)
                    ),
                )
                .label("not a PEP 440 version")
                .help(help),
            );
        }
        resolved.version = version.value.clone();
    }

    let license = &c.license;
    if let Some(problem) = spdx_problem(&license.value) {
        report.diagnostics.push(
            err(
                Code::CatalogLicense,
                id,
                &license.span,
                format!(
                    "license `{}` is not an SPDX license expression: {problem}",
                    printable(&license.value)
                ),
            )
            .label("not an SPDX expression")
            .help("write an SPDX expression: `Apache-2.0`, `MIT OR Apache-2.0`, `LicenseRef-Proprietary`"),
        );
    }

    if let Some(outputs) = &c.outputs {
        resolved.outputs = check_outputs(id, &outputs.value, report);
    }
    (report.error_count() == before).then_some(resolved)
}

/// The identifier rules and reserved words for a name of the catalog;
/// `role` (for the names that follow from `name` when not declared): whether
/// it is declared, its key, and what else its role refuses.
fn check_identifier(
    id: FileId,
    what: &str,
    value: &str,
    span: &Range<usize>,
    role: Option<(bool, &str, Option<&'static str>)>,
    report: &mut Report,
) {
    let (declared, key, taken) = role.unwrap_or((true, "name", None));
    let from_name = if declared {
        String::new()
    } else {
        format!(" (the catalog name: `{key}` is not declared)")
    };
    let help = |fix: &str| {
        if declared {
            fix.to_owned()
        } else {
            format!("declare `{key}` with another name, or {fix}")
        }
    };
    let d = if let Some(problem) = identifier_problem(value) {
        err(
            Code::CatalogName,
            id,
            span,
            format!(
                "{what} `{}`{from_name} is not a valid identifier: {problem}",
                printable(value)
            ),
        )
        .label("not an identifier")
        .help(help(&format!(
            "write lowercase snake_case ASCII of at most {MAX_NAME_LEN} characters (`my_kernels`)"
        )))
    } else if is_reserved(value) {
        err(
            Code::CatalogName,
            id,
            span,
            format!("{what} `{value}`{from_name} is a reserved word"),
        )
        .label("reserved in Rust, C, C++ or Python")
        .help(help("pick a name that no generated binding reserves"))
    } else if let Some(problem) = taken {
        err(
            Code::CatalogName,
            id,
            span,
            format!("{what} `{value}`{from_name} cannot be used: {problem}"),
        )
        .label(format!("cannot be the {what}"))
        .help(help(if key == "c_prefix" {
            "pick a prefix of the catalog's own, one word (`myteam`)"
        } else {
            "pick a name of the catalog's own (`myteam_kernels`)"
        }))
    } else {
        return;
    };
    report.diagnostics.push(d);
}

/// Why `name` is not a PEP 508 distribution name, if it is not.
fn distribution_problem(name: &str) -> Option<&'static str> {
    let b = name.as_bytes();
    if b.is_empty() {
        return Some("it is empty");
    }
    if b.len() > MAX_NAME_LEN {
        return Some("it is longer than 64 characters");
    }
    if !b
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
    {
        return Some("it holds a character other than ASCII letters, digits, `.`, `_` and `-`");
    }
    if !b[0].is_ascii_alphanumeric() || !b[b.len() - 1].is_ascii_alphanumeric() {
        return Some("it begins or ends with `.`, `_` or `-`");
    }
    None
}

/// Why `v` is not a PEP 440 version in normalized form without a local
/// label, with a help, if it is not: `[N!]N(.N)*[{a|b|rc}N][.postN][.devN]`,
/// numbers without leading zeros.
pub(super) fn version_problem(v: &str) -> Option<(String, String)> {
    const FORM: &str = "write a normalized PEP 440 version such as `1.2.0`, `2.0.0rc1`, `1.2.0.post1` or `1.3.0.dev2`";
    if v.len() > MAX_VERSION_CHARS {
        return Some((
            format!("it is longer than {MAX_VERSION_CHARS} characters"),
            FORM.to_owned(),
        ));
    }
    if let Some((public, _)) = v.split_once('+') {
        return Some((
            "it has a local label (`+...`)".to_owned(),
            format!(
                "write `{}`: PyPI refuses local labels, and `CATALOG_DIGEST` names the catalog's content",
                printable(public)
            ),
        ));
    }
    let mut rest = v;
    // A number without leading zeros, at the start of `rest`.
    fn number(rest: &mut &str) -> bool {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || (digits > 1 && rest.starts_with('0')) {
            return false;
        }
        *rest = &rest[digits..];
        true
    }
    let bad = || {
        Some((
            "it is not of the form `[N!]N(.N)*[{a|b|rc}N][.postN][.devN]` (numbers without leading zeros)".to_owned(),
            FORM.to_owned(),
        ))
    };
    if let Some(at) = rest.find('!') {
        let mut epoch = &rest[..at];
        if !number(&mut epoch) || !epoch.is_empty() || rest[..at].starts_with('0') {
            return bad();
        }
        rest = &rest[at + 1..];
    }
    if !number(&mut rest) {
        return bad();
    }
    while let Some(after) = rest.strip_prefix('.') {
        if after.starts_with(|c: char| c.is_ascii_digit()) {
            rest = after;
            if !number(&mut rest) {
                return bad();
            }
        } else {
            break;
        }
    }
    for pre in ["rc", "a", "b"] {
        if let Some(after) = rest.strip_prefix(pre) {
            rest = after;
            if !number(&mut rest) {
                return bad();
            }
            break;
        }
    }
    for part in [".post", ".dev"] {
        if let Some(after) = rest.strip_prefix(part) {
            rest = after;
            if !number(&mut rest) {
                return bad();
            }
        }
    }
    if rest.is_empty() {
        None
    } else {
        bad()
    }
}

/// Why `expr` is not an SPDX license expression (by its syntax: the
/// identifiers are not looked up), if it is not.
pub(super) fn spdx_problem(expr: &str) -> Option<String> {
    if expr.trim().is_empty() {
        return Some("it is empty".to_owned());
    }
    if expr.chars().count() > MAX_LICENSE_CHARS {
        return Some(format!("it is longer than {MAX_LICENSE_CHARS} characters"));
    }
    // Tokens: `(`, `)`, and words separated by spaces or parentheses.
    let mut tokens = Vec::new();
    let mut word = String::new();
    for c in expr.chars() {
        match c {
            '(' | ')' | ' ' => {
                if !word.is_empty() {
                    tokens.push(std::mem::take(&mut word));
                }
                if c != ' ' {
                    tokens.push(c.to_string());
                }
            }
            c if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | ':') => word.push(c),
            c => {
                return Some(format!(
                    "`{}` is not a character of an SPDX expression",
                    printable(&c.to_string())
                ))
            }
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    let is_operator = |t: &str| matches!(t, "AND" | "OR" | "WITH");
    let id_problem = |t: &str| -> Option<String> {
        if t.eq_ignore_ascii_case("and")
            || t.eq_ignore_ascii_case("or")
            || t.eq_ignore_ascii_case("with")
        {
            return Some(format!(
                "the operator `{t}` is written in capitals: `{}`",
                t.to_ascii_uppercase()
            ));
        }
        let body = t.strip_suffix('+').unwrap_or(t);
        let body = match body.strip_prefix("DocumentRef-") {
            Some(rest) => match rest.split_once(':') {
                Some((doc, id)) if !doc.is_empty() => id,
                _ => "",
            },
            None => body,
        };
        if !body.is_empty()
            && body
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-'))
        {
            None
        } else {
            Some(format!("`{t}` is not a license identifier"))
        }
    };
    // expression := term (("AND" | "OR") term)*; term := atom ["WITH" id];
    // atom := id | "(" expression ")".
    fn expression(
        tokens: &[String],
        at: &mut usize,
        id_problem: &dyn Fn(&str) -> Option<String>,
        is_operator: &dyn Fn(&str) -> bool,
    ) -> Result<(), String> {
        loop {
            match tokens.get(*at).map(String::as_str) {
                Some("(") => {
                    *at += 1;
                    expression(tokens, at, id_problem, is_operator)?;
                    if tokens.get(*at).map(String::as_str) != Some(")") {
                        return Err("a `(` is not closed".to_owned());
                    }
                    *at += 1;
                }
                Some(t) if t != ")" && !is_operator(t) => {
                    if let Some(p) = id_problem(t) {
                        return Err(p);
                    }
                    *at += 1;
                }
                Some(t) => return Err(format!("`{t}` where a license identifier is expected")),
                None => return Err("it ends where a license identifier is expected".to_owned()),
            }
            if tokens.get(*at).map(String::as_str) == Some("WITH") {
                *at += 1;
                match tokens.get(*at).map(String::as_str) {
                    Some(t) if t != "(" && t != ")" && !is_operator(t) => {
                        if let Some(p) = id_problem(t) {
                            return Err(p);
                        }
                        *at += 1;
                    }
                    _ => return Err("`WITH` is not followed by an exception identifier".to_owned()),
                }
            }
            match tokens.get(*at).map(String::as_str) {
                Some("AND" | "OR") => *at += 1,
                _ => return Ok(()),
            }
        }
    }
    let mut at = 0;
    if let Err(problem) = expression(&tokens, &mut at, &id_problem, &is_operator) {
        return Some(problem);
    }
    match tokens.get(at) {
        None => None,
        Some(t) if t == ")" => Some("a `)` closes no `(`".to_owned()),
        Some(t) => Some(match id_problem(t) {
            Some(p) if t.eq_ignore_ascii_case("and") || t.eq_ignore_ascii_case("or") => p,
            _ => format!("`{t}` follows a complete expression (join licenses with `AND` or `OR`)"),
        }),
    }
}

/// The output locations `outputs` declares, the others at their defaults;
/// each a plain relative path, none equal to or inside another.
fn check_outputs(id: FileId, outputs: &model::Outputs, report: &mut Report) -> ir::Outputs {
    let mut resolved = ir::Outputs::default();
    let declared = [
        ("c", &outputs.c, &mut resolved.c),
        ("rust", &outputs.rust, &mut resolved.rust),
        ("python", &outputs.python, &mut resolved.python),
        ("schema", &outputs.schema, &mut resolved.schema),
        ("docs", &outputs.docs, &mut resolved.docs),
    ];
    // Every location with its key and, when declared, its span.
    let mut places: Vec<(&str, String, Option<Range<usize>>)> = Vec::new();
    for (key, value, slot) in declared {
        if let Some(v) = value {
            if let Some(problem) = output_path_problem(&v.value) {
                report.diagnostics.push(
                    err(
                        Code::OutputLocation,
                        id,
                        &v.span,
                        format!(
                            "output location `{}` of `{key}` is not a plain relative path: {problem}",
                            printable(&v.value)
                        ),
                    )
                    .label("not a plain relative path")
                    .help(format!(
                        "write a directory below the output directory, such as `{}`",
                        slot
                    )),
                );
            }
            slot.clone_from(&v.value);
            places.push((key, v.value.clone(), Some(v.span.clone())));
        } else {
            places.push((key, slot.clone(), None));
        }
    }
    let inside = |a: &str, b: &str| a == b || a.starts_with(&format!("{b}/"));
    for (i, (key, path, span)) in places.iter().enumerate() {
        for (j, (other, other_path, other_span)) in places.iter().enumerate() {
            if i == j || !inside(path, other_path) || (path == other_path && j > i) {
                continue;
            }
            // Report at a declared location: this one, else the other.
            let (at, there) = match (span, other_span) {
                (Some(s), _) => (s, other_span),
                (None, Some(s)) => (s, &None),
                (None, None) => continue,
            };
            let relation = if path == other_path {
                "is also the location of"
            } else {
                "is inside the location of"
            };
            let mut d: Diagnostic = err(
                Code::OutputLocation,
                id,
                at,
                format!(
                    "output location `{path}` of `{key}` {relation} `{other}` (`{other_path}`)"
                ),
            )
            .label("overlaps another output")
            .help("give every output a directory of its own, none inside another");
            if let Some(s) = there {
                d = d.related(id, s.clone(), format!("the location of `{other}`"));
            }
            if span.is_none() {
                // The undeclared one is the default; say whose it is.
                d = d.note(format!("`{key}` is at its default location `{path}`"));
            }
            report.diagnostics.push(d);
        }
    }
    resolved
}

/// Why `path` is not a plain relative directory path, if it is not.
pub(super) fn output_path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("it is empty");
    }
    if path.chars().count() > MAX_OUTPUT_PATH_CHARS {
        return Some("it is longer than 200 characters");
    }
    if path.starts_with('/') || path.contains('\\') || path.get(1..2) == Some(":") {
        return Some("it is absolute, or not `/`-separated");
    }
    for segment in path.split('/') {
        if segment.is_empty() {
            return Some("it has an empty segment (`//`, or a `/` at an end)");
        }
        if segment == "." || segment == ".." {
            return Some("it has a `.` or `..` segment");
        }
        if segment.starts_with('.') {
            return Some("a segment begins with `.`");
        }
        if !segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        {
            return Some(
                "a segment holds a character other than ASCII letters, digits, `.`, `_` and `-`",
            );
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        for good in [
            "0.1.0",
            "1",
            "1.2.3.4",
            "2.0.0rc1",
            "1.0a0",
            "1.0b2",
            "1.2.0.post1",
            "1.3.0.dev2",
            "1!2.0",
            "1.0rc1.post2.dev3",
            "10.20.30",
        ] {
            assert_eq!(version_problem(good), None, "{good}");
        }
        for bad in [
            "",
            "v1.0",
            "1.0+local",
            "01.0",
            "1.00",
            "1.0-rc1",
            "1.0.RC1",
            "1.0rc",
            "1.0.post",
            "1.",
            ".1",
            "0!1.0",
            "1.0 ",
            "1.0c1",
            "1.0dev1",
        ] {
            assert!(version_problem(bad).is_some(), "{bad}");
        }
        assert!(version_problem("1.0+x").unwrap().1.contains("`1.0`"));
    }

    #[test]
    fn licenses() {
        for good in [
            "Apache-2.0",
            "MIT OR Apache-2.0",
            "(MIT OR Apache-2.0) AND BSD-3-Clause",
            "GPL-2.0-only WITH Classpath-exception-2.0",
            "LicenseRef-Proprietary",
            "GPL-2.0+",
            "DocumentRef-spdx:LicenseRef-x",
        ] {
            assert_eq!(spdx_problem(good), None, "{good}");
        }
        for bad in [
            "",
            "  ",
            "MIT or Apache-2.0",
            "MIT Apache-2.0",
            "(MIT",
            "MIT)",
            "MIT OR",
            "AND MIT",
            "MIT WITH",
            "Apache 2.0 license, see LICENSE",
            "MIT/Apache",
            "()",
        ] {
            assert!(spdx_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn output_paths() {
        for good in ["include", "native/include", "py", "a.b", "x-y_z"] {
            assert_eq!(output_path_problem(good), None, "{good}");
        }
        for bad in [
            "", "/abs", "a//b", "a/", "../x", "./x", "a/../b", ".hidden", "c:/x", "a\\b", "a b",
        ] {
            assert!(output_path_problem(bad).is_some(), "{bad}");
        }
    }
}
