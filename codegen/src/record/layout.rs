//! The C form of the records: each record's C fields, derived from its
//! declaration (a field's C type and the C spelling of its sentinel follow
//! from its [`Ty`]), and the size and offsets of each struct on a 64-bit
//! target. The C emitter prints the header's structs and every table row
//! from [`c_fields`]; the Rust emitter prints the runtime's `#[repr(C)]`
//! mirrors from it; both assert the [`Layout`] computed here (`static_assert`
//! with `offsetof` in the header, `offset_of!` in Rust), so each compiler
//! checks it lays the struct out as the other does.

use std::borrow::Cow;

use super::{CForm, CValue, CWhere, Field, Record, Ty};

/// One field of a C struct.
#[derive(Debug)]
pub struct CField {
    pub name: Cow<'static, str>,
    /// The C type before the name (`const char *`, `uint32_t`).
    pub ty: Cow<'static, str>,
    /// Array extent (a macro name), for array fields.
    pub array: Option<&'static str>,
    pub doc: Cow<'static, str>,
    /// The declared field it comes from.
    pub field: &'static Field,
    /// Which part of that field's value it holds.
    pub part: Part,
}

/// The part of a declared field's value one C field holds.
#[derive(Clone, Copy, Debug)]
pub enum Part {
    Whole,
    /// A scalar reference's constant (`0.0` for a parameter).
    Constant,
    /// A scalar reference's parameter (`-1` for a constant).
    Param,
    /// A field of an inlined record.
    Sub(&'static Field),
}

/// The C fields of `record`, in order.
pub fn c_fields(record: &'static Record) -> Vec<CField> {
    let mut out = Vec::with_capacity(record.fields.len() + 4);
    for f in record.fields {
        push(&mut out, f);
    }
    out
}

fn push(out: &mut Vec<CField>, f: &'static Field) {
    let one = |ty: Cow<'static, str>, note: &str| CField {
        name: Cow::Borrowed(f.name),
        ty,
        array: None,
        doc: with_note(f.doc, note),
        field: f,
        part: Part::Whole,
    };
    let b = Cow::Borrowed;
    match f.ty {
        _ if !matches!(f.c, CWhere::Same) => {}
        Ty::Bool => out.push(one(b("int32_t"), "1 or 0.")),
        Ty::U32 | Ty::Index | Ty::Param | Ty::Count => out.push(one(b("uint32_t"), "")),
        Ty::I64 => out.push(one(b("int64_t"), "")),
        Ty::Extent => out.push(one(b("int64_t"), "KFAM_DIM_DYNAMIC when dynamic.")),
        Ty::Bound => out.push(one(b("int64_t"), "INT64_MAX when unbounded.")),
        Ty::F64 => out.push(one(b("double"), "")),
        Ty::Str => out.push(one(b("const char *"), "")),
        Ty::Digest => out.push(one(b("const char *"), "")),
        Ty::OptStr => out.push(one(b("const char *"), "NULL when absent.")),
        Ty::OptParam => out.push(one(b("int32_t"), "-1 when absent.")),
        Ty::Vocab(v) => out.push(one(b("int32_t"), &format!("A {} code.", c_vocab(v.name)))),
        Ty::Dims { c_extent } => out.push(CField {
            array: Some(c_extent),
            ..one(
                b("int64_t"),
                "KFAM_DIM_DYNAMIC is a dynamic extent; unused entries are 0.",
            )
        }),
        Ty::Indices => out.push(one(b("const uint32_t *"), "NULL when empty.")),
        Ty::Strs => out.push(one(b("const char *const *"), "NULL when empty.")),
        Ty::List(r) => out.push(one(
            Cow::Owned(format!(
                "const {} *",
                r.c_name().expect("a list of C structs")
            )),
            "NULL when empty.",
        )),
        Ty::Nested(r) => {
            assert!(matches!(r.c, CForm::Inline), "{} is inlined", r.name);
            let start = out.len();
            for sub in r.fields {
                push(out, sub);
            }
            for (c, sub) in out[start..].iter_mut().zip(r.fields) {
                c.name = Cow::Owned(format!("{}_{}", f.name, c.name));
                c.field = f;
                c.part = Part::Sub(sub);
            }
        }
        Ty::ScalarRef => {
            out.push(CField {
                part: Part::Constant,
                doc: Cow::Owned(format!(
                    "{} The constant when {}_param is -1, else 0.",
                    f.doc, f.name
                )),
                ..one(b("double"), "")
            });
            out.push(CField {
                name: Cow::Owned(format!("{}_param", f.name)),
                part: Part::Param,
                doc: Cow::Owned(format!(
                    "Signature index of the float scalar parameter carrying `{}`, or -1 for the constant.",
                    f.name
                )),
                ..one(b("int32_t"), "")
            });
        }
        Ty::Operation => unreachable!("an operation is spread over C-only fields"),
        Ty::C(value) => {
            let array = match value {
                CValue::Flat { extent, .. } => extent,
                _ => None,
            };
            let doc = match value {
                CValue::Payload(r) => Cow::Owned(payload_doc(r)),
                _ => Cow::Borrowed(f.doc),
            };
            out.push(CField {
                array,
                doc,
                ..one(c_only_type(value), "")
            });
        }
        Ty::Raw(ty) => out.push(CField {
            doc: Cow::Borrowed(f.doc),
            ..one(b(ty), "")
        }),
    }
}

