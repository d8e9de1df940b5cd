//! The Rust side of the C ABI is the declared one: every function of
//! `record::C_FUNCTIONS` (which the header's prototypes, `kfamrt.h` and the
//! generated unit are printed from) is implemented by `kfam_runtime::ffi`,
//! exported by `c_abi!` and by `kfam-native`, and listed by docs/c.md, with
//! the same name, the same arguments (name and type, in order) and an
//! `i32` status; nothing else is (docs/architecture.md, "The C ABI's
//! functions").
//!
//! Types correspond as the declaration spells them (`record::Arg::rust`):
//! `i32` for `int32_t` and the vocabularies' enums, `usize` for `size_t`, a
//! record's `#[repr(C)]` mirror (`*const CTensorArg`), `Opaque` for a table
//! record (`*mut *const Opaque` for `const kfam_family **`), `KfamContext`
//! and `Option<LaunchFn>`; `kfam-native` takes the launcher as `kfamrt.h`'s
//! `kfamrt_fn` (`Option<AnyFn>`). The sources are read with `syn`, and the
//! types compared as tokens.

use std::collections::BTreeMap;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::punctuated::Punctuated;

use kfam_codegen::record::{Function, Section, C_FUNCTIONS, LAUNCH_FN};

use crate::support::root;

/// Arguments as a source declares them: each name and type (as tokens).
type Args = Vec<(String, String)>;

/// A macro's list of exports: each name, its arguments and what follows
/// them in the entry.
type Listed = BTreeMap<String, (Args, String)>;

/// Source files: path and text.
type Sources = Vec<(String, String)>;

/// One Rust function as a source declares it: its arguments and its result.
#[derive(Debug)]
struct Rust {
    args: Args,
    returns: String,
}

