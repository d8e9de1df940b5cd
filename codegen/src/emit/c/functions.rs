//! The runtime library's C functions: declared in `kfam.h` as written in
//! `functions.h`, a C header fragment spliced in verbatim, and implemented by
//! a catalog's library (`runtime/src/ffi*.rs`, exported by `c_abi!`). The
//! names the header records for its collision check, and the declarations the runtime's test
//! `runtime/tests/c_declarations.rs` compares with its exports, are parsed
//! from that one text ([`runtime_declarations`]). See docs/c.md, "The
//! runtime library's declarations".

/// The declarations of the runtime library, as `kfam.h` carries them.
pub(super) const FUNCTIONS: &str = include_str!("functions.h");

/// What one declaration of `functions.h` declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeclarationKind {
    /// `KFAM_API int32_t kfam_x(...);`: a function the library exports.
    Function,
    /// `typedef int32_t (*kfam_x)(...);`: a function pointer type.
    FunctionPointer,
    /// `typedef struct kfam_x kfam_x;`: a type only the library sees inside.
    Opaque,
}

/// One declaration of `functions.h`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    pub kind: DeclarationKind,
    pub name: String,
    /// The return type (`int32_t`); empty for an opaque type.
    pub returns: String,
    /// Each parameter's type and name, the type spelled with single spaces
    /// and its stars apart (`const kfam_family **`).
    pub params: Vec<(String, String)>,
}

/// Every declaration of the runtime library's C functions and types, in
/// header order; `Err` names a statement of `functions.h` this reader does
/// not understand (a test holds the shipped text to none).
pub fn runtime_declarations() -> Result<Vec<Declaration>, String> {
    parse(FUNCTIONS)
}

/// The names `functions.h` declares, in header order (recorded by `kfam.h`'s
/// collision check).
pub(super) fn declared_names() -> Vec<String> {
    // The shipped text parses (`functions_h_parses`); were it not to, the
    // names of the statements that did would still be recorded.
    let text = strip_comments(FUNCTIONS);
    statements(&text)
        .filter_map(|s| declaration(s).ok())
        .map(|d| d.name)
        .collect()
}

fn parse(text: &str) -> Result<Vec<Declaration>, String> {
    statements(&strip_comments(text)).map(declaration).collect()
}

/// `text` without its `/* */` comments.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        match rest[start + 2..].find("*/") {
            Some(end) => rest = &rest[start + 2 + end + 2..],
            None => rest = "",
        }
        out.push(' ');
    }
    out.push_str(rest);
    out
}

/// The `;`-terminated statements, whitespace collapsed.
fn statements(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(';')
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty())
}

fn declaration(s: String) -> Result<Declaration, String> {
    let bad = || format!("not a declaration kfam reads: `{s}`");
    if let Some(rest) = s.strip_prefix("typedef struct ") {
        // `typedef struct kfam_x kfam_x`
        return match rest.split(' ').collect::<Vec<_>>()[..] {
            [tag, name] if tag == name && is_ident(name) => Ok(Declaration {
                kind: DeclarationKind::Opaque,
                name: name.to_owned(),
                returns: String::new(),
                params: Vec::new(),
            }),
            _ => Err(bad()),
        };
    }
    if let Some(rest) = s.strip_prefix("typedef ") {
        // `typedef RET (*NAME)(PARAMS)`
        let (returns, rest) = rest.split_once("(*").ok_or_else(bad)?;
        let (name, rest) = rest.split_once(')').ok_or_else(bad)?;
        let params = rest.trim().strip_prefix('(').ok_or_else(bad)?;
        return Ok(Declaration {
            kind: DeclarationKind::FunctionPointer,
            name: ident(name).ok_or_else(bad)?,
            returns: c_type(returns).ok_or_else(bad)?,
            params: parameters(params).ok_or_else(bad)?,
        });
    }
    // `KFAM_API RET NAME(PARAMS)`
    let rest = s.strip_prefix("KFAM_API ").ok_or_else(bad)?;
    let (head, params) = rest.split_once('(').ok_or_else(bad)?;
    let (returns, name) = head.trim().rsplit_once(' ').ok_or_else(bad)?;
    Ok(Declaration {
        kind: DeclarationKind::Function,
        name: ident(name).ok_or_else(bad)?,
        returns: c_type(returns).ok_or_else(bad)?,
        params: parameters(params).ok_or_else(bad)?,
    })
}

/// `T a, U *b)` (the text after the opening parenthesis).
fn parameters(text: &str) -> Option<Vec<(String, String)>> {
    let list = text.trim().strip_suffix(')')?;
    if list.contains(['(', ')']) {
        return None;
    }
    list.split(',')
        .map(|p| {
            let p = p.trim();
            let at = p.rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))? + 1;
            Some((c_type(&p[..at])?, ident(&p[at..])?))
        })
        .collect()
}

/// A type as `[const ]BASE[ *...]`; `None` for another form (a `const`
/// after a star, an array).
fn c_type(text: &str) -> Option<String> {
    let text = text.trim();
    let tail = text.chars().rev().take_while(|&c| c == '*' || c == ' ');
    let stars = tail.filter(|&c| c == '*').count();
    let base = text.trim_end_matches(['*', ' ']);
    let (konst, base) = match base.strip_prefix("const ") {
        Some(b) => ("const ", b),
        None => ("", base),
    };
    // One identifier: `unsigned char` and the like are not used.
    let base = ident(base)?;
    let stars = "*".repeat(stars);
    Some(if stars.is_empty() {
        format!("{konst}{base}")
    } else {
        format!("{konst}{base} {stars}")
    })
}

fn ident(text: &str) -> Option<String> {
    let t = text.trim();
    is_ident(t).then(|| t.to_owned())
}

fn is_ident(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_h_parses() {
        let all = runtime_declarations().unwrap();
        let names: Vec<String> = all.iter().map(|d| d.name.clone()).collect();
        assert_eq!(names, declared_names());
        assert!(names.len() >= 20, "{names:?}");
        let find = |n: &str| all.iter().find(|d| d.name == n).unwrap();
        assert_eq!(
            find("kfam_find_family").params,
            [
                ("const char *".to_owned(), "name".to_owned()),
                ("const kfam_family **".to_owned(), "out".to_owned()),
            ]
        );
        assert_eq!(find("kfam_context").kind, DeclarationKind::Opaque);
        let launch = find("kfam_launch_fn");
        assert_eq!(launch.kind, DeclarationKind::FunctionPointer);
        assert_eq!(
            (launch.returns.as_str(), launch.params.len()),
            ("int32_t", 8)
        );
    }

    #[test]
    fn unknown_forms_are_refused() {
        for text in [
            "KFAM_API int32_t f(char *const *p);",
            "int32_t g(void);",
            "typedef struct a b;",
            "KFAM_API int32_t h(int32_t (*cb)(void));",
        ] {
            assert!(parse(text).is_err(), "{text}");
        }
        assert_eq!(parse("/* only a comment */").unwrap(), []);
    }
}
