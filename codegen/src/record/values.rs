//! What each record holds for one IR value: its logical fields' values, in
//! the declared order ([`Row::values`]). This is the one place that reads an
//! IR record field by field; the printers of every language walk the
//! declaration and these values together, never the IR record itself.

use smallvec::SmallVec;

use super::*;
use crate::ir;

/// One field's value.
#[derive(Clone, Copy)]
pub enum Value<'a> {
    Bool(bool),
    Int(i64),
    F64(f64),
    Str(&'a str),
    /// An extent, which may be a named symbol of the family (`-1` wherever
    /// the symbol's name is not printed).
    Extent(ir::Extent),
    /// Absent text, an absent index or an unbounded bound: `None`.
    Absent,
    Vocab(Code<'a>),
    Ints(Ints<'a>),
    Strs(&'a [String]),
    List(&'a dyn Rows),
    Nested(&'a dyn Row),
    ScalarRef(ir::ScalarRef),
    /// The payload, a row of its kind's record.
    Operation(&'a dyn Row),
}

/// A vocabulary member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Code<'a> {
    pub code: i32,
    /// The Rust variant name (`Bf16`).
    pub variant: &'a str,
    /// The manifest spelling (`bf16`).
    pub spelling: &'a str,
}

/// A list of integers, as the IR holds it.
#[derive(Clone, Copy)]
pub enum Ints<'a> {
    I64(&'a [i64]),
    Usize(&'a [usize]),
    U32(&'a [u32]),
}

impl<'a> Ints<'a> {
    pub fn len(self) -> usize {
        match self {
            Ints::I64(v) => v.len(),
            Ints::Usize(v) => v.len(),
            Ints::U32(v) => v.len(),
        }
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    pub fn iter(self) -> impl Iterator<Item = i64> + 'a {
        let (a, b, c) = match self {
            Ints::I64(v) => (v, &[][..], &[][..]),
            Ints::Usize(v) => (&[][..], v, &[][..]),
            Ints::U32(v) => (&[][..], &[][..], v),
        };
        a.iter()
            .copied()
            .chain(b.iter().map(|&x| x as i64))
            .chain(c.iter().map(|&x| i64::from(x)))
    }
}

/// The values of a record's logical fields, in order.
pub type Values<'a> = SmallVec<[Value<'a>; 16]>;

/// An IR value that is one record.
pub trait Row {
    fn record(&self) -> &'static Record;
    fn values(&self) -> Values<'_>;
}

/// A list of records.
pub trait Rows {
    fn len(&self) -> usize;
    fn row(&self, i: usize) -> &dyn Row;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: Row> Rows for Vec<T> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn row(&self, i: usize) -> &dyn Row {
        &self[i]
    }
}

impl<'a> Value<'a> {
    pub fn int(n: impl TryInto<i64>) -> Value<'a> {
        Value::Int(n.try_into().unwrap_or(i64::MAX))
    }

    fn opt_str(s: &'a Option<String>) -> Value<'a> {
        s.as_deref().map_or(Value::Absent, Value::Str)
    }

    fn opt_int(n: Option<impl TryInto<i64>>) -> Value<'a> {
        n.map_or(Value::Absent, Value::int)
    }

    /// The list of a [`Value::List`], else none.
    pub fn rows(self) -> Option<&'a dyn Rows> {
        match self {
            Value::List(r) => Some(r),
            _ => None,
        }
    }

    /// Whether the value is absent or an empty list.
    pub fn is_empty(self) -> bool {
        match self {
            Value::Absent => true,
            Value::List(_) | Value::Ints(_) | Value::Strs(_) => self.entries() == 0,
            _ => false,
        }
    }

    /// Entries of a list value (records, integers or texts); 0 for others.
    pub fn entries(self) -> usize {
        match self {
            Value::List(r) => r.len(),
            Value::Ints(i) => i.len(),
            Value::Strs(s) => s.len(),
            _ => 0,
        }
    }
}

macro_rules! code {
    ($v:expr) => {{
        let v = $v;
        Value::Vocab(Code {
            code: v.code(),
            variant: v.variant_name(),
            spelling: v.as_str(),
        })
    }};
}

/// A member of a vocabulary the catalog declares.
fn declared(r: &ir::TargetRef) -> Value<'_> {
    Value::Vocab(Code {
        code: r.code,
        variant: &r.variant,
        spelling: &r.name,
    })
}

impl Row for ir::Param {
    fn record(&self) -> &'static Record {
        &PARAM
    }
    // By the declaration's field names: a declared attribute needs no line
    // here (a name matched by nothing is `Absent`, which fails
    // `every_value_fits_its_declared_type`).
    fn values(&self) -> Values<'_> {
        PARAM
            .logical()
            .map(|f| match f.name {
                "index" => Value::int(self.index),
                "name" => Value::Str(&self.name),
                "doc" => Value::opt_str(&self.doc),
                "kind" => code!(self.kind),
                "direction" => code!(self.direction),
                "dtype" => code!(self.dtype),
                "layout" => code!(self.layout),
                "pool_index" => Value::int(self.pool_index),
                "shape" => Value::Ints(Ints::I64(&self.shape)),
                "lowered_shape" => Value::Ints(Ints::I64(&self.lowered_shape)),
                attr => self.attrs.get(attr).map_or(Value::Absent, Value::Int),
            })
            .collect()
    }
}

impl Row for ir::Binding {
    fn record(&self) -> &'static Record {
        &BINDING
    }
    fn values(&self) -> Values<'_> {
        smallvec::smallvec![
            Value::int(self.param),
            Value::int(self.slot),
            code!(self.kind),
        ]
    }
}

