//! The one declaration of every record the outputs carry: each record's
//! fields in their one order, each field's name, type, doc and C form. The
//! C structs and rows, the Rust records and row constructors, the Python
//! dataclasses and rows, and the field lists of the docs are printed by
//! walking it ([`defs`] holds the declarations). A new field is one line
//! here (appended: the C layouts are the C ABI), plus the IR value it reads
//! ([`values`]).
//!
//! The type of a field says how every language holds it, and so its
//! sentinel rule once: an absent value is `None` in Rust and Python and the
//! field type's sentinel in C (`NULL`, `-1`, `INT64_MAX`), which the C
//! header's comment names.

mod calls;
mod catalog;
pub mod defs;
mod functions;
mod layout;
mod operands;
mod signature;
pub mod values;

pub use calls::*;
pub use catalog::*;
pub use defs::*;
pub use functions::*;
pub use layout::{c_fields, CField, Layout, Part};
pub use operands::*;
pub use signature::*;

use crate::vocab::Vocabulary;

/// One record.
#[derive(Debug)]
pub struct Record {
    /// The type name in Rust and Python (`Param`).
    pub name: &'static str,
    pub doc: &'static str,
    pub fields: &'static [Field],
    /// How C holds it.
    pub c: CForm,
    /// The name of its row constructor in the Rust tables (`p`), for the
    /// records the tables hold.
    pub ctor: Option<&'static str>,
    /// Shorter constructors for rows whose fields follow from others
    /// (a scalar parameter's direction, shape and layout).
    pub shorthands: &'static [Shorthand],
    /// The class of hand-written methods the Python record inherits
    /// (`python/kfam_runtime/_methods.py`), if any, with its type
    /// arguments when it is generic over records
    /// (`_FamilyMethods[Param, Profile, Receipt]`: the mixin names the records
    /// it returns without importing them).
    pub methods: Option<&'static str>,
    /// For an operation kind's payload, what the kind declares beside it.
    pub kind: Option<Kind>,
}

/// What an operation kind declares beside its payload's fields (whose
/// [`Key`]s are its table's keys): the JSON Schema's descriptions of the
/// kind and of its table `[operation.<kind>]`, for editors and docs; the
/// table and signature `kfam new` starts a family of the kind with; and the
/// description format minor that added the kind (a runtime of an earlier
/// minor cannot read a family of it).
#[derive(Clone, Copy, Debug)]
pub struct Kind {
    pub summary: &'static str,
    pub table: &'static str,
    /// `init/kinds/<kind>.toml`.
    pub template: &'static str,
    pub since: u16,
    /// What the kind requires of its tensor operands.
    pub operands: &'static Operands,
}

/// An operation payload's field as the manifest declares it: a key of
/// `[operation.<kind>]` under the field's name, holding what the field's
/// [`Ty`] is named by in the manifest (a parameter by its name, an extent
/// as a shape entry, a scalar as a constant or a scalar parameter's name).
#[derive(Clone, Copy, Debug)]
pub struct Key {
    pub doc: &'static str,
    /// The key may be left out: the field is then absent (an optional
    /// parameter), false, or its vocabulary's member of code 0.
    pub optional: bool,
    /// How `kfam diff` reports a change of its value.
    pub change: KeyChange,
}

/// What a changed payload value means to a reviewer: `kfam diff` reports
/// each class by a rule of its own (docs/reviewing.md), every class breaking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyChange {
    /// An operand or another part of the computation (`operation-changed`).
    Operands,
    /// The operator (`operator-changed`).
    Operator,
    /// The axes the computation runs over (`operation-axes-changed`).
    Axes,
    /// A constant, or a constant in place of a scalar parameter
    /// (`operation-scalar-changed`).
    Scalar,
    /// The text that is the whole contract (`semantics-changed`).
    Semantics,
}

/// How C holds a record.
#[derive(Debug)]
pub enum CForm {
    /// A struct (or union) of its own, `typedef struct <c> {...} <c>;`, with
    /// a `#[repr(C)]` Rust mirror in the runtime for the records its C
    /// functions take or return.
    Struct {
        c: &'static str,
        union: bool,
        mirror: Option<&'static str>,
    },
    /// Its fields are inlined into the record that holds it, each named
    /// `<holder's field>_<field>` (a receipt's evidence).
    Inline,
    /// An operation payload that `kfam_family` holds in fields of its own
    /// (ABI 1.0's kinds): each field's [`CWhere::Flat`] names its place.
    Flat,
}

/// One field.
#[derive(Debug)]
pub struct Field {
    pub name: &'static str,
    pub ty: Ty,
    pub doc: &'static str,
    /// Where C holds the value.
    pub c: CWhere,
    /// What else is known of the value, which a row may leave out.
    pub role: Role,
    /// The description format's minor that appended it (0: the first):
    /// a runtime reads a description of an earlier minor by defaulting it
    /// (docs/compatibility.md, "Versioning rules").
    pub since: u16,
    /// A value the manifest declares as it is, with its rule, default and
    /// change class, when the field is one ([`Attr`]).
    pub attr: Option<Attr>,
    /// The key of `[operation.<kind>]` that declares it, for a payload field.
    pub key: Option<Key>,
}

