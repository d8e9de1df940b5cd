//! The C declarations `kfam.h` carries for this library (the generator's
//! `codegen/src/emit/c/functions.h`, read through
//! `kfam_codegen::emit::c::runtime_declarations`) and the functions the
//! library exports (the functions of `src/ffi*.rs` that take the catalog,
//! each exported by `c_abi!` under the catalog's prefix) are the same:
//! the same names, and for each the same number of parameters with
//! corresponding types (docs/c.md, "The runtime library's declarations").
//! Neither side is kept equal to the other by hand.
//!
//! Types correspond as the ABI passes them: `i32` is `int32_t` or one of the
//! header's enums (which the header asserts are 32-bit), `usize` is
//! `size_t`, `u64` `uint64_t`, `c_char` `char`, `c_void` `void`; a record of
//! `generated/rust/ffi_records.rs` is the C struct its documentation names;
//! `Opaque` is any table record of the header (`kfam_family`, `kfam_table`,
//! ...); `KfamContext` is `kfam_context` and `LaunchFn` `kfam_launch_fn`.
//! Pointers correspond level by level: the innermost pointer's `*const` is
//! the C type's leading `const`, every outer one is `*mut`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use kfam_codegen::emit::c::{runtime_declarations, Declaration, DeclarationKind};

/// The C side of the types this test cannot read from a declaration of the
/// header: the opaque context and the launcher's type.
const NAMED: &[(&str, &str)] = &[
    ("KfamContext", "kfam_context"),
    ("LaunchFn", "kfam_launch_fn"),
];

