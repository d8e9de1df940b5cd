//! `generated/rust/ffi_records.rs`: the `#[repr(C)]` types of the C ABI's
//! arguments and results, printed from the same field lists as the header's
//! structs (`emit::layout`), with const assertions of the size and field
//! offsets [`Layout`] computes from them, the numbers `kfam.h` asserts too.
//! The runtime includes the file into `kfam_runtime::ffi`, where `Opaque`
//! (a table record Rust only passes along) is defined.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{doc, ident};
use crate::record::{c_fields, CForm, Layout, CALL_RECORDS};

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
            let (n, ty, d) = (ident(&f.name), rust_type(&f.ty), doc(&f.doc));
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
fn rust_type(c: &str) -> TokenStream {
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
