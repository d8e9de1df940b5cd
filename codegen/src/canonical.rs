//! The canonical identity form as typed records: what a family's identity
//! digest is taken over (serialized compactly, keys sorted: every record
//! declares its fields in sorted order; text is borrowed when written and
//! owned when read back), what `approved.lock` records for an
//! approved revision, and what the review gate reads back from the lock to
//! compare with the current declaration through the same change engine as
//! `kfam diff` ([`Canonical::to_family`], then `diff::identity_changes`).
//! See `docs/identity.md`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::ir::{
    Arg, Attrs, Binding, DimUse, Extent, Family, Operation, Param, Profile, ScalarRef, Symbol,
    TargetRef, IDENTITY_FORMAT,
};
use crate::record::OperationKind;
use crate::record::{operation, Field, Ty, PARAM};
use crate::vocab::{BindingKind, Contract, DType, Direction, Layout, ParamKind};

type Str<'a> = Cow<'a, str>;

// Written here, beside the form it serializes, so the IR does not depend
// on this module (which reads the IR).
impl Family {
    /// The canonical JSON form the identity digest is taken over: sorted
    /// keys, no whitespace, exact JSON types, parameters referred to by name.
    /// Summary, docs and receipts are not part of it (see `docs/identity.md`).
    pub fn canonical_identity(&self) -> String {
        Canonical::of(self).to_json()
    }
}

/// One approved revision's identity content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Canonical<'a> {
    pub contract: Contract,
    /// Constrained symbols by name; absent when there are none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub dims: BTreeMap<Str<'a>, Dims>,
    pub identity_format: u32,
    pub name: Str<'a>,
    pub operation: Op<'a>,
    pub params: Vec<ParamRec<'a>>,
    pub profiles: Vec<ProfileRec<'a>>,
    pub returns: Vec<usize>,
    pub revision: u32,
    pub torch: bool,
}

/// A symbol's constraints, only those declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dims {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiple_of: Option<u32>,
}

/// An extent: an integer, or a symbol's name (so a family without symbols
/// serializes exactly as before symbols existed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Dim<'a> {
    Int(i64),
    Sym(Str<'a>),
}

/// An operation's scalar: a constant is a JSON number, a parameter its name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Scalar<'a> {
    Constant(f64),
    Param(Str<'a>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParamRec<'a> {
    pub direction: Direction,
    pub dtype: DType,
    pub kind: ParamKind,
    pub layout: Layout,
    pub name: Str<'a>,
    pub shape: Vec<Dim<'a>>,
    /// The parameter record's declared attributes ([`crate::record::Attr`])
    /// whose value is not the default, by name: keys among the others in
    /// sorted order; a family that declares none keeps its identity.
    pub attrs: BTreeMap<Str<'a>, i64>,
}

impl ParamRec<'_> {
    /// The keys of the fixed fields, sorted.
    const FIXED: [&'static str; 6] = ["direction", "dtype", "kind", "layout", "name", "shape"];
}

impl Serialize for ParamRec<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut keys: Vec<&str> = Self::FIXED.to_vec();
        keys.extend(self.attrs.keys().map(|k| k.as_ref()));
        keys.sort_unstable();
        let mut m = s.serialize_map(Some(keys.len()))?;
        for key in keys {
            match key {
                "direction" => m.serialize_entry(key, &self.direction)?,
                "dtype" => m.serialize_entry(key, &self.dtype)?,
                "kind" => m.serialize_entry(key, &self.kind)?,
                "layout" => m.serialize_entry(key, &self.layout)?,
                "name" => m.serialize_entry(key, &self.name)?,
                "shape" => m.serialize_entry(key, &self.shape)?,
                attr => m.serialize_entry(key, &self.attrs[attr])?,
            }
        }
        m.end()
    }
}

impl<'de, 'a> Deserialize<'de> for ParamRec<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Read {
            direction: Direction,
            dtype: DType,
            kind: ParamKind,
            layout: Layout,
            name: String,
            shape: Vec<Dim<'static>>,
            #[serde(flatten)]
            attrs: BTreeMap<String, i64>,
        }
        let r = Read::deserialize(d)?;
        if let Some(unknown) = r
            .attrs
            .keys()
            .find(|k| PARAM.attrs().all(|(f, _)| f.name != *k))
        {
            return Err(serde::de::Error::unknown_field(unknown, &Self::FIXED));
        }
        Ok(ParamRec {
            direction: r.direction,
            dtype: r.dtype,
            kind: r.kind,
            layout: r.layout,
            name: Cow::Owned(r.name),
            shape: r.shape,
            attrs: r
                .attrs
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k), v))
                .collect(),
        })
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BindingRec<'a> {
    pub kind: BindingKind,
    pub param: Str<'a>,
    pub slot: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileRec<'a> {
    pub backend: Str<'a>,
    pub bindings: Vec<BindingRec<'a>>,
    pub execution_mode: Str<'a>,
    pub name: Str<'a>,
    pub platform: Str<'a>,
    pub runtime: Str<'a>,
}

