//! `generated/rust/records.rs`: the record types of the tables; and
//! `generated/rust/ffi_records.rs`: the `#[repr(C)]` types of the C ABI's
//! arguments and results, printed from the same field lists as the header's
//! structs (`emit::layout`), with const assertions of the size and field
//! offsets [`Layout`] computes from them, the numbers `kfam.h` asserts too.
//! The runtime includes the file into `kfam_runtime::ffi`, where `Opaque`
//! (a table record Rust only passes along) is defined.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{doc, ident};
use crate::record::{
    c_fields, CForm, Layout, Record, Ty, CALL_RECORDS, LOGICAL_RECORDS, OPERATIONS,
};

pub(super) fn ffi_records_tokens() -> TokenStream {
    let records = CALL_RECORDS.iter().filter_map(|r| match r.c {
        CForm::Struct {
            c,
            union,
            mirror: Some(rust),
        } => Some((r, c, union, rust)),
        _ => None,
    });
    let items = records.map(|(r, c, union, rust)| {
        let name = ident(rust);
        let record_doc = doc(&format!("`{c}`: {}", r.doc));
        let c_fields = c_fields(r);
        let fields = c_fields.iter().map(|f| {
            let (n, ty, d) = (ident(&f.name), ffi_type(&f.ty), doc(&f.doc));
            quote!(#d pub #n: #ty)
        });
        let keyword = if union { quote!(union) } else { quote!(struct) };
        // The argument and result records hold no arrays.
        let layout = Layout::of(r, &c_fields, &|extent| {
            panic!("no array extent `{extent}` in {c}")
        });
        let size = Literal::usize_unsuffixed(layout.size);
        let offsets = c_fields.iter().zip(&layout.offsets).map(|(f, at)| {
            let (n, at) = (ident(&f.name), Literal::usize_unsuffixed(*at));
            quote!(assert!(::core::mem::offset_of!(#name, #n) == #at);)
        });
        quote! {
            #record_doc
            #[repr(C)]
            #[derive(Clone, Copy)]
            pub #keyword #name { #(#fields,)* }

            #[cfg(target_pointer_width = "64")]
            const _: () = {
                let size = ::core::mem::size_of::<#name>();
                assert!(size == #size);
                #(#offsets)*
            };
        }
    });
    quote!(#(#items)*)
}

/// The Rust spelling of a field's C type. Pointers to table records are
/// `*const Opaque`; the union is its Rust type.
fn ffi_type(c: &str) -> TokenStream {
    match c {
        "uint16_t" => quote!(u16),
        "uint32_t" => quote!(u32),
        "int32_t" => quote!(i32),
        "int64_t" => quote!(i64),
        "uint64_t" => quote!(u64),
        "double" => quote!(f64),
        "const char *" => quote!(*const ::core::ffi::c_char),
        "const int64_t *" => quote!(*const i64),
        _ if c.starts_with("const kfam_") && c.ends_with('*') => quote!(*const Opaque),
        _ => match CALL_RECORDS.iter().find_map(|r| match r.c {
            CForm::Struct {
                c: name,
                mirror: Some(m),
                ..
            } if name == c => Some(m),
            _ => None,
        }) {
            Some(m) => {
                let m = ident(m);
                quote!(#m)
            }
            None => panic!("no Rust type for the C type `{c}`: add it to emit::rust::records"),
        },
    }
}

/// `generated/rust/records.rs`: the record types of the tables, printed
/// from their declarations (`crate::record`): one struct per record, the
/// `Operation` enum of the payloads and `ScalarRef`. The runtime includes
/// it into `kfam_runtime::types`; the tables and `manifest!` fill it in.
pub(super) fn records_tokens() -> TokenStream {
    let structs = LOGICAL_RECORDS.iter().map(|r| {
        let name = ident(r.name);
        let d = doc(r.doc);
        let fields = r.logical().map(|f| {
            let (n, ty, fd) = (ident(f.name), logical_type(f.ty), doc(f.doc));
            quote!(#fd pub #n: #ty)
        });
        let eq = (!holds_float(r)).then(|| quote!(, Eq));
        quote! {
            #d
            #[derive(Clone, Copy, Debug, PartialEq #eq)]
            pub struct #name { #(#fields,)* }
        }
    });
    let variants = OPERATIONS.iter().map(|(_, r)| {
        let name = ident(r.name);
        let d = doc(r.doc);
        let fields = r.logical().map(|f| {
            let (n, ty, fd) = (ident(f.name), logical_type(f.ty), doc(f.doc));
            quote!(#fd #n: #ty)
        });
        quote!(#d #name { #(#fields,)* })
    });
    let kinds = OPERATIONS.iter().map(|(k, r)| {
        let (name, kind) = (ident(r.name), ident(k.variant_name()));
        quote!(Operation::#name { .. } => OperationKind::#kind)
    });
    quote! {
        use crate::targets::*;
        use crate::vocab::*;

        #(#structs)*

        /// The typed operation payload of a family, one variant per kind;
        /// operands are indices into `Family::params`.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Operation { #(#variants,)* }

        impl Operation {
            /// The kind of this payload.
            pub const fn kind(&self) -> OperationKind {
                match self { #(#kinds,)* }
            }
        }

        /// A scalar operand of an operation (`eps`, `scale`).
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum ScalarRef {
            /// A constant fixed by the family.
            Constant(f64),
            /// The scalar parameter at this index of `Family::params`, passed at call time.
            Param(u32),
        }
    }
}

/// Whether a record holds a float anywhere (then it is not `Eq`).
fn holds_float(r: &Record) -> bool {
    r.logical().any(|f| match f.ty {
        Ty::F64 | Ty::ScalarRef | Ty::Operation => true,
        Ty::List(inner) | Ty::Nested(inner) => holds_float(inner),
        _ => false,
    })
}

/// The Rust type of a logical field: absent values are `None`.
pub(super) fn logical_type(ty: Ty) -> TokenStream {
    logical_type_text(ty).parse().expect("a Rust type lexes")
}

/// [`logical_type`] as text.
pub(super) fn logical_type_text(ty: Ty) -> String {
    let t = match ty {
        Ty::Bool => "bool",
        Ty::U32 | Ty::Index | Ty::Param | Ty::Count => "u32",
        Ty::I64 | Ty::Extent => "i64",
        Ty::Bound => "Option<i64>",
        Ty::F64 => "f64",
        Ty::Str | Ty::Digest => "&'static str",
        Ty::OptStr => "Option<&'static str>",
        Ty::OptParam => "Option<u32>",
        Ty::Vocab(v) => v.name,
        Ty::Dims { .. } => "&'static [i64]",
        Ty::Indices => "&'static [u32]",
        Ty::Strs => "&'static [&'static str]",
        Ty::List(r) => return format!("&'static [{}]", r.name),
        Ty::Nested(r) => r.name,
        Ty::ScalarRef => "ScalarRef",
        Ty::Operation => "Operation",
        Ty::C(_) | Ty::Raw(_) => unreachable!("a field only C has"),
    };
    t.to_owned()
}