fn c_only_type(value: CValue) -> Cow<'static, str> {
    Cow::Borrowed(match value {
        CValue::StructSize | CValue::Position | CValue::Count(_) | CValue::Rank(_) => "uint32_t",
        CValue::AbiMajor | CValue::AbiMinor => "uint16_t",
        CValue::OperationKind => "int32_t",
        CValue::Flat { ty, .. } => ty,
        CValue::Macro(_, ty) => ty,
        CValue::Payload(r) => {
            return Cow::Owned(format!("const {} *", r.c_name().expect("a payload struct")))
        }
    })
}

/// The doc of `kfam_family`'s pointer to the payload `record`.
fn payload_doc(record: &'static Record) -> String {
    let kind = super::OPERATIONS
        .iter()
        .find(|(_, r)| std::ptr::eq(*r, record))
        .map(|(k, _)| *k)
        .expect("a payload of an operation kind");
    format!(
        "The payload of KFAM_OPERATION_KIND_{}, else NULL.",
        crate::names::shouty(kind.as_str())
    )
}

/// `doc`, then `note` (a sentence on the C spelling) when there is one.
fn with_note(doc: &'static str, note: &str) -> Cow<'static, str> {
    if note.is_empty() {
        Cow::Borrowed(doc)
    } else {
        Cow::Owned(format!("{doc} {note}"))
    }
}

/// The C enum type of a vocabulary (`kfam_dtype`).
pub fn c_vocab(name: &str) -> String {
    crate::names::c_vocab_type(name)
}

/// A record's size and its fields' offsets on a 64-bit target (LP64 and
/// LLP64: pointers of 8 bytes, every scalar aligned to its size), the
/// targets the header and the Rust types assert them on.
pub struct Layout {
    pub size: usize,
    pub offsets: Vec<usize>,
}

impl Layout {
    /// `extent` gives the value of an array extent's macro
    /// (`KFAM_MAX_RANK`, ...).
    pub fn of(record: &Record, fields: &[CField], extent: &dyn Fn(&str) -> usize) -> Layout {
        let union = matches!(record.c, CForm::Struct { union: true, .. });
        let (mut end, mut align) = (0usize, 1usize);
        let mut offsets = Vec::with_capacity(fields.len());
        for f in fields {
            let (size, a) = scalar(&f.ty);
            let size = size * f.array.map_or(1, extent);
            let at = if union { 0 } else { end.next_multiple_of(a) };
            offsets.push(at);
            end = end.max(at + size);
            align = align.max(a);
        }
        Layout {
            size: end.next_multiple_of(align),
            offsets,
        }
    }
}

/// Size and alignment of a field's C type on a 64-bit target.
fn scalar(ty: &str) -> (usize, usize) {
    match ty {
        _ if ty.ends_with('*') => (8, 8),
        "uint16_t" => (2, 2),
        "int32_t" | "uint32_t" => (4, 4),
        "int64_t" | "uint64_t" | "double" => (8, 8),
        // The one union: three 8-byte members.
        "kfam_scalar_value" => (8, 8),
        other => panic!("no layout for the C type `{other}`: add it to record::layout::scalar"),
    }
}
