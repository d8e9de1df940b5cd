//! Rust output: the vocabulary enums and records `kfam-runtime` compiles
//! (built with `quote`, formatted with `prettyplease`: small, fixed files,
//! the same for every catalog) and a catalog's static tables.
//!
//! [`tables_source`] (`tables.rs`) is the one path from IR to the tables:
//! `kfam generate` writes it, with the `CATALOG` item, to `rust/tables.rs`,
//! the build script (`crate::build`) to `OUT_DIR`, and the proc-macro
//! expands [`tables_tokens`] (the same text, lexed); all with
//! `::kfam_runtime` paths. The tables grow with the manifest, so
//! they are printed through the source writer in a fixed layout chosen for
//! what rustc compiles fast (see `tables.rs`).

use proc_macro2::{Literal, TokenStream};
use quote::quote;

mod embed;
mod records;
mod tables;
mod tokens;

pub use embed::{catalog_item, embedded_source};
pub use records::TABLES_FORMAT;
pub use tables::tables_source;

use super::output::GeneratedFile;
use crate::ir::Ir;
use crate::plan::Plan;
use crate::record::VOCABULARIES;
use crate::vocab::{
    Admission, CallRule, Capability, DType, Member, ScalarDomain, Status, Vocabulary,
};
use tokens::{doc, ident};

pub fn emit(plan: &Plan<'_>) -> Vec<GeneratedFile> {
    let ir = plan.ir;
    let banner = plan.banner.as_str();
    vec![
        GeneratedFile::new("rust/vocab.rs", render(banner, vocab_tokens(ir))),
        // Copied verbatim: the runtime probes with the very function the
        // indices below were built with.
        GeneratedFile::new(
            "rust/lookup_hash.rs",
            format!(
                "// {}

{}",
                banner,
                crate::lookup_hash::SOURCE
            ),
        ),
        GeneratedFile::new(
            "rust/ffi_records.rs",
            render(banner, records::ffi_records_tokens()),
        ),
        GeneratedFile::new("rust/records.rs", render(banner, records::records_tokens())),
        GeneratedFile::new(
            "rust/description.rs",
            render(banner, records::description_tokens()),
        ),
        GeneratedFile::new(
            "rust/tables.rs",
            // Includable by any crate that depends on `kfam_runtime`: the
            // tables and `CATALOG`, as the build script writes them.
            embed::planned_source(plan, "::kfam_runtime", &format!("// {banner}\n\n")),
        ),
    ]
}

/// Format tokens as a file with the banner on its first line.
fn render(banner: &str, tokens: TokenStream) -> String {
    let file: syn::File = match syn::parse2(tokens) {
        Ok(f) => f,
        // The tokens are ours: failing to parse is a generator bug, reported
        // in the output itself so the compile error points at it.
        Err(e) => return format!("// {banner}\ncompile_error!({:?});\n", e.to_string()),
    };
    format!("// {banner}\n\n{}", prettyplease::unparse(&file))
}

