//! The lowered model: everything a consumer needs, derived once.
//!
//! Emitters read only this. Names are resolved to indices, the lowered
//! (assembly) signature and pool indices are computed, and each family carries
//! its identity digest. Built by `check` from a manifest without errors.

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::vocab::{
    BindingKind, Contract, DType, Direction, Layout, Member, ParamKind, Status, Vocabulary,
};

mod extent;
mod operation;
mod targets;
pub use extent::Extent;
pub use operation::{Arg, Operation, ScalarRef};
pub use targets::{Codec, Platform, Target, TargetRef, Targets, DEFAULT_LAYOUTS};

/// Identity format version, part of every canonical form (see `docs/identity.md`).
pub const IDENTITY_FORMAT: u32 = 1;

#[derive(Clone, Debug, Serialize)]
pub struct Ir {
    /// The catalog's identity (`[catalog]` of `abi.toml`, or its defaults).
    pub catalog: Catalog,
    pub abi: Abi,
    /// Where artifacts run (`[[platforms]]`, ... of `abi.toml`, or kfam's
    /// defaults).
    pub targets: Targets,
    /// Sorted by name.
    pub families: Vec<Family>,
    /// Tombstones of `retired.toml`, sorted by name: consumers refuse these
    /// names and their artifacts as retired rather than unknown.
    pub retired: Vec<Retired>,
}

impl Ir {
    /// The members of `vocab` in code order: the catalog's own for a
    /// declared vocabulary, kfam's for the others. (`Status` carries the
    /// values of `abi.toml`: [`Abi::status`].)
    pub fn members(&self, vocab: &Vocabulary) -> Vec<Member<'_>> {
        let mut list = self
            .targets
            .members(vocab)
            .unwrap_or_else(|| vocab.members.to_vec());
        list.sort_by_key(|m| m.code);
        list
    }
}

/// A family that was approved and then withdrawn (`retired.toml`).
#[derive(Clone, Debug, Serialize)]
pub struct Retired {
    pub name: String,
    /// The last approved revision and its identity digest.
    pub revision: u32,
    pub identity: String,
    pub reason: String,
    /// Every artifact digest the lock recorded for any of its revisions,
    /// sorted.
    pub receipts: Vec<String>,
    /// The approval the last revision entered the lock with (0 when the
    /// lock does not record it).
    pub approval: u32,
}

/// The version of the generator, the default version of a catalog.
pub const GENERATOR_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A catalog's identity, every default applied: the names its outputs
/// carry and where each output goes (docs/manifest.md, "The catalog's
/// identity").
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Catalog {
    pub name: String,
    /// The release version (PEP 440, normalized, no local label).
    pub version: String,
    /// An SPDX license expression.
    pub license: String,
    pub python_distribution: String,
    pub python_package: String,
    pub torch_namespace: String,
    /// The prefix of C names: types and functions `c_prefix_*`, macros in
    /// capitals, the header `c_prefix/c_prefix.h` (one word, no `_`).
    pub c_prefix: String,
    pub outputs: Outputs,
}

/// Each output's directory, relative to the output directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outputs {
    pub c: String,
    pub rust: String,
    pub python: String,
    pub schema: String,
    pub docs: String,
}

impl Outputs {
    /// The directory of the output the emitter `name` (`emit::EMITTERS`)
    /// writes, and the key that declares it.
    pub fn of(&self, name: &str) -> Option<&str> {
        Some(match name {
            "c" => &self.c,
            "rust" => &self.rust,
            "python" => &self.python,
            "schema" => &self.schema,
            "docs" => &self.docs,
            _ => return None,
        })
    }
}

impl Outputs {
    /// Every output's location.
    pub fn locations(&self) -> [&str; 5] {
        [&self.c, &self.rust, &self.python, &self.schema, &self.docs]
    }

    /// The directory of `location` as a prefix (`native/` for
    /// `native/include`, empty for `include`): an emitter's files beside
    /// its default directory go there (the C package files, `lib/`).
    pub fn beside(location: &str) -> &str {
        location
            .rsplit_once('/')
            .map_or("", |(parent, _)| &location[..parent.len() + 1])
    }
}