/// The operation payload, operands by name: its `kind` and each logical
/// field of the kind's record ([`crate::record::operation`]) by name, keys
/// sorted. A field appended to a kind after families of it were approved
/// (`since` > 0) is left out at its default, as a parameter's attribute
/// is, so that their identities are unchanged.
#[derive(Clone, Debug, PartialEq)]
pub struct Op<'a> {
    kind: OperationKind,
    fields: BTreeMap<&'static str, Val<'a>>,
}

/// One payload field's value as the identity spells it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Val<'a> {
    /// A parameter, by name.
    Name(Str<'a>),
    /// An optional parameter that is absent: `null`.
    Absent,
    Dim(Dim<'a>),
    U32(u32),
    Indices(Vec<u32>),
    Bool(bool),
    /// A vocabulary member, by its spelling.
    Member(&'static str),
    Scalar(Scalar<'a>),
    Text(Str<'a>),
}

/// The value a field appended to its kind holds in payloads recorded before
/// it existed, if its type has one (a vocabulary's member of code 0).
fn appended_default(f: &Field) -> Option<Val<'static>> {
    match f.ty {
        Ty::Vocab(v) if f.since > 0 => Some(Val::Member(v.absent().spelling)),
        _ => None,
    }
}

impl Serialize for Op<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let record = operation(self.kind);
        let kept: Vec<(&str, &Val<'_>)> = self
            .fields
            .iter()
            .filter(|(k, v)| {
                let f = record.field(k).expect("a payload field is declared");
                appended_default(f).as_ref() != Some(*v)
            })
            .map(|(k, v)| (*k, v))
            .collect();
        let mut m = s.serialize_map(Some(kept.len() + 1))?;
        let mut kind = Some(self.kind);
        for (k, v) in kept {
            if let Some(kd) = kind.filter(|_| k > "kind") {
                m.serialize_entry("kind", &kd)?;
                kind = None;
            }
            m.serialize_entry(k, v)?;
        }
        if let Some(kd) = kind {
            m.serialize_entry("kind", &kd)?;
        }
        m.end()
    }
}

/// Read by `kind` first, then each key as the kind's record declares it;
/// an unknown or missing key is an error.
impl<'de, 'a> Deserialize<'de> for Op<'a> {
    fn deserialize<De: serde::Deserializer<'de>>(d: De) -> Result<Self, De::Error> {
        use serde::de::Error;
        let serde_json::Value::Object(mut map) = serde_json::Value::deserialize(d)? else {
            return Err(De::Error::custom("an operation is an object"));
        };
        let kind = map
            .remove("kind")
            .as_ref()
            .and_then(|k| k.as_str())
            .and_then(OperationKind::from_str_opt)
            .ok_or_else(|| De::Error::custom("operation without a known `kind`"))?;
        let record = operation(kind);
        let mut fields = BTreeMap::new();
        for f in record.logical() {
            let val = match map.remove(f.name) {
                Some(v) => read_val(f, v).map_err(De::Error::custom)?,
                None => appended_default(f).ok_or_else(|| De::Error::missing_field(f.name))?,
            };
            fields.insert(f.name, val);
        }
        if let Some(unknown) = map.keys().next() {
            let known: Vec<&'static str> = record.logical().map(|f| f.name).collect();
            return Err(De::Error::custom(format!(
                "unknown field `{unknown}` of `{kind}`, expected one of {known:?}"
            )));
        }
        Ok(Op { kind, fields })
    }
}

/// One recorded field's value, read as its declared type.
fn read_val(f: &Field, v: serde_json::Value) -> Result<Val<'static>, String> {
    use serde_json::from_value as read;
    let e = |e: serde_json::Error| format!("`{}`: {e}", f.name);
    Ok(match f.ty {
        Ty::Param => Val::Name(Cow::Owned(read(v).map_err(e)?)),
        Ty::OptParam => read::<Option<String>>(v)
            .map_err(e)?
            .map_or(Val::Absent, |n| Val::Name(Cow::Owned(n))),
        Ty::Extent => Val::Dim(read(v).map_err(e)?),
        Ty::U32 => Val::U32(read(v).map_err(e)?),
        Ty::Indices => Val::Indices(read(v).map_err(e)?),
        Ty::Bool => Val::Bool(read(v).map_err(e)?),
        Ty::Vocab(vocab) => {
            let s: String = read(v).map_err(e)?;
            let m = vocab.members.iter().find(|m| m.spelling == s);
            Val::Member(
                m.ok_or_else(|| format!("`{}`: no {} `{s}`", f.name, vocab.name))?
                    .spelling,
            )
        }
        Ty::ScalarRef => Val::Scalar(read(v).map_err(e)?),
        Ty::Str => Val::Text(Cow::Owned(read(v).map_err(e)?)),
        ty => return Err(format!("`{}`: a payload field of type {ty:?}", f.name)),
    })
}