const SOURCES: &[&str] = &[
    "src/ffi/decisions.rs",
    "src/ffi/context.rs",
    "src/ffi/message.rs",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn parse(path: &str) -> syn::File {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// What the test knows of the C types: the header's enums and structs, and
/// the C name of each Rust record.
struct Types {
    enums: BTreeSet<String>,
    structs: BTreeSet<String>,
    records: BTreeMap<String, String>,
}

impl Types {
    fn read() -> Types {
        let header = std::fs::read_to_string(root().join("generated/include/kfam/kfam.h")).unwrap();
        let typedefs = |kind: &str| -> BTreeSet<String> {
            header
                .lines()
                .filter_map(|l| l.strip_prefix(&format!("typedef {kind} ")))
                .filter_map(|l| l.split([' ', '{']).next())
                .map(str::to_owned)
                .collect()
        };
        // `/// `kfam_tensor_arg`: ...` above `pub struct CTensorArg`.
        let mut records = BTreeMap::new();
        for item in parse("generated/rust/ffi_records.rs").items {
            let (ident, attrs) = match &item {
                syn::Item::Struct(s) => (&s.ident, &s.attrs),
                syn::Item::Union(u) => (&u.ident, &u.attrs),
                _ => continue,
            };
            let doc = attrs.iter().find_map(|a| match &a.meta {
                syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            });
            let c = doc
                .as_deref()
                .and_then(|d| d.trim().strip_prefix('`')?.split('`').next());
            let c = c.unwrap_or_else(|| panic!("`{ident}` does not name its C struct"));
            records.insert(ident.to_string(), c.to_owned());
        }
        Types {
            enums: typedefs("enum"),
            structs: typedefs("struct"),
            records,
        }
    }

    /// Whether the Rust type `rust` is passed as the C type `c`.
    fn corresponds(&self, rust: &syn::Type, c: &str) -> bool {
        // Rust pointers, outermost first, and the pointee.
        let mut levels = Vec::new();
        let mut ty = rust;
        while let syn::Type::Ptr(p) = ty {
            levels.push(p.mutability.is_none());
            ty = &p.elem;
        }
        let stars = c.chars().filter(|&ch| ch == '*').count();
        let base = c.trim_end_matches(['*', ' ']);
        let (c_const, base) = match base.strip_prefix("const ") {
            Some(b) => (true, b),
            None => (false, base),
        };
        let pointers_match = levels.len() == stars
            && match levels.split_last() {
                Some((&inner_const, outer)) => inner_const == c_const && outer.iter().all(|c| !c),
                None => !c_const,
            };
        pointers_match && self.base(ty, base)
    }

    fn base(&self, rust: &syn::Type, c: &str) -> bool {
        let syn::Type::Path(p) = rust else {
            return false;
        };
        let last = p.path.segments.last().unwrap();
        let name = last.ident.to_string();
        if name == "Option" {
            // `Option<fn>`: a nullable function pointer.
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return false;
            };
            return match args.args.first() {
                Some(syn::GenericArgument::Type(inner)) => self.base(inner, c),
                _ => false,
            };
        }
        match name.as_str() {
            "i32" => c == "int32_t" || self.enums.contains(c),
            "u32" => c == "uint32_t",
            "u64" => c == "uint64_t",
            "usize" => c == "size_t",
            "c_char" => c == "char",
            "c_void" => c == "void",
            "Opaque" => {
                self.structs.contains(c)
                    && !self.records.values().any(|r| r == c)
                    && !NAMED.iter().any(|&(_, n)| n == c)
            }
            _ => {
                self.records.get(&name).is_some_and(|r| r == c)
                    || NAMED.iter().any(|&(r, n)| r == name && n == c)
            }
        }
    }
}

/// A Rust function signature: name, parameters and return type.
struct Signature {
    name: String,
    params: Vec<(String, syn::Type)>,
    returns: Option<syn::Type>,
}

fn signature(
    name: String,
    inputs: impl Iterator<Item = (String, syn::Type)>,
    output: &syn::ReturnType,
) -> Signature {
    Signature {
        name,
        params: inputs.collect(),
        returns: match output {
            syn::ReturnType::Default => None,
            syn::ReturnType::Type(_, t) => Some((**t).clone()),
        },
    }
}

/// The library's exports, the `LaunchFn` type and whether `KfamContext`
/// exists, from the sources.
fn rust_side() -> (Vec<Signature>, Vec<Signature>, BTreeSet<String>) {
    let (mut exports, mut pointers, mut types) = (Vec::new(), Vec::new(), BTreeSet::new());
    for path in SOURCES {
        for item in parse(path).items {
            match item {
                syn::Item::Fn(f) => {
                    // A function of the C ABI serves a catalog, its first
                    // parameter; `c_abi!` exports it as `PREFIX_<name>`
                    // with the rest.
                    let serves = f.sig.inputs.first().is_some_and(|a| match a {
                        syn::FnArg::Typed(t) => matches!(&*t.ty, syn::Type::Reference(r)
                            if matches!(&*r.elem, syn::Type::Path(p) if p.path.is_ident("CCatalog"))),
                        syn::FnArg::Receiver(_) => false,
                    });
                    if !matches!(f.vis, syn::Visibility::Public(_)) || !serves {
                        continue;
                    }
                    let inputs = f.sig.inputs.iter().skip(1).map(|arg| match arg {
                        syn::FnArg::Typed(t) => (quote_name(&t.pat), (*t.ty).clone()),
                        syn::FnArg::Receiver(_) => panic!("an export takes self"),
                    });
                    let name = format!("kfam_{}", f.sig.ident);
                    exports.push(signature(name, inputs, &f.sig.output));
                }
                syn::Item::Type(t) => {
                    if let syn::Type::BareFn(f) = &*t.ty {
                        let inputs = f.inputs.iter().map(|a| {
                            let name = a
                                .name
                                .as_ref()
                                .map_or(String::new(), |(n, _)| n.to_string());
                            (name, a.ty.clone())
                        });
                        pointers.push(signature(t.ident.to_string(), inputs, &f.output));
                    }
                }
                syn::Item::Struct(s) => {
                    types.insert(s.ident.to_string());
                }
                _ => {}
            }
        }
    }
    (exports, pointers, types)
}

fn quote_name(pat: &syn::Pat) -> String {
    match pat {
        syn::Pat::Ident(i) => i.ident.to_string(),
        _ => String::new(),
    }
}

/// A Rust type as the messages write it (`*mut *const Opaque`).
fn describe(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Ptr(p) => {
            let kind = if p.mutability.is_some() {
                "*mut "
            } else {
                "*const "
            };
            format!("{kind}{}", describe(&p.elem))
        }
        syn::Type::Path(p) => {
            let last = p.path.segments.last().unwrap();
            match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => match a.args.first() {
                    Some(syn::GenericArgument::Type(t)) => {
                        format!("{}<{}>", last.ident, describe(t))
                    }
                    _ => last.ident.to_string(),
                },
                _ => last.ident.to_string(),
            }
        }
        _ => "?".to_owned(),
    }
}

/// The problems of one pair: counts, then each parameter's and the return
/// type's correspondence.
fn compare(types: &Types, rust: &Signature, c: &Declaration, out: &mut Vec<String>) {
    let name = &c.name;
    if rust.params.len() != c.params.len() {
        out.push(format!(
            "`{name}`: {} parameters in Rust, {} in C",
            rust.params.len(),
            c.params.len()
        ));
        return;
    }
    for (i, ((rname, rty), (cty, cname))) in rust.params.iter().zip(&c.params).enumerate() {
        if !types.corresponds(rty, cty) {
            out.push(format!(
                "`{name}` parameter {i} (`{rname}` / `{cname}`): Rust `{}` is not C `{cty}`",
                describe(rty)
            ));
        }
    }
    let returns_i32 = rust
        .returns
        .as_ref()
        .is_some_and(|t| types.corresponds(t, "int32_t"));
    if !(returns_i32 && c.returns == "int32_t") {
        out.push(format!(
            "`{name}`: returns `{}` in C, not int32_t in Rust",
            c.returns
        ));
    }
}

