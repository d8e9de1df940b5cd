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
    let lit = &input.path;
    let base = crate_dir();
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