impl<'a> Op<'a> {
    /// The operation payload of `f`, operands by name.
    pub fn of(f: &'a Family) -> Self {
        let pname = |i: usize| Cow::Borrowed(f.params[i].name.as_str());
        let fields = f
            .operation
            .fields()
            .map(|(field, arg)| {
                let val = match arg {
                    Arg::Param(i) => Val::Name(pname(*i)),
                    Arg::OptParam(i) => i.map_or(Val::Absent, |i| Val::Name(pname(i))),
                    Arg::Extent(Extent::Symbol(i)) => {
                        Val::Dim(Dim::Sym(Cow::Borrowed(f.symbols[*i].name.as_str())))
                    }
                    Arg::Extent(e) => Val::Dim(Dim::Int(e.as_i64())),
                    Arg::U32(n) => Val::U32(*n),
                    Arg::Indices(v) => Val::Indices(v.clone()),
                    Arg::Bool(b) => Val::Bool(*b),
                    Arg::Vocab(m) => Val::Member(m.spelling),
                    Arg::Scalar(ScalarRef::Constant(v)) => Val::Scalar(Scalar::Constant(*v)),
                    Arg::Scalar(ScalarRef::Param(i)) => Val::Scalar(Scalar::Param(pname(*i))),
                    Arg::Text(t) => Val::Text(Cow::Borrowed(t.as_str())),
                };
                (field.name, val)
            })
            .collect();
        Op {
            kind: f.operation.kind(),
            fields,
        }
    }
}

impl Op<'_> {
    pub fn kind(&self) -> OperationKind {
        self.kind
    }

    /// The payload's fields, each as the manifest would spell its value,
    /// in key order: what `kfam diff` compares field by field.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        self.fields
            .iter()
            .map(|(k, v)| {
                let shown = match v {
                    Val::Name(n) | Val::Dim(Dim::Sym(n)) | Val::Scalar(Scalar::Param(n)) => {
                        format!("`{n}`")
                    }
                    Val::Absent => "none".to_owned(),
                    Val::Dim(Dim::Int(i)) => i.to_string(),
                    Val::U32(n) => n.to_string(),
                    Val::Indices(v) => format!("{v:?}"),
                    Val::Bool(b) => b.to_string(),
                    Val::Member(m) => format!("`{m}`"),
                    Val::Scalar(Scalar::Constant(c)) => c.to_string(),
                    Val::Text(t) => t.to_string(),
                };
                (*k, shown)
            })
            .collect()
    }

    /// The IR payload, names resolved by `index` and extents by `extent`.
    fn to_ir(
        &self,
        index: impl Fn(&str) -> Result<usize, String>,
        mut extent: impl FnMut(&Dim<'_>) -> Extent,
    ) -> Result<Operation, String> {
        let record = operation(self.kind);
        let mut args = Vec::with_capacity(self.fields.len());
        // In the declared order, so that symbols keep their order of first use.
        for f in record.logical() {
            let arg = match &self.fields[f.name] {
                Val::Name(n) if matches!(f.ty, Ty::OptParam) => Arg::OptParam(Some(index(n)?)),
                Val::Name(n) => Arg::Param(index(n)?),
                Val::Absent => Arg::OptParam(None),
                Val::Dim(d) => Arg::Extent(extent(d)),
                Val::U32(n) => Arg::U32(*n),
                Val::Indices(v) => Arg::Indices(v.clone()),
                Val::Bool(b) => Arg::Bool(*b),
                Val::Member(s) => {
                    let Ty::Vocab(v) = f.ty else {
                        unreachable!("a member is read for a vocabulary field")
                    };
                    Arg::Vocab(
                        v.members
                            .iter()
                            .find(|m| m.spelling == *s)
                            .expect("read as one"),
                    )
                }
                Val::Scalar(Scalar::Constant(c)) => Arg::Scalar(ScalarRef::Constant(*c)),
                Val::Scalar(Scalar::Param(n)) => Arg::Scalar(ScalarRef::Param(index(n)?)),
                Val::Text(t) => Arg::Text(t.to_string()),
            };
            args.push((f.name, arg));
        }
        Ok(Operation::from_fields(self.kind, args))
    }
}