impl Row for ir::Profile {
    fn record(&self) -> &'static Record {
        &PROFILE
    }
    fn values(&self) -> Values<'_> {
        smallvec::smallvec![
            Value::Str(&self.name),
            declared(&self.platform),
            declared(&self.backend),
            declared(&self.runtime),
            declared(&self.execution_mode),
            Value::List(&self.bindings),
        ]
    }
}

impl Row for ir::Evidence {
    fn record(&self) -> &'static Record {
        &EVIDENCE
    }
    fn values(&self) -> Values<'_> {
        smallvec::smallvec![
            Value::Str(&self.date),
            Value::Str(&self.hardware),
            Value::opt_str(&self.note),
            Value::opt_str(&self.tool),
            Value::Strs(&self.versions),
            Value::int(self.cases),
            Value::Int(self.seed),
            Value::Strs(&self.shapes),
            Value::List(&self.errors),
            Value::int(self.runs),
            Value::Bool(self.deterministic),
            Value::F64(self.run_max_abs),
        ]
    }
}

impl Row for ir::OutputError {
    fn record(&self) -> &'static Record {
        &OUTPUT_ERROR
    }
    fn values(&self) -> Values<'_> {
        smallvec::smallvec![
            Value::int(self.output),
            Value::F64(self.max_abs),
            Value::F64(self.max_rel),
        ]
    }
}

impl Row for ir::Receipt {
    fn record(&self) -> &'static Record {
        &RECEIPT
    }
    fn values(&self) -> Values<'_> {
        smallvec::smallvec![
            Value::int(self.profile),
            Value::Str(&self.codec),
            Value::Str(&self.artifact),
            Value::Str(&self.sha256),
            Value::Nested(&self.evidence),
        ]
    }
}

impl Row for ir::DimUse {
    fn record(&self) -> &'static Record {
        &DIM_USE
    }
    fn values(&self) -> Values<'_> {
        smallvec::smallvec![
            Value::int(self.param),
            Value::int(self.tensor),
            Value::int(self.axis),
        ]
    }
}

impl Row for ir::Symbol {
    fn record(&self) -> &'static Record {
        &SYMBOL
    }
    fn values(&self) -> Values<'_> {
        smallvec::smallvec![
            Value::Str(&self.name),
            Value::int(self.min),
            Value::opt_int(self.max),
            Value::int(self.multiple_of),
            Value::List(&self.uses),
        ]
    }
}

impl Row for ir::Operation {
    fn record(&self) -> &'static Record {
        ir::Operation::record(self)
    }
    fn values(&self) -> Values<'_> {
        use ir::Arg;
        self.fields()
            .map(|(_, arg)| match arg {
                Arg::Param(i) => Value::int(*i),
                Arg::OptParam(i) => Value::opt_int(*i),
                Arg::Extent(e) => Value::Extent(*e),
                Arg::U32(n) => Value::int(*n),
                Arg::Indices(v) => Value::Ints(Ints::U32(v)),
                Arg::Bool(b) => Value::Bool(*b),
                Arg::Vocab(m) => Value::Vocab(Code {
                    code: m.code,
                    variant: m.variant,
                    spelling: m.spelling,
                }),
                Arg::Scalar(r) => Value::ScalarRef(*r),
                Arg::Text(t) => Value::Str(t),
            })
            .collect()
    }
}

impl Row for ir::Family {
    fn record(&self) -> &'static Record {
        &FAMILY
    }
    fn values(&self) -> Values<'_> {
        smallvec::smallvec![
            Value::int(self.revision),
            Value::Str(&self.name),
            Value::Str(&self.identity),
            Value::Str(&self.summary),
            Value::opt_str(&self.torch_schema),
            code!(self.contract),
            Value::Bool(self.torch),
            Value::Operation(&self.operation),
            Value::int(self.tensor_count),
            Value::int(self.scalar_count),
            Value::List(&self.params),
            Value::Ints(Ints::Usize(&self.returns)),
            Value::List(&self.profiles),
            Value::List(&self.receipts),
            Value::List(&self.symbols),
            Value::int(self.approval),
        ]
    }
}

impl Row for ir::Retired {
    fn record(&self) -> &'static Record {
        &RETIRED
    }
    fn values(&self) -> Values<'_> {
        smallvec::smallvec![
            Value::int(self.revision),
            Value::Str(&self.name),
            Value::Str(&self.identity),
            Value::Str(&self.reason),
            Value::Strs(&self.receipts),
            Value::int(self.approval),
        ]
    }
}

