//! Rust output: the vocabulary enums and the static tables `kfam-runtime`
//! compiles, built with `quote` and formatted with `prettyplease`.
//!
//! [`tables_tokens`] is the one path from IR to Rust tokens: `kfam generate`
//! writes it to `generated/rust/` with `crate` paths, and the proc-macro
//! expands it with `::kfam_runtime` paths.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use super::{marker_line, GeneratedFile};
use crate::ir::{Family, Ir, Operation};
use crate::names::shouty;
use crate::vocab::{Catalog, Member, Status, CATALOGS};

pub fn emit(ir: &Ir) -> Vec<GeneratedFile> {
    vec![
        GeneratedFile::new("rust/vocab.rs", render(vocab_tokens(ir))),
        GeneratedFile::new("rust/tables.rs", render(tables_tokens(ir, &quote!(crate)))),
    ]
}

/// Format tokens as a file with the marker on its first line.
fn render(tokens: TokenStream) -> String {
    let file: syn::File = match syn::parse2(tokens) {
        Ok(f) => f,
        // The tokens are ours: failing to parse is a generator bug, reported
        // in the output itself so the compile error points at it.
        Err(e) => {
            return format!(
                "// {}\ncompile_error!({:?});\n",
                marker_line(),
                e.to_string()
            )
        }
    };
    format!("// {}\n\n{}", marker_line(), prettyplease::unparse(&file))
}

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

fn doc(text: &str) -> TokenStream {
    let text = text.trim();
    if text.is_empty() {
        return TokenStream::new();
    }
    // `#[doc]` takes any string: quote escapes it, so free text cannot end it.
    let lines = text.lines().map(|l| format!(" {}", l.trim_end()));
    quote!(#(#[doc = #lines])*)
}

fn enum_tokens(c: &Catalog) -> TokenStream {
    enum_with_members(c, c.members)
}

fn enum_with_members(c: &Catalog, members: &[Member]) -> TokenStream {
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

            /// The member spelled `s` in the manifest.
            pub fn parse(s: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == s)
            }
        }

        impl core::fmt::Display for #name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    }
}