impl<'a> Canonical<'a> {
    /// The identity content of `f`, borrowing its names.
    pub fn of(f: &'a Family) -> Self {
        let pname = |i: usize| Cow::Borrowed(f.params[i].name.as_str());
        let d = |e: Extent| match e {
            Extent::Symbol(i) => Dim::Sym(Cow::Borrowed(f.symbols[i].name.as_str())),
            e => Dim::Int(e.as_i64()),
        };
        Canonical {
            contract: f.contract,
            dims: f
                .symbols
                .iter()
                .filter(|s| s.is_constrained())
                .map(|s| {
                    let rule = Dims {
                        max: s.max,
                        min: (s.min > 0).then_some(s.min),
                        multiple_of: (s.multiple_of > 1).then_some(s.multiple_of),
                    };
                    (Cow::Borrowed(s.name.as_str()), rule)
                })
                .collect(),
            identity_format: IDENTITY_FORMAT,
            name: Cow::Borrowed(&f.name),
            operation: Op::of(f),
            params: f
                .params
                .iter()
                .map(|p| ParamRec {
                    direction: p.direction,
                    dtype: p.dtype,
                    kind: p.kind,
                    layout: p.layout,
                    name: Cow::Borrowed(&p.name),
                    shape: p.dims.iter().map(|&e| d(e)).collect(),
                    attrs: PARAM
                        .attrs()
                        .filter_map(|(f, a)| {
                            let v = p.attrs.get(f.name).unwrap_or(a.default);
                            (v != a.default).then_some((Cow::Borrowed(f.name), v))
                        })
                        .collect(),
                })
                .collect(),
            profiles: f
                .profiles
                .iter()
                .map(|pr| ProfileRec {
                    backend: Cow::Borrowed(&pr.backend.name),
                    bindings: pr
                        .bindings
                        .iter()
                        .map(|b| BindingRec {
                            kind: b.kind,
                            param: pname(b.param),
                            slot: b.slot,
                        })
                        .collect(),
                    execution_mode: Cow::Borrowed(&pr.execution_mode.name),
                    name: Cow::Borrowed(&pr.name),
                    platform: Cow::Borrowed(&pr.platform.name),
                    runtime: Cow::Borrowed(&pr.runtime.name),
                })
                .collect(),
            returns: f.returns.clone(),
            revision: f.revision,
            torch: f.torch,
        }
    }

