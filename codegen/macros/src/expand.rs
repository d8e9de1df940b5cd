//! Resolve the path, run the shared loader, checker and Rust emitter, and
//! turn diagnostics into `compile_error!`s spanned at the path literal.

use std::path::{Path, PathBuf};

use annotate_snippets::Renderer;
use kfam_codegen::diag::{Code, Diagnostic, Report};
use kfam_codegen::emit::rust::tables_tokens;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

/// Where the calling crate lives. trybuild-style harnesses build cases in a
/// scratch crate; they set `KFAM_MANIFEST_DIR_OVERRIDE` to the real one.
fn crate_dir() -> PathBuf {
    std::env::var_os("KFAM_MANIFEST_DIR_OVERRIDE")
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"))
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// `"path"` or `"path", abi = "abi path"`.
pub struct Input {
    pub path: syn::LitStr,
    pub abi: Option<syn::LitStr>,
}

impl syn::parse::Parse for Input {
    fn parse(input: syn::parse::ParseStream<'_>) -> syn::Result<Self> {
        let path: syn::LitStr = input.parse()?;
        let mut abi = None;
        if input.parse::<Option<syn::Token![,]>>()?.is_some() && !input.is_empty() {
            let key: syn::Ident = input.parse()?;
            if key != "abi" {
                return Err(syn::Error::new(
                    key.span(),
                    "expected `abi = \"path/to/abi.toml\"`",
                ));
            }
            input.parse::<syn::Token![=]>()?;
            abi = Some(input.parse()?);
            input.parse::<Option<syn::Token![,]>>()?;
        }
        Ok(Input { path, abi })
    }
}

fn nearest_abi(file: &Path) -> Option<PathBuf> {
    file.ancestors()
        .skip(1)
        .map(|d| d.join("abi.toml"))
        .find(|p| p.is_file())
}

/// The expansion's tables as one `Catalog`: capability, admission, call
/// validation and the kernel context over this manifest, as
/// `kfam_catalog::CATALOG` is over this repository's catalog.
fn catalog_item(name: &str, digest: &str) -> TokenStream {
    kfam_codegen::emit::rust::catalog_item("::kfam_runtime", name, digest)
        .parse()
        .expect("the catalog item lexes")
}

pub fn manifest(input: &Input) -> TokenStream {
    expand_in(&crate_dir(), input)
}

/// The expansion of `input` for a calling crate at `base`.
fn expand_in(base: &Path, input: &Input) -> TokenStream {
    let lit = &input.path;
    let path = base.join(lit.value());
    let abi = input.abi.as_ref().map(|a| base.join(a.value()));
    if let (Some(a), false) = (&input.abi, path.is_file()) {
        let msg = "`abi = ...` applies to a single family file; a manifest directory has its own `abi.toml`";
        return quote_spanned!(a.span()=> ::core::compile_error!(#msg););
    }
    let (ir, mut report) = if path.is_file() {
        match abi.or_else(|| nearest_abi(&path)) {
            Some(abi) => kfam_codegen::check_files(&abi, std::slice::from_ref(&path)),
            None => {
                let mut report = Report::default();
                report.diagnostics.push(
                    Diagnostic::at_path(Code::Io, path.display().to_string(), "no `abi.toml` beside or above the family file")
                        .help("put the manifest's `abi.toml` in the family file's directory or an ancestor"),
                );
                (None, report)
            }
        }
    } else {
        kfam_codegen::check_dir(&path)
    };
    // Report paths as the user wrote them, relative to the crate.
    let base_str = format!("{}/", base.display());
    report.rebase_paths(&base_str, "");

    // One `include_bytes!` per file read, so cargo rebuilds when one changes.
    let tracked = report
        .sources
        .files()
        .map(|(_, f)| base.join(&f.path).display().to_string());
    let tracking = quote!(#(const _: &[u8] = include_bytes!(#tracked);)*);

    let span = lit.span();
    let renderer = Renderer::plain();
    // Stable proc-macros cannot emit warnings; a deprecated item used at the
    // call site is the customary way to surface one.
    let warnings = report
        .diagnostics
        .iter()
        .filter(|d| !d.is_error())
        .map(|d| {
            let text = d.render(&report.sources, &renderer);
            quote_spanned! {span=>
                const _: () = {
                    #[deprecated(note = #text)]
                    #[allow(non_upper_case_globals)]
                    const kfam_warning: () = ();
                    kfam_warning
                };
            }
        });
    let tracking = quote!(#tracking #(#warnings)*);
    let errors: Vec<String> = match &ir {
        Some(ir) => {
            let tables = tables_tokens(ir, &quote!(::kfam_runtime));
            let catalog = catalog_item(&ir.catalog.name, &kfam_codegen::ir::catalog_digest(ir));
            return quote!(#tracking #tables #catalog);
        }
        None => report
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| {
                let text = d.render(&report.sources, &renderer);
                // `compile_error!` prints its own `error: `; keep the code first.
                text.strip_prefix("error").unwrap_or(&text).to_owned()
            })
            .collect(),
    };
    let errors = errors
        .iter()
        .map(|text| quote_spanned!(span=> ::core::compile_error!(#text);));
    // A harmless stub, so one mistake does not cascade into errors at
    // every use of the tables.
    let catalog = catalog_item("", "");
    quote_spanned! {span=>
        #tracking
        #(#errors)*
        pub static ABI: ::kfam_runtime::Abi = ::kfam_runtime::Abi {
            revision: "", major: 0, minor: 0, max_tensor_args: 0, max_scalar_args: 0, max_rank: 0, max_prepared: 0,
            status: [0; ::kfam_runtime::Status::ALL.len()],
        };
        pub static TARGETS: ::kfam_runtime::Targets = ::kfam_runtime::Targets {
            platforms: &[], backends: &[], runtimes: &[], execution_modes: &[],
        };
        pub mod platforms {}
        pub mod backends {}
        pub mod runtimes {}
        pub mod execution_modes {}
        pub static FAMILIES: &[::kfam_runtime::Family] = &[];
        pub static ARTIFACTS: &[(&str, u32, u32)] = &[];
        pub static RETIRED: &[::kfam_runtime::Retired] = &[];
        pub static FAMILY_INDEX: &[u32] = &[];
        pub static ARTIFACT_INDEX: &[u32] = &[];
        pub mod families {}
        #catalog
    }
}

/// Every case of the diagnostics corpus through the macro's own expansion,
/// in process: its `compile_error!`s and warning notes are exactly the
/// corpus's expected rendering (`tests/diagnostics/<category>/<case>.stderr`,
/// what `kfam check` prints). trybuild compiles a few of them through rustc
/// (`dev/tests/ui.rs`): one case per category and the passing ones.
#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};

    use proc_macro2::{Span, TokenStream, TokenTree};

    use super::{expand_in, Input};
    use kfam_codegen::diag::Code;

    /// The corpus checks an `abi.toml` case with this valid family.
    const ABI_CASE_FAMILY: &str = "manifest/families/add_bf16_1024.toml";

    fn root() -> PathBuf {
        std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
            .expect("the workspace root")
    }

    fn lit(s: &str) -> syn::LitStr {
        syn::LitStr::new(s, Span::call_site())
    }

    /// The texts of every `compile_error!` (as `error...`) and of every
    /// warning's deprecation note, in the expansion's order.
    fn messages(tokens: TokenStream, out: &mut Vec<String>) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, t) in trees.iter().enumerate() {
            match t {
                TokenTree::Ident(id) if id == "compile_error" => {
                    if let Some(TokenTree::Group(g)) = trees.get(i + 2) {
                        let text: syn::LitStr = syn::parse2(g.stream()).expect("a message");
                        out.push(format!("error{}", text.value()));
                    }
                }
                TokenTree::Ident(id) if id == "note" => {
                    if let Some(TokenTree::Literal(l)) = trees.get(i + 2) {
                        let text: syn::LitStr = syn::parse_str(&l.to_string()).expect("a note");
                        out.push(text.value());
                    }
                }
                TokenTree::Group(g) => messages(g.stream(), out),
                _ => {}
            }
        }
    }

    /// `input` for the corpus case at `rel`, as its trybuild wrapper calls
    /// the macro (with the workspace root as the calling crate).
    fn input(rel: &str, is_dir: bool) -> Input {
        if let Some(_stem) = rel.strip_suffix(".abi.toml") {
            Input {
                path: lit(ABI_CASE_FAMILY),
                abi: Some(lit(rel)),
            }
        } else if is_dir {
            Input {
                path: lit(rel),
                abi: None,
            }
        } else {
            Input {
                path: lit(rel),
                abi: Some(lit("manifest/abi.toml")),
            }
        }
    }

    #[test]
    fn every_corpus_case_expands_to_its_diagnostics() {
        let root = root();
        let mut failures = Vec::new();
        let mut codes = BTreeSet::new();
        let mut cases = 0;
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("tests/diagnostics"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for dir in dirs {
            let category = dir.file_name().unwrap().to_string_lossy().into_owned();
            let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            entries.sort();
            for entry in entries {
                let name = entry.file_name().unwrap().to_string_lossy().into_owned();
                if name.ends_with(".stderr") {
                    continue;
                }
                let stem = name.strip_suffix(".toml").unwrap_or(&name);
                let stem = stem.strip_suffix(".abi").unwrap_or(stem);
                // A directory is a manifest to the macro only with its own abi.toml.
                if entry.is_dir() && !entry.join("abi.toml").is_file() {
                    continue;
                }
                cases += 1;
                let rel = format!("tests/diagnostics/{category}/{name}");
                let expected = std::fs::read_to_string(dir.join(format!("{stem}.stderr")))
                    .unwrap_or_else(|e| panic!("{rel}: its .stderr: {e}"));
                let mut got = Vec::new();
                messages(expand_in(&root, &input(&rel, entry.is_dir())), &mut got);
                // The expansion lists warnings before errors; the corpus
                // sorts them by place: each message at its first unclaimed
                // place in the expected text (two may read alike).
                let mut claimed = Vec::new();
                let mut placed: Vec<(usize, String)> = got
                    .into_iter()
                    .map(|m| {
                        let at = expected
                            .match_indices(m.as_str())
                            .map(|(i, _)| i)
                            .find(|i| !claimed.contains(i))
                            .unwrap_or(usize::MAX);
                        claimed.push(at);
                        (at, m)
                    })
                    .collect();
                placed.sort_by_key(|p| p.0);
                let got: Vec<String> = placed.into_iter().map(|p| p.1).collect();
                let joined: String = got.iter().map(|m| format!("{m}\n\n")).collect();
                if joined != expected {
                    failures.push(format!(
                        "{rel}:\n--- expected\n{expected}\n--- expanded\n{joined}"
                    ));
                }
                codes.extend(
                    Code::ALL
                        .iter()
                        .filter(|c| joined.contains(&format!("[{}]", c.as_str())))
                        .copied(),
                );
            }
        }
        assert!(cases > 200, "only {cases} corpus cases found");
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
        let missing: Vec<&str> = Code::ALL
            .iter()
            .filter(|c| !codes.contains(c))
            .map(|c| c.as_str())
            .collect();
        assert!(
            missing.is_empty(),
            "codes no corpus case makes the macro report: {missing:?}"
        );
    }
}