/// A field the manifest declares under the same name, an integer: a
/// tensor parameter's `alignment`. Everything in front of the records
/// follows from this declaration, matched by the field's name: the manifest
/// model's field of that name, `kfam check`'s rule (KF0407), the lowering,
/// the identity (the value, unless it is `default`: a new attribute leaves
/// every identity as it was) and `kfam diff`'s class for a change (KD028,
/// KD029). The runtimes' per-call rule is the one thing written by hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attr {
    /// The value when the manifest leaves it out, and a runtime reading a
    /// description or table written before the field existed.
    pub default: i64,
    pub rule: AttrRule,
    /// What a larger value does to the calls a family accepts.
    pub larger: Larger,
    /// Only tensors declare it (a scalar has no storage of its own).
    pub tensors_only: bool,
}

/// The values an [`Attr`] may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrRule {
    /// A power of two, at most `max`.
    PowerOfTwo { max: i64 },
}

impl AttrRule {
    /// Whether `v` keeps the rule.
    pub fn admits(self, v: i64) -> bool {
        match self {
            AttrRule::PowerOfTwo { max } => v > 0 && v <= max && (v & (v - 1)) == 0,
        }
    }

    /// The rule, as a diagnostic's help states it.
    pub fn describe(self) -> String {
        match self {
            AttrRule::PowerOfTwo { max } => format!("a power of two from 1 to {max}"),
        }
    }

    /// Every admitted value, for rules with few (a JSON Schema `enum`).
    pub fn values(self) -> Vec<i64> {
        match self {
            AttrRule::PowerOfTwo { max } => std::iter::successors(Some(1i64), |v| v.checked_mul(2))
                .take_while(|v| *v <= max)
                .collect(),
        }
    }
}

/// What a larger value of an [`Attr`] does: how `kfam diff` classifies a
/// change of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Larger {
    /// It refuses calls a smaller value accepted (a stricter alignment):
    /// raising it is breaking, lowering it compatible.
    Narrows,
    /// It accepts calls a smaller value refused: the other way round.
    Widens,
}

/// What a row may leave out of a field's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Plain,
    /// The record's position in the list that holds it.
    Position,
    /// The key of the table that holds the record (a family's name).
    Key,
    /// Equal to the named field's value unless the row says otherwise.
    SameAs(&'static str),
}