/// Whether `value` is of the declared type `ty` (the tests walk every
/// record of a manifest with it, so a value written in the wrong place
/// fails them).
pub fn fits(ty: super::Ty, value: &Value<'_>) -> bool {
    use super::Ty;
    match (ty, value) {
        (Ty::Bool, Value::Bool(_)) => true,
        (Ty::U32 | Ty::Index | Ty::Param | Ty::Count | Ty::I64, Value::Int(_)) => true,
        (Ty::Extent, Value::Extent(_)) => true,
        (Ty::F64, Value::F64(_)) => true,
        (Ty::Str | Ty::Digest | Ty::OptStr, Value::Str(_)) => true,
        (Ty::OptStr | Ty::OptParam | Ty::Bound, Value::Absent) => true,
        (Ty::OptParam | Ty::Bound, Value::Int(_)) => true,
        // The checker resolved a declared member against the catalog.
        (Ty::Vocab(v), Value::Vocab(_)) if v.declared => true,
        (Ty::Vocab(v), Value::Vocab(c)) => v
            .members
            .iter()
            .any(|m| m.code == c.code && m.spelling == c.spelling),
        (Ty::Dims { .. } | Ty::Indices, Value::Ints(_)) => true,
        (Ty::Strs, Value::Strs(_)) => true,
        (Ty::List(r), Value::List(rows)) => {
            (0..rows.len()).all(|i| std::ptr::eq(rows.row(i).record(), r))
        }
        (Ty::Nested(r), Value::Nested(row)) => std::ptr::eq(row.record(), r),
        (Ty::ScalarRef, Value::ScalarRef(_)) => true,
        (Ty::Operation, Value::Operation(row)) => OPERATIONS
            .iter()
            .any(|(_, r)| std::ptr::eq(row.record(), *r)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value of `row` (and of the records it holds) is of its field's
    /// declared type, one value per logical field.
    fn check(row: &dyn Row, path: &str) {
        let record = row.record();
        let values = row.values();
        let fields: Vec<_> = record.logical().collect();
        assert_eq!(values.len(), fields.len(), "{path}: {}", record.name);
        for (f, v) in fields.iter().zip(&values) {
            let here = format!("{path}.{}", f.name);
            assert!(fits(f.ty, v), "{here}: not a {:?}", f.ty);
            match *v {
                Value::List(rows) => (0..rows.len()).for_each(|i| check(rows.row(i), &here)),
                Value::Nested(r) | Value::Operation(r) => check(r, &here),
                _ => {}
            }
        }
    }

    #[test]
    fn every_value_fits_its_declared_type() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest");
        let (ir, _) = crate::check_dir(&dir);
        let ir = ir.expect("the shipped manifest checks cleanly");
        let mut kinds = std::collections::BTreeSet::new();
        for f in &ir.families {
            check(f, &f.name);
            kinds.insert(f.operation.kind());
        }
        for r in &ir.retired {
            check(r, &r.name);
        }
        assert!(!ir.retired.is_empty());
        let (abi, mut families) = crate::synth::manifest(60, 3).sources("m");
        families.extend(crate::synth::other_kinds("m"));
        let (synth, _) = crate::check_sources(abi, families);
        for f in &synth.expect("these manifests check cleanly").families {
            check(f, &f.name);
            kinds.insert(f.operation.kind());
        }
        assert_eq!(kinds.len(), OPERATIONS.len(), "{kinds:?}");
    }

    /// The declarations are consistent: every `SameAs` names a field of the
    /// same record, every flat payload field names a C-only field of
    /// `kfam_family`, every record that lists hold has a constructor.
    #[test]
    fn declarations_refer_to_what_exists() {
        use crate::record::{CValue, CWhere, Role, Ty};
        for r in LOGICAL_RECORDS
            .iter()
            .copied()
            .chain(OPERATIONS.iter().map(|(_, r)| *r))
        {
            for f in r.logical() {
                if let Role::SameAs(other) = f.role {
                    assert!(r.field(other).is_some(), "{}.{}", r.name, f.name);
                }
                if let CWhere::Flat(name, _) = f.c {
                    assert!(
                        matches!(
                            FAMILY.field(name).map(|g| g.ty),
                            Some(Ty::C(CValue::Flat { .. }))
                        ),
                        "{}.{} lands in kfam_family.{name}",
                        r.name,
                        f.name
                    );
                }
                if let Ty::List(inner) = f.ty {
                    assert!(inner.ctor.is_some(), "{}", inner.name);
                }
            }
            for s in r.shorthands {
                let named = s.fixed.iter().map(|(n, _)| *n);
                for name in named.chain(s.same.iter().flat_map(|(a, b)| [*a, *b])) {
                    assert!(
                        r.field(name).is_some(),
                        "{}: shorthand {} names {name}",
                        r.name,
                        s.name
                    );
                }
            }
        }
    }
}