fn tokens(ty: &syn::Type) -> String {
    ty.to_token_stream().to_string()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `name: Type, ...` (the parameters of a macro's list entry).
fn args(group: TokenStream) -> Args {
    let parser = Punctuated::<syn::FnArg, syn::Token![,]>::parse_terminated;
    let list = syn::parse::Parser::parse2(parser, group).expect("an argument list");
    list.iter().map(typed).collect()
}

fn typed(arg: &syn::FnArg) -> (String, String) {
    match arg {
        syn::FnArg::Typed(t) => {
            let name = match &*t.pat {
                syn::Pat::Ident(i) => i.ident.to_string(),
                other => other.to_token_stream().to_string(),
            };
            (name, tokens(&t.ty))
        }
        syn::FnArg::Receiver(_) => ("self".to_owned(), String::new()),
    }
}

/// The functions of the C ABI in the runtime's `ffi` sources: public,
/// `unsafe`, taking the `&CCatalog` they serve first.
fn ffi_functions(sources: &[(String, String)]) -> BTreeMap<String, Rust> {
    let mut out = BTreeMap::new();
    for (path, text) in sources {
        let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{path}: {e}"));
        for item in file.items {
            let syn::Item::Fn(f) = item else { continue };
            let serves = f.sig.inputs.first().is_some_and(
                |a| matches!(a, syn::FnArg::Typed(t) if tokens(&t.ty) == "& CCatalog"),
            );
            if !matches!(f.vis, syn::Visibility::Public(_)) || !serves {
                continue;
            }
            let returns = match &f.sig.output {
                syn::ReturnType::Default => "()".to_owned(),
                syn::ReturnType::Type(_, t) => tokens(t),
            };
            let args = f.sig.inputs.iter().skip(1).map(typed).collect();
            out.insert(f.sig.ident.to_string(), Rust { args, returns });
        }
    }
    out
}

/// The entries `name(args) ...;` of a macro's list.
fn listed(list: TokenStream) -> Listed {
    let mut out = BTreeMap::new();
    let mut entry: Vec<TokenTree> = Vec::new();
    for tt in list {
        let end = matches!(&tt, TokenTree::Punct(p) if p.as_char() == ';');
        if !end {
            entry.push(tt);
            continue;
        }
        let mut rest = std::mem::take(&mut entry).into_iter();
        let (Some(TokenTree::Ident(name)), Some(TokenTree::Group(params))) =
            (rest.next(), rest.next())
        else {
            continue;
        };
        let tail: TokenStream = rest.collect();
        out.insert(name.to_string(), (args(params.stream()), tail.to_string()));
    }
    out
}

/// The body of the first `name! { .. }` invocation in `tokens`, searched
/// at any depth (inside `macro_rules!` templates too).
fn invocation(tokens: TokenStream, name: &str) -> Option<TokenStream> {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Ident(id) if id == name => {
                let bang =
                    matches!(tts.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
                if let (true, Some(TokenTree::Group(g))) = (bang, tts.get(i + 2)) {
                    return Some(g.stream());
                }
            }
            TokenTree::Group(g) => {
                if let Some(found) = invocation(g.stream(), name) {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

/// `c_abi!`'s list of exports (`$crate::__c_abi_exports! { $prefix, C; .. }`).
fn c_abi_exports(source: &str) -> Listed {
    let file: TokenStream = source.parse().expect("c_abi.rs lexes");
    let body = invocation(file, "__c_abi_exports").expect("c_abi! lists its exports");
    // Past `$prefix, C;`.
    let tts: Vec<TokenTree> = body.into_iter().collect();
    let start = tts
        .iter()
        .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
        .expect("the list follows `$prefix, C;`");
    listed(tts[start + 1..].iter().cloned().collect())
}

/// `kfam-native`'s exports (`exports! { name(args) [refusal] => call; .. }`).
fn native_exports(source: &str) -> Listed {
    let file = syn::parse_file(source).expect("native/src/lib.rs parses");
    let body = file.items.iter().find_map(|item| match item {
        syn::Item::Macro(m) if m.mac.path.is_ident("exports") => Some(m.mac.tokens.clone()),
        _ => None,
    });
    listed(body.expect("native/src/lib.rs lists its exports in `exports!`"))
}

/// What each declared function's Rust arguments are.
fn declared(f: &Function, launch: &str) -> Args {
    f.args
        .iter()
        .map(|a| {
            let ty = a.rust().replace("Option<LaunchFn>", launch);
            let ty: syn::Type = syn::parse_str(&ty).unwrap_or_else(|e| panic!("{ty}: {e}"));
            (a.name.to_owned(), tokens(&ty))
        })
        .collect()
}

/// The differences between the declared functions and one Rust list of
/// them (`what` names the list in the messages).
fn differences(what: &str, found: &BTreeMap<String, Args>, launch: &str) -> Vec<String> {
    let mut out = Vec::new();
    for f in C_FUNCTIONS {
        let Some(args) = found.get(f.name) else {
            out.push(format!(
                "{what}: no `{}` (declared as `{}`)",
                f.name,
                f.c_signature()
            ));
            continue;
        };
        let want = declared(f, launch);
        if *args != want {
            let show = |a: &[(String, String)]| {
                a.iter()
                    .map(|(n, t)| format!("{n}: {t}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            out.push(format!(
                "{what}: `{}` takes ({}), declared ({})",
                f.name,
                show(args),
                show(&want)
            ));
        }
    }
    for name in found.keys() {
        if !C_FUNCTIONS.iter().any(|f| f.name == name) {
            out.push(format!(
                "{what}: `{name}` is not declared in record::C_FUNCTIONS"
            ));
        }
    }
    out
}

fn ffi_sources() -> Sources {
    let dir = root().join("runtime/src/ffi");
    let mut sources: Sources = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    sources.sort();
    sources
}

/// Every problem of the runtime's sources and lists, and of native's.
fn problems(ffi: &[(String, String)], c_abi: &str, native: &str) -> Vec<String> {
    let functions = ffi_functions(ffi);
    let mut out = Vec::new();
    for (name, f) in &functions {
        if f.returns != "i32" {
            out.push(format!(
                "runtime::ffi: `{name}` returns `{}`, not i32",
                f.returns
            ));
        }
    }
    let args = |m: &BTreeMap<String, Rust>| -> BTreeMap<String, Args> {
        m.iter().map(|(n, f)| (n.clone(), f.args.clone())).collect()
    };
    out.extend(differences(
        "runtime::ffi",
        &args(&functions),
        "Option<LaunchFn>",
    ));

    let exports = c_abi_exports(c_abi);
    let only_args = |m: &Listed| {
        m.iter()
            .map(|(n, (a, _))| (n.clone(), a.clone()))
            .collect::<BTreeMap<_, _>>()
    };
    out.extend(differences(
        "c_abi!",
        &only_args(&exports),
        "Option<LaunchFn>",
    ));

    let native = native_exports(native);
    out.extend(differences(
        "kfam-native",
        &only_args(&native),
        "Option<AnyFn>",
    ));
    // Each native export runs the runtime's function of its name.
    for (name, (_, call)) in &native {
        let called = format!("ffi :: {name} (");
        if !call.contains(&called) {
            out.push(format!(
                "kfam-native: `{name}` does not call `ffi::{name}`: {call}"
            ));
        }
    }
    out
}

#[test]
fn rust_surface_is_the_declared_one() {
    let problems = problems(
        &ffi_sources(),
        &read("runtime/src/c_abi.rs"),
        &read("native/src/lib.rs"),
    );
    assert!(
        problems.is_empty(),
        "the C ABI's Rust side differs from its declaration (codegen/src/record/functions.rs):\n  {}",
        problems.join("\n  ")
    );
    // The readers saw every function: a reader that found none would pass.
    assert_eq!(ffi_functions(&ffi_sources()).len(), C_FUNCTIONS.len());
    assert!(C_FUNCTIONS.len() >= 22, "{}", C_FUNCTIONS.len());
}

/// `LaunchFn` is `kfam_launch_fn` as declared, and `KfamContext` exists.
#[test]
fn launcher_and_context_types_are_the_declared_ones() {
    let mut launch = None;
    let mut context = false;
    for (path, text) in ffi_sources() {
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        for item in file.items {
            match item {
                syn::Item::Type(t) if t.ident == "LaunchFn" => {
                    let syn::Type::BareFn(f) = &*t.ty else {
                        panic!("LaunchFn is not a function pointer");
                    };
                    let args: Args = f
                        .inputs
                        .iter()
                        .map(|a| {
                            let name = a.name.as_ref().map(|(n, _)| n.to_string());
                            (name.unwrap_or_default(), tokens(&a.ty))
                        })
                        .collect();
                    let returns = f.output.to_token_stream().to_string();
                    launch = Some((args, returns));
                }
                syn::Item::Struct(s) if s.ident == "KfamContext" => context = true,
                _ => {}
            }
        }
    }
    let (args, returns) = launch.expect("runtime/src/ffi declares LaunchFn");
    assert_eq!(args, declared(&LAUNCH_FN, "Option<LaunchFn>"));
    assert_eq!(returns, "-> i32");
    assert!(context, "runtime/src/ffi declares KfamContext");
}

/// docs/c.md's table of the library's functions spells each as declared,
/// and lists every one.
#[test]
fn docs_list_the_declared_functions() {
    let page = read("docs/c.md");
    let (_, section) = page
        .split_once("## The runtime library's functions")
        .expect("docs/c.md has the section");
    let listed: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `int32_t "))
        .map(|l| l.split('`').next().unwrap_or(l))
        .collect();
    let declared: Vec<String> = C_FUNCTIONS
        .iter()
        .filter(|f| f.section == Section::Library)
        .map(|f| f.c_signature().trim_start_matches("int32_t ").to_owned())
        .collect();
    let mut problems = Vec::new();
    for line in &listed {
        if !declared.iter().any(|d| d == line) {
            problems.push(format!(
                "docs/c.md lists `int32_t {line}`, which is not declared"
            ));
        }
    }
    for d in &declared {
        if !listed.contains(&d.as_str()) {
            problems.push(format!("docs/c.md does not list `int32_t {d}`"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The comparison finds a wrong type, a renamed or missing argument, a
/// missing export, an undeclared one and a native export that calls
/// another function (so a pass means something).
#[test]
fn differences_are_found() {
    let ffi = ffi_sources();
    let c_abi = read("runtime/src/c_abi.rs");
    let native = read("native/src/lib.rs");
    assert!(problems(&ffi, &c_abi, &native).is_empty());
    let edit = |sources: &[(String, String)], from: &str, to: &str| -> Sources {
        let mut hit = false;
        let out = sources
            .iter()
            .map(|(p, t)| {
                hit |= t.contains(from);
                (p.clone(), t.replacen(from, to, 1))
            })
            .collect();
        assert!(hit, "no `{from}` to edit");
        out
    };
    let cases: &[(&str, Sources, String, String)] = &[
        (
            "a wrong type",
            edit(&ffi, "sha256_hex: *const c_char", "sha256_hex: *const u8"),
            c_abi.clone(),
            native.clone(),
        ),
        (
            "a renamed argument",
            ffi.clone(),
            c_abi.replacen("n_tensors: usize", "count: usize", 1),
            native.clone(),
        ),
        (
            "a missing export",
            ffi.clone(),
            c_abi.replacen("context_free(ctx: *mut KfamContext);", "", 1),
            native.clone(),
        ),
        (
            "an undeclared function",
            edit(
                &ffi,
                "pub unsafe fn torch_schema(",
                "pub unsafe fn torch_schema2(",
            ),
            c_abi.clone(),
            native.clone(),
        ),
        (
            "another function called",
            ffi.clone(),
            c_abi.clone(),
            native.replacen("=> |c| ffi::find_family(", "=> |c| ffi::torch_schema(", 1),
        ),
    ];
    for (case, ffi, c_abi, native) in cases {
        assert!(
            !problems(ffi, c_abi, native).is_empty(),
            "{case} was not found"
        );
    }
}