/// Where C holds a field's value.
#[derive(Clone, Copy, Debug)]
pub enum CWhere {
    /// A field of the same name, its C type following from [`Ty`]
    /// (several for an inlined record or a scalar reference).
    Same,
    /// In entry `index` of the `kfam_family` field `field` ([`CForm::Flat`]).
    Flat(&'static str, usize),
    /// Nowhere by itself: C-only fields carry it (a family's operation).
    Spread,
}

/// A field's type.
#[derive(Clone, Copy, Debug)]
pub enum Ty {
    Bool,
    U32,
    I64,
    F64,
    Str,
    /// Text, or absent.
    OptStr,
    /// A SHA-256 digest, 64 lowercase hex digits: text that no other record
    /// repeats (never pooled).
    Digest,
    /// A position in one of the family's lists other than its parameters
    /// (a profile).
    Index,
    /// A parameter: its signature index, a position in the family's
    /// parameters.
    Param,
    /// A parameter, or absent.
    OptParam,
    /// A count.
    Count,
    /// An extent: `-1` is dynamic.
    Extent,
    /// An upper bound, absent when unbounded.
    Bound,
    /// A member of a vocabulary, by its code in C and in rows.
    Vocab(&'static Vocabulary),
    /// Extents (`-1` dynamic); in C an array of `c_extent` entries.
    Dims {
        c_extent: &'static str,
    },
    /// Indices; in C a pointer (its count is a field of its own).
    Indices,
    /// Texts; in C a pointer (its count is a field of its own).
    Strs,
    /// Records; in C a pointer (its count is a field of its own).
    List(&'static Record),
    /// One record inside another.
    Nested(&'static Record),
    /// A constant fixed by the family or a scalar parameter passed at call
    /// time: in C a `double` and `<name>_param` (-1 for the constant).
    ScalarRef,
    /// One of [`OPERATIONS`], tagged by its kind.
    Operation,
    /// Only in C: the value follows from the record.
    C(CValue),
    /// Only in C, a C ABI argument or result: the C type as spelled.
    Raw(&'static str),
}

/// The value of a field only C has.
#[derive(Clone, Copy, Debug)]
pub enum CValue {
    /// `sizeof` the struct.
    StructSize,
    /// The ABI version of the producer.
    AbiMajor,
    AbiMinor,
    /// The record's position in its list.
    Position,
    /// Entries of the named list field.
    Count(&'static str),
    /// Used entries of the named dims field.
    Rank(&'static str),
    /// The code of the operation's kind.
    OperationKind,
    /// A [`CWhere::Flat`] place, `ty` (as C spells it), an array of `extent`
    /// (a macro) entries or not, `default` where no payload field lands.
    Flat {
        ty: &'static str,
        extent: Option<&'static str>,
        default: &'static str,
    },
    /// The payload record of the kind whose payload is `record`, else NULL.
    Payload(&'static Record),
    /// A C ABI constant (or table), by its name, and its C type.
    Macro(&'static str, &'static str),
}

/// A shorter Rust row constructor: `name` takes the record's fields but
/// `fixed`, whose values it writes itself (as Rust spells them), and those
/// of `same`, which equal another field (`(field, other)`).
#[derive(Debug)]
pub struct Shorthand {
    pub name: &'static str,
    pub fixed: &'static [(&'static str, Fixed)],
    pub same: &'static [(&'static str, &'static str)],
}

/// A value a shorthand fixes.
#[derive(Clone, Copy, Debug)]
pub enum Fixed {
    /// A vocabulary member, by its manifest spelling.
    Member(&'static str),
    /// No entries.
    Empty,
}

impl Record {
    /// The fields Rust and Python hold (every field but the C-only ones).
    pub fn logical(&self) -> impl Iterator<Item = &'static Field> + Clone {
        self.fields.iter().filter(|f| f.is_logical())
    }

    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The fields the manifest declares as they are ([`Attr`]), in order.
    pub fn attrs(&self) -> impl Iterator<Item = (&'static Field, Attr)> + Clone {
        self.fields.iter().filter_map(|f| f.attr.map(|a| (f, a)))
    }

    /// The C typedef name, for records that are C structs.
    pub fn c_name(&self) -> Option<&'static str> {
        match self.c {
            CForm::Struct { c, .. } => Some(c),
            _ => None,
        }
    }
}

impl Field {
    /// Whether Rust and Python hold it.
    pub fn is_logical(&self) -> bool {
        !matches!(self.ty, Ty::C(_) | Ty::Raw(_))
    }
}

const fn field(name: &'static str, ty: Ty, doc: &'static str) -> Field {
    Field {
        name,
        ty,
        doc,
        c: CWhere::Same,
        role: Role::Plain,
        since: 0,
        attr: None,
        key: None,
    }
}

/// A field only C has.
const fn c_only(name: &'static str, value: CValue, doc: &'static str) -> Field {
    field(name, Ty::C(value), doc)
}

/// A field of a C ABI argument or result.
const fn raw(ty: &'static str, name: &'static str, doc: &'static str) -> Field {
    field(name, Ty::Raw(ty), doc)
}

impl Field {
    const fn role(self, role: Role) -> Field {
        Field { role, ..self }
    }

    /// Appended in the description format's minor `minor`.
    const fn since(self, minor: u16) -> Field {
        Field {
            since: minor,
            ..self
        }
    }

    /// Declared in the manifest under its name ([`Attr`]).
    const fn attr(self, attr: Attr) -> Field {
        Field {
            attr: Some(attr),
            ..self
        }
    }

    /// Declared in `[operation.<kind>]` under its name, required.
    const fn key(self, doc: &'static str) -> Field {
        Field {
            key: Some(Key {
                doc,
                optional: false,
                change: KeyChange::Operands,
            }),
            ..self
        }
    }

    /// Declared in `[operation.<kind>]` under its name, optional.
    const fn optional_key(self, doc: &'static str) -> Field {
        Field {
            key: Some(Key {
                doc,
                optional: true,
                change: KeyChange::Operands,
            }),
            ..self
        }
    }

    /// How `kfam diff` reports a change of the key's value (declared after
    /// [`key`](Self::key) or [`optional_key`](Self::optional_key)).
    const fn changes(self, change: KeyChange) -> Field {
        let Some(key) = self.key else {
            panic!("`changes` follows `key` or `optional_key`")
        };
        Field {
            key: Some(Key { change, ..key }),
            ..self
        }
    }

    const fn flat(self, c_field: &'static str, index: usize) -> Field {
        Field {
            c: CWhere::Flat(c_field, index),
            ..self
        }
    }

    const fn spread(self) -> Field {
        Field {
            c: CWhere::Spread,
            ..self
        }
    }
}

/// A record that is a C struct of its own.
const fn table(
    c: &'static str,
    name: &'static str,
    ctor: Option<&'static str>,
    doc: &'static str,
    fields: &'static [Field],
) -> Record {
    Record {
        name,
        doc,
        fields,
        c: CForm::Struct {
            c,
            union: false,
            mirror: None,
        },
        ctor,
        shorthands: &[],
        methods: None,
        kind: None,
    }
}

const fn vocab(v: &'static Vocabulary) -> Ty {
    Ty::Vocab(v)
}

const SIZE: &str = "`sizeof` of this struct as the producer compiled it (see KFAM_HAS_FIELD).";

const fn struct_size() -> Field {
    c_only("struct_size", CValue::StructSize, SIZE)
}
