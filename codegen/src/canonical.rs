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
    Attrs, Binding, DimUse, Extent, Family, Operation, Param, Profile, ScalarRef, Symbol,
    TargetRef, IDENTITY_FORMAT,
};
use crate::record::PARAM;
use crate::vocab::{
    BinaryOp, BindingKind, CacheLayout, Contract, DType, Direction, Layout, NormKind,
    OperationKind, ParamKind, ReduceOp, UnaryOp,
};

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

/// The operation payload, operands by name; each kind's record carries its
/// `kind` among its sorted fields.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Op<'a> {
    Binary(BinaryRec<'a>),
    Matmul(MatmulRec<'a>),
    Unary(UnaryRec<'a>),
    Reduce(ReduceRec<'a>),
    Softmax(SoftmaxRec<'a>),
    Norm(NormRec<'a>),
    Paged(PagedRec<'a>),
    Custom(CustomRec<'a>),
    Packed(PackedRec<'a>),
}

macro_rules! records {
    ($( $rec:ident { $( $(#[$attr:meta])* $field:ident : $ty:ty ),+ $(,)? } )+) => {$(
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $rec<'a> {
            $( $(#[$attr])* pub $field: $ty, )+
        }
    )+};
}

records! {
    BinaryRec { kind: OperationKind, lhs: Str<'a>, op: BinaryOp, out: Str<'a>, rhs: Str<'a> }
    MatmulRec {
        a: Str<'a>, accumulate: bool, b: Str<'a>, c: Str<'a>,
        k: Dim<'a>, kind: OperationKind, m: Dim<'a>, n: Dim<'a>,
    }
    UnaryRec { input: Str<'a>, kind: OperationKind, op: UnaryOp, out: Str<'a> }
    ReduceRec {
        axes: Vec<u32>, input: Str<'a>, keepdim: bool, kind: OperationKind, op: ReduceOp,
        out: Str<'a>,
    }
    SoftmaxRec { axis: u32, input: Str<'a>, kind: OperationKind, out: Str<'a> }
    NormRec {
        axis: u32, bias: Option<Str<'a>>, eps: Scalar<'a>,
        input: Str<'a>, kind: OperationKind, op: NormKind, out: Str<'a>,
        weight: Str<'a>,
    }
    PagedRec {
        block_table: Str<'a>, context_lens: Str<'a>,
        key_cache: Str<'a>, kind: OperationKind,
        // Absent for the default layout, so that the identity of a family
        // declared before layouts existed is unchanged.
        #[serde(default = "default_layout", skip_serializing_if = "is_default_layout")]
        layout: CacheLayout,
        out: Str<'a>,
        query: Str<'a>, scale: Scalar<'a>,
        value_cache: Str<'a>,
    }
    CustomRec { kind: OperationKind, semantics: Str<'a> }
    PackedRec {
        causal: bool, cu_seqlens_k: Str<'a>, cu_seqlens_q: Str<'a>,
        key: Str<'a>, kind: OperationKind,
        max_seqlen_k: Option<Str<'a>>, max_seqlen_q: Option<Str<'a>>,
        out: Str<'a>, query: Str<'a>, scale: Scalar<'a>, value: Str<'a>,
    }
}

fn default_layout() -> CacheLayout {
    CacheLayout::DEFAULT
}

fn is_default_layout(l: &CacheLayout) -> bool {
    *l == CacheLayout::DEFAULT
}

/// Read by `kind` first, then strictly as that kind's record (an untagged
/// read would take the first record whose fields happen to be present).
impl<'de, 'a> Deserialize<'de> for Op<'a> {
    fn deserialize<De: serde::Deserializer<'de>>(d: De) -> Result<Self, De::Error> {
        use serde::de::Error;
        let v = serde_json::Value::deserialize(d)?;
        let kind = v
            .get("kind")
            .and_then(|k| k.as_str())
            .and_then(OperationKind::from_str_opt)
            .ok_or_else(|| De::Error::custom("operation without a known `kind`"))?;
        let op = match kind {
            OperationKind::ElementwiseBinary => serde_json::from_value(v).map(Op::Binary),
            OperationKind::Matmul => serde_json::from_value(v).map(Op::Matmul),
            OperationKind::ElementwiseUnary => serde_json::from_value(v).map(Op::Unary),
            OperationKind::Reduce => serde_json::from_value(v).map(Op::Reduce),
            OperationKind::Softmax => serde_json::from_value(v).map(Op::Softmax),
            OperationKind::Norm => serde_json::from_value(v).map(Op::Norm),
            OperationKind::PagedAttentionDecode => serde_json::from_value(v).map(Op::Paged),
            OperationKind::Custom => serde_json::from_value(v).map(Op::Custom),
            OperationKind::PackedAttentionPrefill => serde_json::from_value(v).map(Op::Packed),
        };
        op.map_err(De::Error::custom)
    }
}

impl<'a> Op<'a> {
    /// The operation payload of `f`, operands by name.
    pub fn of(f: &'a Family) -> Self {
        let pname = |i: usize| Cow::Borrowed(f.params[i].name.as_str());
        let scalar = |s: ScalarRef| match s {
            ScalarRef::Constant(v) => Scalar::Constant(v),
            ScalarRef::Param(i) => Scalar::Param(pname(i)),
        };
        let d = |e: Extent| match e {
            Extent::Symbol(i) => Dim::Sym(Cow::Borrowed(f.symbols[i].name.as_str())),
            e => Dim::Int(e.as_i64()),
        };
        let kind = f.operation.kind();
        match &f.operation {
            Operation::ElementwiseBinary { op, lhs, rhs, out } => Op::Binary(BinaryRec {
                kind,
                lhs: pname(*lhs),
                op: *op,
                out: pname(*out),
                rhs: pname(*rhs),
            }),
            Operation::Matmul {
                m,
                k,
                n,
                a,
                b,
                c,
                accumulate,
            } => Op::Matmul(MatmulRec {
                a: pname(*a),
                accumulate: *accumulate,
                b: pname(*b),
                c: pname(*c),
                k: d(*k),
                kind,
                m: d(*m),
                n: d(*n),
            }),
            Operation::ElementwiseUnary { op, input, out } => Op::Unary(UnaryRec {
                input: pname(*input),
                kind,
                op: *op,
                out: pname(*out),
            }),
            Operation::Reduce {
                op,
                input,
                out,
                axes,
                keepdim,
            } => Op::Reduce(ReduceRec {
                axes: axes.clone(),
                input: pname(*input),
                keepdim: *keepdim,
                kind,
                op: *op,
                out: pname(*out),
            }),
            Operation::Softmax { input, out, axis } => Op::Softmax(SoftmaxRec {
                axis: *axis,
                input: pname(*input),
                kind,
                out: pname(*out),
            }),
            Operation::Norm {
                op,
                input,
                weight,
                bias,
                out,
                axis,
                eps,
            } => Op::Norm(NormRec {
                axis: *axis,
                bias: bias.map(pname),
                eps: scalar(*eps),
                input: pname(*input),
                kind,
                op: *op,
                out: pname(*out),
                weight: pname(*weight),
            }),
            Operation::PagedAttentionDecode {
                query,
                layout,
                key_cache,
                value_cache,
                block_table,
                context_lens,
                out,
                scale,
            } => Op::Paged(PagedRec {
                block_table: pname(*block_table),
                context_lens: pname(*context_lens),
                key_cache: pname(*key_cache),
                kind,
                layout: *layout,
                out: pname(*out),
                query: pname(*query),
                scale: scalar(*scale),
                value_cache: pname(*value_cache),
            }),
            Operation::Custom { semantics } => Op::Custom(CustomRec {
                kind,
                semantics: Cow::Borrowed(semantics),
            }),
            Operation::PackedAttentionPrefill {
                query,
                key,
                value,
                cu_seqlens_q,
                cu_seqlens_k,
                out,
                max_seqlen_q,
                max_seqlen_k,
                causal,
                scale,
            } => Op::Packed(PackedRec {
                causal: *causal,
                cu_seqlens_k: pname(*cu_seqlens_k),
                cu_seqlens_q: pname(*cu_seqlens_q),
                key: pname(*key),
                kind,
                max_seqlen_k: max_seqlen_k.map(pname),
                max_seqlen_q: max_seqlen_q.map(pname),
                out: pname(*out),
                query: pname(*query),
                scale: scalar(*scale),
                value: pname(*value),
            }),
        }
    }
}

impl Op<'_> {
    pub fn kind(&self) -> OperationKind {
        match self {
            Op::Binary(r) => r.kind,
            Op::Matmul(r) => r.kind,
            Op::Unary(r) => r.kind,
            Op::Reduce(r) => r.kind,
            Op::Softmax(r) => r.kind,
            Op::Norm(r) => r.kind,
            Op::Paged(r) => r.kind,
            Op::Custom(r) => r.kind,
            Op::Packed(r) => r.kind,
        }
    }

    /// The payload's fields, each as the manifest would spell its value,
    /// in key order: what `kfam diff` compares field by field.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        let s = |x: &Str<'_>| format!("`{x}`");
        let d = |x: &Dim<'_>| match x {
            Dim::Int(i) => i.to_string(),
            Dim::Sym(n) => format!("`{n}`"),
        };
        let sc = |x: &Scalar<'_>| match x {
            Scalar::Constant(c) => c.to_string(),
            Scalar::Param(n) => format!("`{n}`"),
        };
        match self {
            Op::Binary(r) => vec![
                ("lhs", s(&r.lhs)),
                ("op", format!("`{}`", r.op)),
                ("out", s(&r.out)),
                ("rhs", s(&r.rhs)),
            ],
            Op::Matmul(r) => vec![
                ("a", s(&r.a)),
                ("accumulate", r.accumulate.to_string()),
                ("b", s(&r.b)),
                ("c", s(&r.c)),
                ("k", d(&r.k)),
                ("m", d(&r.m)),
                ("n", d(&r.n)),
            ],
            Op::Unary(r) => vec![
                ("input", s(&r.input)),
                ("op", format!("`{}`", r.op)),
                ("out", s(&r.out)),
            ],
            Op::Reduce(r) => vec![
                ("axes", format!("{:?}", r.axes)),
                ("input", s(&r.input)),
                ("keepdim", r.keepdim.to_string()),
                ("op", format!("`{}`", r.op)),
                ("out", s(&r.out)),
            ],
            Op::Softmax(r) => vec![
                ("axis", r.axis.to_string()),
                ("input", s(&r.input)),
                ("out", s(&r.out)),
            ],
            Op::Norm(r) => vec![
                ("axis", r.axis.to_string()),
                ("bias", r.bias.as_ref().map_or("none".to_owned(), s)),
                ("eps", sc(&r.eps)),
                ("input", s(&r.input)),
                ("op", format!("`{}`", r.op)),
                ("out", s(&r.out)),
                ("weight", s(&r.weight)),
            ],
            Op::Paged(r) => vec![
                ("block_table", s(&r.block_table)),
                ("context_lens", s(&r.context_lens)),
                ("key_cache", s(&r.key_cache)),
                ("layout", format!("`{}`", r.layout)),
                ("out", s(&r.out)),
                ("query", s(&r.query)),
                ("scale", sc(&r.scale)),
                ("value_cache", s(&r.value_cache)),
            ],
            Op::Custom(r) => vec![("semantics", r.semantics.to_string())],
            Op::Packed(r) => vec![
                ("causal", r.causal.to_string()),
                ("cu_seqlens_k", s(&r.cu_seqlens_k)),
                ("cu_seqlens_q", s(&r.cu_seqlens_q)),
                ("key", s(&r.key)),
                (
                    "max_seqlen_k",
                    r.max_seqlen_k.as_ref().map_or("none".to_owned(), s),
                ),
                (
                    "max_seqlen_q",
                    r.max_seqlen_q.as_ref().map_or("none".to_owned(), s),
                ),
                ("out", s(&r.out)),
                ("query", s(&r.query)),
                ("scale", sc(&r.scale)),
                ("value", s(&r.value)),
            ],
        }
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
        let scalar = |s: &Scalar<'_>| -> Result<ScalarRef, String> {
            Ok(match s {
                Scalar::Constant(c) => ScalarRef::Constant(*c),
                Scalar::Param(n) => ScalarRef::Param(index(n)?),
            })
        };
        let operation = match &self.operation {
            Op::Binary(r) => Operation::ElementwiseBinary {
                op: r.op,
                lhs: index(&r.lhs)?,
                rhs: index(&r.rhs)?,
                out: index(&r.out)?,
            },
            Op::Matmul(r) => Operation::Matmul {
                m: extent(&r.m, None),
                k: extent(&r.k, None),
                n: extent(&r.n, None),
                a: index(&r.a)?,
                b: index(&r.b)?,
                c: index(&r.c)?,
                accumulate: r.accumulate,
            },
            Op::Unary(r) => Operation::ElementwiseUnary {
                op: r.op,
                input: index(&r.input)?,
                out: index(&r.out)?,
            },
            Op::Reduce(r) => Operation::Reduce {
                op: r.op,
                input: index(&r.input)?,
                out: index(&r.out)?,
                axes: r.axes.clone(),
                keepdim: r.keepdim,
            },
            Op::Softmax(r) => Operation::Softmax {
                input: index(&r.input)?,
                out: index(&r.out)?,
                axis: r.axis,
            },
            Op::Norm(r) => Operation::Norm {
                op: r.op,
                input: index(&r.input)?,
                weight: index(&r.weight)?,
                bias: r.bias.as_deref().map(index).transpose()?,
                out: index(&r.out)?,
                axis: r.axis,
                eps: scalar(&r.eps)?,
            },
            Op::Paged(r) => Operation::PagedAttentionDecode {
                query: index(&r.query)?,
                layout: r.layout,
                key_cache: index(&r.key_cache)?,
                value_cache: index(&r.value_cache)?,
                block_table: index(&r.block_table)?,
                context_lens: index(&r.context_lens)?,
                out: index(&r.out)?,
                scale: scalar(&r.scale)?,
            },
            Op::Custom(r) => Operation::Custom {
                semantics: r.semantics.to_string(),
            },
            Op::Packed(r) => Operation::PackedAttentionPrefill {
                query: index(&r.query)?,
                key: index(&r.key)?,
                value: index(&r.value)?,
                cu_seqlens_q: index(&r.cu_seqlens_q)?,
                cu_seqlens_k: index(&r.cu_seqlens_k)?,
                out: index(&r.out)?,
                max_seqlen_q: r.max_seqlen_q.as_deref().map(index).transpose()?,
                max_seqlen_k: r.max_seqlen_k.as_deref().map(index).transpose()?,
                causal: r.causal,
                scale: scalar(&r.scale)?,
            },
        };
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