/// The vocabulary enums, and `Status` with the values declared in `abi.toml`.
pub fn vocab_tokens(ir: &Ir) -> TokenStream {
    let enums = CATALOGS.iter().map(enum_tokens);
    let members: Vec<Member> = Status::ALL
        .iter()
        .zip(Status::CATALOG.members)
        .map(|(s, m)| Member {
            code: ir.abi.status(*s),
            ..*m
        })
        .collect();
    let status = enum_with_members(&Status::CATALOG, &members);
    quote! { #(#enums)* #status }
}

fn opt_str(s: &Option<String>) -> TokenStream {
    match s {
        Some(s) => quote!(Some(#s)),
        None => quote!(None),
    }
}

fn u32_lit(n: usize) -> Literal {
    Literal::u32_unsuffixed(u32::try_from(n).unwrap_or(u32::MAX))
}

fn family_tokens(f: &Family, k: &TokenStream) -> TokenStream {
    let (name, summary, identity) = (&f.name, &f.summary, &f.identity);
    let revision = Literal::u32_unsuffixed(f.revision);
    let contract = format_ident!("{}", f.contract.variant_name());
    let torch = f.torch;
    let operation = match &f.operation {
        Operation::ElementwiseBinary { op, lhs, rhs, out } => {
            let op = format_ident!("{}", op.variant_name());
            let (lhs, rhs, out) = (u32_lit(*lhs), u32_lit(*rhs), u32_lit(*out));
            quote!(#k::Operation::ElementwiseBinary { op: #k::BinaryOp::#op, lhs: #lhs, rhs: #rhs, out: #out })
        }
        Operation::Matmul {
            m,
            k: kk,
            n,
            a,
            b,
            c,
            accumulate,
        } => {
            let (a, b, c) = (u32_lit(*a), u32_lit(*b), u32_lit(*c));
            let (m, kk, n) = (
                Literal::i64_unsuffixed(*m),
                Literal::i64_unsuffixed(*kk),
                Literal::i64_unsuffixed(*n),
            );
            quote!(#k::Operation::Matmul { m: #m, k: #kk, n: #n, a: #a, b: #b, c: #c, accumulate: #accumulate })
        }
    };
    let params = f.params.iter().map(|p| {
        let pname = &p.name;
        let index = u32_lit(p.index);
        let pool = u32_lit(p.pool_index);
        let kind = format_ident!("{}", p.kind.variant_name());
        let dir = format_ident!("{}", p.direction.variant_name());
        let dtype = format_ident!("{}", p.dtype.variant_name());
        let layout = format_ident!("{}", p.layout.variant_name());
        let shape = p.shape.iter().map(|d| Literal::i64_unsuffixed(*d));
        let lowered = p.lowered_shape.iter().map(|d| Literal::i64_unsuffixed(*d));
        let pdoc = opt_str(&p.doc);
        quote!(#k::Param {
            name: #pname, index: #index, kind: #k::ParamKind::#kind, direction: #k::Direction::#dir,
            dtype: #k::DType::#dtype, shape: &[#(#shape),*], layout: #k::Layout::#layout,
            lowered_shape: &[#(#lowered),*], pool_index: #pool, doc: #pdoc,
        })
    });
    let returns = f.returns.iter().map(|r| u32_lit(*r));
    let profiles = f.profiles.iter().map(|p| {
        let pname = &p.name;
        let platform = format_ident!("{}", p.platform.variant_name());
        let backend = format_ident!("{}", p.backend.variant_name());
        let runtime = format_ident!("{}", p.runtime.variant_name());
        let mode = format_ident!("{}", p.execution_mode.variant_name());
        let bindings = p.bindings.iter().map(|b| {
            let param = u32_lit(b.param);
            let slot = Literal::u32_unsuffixed(b.slot);
            let kind = format_ident!("{}", b.kind.variant_name());
            quote!(#k::Binding { param: #param, slot: #slot, kind: #k::BindingKind::#kind })
        });
        quote!(#k::Profile {
            name: #pname, platform: #k::Platform::#platform, backend: #k::Backend::#backend,
            runtime: #k::Runtime::#runtime, execution_mode: #k::ExecutionMode::#mode,
            bindings: &[#(#bindings),*],
        })
    });
    let receipts = f.receipts.iter().map(|r| {
        let profile = u32_lit(r.profile);
        let (codec, artifact, sha) = (&r.codec, &r.artifact, &r.sha256);
        let (date, hw) = (&r.evidence.date, &r.evidence.hardware);
        let note = opt_str(&r.evidence.note);
        quote!(#k::Receipt {
            profile: #profile, codec: #codec, artifact: #artifact, sha256: #sha,
            evidence: #k::Evidence { date: #date, hardware: #hw, note: #note },
        })
    });
    let (tensors, scalars) = (u32_lit(f.tensor_count), u32_lit(f.scalar_count));
    let torch_schema = opt_str(&f.torch_schema);
    quote!(#k::Family {
        name: #name, revision: #revision, summary: #summary, contract: #k::Contract::#contract,
        torch: #torch, operation: #operation, params: &[#(#params),*], returns: &[#(#returns),*],
        profiles: &[#(#profiles),*], receipts: &[#(#receipts),*],
        tensor_count: #tensors, scalar_count: #scalars, identity: #identity,
        torch_schema: #torch_schema,
    })
}

/// Per-family named constants: the family itself, parameter indices and
/// binding slots (per profile, and family-wide when every profile agrees).
fn family_module(i: usize, f: &Family, k: &TokenStream) -> TokenStream {
    let module = ident(&f.name);
    let index = Literal::usize_unsuffixed(i);
    let summary = doc(&f.summary);
    let params = f.params.iter().map(|p| {
        let c = format_ident!("PARAM_{}", shouty(&p.name));
        let v = u32_lit(p.index);
        quote!(pub const #c: u32 = #v;)
    });
    let mut slots = Vec::new();
    for p in &f.params {
        let per_profile: Vec<u32> = f
            .profiles
            .iter()
            .filter_map(|pr| {
                pr.bindings
                    .iter()
                    .find(|b| b.param == p.index)
                    .map(|b| b.slot)
            })
            .collect();
        for (pr, slot) in f.profiles.iter().zip(&per_profile) {
            let c = format_ident!("{}_SLOT_{}", shouty(&pr.name), shouty(&p.name));
            slots.push(quote!(pub const #c: u32 = #slot;));
        }
        if let Some(first) = per_profile.first() {
            if per_profile.len() == f.profiles.len() && per_profile.iter().all(|s| s == first) {
                let c = format_ident!("SLOT_{}", shouty(&p.name));
                slots.push(quote!(pub const #c: u32 = #first;));
            }
        }
    }
    let identity = &f.identity;
    quote! {
        #summary
        pub mod #module {
            /// The family record.
            pub static FAMILY: &#k::Family = &super::super::FAMILIES[#index];
            /// Identity digest of this revision.
            pub const IDENTITY: &str = #identity;
            #(#params)*
            #(#slots)*
        }
    }
}

/// The ABI record, the family table, the artifact index and the per-family
/// modules, with record types at `krate` (`crate` or `::kfam_runtime`).
pub fn tables_tokens(ir: &Ir, k: &TokenStream) -> TokenStream {
    let a = &ir.abi;
    let revision = &a.revision;
    let (major, minor) = (
        Literal::u16_unsuffixed(a.major),
        Literal::u16_unsuffixed(a.minor),
    );
    let mt = Literal::u32_unsuffixed(a.max_tensor_args);
    let ms = Literal::u32_unsuffixed(a.max_scalar_args);
    let mr = Literal::u32_unsuffixed(a.max_rank);
    let families = ir.families.iter().map(|f| family_tokens(f, k));
    let mut artifacts: Vec<(&str, usize, usize)> = ir
        .families
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| {
            f.receipts
                .iter()
                .enumerate()
                .map(move |(ri, r)| (r.sha256.as_str(), fi, ri))
        })
        .collect();
    artifacts.sort();
    let artifacts = artifacts.iter().map(|(d, f, r)| {
        let (f, r) = (u32_lit(*f), u32_lit(*r));
        quote!((#d, #f, #r))
    });
    let modules = ir
        .families
        .iter()
        .enumerate()
        .map(|(i, f)| family_module(i, f, k));
    quote! {
        /// The native ABI the artifacts target.
        pub static ABI: #k::Abi = #k::Abi {
            revision: #revision, major: #major, minor: #minor,
            max_tensor_args: #mt, max_scalar_args: #ms, max_rank: #mr,
        };

        /// Every approved family, sorted by name.
        pub static FAMILIES: &[#k::Family] = &[#(#families),*];

        /// `(artifact sha256, family index, receipt index)`, sorted by digest.
        pub static ARTIFACTS: &[(&str, u32, u32)] = &[#(#artifacts),*];

        /// Named constants per family.
        pub mod families {
            #(#modules)*
        }
    }
}