impl Catalog {
    /// The directories `kfam generate` owns below `--out`: every output's
    /// location, and those of the files written beside the C output: the
    /// package files (`lib/cmake/NAME`, `lib/pkgconfig`) and the library's
    /// C unit (`src`). Files no longer produced are looked for there only
    /// (and only files that carry kfam's marker are ever removed).
    pub fn output_roots(&self) -> Vec<String> {
        let mut roots: Vec<String> = self.outputs.locations().map(str::to_owned).to_vec();
        let beside = Outputs::beside(&self.outputs.c);
        roots.push(format!("{beside}lib/cmake/{}", self.name));
        roots.push(format!("{beside}lib/pkgconfig"));
        roots.push(format!("{beside}src"));
        roots
    }
}

impl Default for Outputs {
    /// The layout of `generated/`.
    fn default() -> Self {
        Outputs {
            c: "include".to_owned(),
            rust: "rust".to_owned(),
            python: "python".to_owned(),
            schema: "schema".to_owned(),
            docs: "docs".to_owned(),
        }
    }
}

impl Catalog {
    /// The identity of a catalog named `name` that declares nothing else:
    /// every name is `name`, the version the generator's.
    pub fn named(name: &str, license: &str) -> Self {
        Catalog {
            name: name.to_owned(),
            version: GENERATOR_VERSION.to_owned(),
            license: license.to_owned(),
            python_distribution: name.to_owned(),
            python_package: name.to_owned(),
            torch_namespace: name.to_owned(),
            c_prefix: name.to_owned(),
            outputs: Outputs::default(),
        }
    }
}