    /// The compact JSON text the identity digest is taken over.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("the canonical form serializes")
    }

    /// Read a recorded canonical form (an `approved.lock` entry). The
    /// records own their text (read back only when a revision changed).
    pub fn parse(text: &str) -> Result<Canonical<'static>, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// The family this identity content declares, as the IR holds it:
    /// names resolved to indices, symbols in order of first use. It carries
    /// no review record (summary, docs, receipts), which the identity does
    /// not cover; lowered shapes are the logical ones. What the review gate
    /// hands to the change engine for an approved revision.
    pub fn to_family(&self) -> Result<Family, String> {
        let index = |name: &str| {
            self.params
                .iter()
                .position(|p| p.name == name)
                .ok_or_else(|| format!("operand `{name}` is not a parameter"))
        };
        let mut symbols: Vec<Symbol> = Vec::new();
        let mut extent = |d: &Dim<'_>, at: Option<DimUse>| -> Extent {
            match d {
                Dim::Int(-1) => Extent::Dynamic,
                Dim::Int(n) => Extent::Static(*n),
                Dim::Sym(name) => {
                    let i = match symbols.iter().position(|s| s.name == *name) {
                        Some(i) => i,
                        None => {
                            let rule = self.dims.get(name).copied().unwrap_or(Dims {
                                max: None,
                                min: None,
                                multiple_of: None,
                            });
                            symbols.push(Symbol {
                                name: name.to_string(),
                                min: rule.min.unwrap_or(0),
                                max: rule.max,
                                multiple_of: rule.multiple_of.unwrap_or(1),
                                uses: Vec::new(),
                            });
                            symbols.len() - 1
                        }
                    };
                    symbols[i].uses.extend(at);
                    Extent::Symbol(i)
                }
            }
        };
        let (mut tensors, mut scalars) = (0, 0);
        let mut params = Vec::with_capacity(self.params.len());
        for (i, p) in self.params.iter().enumerate() {
            let pool = if p.kind == ParamKind::Tensor {
                &mut tensors
            } else {
                &mut scalars
            };
            let pool_index = *pool;
            *pool += 1;
            let dims: Vec<Extent> = p
                .shape
                .iter()
                .enumerate()
                .map(|(axis, d)| {
                    extent(
                        d,
                        Some(DimUse {
                            param: i,
                            tensor: pool_index,
                            axis,
                        }),
                    )
                })
                .collect();
            let shape: Vec<i64> = dims.iter().map(|e| e.as_i64()).collect();
            params.push(Param {
                name: p.name.to_string(),
                index: i,
                kind: p.kind,
                direction: p.direction,
                dtype: p.dtype,
                lowered_shape: shape.clone(),
                shape,
                dims,
                layout: p.layout,
                pool_index,
                doc: None,
                attrs: Attrs(
                    PARAM
                        .attrs()
                        .map(|(f, a)| (f.name, p.attrs.get(f.name).copied().unwrap_or(a.default)))
                        .collect(),
                ),
            });
        }
        let operation = self.operation.to_ir(index, |d| extent(d, None))?;
        if let Some(&bad) = self.returns.iter().find(|&&r| r >= params.len()) {
            return Err(format!("return alias {bad} is not a parameter index"));
        }
        let mut profiles = Vec::with_capacity(self.profiles.len());
        for pr in &self.profiles {
            let mut bindings = Vec::with_capacity(pr.bindings.len());
            for b in &pr.bindings {
                bindings.push(Binding {
                    param: index(&b.param)?,
                    slot: b.slot,
                    kind: b.kind,
                });
            }
            profiles.push(Profile {
                name: pr.name.to_string(),
                platform: TargetRef::named(&pr.platform),
                backend: TargetRef::named(&pr.backend),
                runtime: TargetRef::named(&pr.runtime),
                execution_mode: TargetRef::named(&pr.execution_mode),
                bindings,
            });
        }
        let canonical = self.to_json();
        Ok(Family {
            name: self.name.to_string(),
            revision: self.revision,
            summary: String::new(),
            contract: self.contract,
            torch: self.torch,
            operation,
            params,
            returns: self.returns.clone(),
            profiles,
            receipts: Vec::new(),
            tensor_count: tensors,
            scalar_count: scalars,
            identity: crate::ir::sha256_hex(canonical.as_bytes()),
            canonical,
            torch_schema: None,
            symbols,
            source: String::new(),
            approval: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Canonical;

    /// Every payload of the shipped manifest (each kind, optional operands
    /// present and absent, scalars as constants and parameters) reads back
    /// from its identity as the IR holds it, and writes the same text.
    #[test]
    fn payloads_round_trip_through_the_identity() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest");
        let (ir, _) = crate::check_dir(&dir);
        for f in &ir.expect("the shipped manifest checks cleanly").families {
            let text = f.canonical_identity();
            let back = Canonical::parse(&text).and_then(|c| c.to_family());
            let back = back.unwrap_or_else(|e| panic!("{}: {e}", f.name));
            assert_eq!(back.operation, f.operation, "{}", f.name);
            assert_eq!(back.canonical_identity(), text, "{}", f.name);
        }
    }

    #[test]
    fn an_unknown_payload_key_is_refused() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest");
        let (ir, _) = crate::check_dir(&dir);
        let ir = ir.expect("the shipped manifest checks cleanly");
        let text = ir.families[0].canonical_identity();
        let bad = text.replacen("\"kind\":", "\"extra\":1,\"kind\":", 1);
        let err = Canonical::parse(&bad).expect_err("an unknown key");
        assert!(err.contains("unknown field `extra`"), "{err}");
    }
}
