//! `generated/rust/records.rs`: the record types of the tables; and
//! `generated/rust/ffi_records.rs`: the `#[repr(C)]` types of the C ABI's
//! arguments and results, printed from the same field lists as the header's
//! structs (`record::c_fields`), with const assertions of the size and
//! field offsets [`Layout`] computes from them, the numbers `kfam.h`
//! asserts too. The runtime includes the file into its module `ffi::records`,
//! where `Opaque` (a table record Rust only passes along) is defined.

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
    let sizes = CALL_RECORDS.iter().filter_map(|r| match r.c {
        CForm::Struct {
            c,
            mirror: Some(rust),
            ..
        } => {
            let name = ident(rust);
            Some(quote!((#c, ::core::mem::size_of::<#name>())))
        }
        _ => None,
    });
    quote! {
        #(#items)*

        /// Every record above: its C name and its size, in the header's
        /// order (a catalog's generated unit hands the runtime its header's
        /// `sizeof` of each, in this order).
        pub const RECORD_SIZES: &[(&str, usize)] = &[#(#sizes,)*];
    }
}

/// The format of the tables this generator prints, which kfam-runtime's
/// `TABLES_FORMAT` must equal. The record types the tables fill in change
/// when a field is appended, which raises the description format's minor:
/// the tables format is that minor, so it follows the declarations. (A
/// change of the record types that is not an append is a new description
/// major; this must then count on from the last value.)
pub const TABLES_FORMAT: u32 = crate::emit::c::description::FORMAT_MINOR as u32;

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
        "const int32_t *" => quote!(*const i32),
        "const uint32_t *" => quote!(*const u32),
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

/// `generated/rust/description.rs`: the reader of a catalog's description
/// (`emit::c::description`, which writes each record's logical fields in
/// declaration order), printed from the same declarations: one `Read`
/// impl per record, the payloads' and the fixed vocabularies'. The runtime
/// includes it into `kfam_runtime::description`, where `Read`, `Reader`
/// and the impls of the field types (texts, lists, options, the declared
/// targets, `ScalarRef`) are written by hand.
pub(super) fn description_tokens() -> TokenStream {
    use crate::emit::c::description::{FORMAT_MAJOR, FORMAT_MINOR, MAGIC};
    let fields = |r: &Record| -> Vec<TokenStream> {
        r.logical()
            .map(|f| {
                let n = ident(f.name);
                // Where a value is, for the reader's messages: the
                // record's name and the field's.
                let (rec, name) = (r.name, f.name);
                match f.ty {
                    // Parameter references are checked against the
                    // family's parameters once it is read.
                    Ty::Param => quote!(#n: r.param(#rec, #name)?),
                    Ty::OptParam => quote!(#n: r.opt_param(#rec, #name)?),
                    Ty::ScalarRef => quote!(#n: r.scalar_ref(#rec, #name)?),
                    // Extents are checked as they are read: `-1`, or
                    // 1 ..= 2^32 - 1.
                    Ty::Extent => quote!(#n: r.extent(#rec, #name)?),
                    Ty::Dims { .. } => quote!(#n: r.dims(#rec, #name)?),
                    // A declared attribute keeps its rule; one appended in
                    // a later minor is its default where an earlier
                    // writer's record ends before it.
                    _ if f.attr.is_some() => {
                        let a = f.attr.expect("an attribute");
                        let default = (f.since > 0).then_some(a.default);
                        let default = match default {
                            Some(d) => {
                                let d = Literal::i64_unsuffixed(d);
                                quote!(Some(#d))
                            }
                            None => quote!(None),
                        };
                        match a.rule {
                            crate::record::AttrRule::PowerOfTwo { max } => {
                                let max = Literal::i64_unsuffixed(max);
                                quote!(#n: r.power_of_two(#rec, #name, #default, #max)?)
                            }
                        }
                    }
                    // Appended in a later minor: an earlier writer's
                    // record ends before it. A vocabulary's absent
                    // member is its code 0.
                    Ty::Vocab(v) if f.since > 0 => {
                        let (ty, zero) = (ident(v.name), ident(v.absent().variant));
                        quote!(#n: r.appended_or(#ty::#zero)?)
                    }
                    _ if f.since > 0 => quote!(#n: r.appended()?),
                    _ => quote!(#n: r.read()?),
                }
            })
            .collect()
    };
    let records = LOGICAL_RECORDS.iter().map(|r| {
        let name = ident(r.name);
        let fields = fields(r);
        quote! {
            impl Read for #name {
                fn read(r: &mut Reader) -> Result<Self, Malformed> {
                    r.record(|r| Ok(#name { #(#fields,)* }))
                }
            }
        }
    });
    let kinds = OPERATIONS.iter().map(|(k, r)| {
        let (name, kind) = (ident(r.name), ident(k.variant_name()));
        let fields = fields(r);
        quote!(OperationKind::#kind => r.record(|r| Ok(Operation::#name { #(#fields,)* })))
    });
    let vocabularies = crate::record::VOCABULARIES
        .iter()
        .filter(|v| {
            // The operation's kind tags its payload.
            let kind = v.name == crate::record::OperationKind::VOCABULARY.name;
            !v.declared && (kind || LOGICAL_RECORDS.iter().any(|r| uses(r, v.name)))
        })
        .map(|v| {
            let name = ident(v.name);
            let what = v.name;
            quote! {
                impl Read for #name {
                    fn read(r: &mut Reader) -> Result<Self, Malformed> {
                        let code = r.read::<i32>()?;
                        #name::from_code(code).ok_or_else(|| r.unknown(#what, code))
                    }
                }
            }
        });
    let magic = Literal::byte_string(MAGIC);
    let tables = Literal::u32_unsuffixed(TABLES_FORMAT);
    let (major, minor) = (
        Literal::u16_unsuffixed(FORMAT_MAJOR),
        Literal::u16_unsuffixed(FORMAT_MINOR),
    );
    quote! {
        use crate::types::*;
        use crate::vocab::*;

        /// The first bytes of every description.
        pub const MAGIC: &[u8; 8] = #magic;
        /// The format this runtime reads: its major, and every minor up to
        /// this one.
        pub const FORMAT_MAJOR: u16 = #major;
        pub const FORMAT_MINOR: u16 = #minor;
        /// The format of the generated tables the record types take
        /// (`kfam_codegen::emit::rust::TABLES_FORMAT`): generated tables
        /// assert it, so tables of another kfam release fail to compile with
        /// both named (docs/compatibility.md). It is the description
        /// format's minor: both change when a record gains a field.
        pub const TABLES_FORMAT: u32 = #tables;

        #(#records)*

        impl Read for Operation {
            fn read(r: &mut Reader) -> Result<Self, Malformed> {
                match r.read::<OperationKind>()? {
                    #(#kinds,)*
                }
            }
        }

        #(#vocabularies)*
    }
}

/// Whether `r` (or a record it holds) has a field of the vocabulary `name`.
fn uses(r: &Record, name: &str) -> bool {
    r.logical().any(|f| match f.ty {
        Ty::Vocab(v) => v.name == name,
        Ty::List(inner) | Ty::Nested(inner) => uses(inner, name),
        Ty::Operation => OPERATIONS.iter().any(|(_, p)| uses(p, name)),
        _ => false,
    })
}