#[test]
fn header_declares_exactly_the_exports() {
    let types = Types::read();
    let declarations = runtime_declarations().expect("functions.h parses");
    let (exports, pointers, structs) = rust_side();
    let mut problems = Vec::new();

    let c_functions: BTreeMap<&str, &Declaration> = declarations
        .iter()
        .filter(|d| d.kind == DeclarationKind::Function)
        .map(|d| (d.name.as_str(), d))
        .collect();
    let rust_functions: BTreeMap<&str, &Signature> =
        exports.iter().map(|s| (s.name.as_str(), s)).collect();
    for name in rust_functions.keys() {
        if !c_functions.contains_key(name) {
            problems.push(format!(
                "`{name}` is exported but kfam.h does not declare it"
            ));
        }
    }
    for (name, c) in &c_functions {
        match rust_functions.get(name) {
            Some(rust) => compare(&types, rust, c, &mut problems),
            None => problems.push(format!(
                "kfam.h declares `{name}`, which the library does not export"
            )),
        }
    }

    for d in declarations
        .iter()
        .filter(|d| d.kind != DeclarationKind::Function)
    {
        let Some(&(rust_name, _)) = NAMED.iter().find(|(_, c)| *c == d.name) else {
            problems.push(format!(
                "kfam.h declares type `{}`, which NAMED does not pair",
                d.name
            ));
            continue;
        };
        match d.kind {
            DeclarationKind::Opaque if !structs.contains(rust_name) => {
                problems.push(format!(
                    "`{}`: no struct `{rust_name}` in the sources",
                    d.name
                ));
            }
            DeclarationKind::FunctionPointer => match pointers.iter().find(|p| p.name == rust_name)
            {
                Some(rust) => compare(&types, rust, d, &mut problems),
                None => problems.push(format!(
                    "`{}`: no type `{rust_name}` in the sources",
                    d.name
                )),
            },
            _ => {}
        }
    }

    assert!(
        problems.is_empty(),
        "kfam.h's runtime declarations (codegen/src/emit/c/functions.h) and the exports of src/ffi*.rs differ:\n  {}",
        problems.join("\n  ")
    );
    // The pairing saw every function: a reader that skipped some would pass.
    assert_eq!(c_functions.len(), rust_functions.len());
    assert!(c_functions.len() >= 20, "{}", c_functions.len());

    // `c_abi!` exports each of them (a call with the wrong arguments would
    // not compile; a missing line would).
    let listed = exported_by_c_abi();
    let functions: BTreeSet<String> = rust_functions.keys().map(|n| n.to_string()).collect();
    assert_eq!(
        listed, functions,
        "src/c_abi.rs does not export every function"
    );
}

/// The names `c_abi!` exports: the lines `name(...)` of its list in
/// `src/c_abi.rs`, with kfam's prefix.
fn exported_by_c_abi() -> BTreeSet<String> {
    let text = std::fs::read_to_string(root().join("src/c_abi.rs")).unwrap();
    let (_, list) = text
        .split_once("__c_abi_exports! { $prefix, C;")
        .expect("c_abi! lists its exports");
    let (list, _) = list.split_once('}').expect("the list ends");
    list.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let name = l.split_once('(')?.0;
            (!name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
                .then(|| format!("kfam_{name}"))
        })
        .collect()
}

/// The comparison itself finds a wrong type, a wrong count and a missing
/// export (so a pass means something).
#[test]
fn mismatches_are_found() {
    let types = Types::read();
    let ty = |s: &str| syn::parse_str::<syn::Type>(s).unwrap();
    assert!(types.corresponds(&ty("*mut *const Opaque"), "const kfam_family **"));
    assert!(types.corresponds(&ty("*const CTensorArg"), "const kfam_tensor_arg *"));
    assert!(types.corresponds(&ty("i32"), "kfam_platform"));
    assert!(types.corresponds(&ty("Option<LaunchFn>"), "kfam_launch_fn"));
    assert!(!types.corresponds(&ty("*const Opaque"), "const kfam_tensor_arg *"));
    assert!(!types.corresponds(&ty("*mut CTensorArg"), "const kfam_tensor_arg *"));
    assert!(!types.corresponds(&ty("*const *const Opaque"), "const kfam_family **"));
    assert!(!types.corresponds(&ty("u64"), "size_t"));
    assert!(!types.corresponds(&ty("*mut c_char"), "const char *"));

    let c = Declaration {
        kind: DeclarationKind::Function,
        name: "kfam_x".into(),
        returns: "int32_t".into(),
        params: vec![("const char *".into(), "name".into())],
    };
    let rust = |params: &[&str]| Signature {
        name: "kfam_x".into(),
        params: params.iter().map(|p| (String::new(), ty(p))).collect(),
        returns: Some(ty("i32")),
    };
    let mut problems = Vec::new();
    compare(&types, &rust(&["*const c_char"]), &c, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    compare(
        &types,
        &rust(&["*const c_char", "usize"]),
        &c,
        &mut problems,
    );
    compare(&types, &rust(&["*mut c_char"]), &c, &mut problems);
    assert_eq!(problems.len(), 2, "{problems:?}");
}
