//! An operation payload: its kind, and one value per logical field of the
//! kind's record ([`crate::record::operation`]), in the declared order.
//!
//! The record is the one declaration of a kind's fields. The checker builds
//! a payload by field name ([`Operation::new`], which holds it to the
//! declaration), and everything downstream reads it through that
//! declaration: the identity (`canonical`), the rows of every language
//! (`record::values`), `kfam diff`. A new kind adds no code here.

use serde::ser::SerializeMap;
use serde::Serialize;

use super::Extent;
use crate::record::OperationKind;
use crate::record::{self, Field, Record, Ty};
use crate::vocab::Member;

/// The value of one payload field; its variant is the field's [`Ty`].
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// [`Ty::Param`]: a signature index.
    Param(usize),
    /// [`Ty::OptParam`].
    OptParam(Option<usize>),
    /// [`Ty::Extent`].
    Extent(Extent),
    /// [`Ty::U32`]: an axis, a count.
    U32(u32),
    /// [`Ty::Indices`]: axes, sorted and distinct.
    Indices(Vec<u32>),
    /// [`Ty::Bool`].
    Bool(bool),
    /// [`Ty::Vocab`]: a member of the field's vocabulary.
    Vocab(&'static Member<'static>),
    /// [`Ty::ScalarRef`].
    Scalar(ScalarRef),
    /// [`Ty::Str`].
    Text(String),
}

impl Arg {
    /// Whether a field of type `ty` holds this value.
    pub fn fits(&self, ty: Ty) -> bool {
        match (self, ty) {
            (Arg::Vocab(m), Ty::Vocab(v)) => v.members.iter().any(|x| x == *m),
            (Arg::Param(_), Ty::Param)
            | (Arg::OptParam(_), Ty::OptParam)
            | (Arg::Extent(_), Ty::Extent)
            | (Arg::U32(_), Ty::U32)
            | (Arg::Indices(_), Ty::Indices)
            | (Arg::Bool(_), Ty::Bool)
            | (Arg::Scalar(_), Ty::ScalarRef)
            | (Arg::Text(_), Ty::Str) => true,
            _ => false,
        }
    }
}

/// A checked operation payload.
#[derive(Clone, Debug, PartialEq)]
pub struct Operation {
    kind: OperationKind,
    /// One per logical field of the kind's record, in its order.
    args: Vec<Arg>,
}

impl Operation {
    /// The payload of `kind` from its fields by name.
    ///
    /// # Panics
    ///
    /// When `args` does not name each logical field of the kind's record
    /// exactly once with a value of its type: a generator bug (every kind
    /// is built by the shipped manifest's tests), never a manifest's.
    pub fn new<const N: usize>(kind: OperationKind, args: [(&str, Arg); N]) -> Operation {
        Operation::from_fields(kind, args)
    }

    /// [`Operation::new`] from any list of fields by name.
    pub fn from_fields<'n>(
        kind: OperationKind,
        args: impl IntoIterator<Item = (&'n str, Arg)>,
    ) -> Operation {
        let record = record::operation(kind);
        let mut slots: Vec<Option<Arg>> = vec![None; record.logical().count()];
        for (name, arg) in args {
            let (at, field) = record
                .logical()
                .enumerate()
                .find(|(_, f)| f.name == name)
                .unwrap_or_else(|| panic!("`{kind}` declares no field `{name}`"));
            assert!(arg.fits(field.ty), "`{kind}.{name}` is not a {arg:?}");
            assert!(slots[at].replace(arg).is_none(), "`{kind}.{name}` twice");
        }
        let args = slots
            .into_iter()
            .zip(record.logical())
            .map(|(a, f)| a.unwrap_or_else(|| panic!("`{kind}.{}` is missing", f.name)))
            .collect();
        Operation { kind, args }
    }

    pub fn kind(&self) -> OperationKind {
        self.kind
    }

    /// The kind's payload record.
    pub fn record(&self) -> &'static Record {
        record::operation(self.kind)
    }

    /// Each logical field with its value, in the declared order.
    pub fn fields(&self) -> impl Iterator<Item = (&'static Field, &Arg)> {
        self.record().logical().zip(&self.args)
    }

    /// The value of the field called `name`.
    pub fn get(&self, name: &str) -> Option<&Arg> {
        self.fields().find(|(f, _)| f.name == name).map(|(_, a)| a)
    }

    /// The parameter the field `name` names, if it names one.
    pub fn param(&self, name: &str) -> Option<usize> {
        match self.get(name)? {
            Arg::Param(i) | Arg::OptParam(Some(i)) => Some(*i),
            _ => None,
        }
    }

    /// Whether kfam cross-checks the operands against the operation
    /// (every kind but `custom`).
    pub fn is_checked(&self) -> bool {
        self.kind != OperationKind::Custom
    }
}

/// `{"kind": "softmax", "input": 0, "out": 1, "axis": 1}`: operands as
/// signature indices, members as their spelling.
impl Serialize for Operation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.args.len() + 1))?;
        m.serialize_entry("kind", &self.kind)?;
        for (f, a) in self.fields() {
            match a {
                Arg::Param(i) => m.serialize_entry(f.name, i)?,
                Arg::OptParam(i) => m.serialize_entry(f.name, i)?,
                Arg::Extent(e) => m.serialize_entry(f.name, e)?,
                Arg::U32(n) => m.serialize_entry(f.name, n)?,
                Arg::Indices(v) => m.serialize_entry(f.name, v)?,
                Arg::Bool(b) => m.serialize_entry(f.name, b)?,
                Arg::Vocab(v) => m.serialize_entry(f.name, v.spelling)?,
                Arg::Scalar(r) => m.serialize_entry(f.name, r)?,
                Arg::Text(t) => m.serialize_entry(f.name, t)?,
            }
        }
        m.end()
    }
}

/// A scalar operand of an operation: a constant, or a scalar parameter
/// (an index into `params`) passed at call time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarRef {
    Constant(f64),
    Param(usize),
}

/// `{"constant": 1e-06, "param": null}` or `{"constant": null, "param": 3}`:
/// the shape of the Python record and of the C fields, one of them unset.
impl Serialize for ScalarRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Fields {
            constant: Option<f64>,
            param: Option<usize>,
        }
        let (constant, param) = match *self {
            ScalarRef::Constant(v) => (Some(v), None),
            ScalarRef::Param(i) => (None, Some(i)),
        };
        Fields { constant, param }.serialize(s)
    }
}