fn enum_with_members(c: &Vocabulary, members: &[Member]) -> TokenStream {
    let name = ident(c.name);
    let enum_doc = doc(c.doc);
    let variants = members.iter().map(|m| {
        let v = ident(m.variant);
        let code = Literal::i32_unsuffixed(m.code);
        let d = doc(m.doc);
        quote!(#d #v = #code)
    });
    let all = members.iter().map(|m| ident(m.variant));
    let spell = members.iter().map(|m| {
        let v = ident(m.variant);
        let s = m.spelling;
        quote!(#name::#v => #s)
    });
    let from_code = members.iter().map(|m| {
        let v = ident(m.variant);
        let code = Literal::i32_unsuffixed(m.code);
        quote!(#code => Some(#name::#v))
    });
    let from_spelling = members.iter().map(|m| {
        let v = ident(m.variant);
        let s = m.spelling;
        quote!(#s => Some(#name::#v))
    });
    quote! {
        #enum_doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(i32)]
        pub enum #name { #(#variants,)* }

        impl #name {
            /// Every member, in declaration order.
            pub const ALL: &'static [#name] = &[#(#name::#all),*];

            /// The stable numeric code (the same in C and Python).
            pub const fn code(self) -> i32 {
                self as i32
            }

            /// The member with this code.
            pub const fn from_code(code: i32) -> Option<Self> {
                match code { #(#from_code,)* _ => None }
            }

            /// The manifest spelling.
            pub const fn as_str(self) -> &'static str {
                match self { #(#spell,)* }
            }

            /// The member spelled `s` in the manifest (a `match`: the
            /// compiler dispatches on length before comparing bytes).
            pub fn parse(s: &str) -> Option<Self> {
                match s { #(#from_spelling,)* _ => None }
            }
        }

        impl core::fmt::Display for #name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    }
}

/// The enums of the vocabularies kfam fixes, and `Status`, whose codes
/// each catalog declares (`Abi::status_code` of the runtime).
pub fn vocab_tokens(ir: &Ir) -> TokenStream {
    // A catalog's declared targets are values of the runtime's own types,
    // with constants in its tables (`tables.rs`): no enum here.
    let enums = VOCABULARIES
        .iter()
        .filter(|v| !v.declared)
        .map(|v| enum_with_members(v, &ir.members(v)));
    let status = status_enum();
    // Element widths and scalar domains come from the generator's DType,
    // the one place they are declared.
    let bits = DType::ALL.iter().map(|d| {
        let v = ident(d.variant_name());
        let b = Literal::u32_unsuffixed(d.bits());
        quote!(DType::#v => #b)
    });
    let domains = DType::ALL.iter().map(|d| {
        let v = ident(d.variant_name());
        let domain = match d.scalar_domain() {
            ScalarDomain::Bool => quote!(ScalarDomain::Bool),
            ScalarDomain::Int(lo, hi) => {
                let (lo, hi) = (Literal::i128_unsuffixed(lo), Literal::i128_unsuffixed(hi));
                quote!(ScalarDomain::Int(#lo, #hi))
            }
            ScalarDomain::Float(max) => {
                // `Debug` is the shortest spelling that reads back exactly
                // (`3.4028234663852886e38`), where `Display` spells 39 digits.
                let max: TokenStream = format!("{max:?}").parse().expect("a float literal");
                quote!(ScalarDomain::Float(#max))
            }
        };
        quote!(DType::#v => #domain)
    });
    // The status each decision outcome is reported with, from `vocab.rs`.
    fn status_impl<T: Copy>(
        name: &str,
        all: &[T],
        parts: impl Fn(T) -> (&'static str, Status),
    ) -> TokenStream {
        let ty = ident(name);
        let arms = all.iter().map(|&m| {
            let (v, st) = parts(m);
            let (v, st) = (ident(v), ident(st.variant_name()));
            quote!(#ty::#v => Status::#st)
        });
        quote! {
            impl #ty {
                /// The C ABI status this outcome is reported with.
                pub const fn status(self) -> Status {
                    match self { #(#arms,)* }
                }
            }
        }
    }
    let capability = status_impl(Capability::NAME, Capability::ALL, |c| {
        (c.variant_name(), c.status())
    });
    let admission = status_impl(Admission::NAME, Admission::ALL, |a| {
        (a.variant_name(), a.status())
    });
    let call = status_impl(CallRule::NAME, CallRule::ALL, |r| {
        (r.variant_name(), r.status())
    });
    quote! {
        #(#enums)*
        #status
        #capability
        #admission
        #call
        /// What a scalar parameter of some dtype accepts ([`DType::scalar_domain`]).
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum ScalarDomain {
            /// Only a bool.
            Bool,
            /// An integer in `[lo, hi]`; no float (never truncated), no bool.
            Int(i128, i128),
            /// Any number (int or float, not bool) whose magnitude, when
            /// finite, is at most this largest finite value; inf and nan pass.
            Float(f64),
        }
        impl DType {
            /// Storage size of one element in bits (packed fp4: 4).
            pub const fn bits(self) -> u32 {
                match self { #(#bits,)* }
            }
            /// What a scalar argument of this dtype accepts.
            pub const fn scalar_domain(self) -> ScalarDomain {
                match self { #(#domains,)* }
            }
        }
    }
}

/// `Status` without codes: the outcomes are kfam's, their C codes each
/// catalog's (`[status]` of `abi.toml`), held by its `ABI`.
fn status_enum() -> TokenStream {
    let variants: Vec<_> = Status::ALL
        .iter()
        .map(|s| ident(s.variant_name()))
        .collect();
    let spellings = Status::ALL.iter().map(|s| s.as_str());
    let docs = Status::VOCABULARY.members.iter().map(|m| doc(m.doc));
    quote! {
        /// Outcome of a C ABI call. Its code is the catalog's
        /// (`[status]` of `abi.toml`): `catalog.abi.status_code(status)`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Status { #(#docs #variants,)* }

        impl Status {
            /// Every member, in declaration order (the order of `Abi::status`).
            pub const ALL: &'static [Status] = &[#(Status::#variants),*];

            /// The manifest spelling (the key in `[status]`).
            pub const fn as_str(self) -> &'static str {
                match self { #(Status::#variants => #spellings,)* }
            }

            /// The member spelled `s`.
            pub fn parse(s: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|m| m.as_str() == s)
            }
        }

        impl core::fmt::Display for Status {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    }
}

/// The tables as Rust tokens with record types at `krate` (`crate` or
/// `::kfam_runtime`): [`tables_source`], lexed. The proc-macro's entry.
pub fn tables_tokens(ir: &Ir, krate: &TokenStream) -> TokenStream {
    let k = krate.to_string().replace(' ', "");
    match tables_source(&Plan::new(ir), &k, "").parse() {
        Ok(tokens) => tokens,
        // The text is ours: failing to lex it is a generator bug, reported
        // where the tables would be.
        Err(e) => {
            let msg = format!("kfam generated unparsable tables: {e}");
            quote!(::core::compile_error!(#msg);)
        }
    }
}