impl Default for Catalog {
    /// The identity of an `abi.toml` without `[catalog]`: kfam's own.
    fn default() -> Self {
        Catalog::named(
            crate::limits::DEFAULT_CATALOG_NAME,
            crate::limits::DEFAULT_LICENSE,
        )
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Abi {
    pub revision: String,
    pub major: u16,
    pub minor: u16,
    pub max_tensor_args: u32,
    pub max_scalar_args: u32,
    pub max_rank: u32,
    /// Most callables one kernel context holds prepared.
    pub max_prepared: u32,
    /// Every status, in vocabulary order, with its declared value.
    pub status: Vec<(Status, i32)>,
}

impl Abi {
    pub fn status(&self, s: Status) -> i32 {
        self.status
            .iter()
            .find(|(k, _)| *k == s)
            .map_or(0, |(_, v)| *v)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Family {
    pub name: String,
    pub revision: u32,
    pub summary: String,
    pub contract: Contract,
    pub torch: bool,
    pub operation: Operation,
    pub params: Vec<Param>,
    /// Resolved return aliases: indices into `params`, repeats kept.
    pub returns: Vec<usize>,
    pub profiles: Vec<Profile>,
    pub receipts: Vec<Receipt>,
    pub tensor_count: usize,
    pub scalar_count: usize,
    /// SHA-256 (lowercase hex) of [`Family::canonical`].
    pub identity: String,
    /// [`Family::canonical_identity`], computed once when the family is
    /// lowered: the digest, the lock and `kfam diff` all read it. Not
    /// serialized (the digest stands for it in the outputs).
    #[serde(skip)]
    pub canonical: String,
    /// The torch dispatcher schema (see [`Family::torch_schema_string`])
    /// when the family requests a torch binding (`torch = true`).
    pub torch_schema: Option<String>,
    /// Named symbolic dimensions, in order of first use (signature order,
    /// then axis order); [`Extent::Symbol`] indexes this.
    pub symbols: Vec<Symbol>,
    /// The declaring file, as the user named it. Not serialized: it depends
    /// on how the generator was invoked, and outputs must not.
    #[serde(skip)]
    pub source: String,
    /// The approval this revision entered `approved.lock` with, set by the
    /// review gate (0 until it runs): the revisions approved by one
    /// generation share a number, later generations' numbers are larger.
    /// A program compiled against the header of approval N pairs with a
    /// library whose families of approval up to N are the header's
    /// (docs/compatibility.md).
    pub approval: u32,
}

impl Family {
    /// The launch slot of the parameter at `param` when every profile binds
    /// it to the same one: the family-wide slot constant of the outputs.
    pub fn common_slot(&self, param: usize) -> Option<u32> {
        let mut slots = self.profiles.iter().map(|p| p.slot_of(param));
        let first = slots.next()??;
        slots.all(|s| s == Some(first)).then_some(first)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Param {
    pub name: String,
    /// Position in the complete signature.
    pub index: usize,
    pub kind: ParamKind,
    pub direction: Direction,
    pub dtype: DType,
    /// Logical shape (empty for scalars); `-1` is dynamic, and so is a
    /// symbol here (the anonymous view schema-3 consumers read).
    pub shape: Vec<i64>,
    /// The same shape with symbols kept (not serialized: the IR's JSON
    /// form carries the symbols in `Family::symbols`).
    #[serde(skip)]
    pub dims: Vec<Extent>,
    pub layout: Layout,
    /// Assembly shape: NZ blocked, fp4 packed, otherwise the logical shape.
    pub lowered_shape: Vec<i64>,
    /// Index among tensors (for tensors) or among scalars (for scalars).
    pub pool_index: usize,
    pub doc: Option<String>,
    /// The values of the parameter record's declared attributes
    /// (`alignment`), serialized as fields of the parameter.
    #[serde(flatten)]
    pub attrs: Attrs,
}

/// A record's declared attributes (the record declaration's fields with an
/// `Attr`), each by its field's name, in the declaration's order, every
/// one present: its default where the manifest left it out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attrs(pub Vec<(&'static str, i64)>);

impl Attrs {
    /// The value of the attribute `name`, if the record declares one.
    pub fn get(&self, name: &str) -> Option<i64> {
        self.0.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }
}

impl Serialize for Attrs {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(name, value)| (name, value)))
    }
}

/// A named symbolic dimension of a family and its call-time constraints
/// (normalized: `min = 0` and `multiple_of = 1` are "no constraint").
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Symbol {
    pub name: String,
    /// Smallest accepted extent (0 when unconstrained).
    pub min: u32,
    /// Largest accepted extent, `None` when unbounded.
    pub max: Option<u32>,
    /// Accepted extents are multiples of this (1 when unconstrained).
    pub multiple_of: u32,
    /// Every extent that is this symbol, in signature order: what a call
    /// checks for equality.
    pub uses: Vec<DimUse>,
}

/// One extent that is a named symbol: axis `axis` of parameter `param`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DimUse {
    /// Index into the family's `params`.
    pub param: usize,
    /// The parameter's index among the family's tensors (its argument).
    pub tensor: usize,
    pub axis: usize,
}

impl Symbol {
    pub fn is_constrained(&self) -> bool {
        self.min > 0 || self.max.is_some() || self.multiple_of > 1
    }

    /// Whether `extent` satisfies the constraints.
    pub fn admits(&self, extent: i64) -> bool {
        extent >= i64::from(self.min)
            && self.max.is_none_or(|m| extent <= i64::from(m))
            && extent % i64::from(self.multiple_of) == 0
    }
}

impl Family {
    /// The name of the symbol an extent refers to, if any.
    pub fn symbol_name(&self, e: Extent) -> Option<&str> {
        match e {
            Extent::Symbol(i) => Some(&self.symbols[i].name),
            _ => None,
        }
    }

    /// `128`, `-1` or `"batch"`: an extent as the manifest spells it.
    pub fn extent_text(&self, e: Extent) -> String {
        match e {
            Extent::Symbol(i) => format!("\"{}\"", self.symbols[i].name),
            e => e.as_i64().to_string(),
        }
    }
}

impl Param {
    pub fn is_tensor(&self) -> bool {
        self.kind == ParamKind::Tensor
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Profile {
    pub name: String,
    pub platform: TargetRef,
    pub backend: TargetRef,
    pub runtime: TargetRef,
    pub execution_mode: TargetRef,
    /// Sorted by slot.
    pub bindings: Vec<Binding>,
}

impl Profile {
    /// The launch slot of the parameter at `param` (an index into the
    /// family's params).
    pub fn slot_of(&self, param: usize) -> Option<u32> {
        self.bindings
            .iter()
            .find(|b| b.param == param)
            .map(|b| b.slot)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Binding {
    pub param: usize,
    pub slot: u32,
    pub kind: BindingKind,
}

#[derive(Clone, Debug, Serialize)]
pub struct Receipt {
    /// Index into the family's `profiles`.
    pub profile: usize,
    pub codec: String,
    pub artifact: String,
    pub sha256: String,
    pub evidence: Evidence,
}

#[derive(Clone, Debug, Serialize)]
pub struct Evidence {
    pub date: String,
    pub hardware: String,
    pub note: Option<String>,
    /// Structured evidence (docs/qualify.md): the tool that produced it;
    /// `None` for free text, whose other structured fields are empty.
    pub tool: Option<String>,
    pub versions: Vec<String>,
    pub cases: u32,
    pub seed: i64,
    pub shapes: Vec<String>,
    pub errors: Vec<OutputError>,
    /// Runs per case (0: not recorded); with 2 or more, whether every run
    /// wrote the same bits, and the largest difference between runs.
    pub runs: u32,
    pub deterministic: bool,
    pub run_max_abs: f64,
}

/// The worst error a qualification run saw on one written tensor.
#[derive(Clone, Debug, Serialize)]
pub struct OutputError {
    /// Signature index of the tensor.
    pub output: usize,
    pub max_abs: f64,
    pub max_rel: f64,
}

/// NZ fractal row width in elements: 32 bytes of the element type.
pub fn nz_c0(dtype: DType) -> i64 {
    (256 / dtype.bits()) as i64
}

/// `[.., R, C]` -> `[prod(leading), C/c0, R/16, 16, c0]`. `None` when the
/// shape cannot be blocked (rank < 2, dynamic or indivisible R/C).
pub fn nz_lowered(shape: &[i64], dtype: DType) -> Option<Vec<i64>> {
    let (&c, rest) = shape.split_last()?;
    let (&r, leading) = rest.split_last()?;
    let c0 = nz_c0(dtype);
    if r <= 0 || c <= 0 || r % 16 != 0 || c % c0 != 0 {
        return None;
    }
    let batch = if leading.iter().any(|&d| d < 0) {
        -1
    } else {
        leading
            .iter()
            .try_fold(1i64, |acc, &d| acc.checked_mul(d))?
    };
    Some(vec![batch, c / c0, r / 16, 16, c0])
}

/// Packed fp4 halves the last (static, even) dimension.
pub fn fp4_lowered(shape: &[i64]) -> Option<Vec<i64>> {
    let (&last, _) = shape.split_last()?;
    if last <= 0 || last % 2 != 0 {
        return None;
    }
    let mut out = shape.to_vec();
    *out.last_mut()? = last / 2;
    Some(out)
}

/// Bytes of a tensor with all-static `shape`, `None` when they do not fit in
/// u64; dynamic dims count as 1 (the static part must fit on its own).
/// Counted exactly in 128 bits, overflow-checked: an element or bit count
/// past u64 whose byte count fits (packed fp4, int8) is not an overflow.
pub fn static_byte_size(shape: &[i64], dtype: DType) -> Option<u64> {
    let elems = shape.iter().try_fold(1u128, |acc, &d| {
        acc.checked_mul(if d < 0 { 1 } else { d as u128 })
    })?;
    let bits = elems.checked_mul(u128::from(dtype.bits()))?;
    u64::try_from(bits.div_ceil(8)).ok()
}

impl Family {
    /// The family's torch dispatcher schema ([`torch_schema`]).
    pub fn torch_schema_string(&self, namespace: &str) -> Option<String> {
        torch_schema(namespace, &self.name, &self.params, &self.returns)
    }
}

/// `NAMESPACE::NAME(Tensor(a0) x, Tensor(a2!) out, float alpha) ->
/// Tensor(a2!)`, `namespace` being the catalog's torch namespace:
/// `Tensor(aN!)` for written tensors and `Tensor(aN)` for read ones (N is
/// the signature index), `bool`, `float` for float dtypes and `SymInt` for
/// integer dtypes; the return is the aliased tensors (a tuple when several,
/// `()` when none). `None` for uint64 scalars, which torch cannot
/// represent. A free function so the checker can measure the schema of a
/// family it has not lowered yet.
pub fn torch_schema(
    namespace: &str,
    name: &str,
    params: &[Param],
    returns: &[usize],
) -> Option<String> {
    let tensor = |p: &Param| {
        let bang = if p.direction == Direction::In {
            ""
        } else {
            "!"
        };
        format!("Tensor(a{}{bang})", p.index)
    };
    let mut args = Vec::with_capacity(params.len());
    for p in params {
        let ty = match p.kind {
            ParamKind::Tensor => tensor(p),
            ParamKind::Scalar => p.dtype.torch_scalar()?.to_owned(),
        };
        args.push(format!("{ty} {}", p.name));
    }
    let rets: Vec<String> = returns.iter().map(|&i| tensor(&params[i])).collect();
    let ret = match rets.len() {
        1 => rets[0].clone(),
        _ => format!("({})", rets.join(", ")),
    };
    Some(format!("{namespace}::{name}({}) -> {ret}", args.join(", ")))
}

/// The digest of a whole catalog: its identity (the names its outputs
/// carry), the ABI it targets with its status codes and limits (values a
/// C program compiles in), and the name, revision and identity of every
/// approved and retired family. Two generations from manifests that no
/// consumer can tell apart have the same digest; the Python package's
/// version carries it as a local label.
///
/// Each name of the identity is digested when it differs from kfam's
/// default identity (`kfam`, Apache-2.0), so a manifest without
/// `[catalog]`, or with one that declares the defaults, keeps the digest
/// it had before the table existed. The version is not digested (the
/// package version states it beside the digest), nor are the output
/// locations (where files are written, not what they say).
pub fn catalog_digest(ir: &Ir) -> String {
    let a = &ir.abi;
    let mut text = format!(
        "kfam-catalog-2\nabi {} {}.{}\nlimits {} {} {} {}\n",
        a.revision,
        a.major,
        a.minor,
        a.max_tensor_args,
        a.max_scalar_args,
        a.max_rank,
        a.max_prepared
    );
    for (status, code) in &a.status {
        text.push_str(&format!("status {status} {code}\n"));
    }
    let (c, d) = (&ir.catalog, Catalog::default());
    for (key, value, default) in [
        ("name", &c.name, &d.name),
        ("license", &c.license, &d.license),
        (
            "python_distribution",
            &c.python_distribution,
            &d.python_distribution,
        ),
        ("python_package", &c.python_package, &d.python_package),
        ("torch_namespace", &c.torch_namespace, &d.torch_namespace),
        ("c_prefix", &c.c_prefix, &d.c_prefix),
    ] {
        if value != default {
            text.push_str(&format!("catalog {key} {value}\n"));
        }
    }
    // Declared targets are digested when they differ from kfam's defaults,
    // as the identity's names are.
    if ir.targets != Targets::default() {
        let json = serde_json::to_string(&ir.targets).unwrap_or_default();
        text.push_str(&format!("targets {json}\n"));
    }
    for f in &ir.families {
        text.push_str(&format!(
            "family {} {} {}\n",
            f.name, f.revision, f.identity
        ));
    }
    for r in &ir.retired {
        text.push_str(&format!(
            "retired {} {} {}\n",
            r.name, r.revision, r.identity
        ));
    }
    sha256_hex(text.as_bytes())
}

/// The digest of a catalog's approved families (their names, revisions and
/// identities), which a C program compiles in (`PREFIX_CATALOG_FAMILIES`):
/// the library pairs with it when its families of approval up to the
/// program's are the same (docs/compatibility.md). kfam-runtime's
/// `pairing::families_digest` computes it alike.
pub fn families_digest(families: &[Family]) -> String {
    let mut text = String::from("kfam-families-1\n");
    for f in families {
        text.push_str(&format!("{} {} {}\n", f.name, f.revision, f.identity));
    }
    sha256_hex(text.as_bytes())
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lowercase hex of `bytes` (a digest).
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 * bytes.len());
    for &b in bytes {
        s.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        s.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every object's keys in byte order, no whitespace, over varied
    /// synthetic families (matmul and elementwise, NZ, scalars, 1-3
    /// profiles): what docs/identity.md promises, whatever serde_json's map
    /// type. The digests themselves are pinned in tests/identity.rs.
    #[test]
    fn canonical_form_is_sorted_and_compact() {
        fn sorted(v: &serde_json::Value) -> bool {
            match v {
                serde_json::Value::Object(m) => {
                    m.keys().zip(m.keys().skip(1)).all(|(a, b)| a < b) && m.values().all(sorted)
                }
                serde_json::Value::Array(items) => items.iter().all(sorted),
                _ => true,
            }
        }
        let (abi, families) = crate::synth::manifest(60, 7).sources("m");
        let (ir, _) = crate::check_sources(abi, families);
        let ir = ir.expect("synthetic manifests check cleanly");
        let mut kinds = std::collections::BTreeSet::new();
        for f in &ir.families {
            let text = f.canonical_identity();
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert!(sorted(&value), "{text}");
            assert_eq!(serde_json::to_string(&value).unwrap(), text);
            kinds.insert(f.operation.kind().as_str());
        }
        assert_eq!(kinds.len(), 2, "both operation kinds are covered");
        // The shipped manifest covers the other kinds' payloads (scalar
        // operands as constants and as parameters included).
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../manifest");
        let (ir, _) = crate::check_dir(&dir);
        for f in &ir.expect("the shipped manifest checks cleanly").families {
            let text = f.canonical_identity();
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert!(sorted(&value), "{text}");
            assert_eq!(serde_json::to_string(&value).unwrap(), text);
            kinds.insert(f.operation.kind().as_str());
        }
        assert!(kinds.len() >= 6, "{kinds:?}");
    }

    #[test]
    fn nz_blocking() {
        assert_eq!(
            nz_lowered(&[64, 128], DType::Bf16),
            Some(vec![1, 8, 4, 16, 16])
        );
        assert_eq!(
            nz_lowered(&[-1, 32, 64], DType::Int8),
            Some(vec![-1, 2, 2, 16, 32])
        );
        assert_eq!(
            nz_lowered(&[2, 3, 32, 32], DType::Fp16),
            Some(vec![6, 2, 2, 16, 16])
        );
        assert_eq!(nz_lowered(&[8, 128], DType::Bf16), None);
        assert_eq!(nz_lowered(&[-1, 128], DType::Bf16), None);
        assert_eq!(nz_lowered(&[128], DType::Bf16), None);
    }

    #[test]
    fn fp4_packing() {
        assert_eq!(fp4_lowered(&[-1, 64]), Some(vec![-1, 32]));
        assert_eq!(fp4_lowered(&[3]), None);
        assert_eq!(fp4_lowered(&[-1]), None);
    }

    #[test]
    fn byte_sizes() {
        assert_eq!(static_byte_size(&[1024], DType::Bf16), Some(2048));
        assert_eq!(static_byte_size(&[3], DType::Fp4), Some(2));
        assert_eq!(
            static_byte_size(&[u32::MAX as i64, u32::MAX as i64, 4], DType::Int64),
            None
        );
    }
}
