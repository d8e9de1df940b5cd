//! Python: a pip-installable, standard-library-only package under `python/`.
//!
//! - `python/pyproject.toml`: setuptools build of the package `kfam`, no dependencies.
//! - `python/.gitignore`: what an in-tree `pip install` leaves behind.
//! - `python/kfam/__init__.py`: the public API (lookups and re-exports).
//! - `python/kfam/_vocab.py`: one `IntEnum` per vocabulary, valued by its stable
//!   code; `Status` valued as `abi.toml` declares.
//! - `python/kfam/_records.py`: the frozen dataclasses of the table rows.
//! - `python/kfam/_tables.py`: the ABI constants and `FAMILIES`, data only, so a
//!   manifest change shows up in this one file.
//! - `python/kfam/_runtime.py`: lookups, capability, admission of
//!   `compiled_meta.json` and call validation, the same decisions as
//!   `kfam-runtime`. The logic is the static source `python_runtime.py` next to
//!   this file; the generator splices in the per-dtype limits and the outcome
//!   to status maps ([`runtime_data`]).
//! - `python/kfam/torch.py`: PyTorch schemas, fake kernels and registration
//!   ([`super::python_torch`]); the only module that imports `torch`.
//! - `python/kfam/py.typed`: PEP 561 marker.
//!
//! Annotations are inline (no `.pyi` beside the modules), so `mypy --strict`
//! checks the code that actually runs. Free text reaches Python only through
//! [`py_str_literal`]; private generated names start with `_kfam`/`_Kfam`, which
//! a declared name (lowercase first letter) can never do.

use std::fmt::Write as _;

use super::push_spaces;
use super::{marker_line, needs_no_escape, GeneratedFile};
use crate::check::is_forbidden_char;
use crate::ir::{self, Family, Ir, Operation, Param, Profile, Receipt, ScalarRef};
use crate::names;
use crate::vocab::{
    Admission, Backend, BinaryOp, BindingKind, CallRule, Capability, Catalog, Contract, DType,
    Direction, ExecutionMode, Layout, Member, NormKind, OperationKind, ParamKind, Platform,
    ReduceOp, Runtime, ScalarDomain, Status, UnaryOp, CATALOGS,
};

/// Where the package sits below the output directory.
const ROOT: &str = "python";
/// Version of the generated distribution: the generator's own version.
const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The license of the generated package: the project's.
const LICENSE: &str = env!("CARGO_PKG_LICENSE");
/// Lowest Python the generated code supports (`slots=True` dataclasses, `X | Y`).
const REQUIRES_PYTHON: &str = ">=3.10";
/// Lines longer than this are broken, one argument or item per line.
const WIDTH: usize = 99;

pub fn emit(ir: &Ir) -> Vec<GeneratedFile> {
    vec![
        GeneratedFile::new(format!("{ROOT}/.gitignore"), gitignore()),
        GeneratedFile::new(format!("{ROOT}/pyproject.toml"), pyproject(ir)),
        GeneratedFile::new(format!("{ROOT}/kfam/__init__.py"), init_py(ir)),
        GeneratedFile::new(format!("{ROOT}/kfam/_records.py"), records_py()),
        GeneratedFile::new(format!("{ROOT}/kfam/_runtime.py"), runtime_py()),
        GeneratedFile::new(format!("{ROOT}/kfam/_tables.py"), tables_py(ir)),
        GeneratedFile::new(format!("{ROOT}/kfam/_vocab.py"), vocab_py(ir)),
        GeneratedFile::new(
            format!("{ROOT}/kfam/torch.py"),
            super::python_torch::torch_py(),
        ),
        GeneratedFile::new(
            format!("{ROOT}/kfam/context.py"),
            format!("{}{}", header(), include_str!("python_context.py")),
        ),
        GeneratedFile::new(format!("{ROOT}/kfam/py.typed"), header()),
    ]
}

/// A Python `str` literal that evaluates to exactly `text`, whatever it holds.
///
/// Double-quoted, pure printable ASCII and on one line: `"` and `\` are
/// escaped, `\n`, `\r` and `\t` use their short escapes, every other control
/// or non-ASCII character becomes `\xNN`, `\uNNNN` or `\UNNNNNNNN` (fixed
/// widths, so a following digit never extends an escape). Triple quotes,
/// `#`, bidirectional overrides and NUL are therefore inert.
pub fn py_str_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    if needs_no_escape(text) {
        out.push_str(text);
        out.push('"');
        return out;
    }
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(c),
            c if u32::from(c) <= 0xff => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if u32::from(c) <= 0xffff => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\U{:08x}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

/// The first line of every file, as a `#` comment.
pub(super) fn header() -> String {
    format!("# {}\n", marker_line())
}

// ---------------------------------------------------------------- pyproject

/// What an in-tree `pip install generated/python` leaves behind.
fn gitignore() -> String {
    format!("{}/build/\n/*.egg-info/\n__pycache__/\n", header())
}

/// The package version: the generator's, with the catalog digest as a local
/// label (PEP 440), so an installed package names the manifest it came from.
fn version(ir: &Ir) -> String {
    format!("{VERSION}+catalog.{}", &ir::catalog_digest(ir)[..12])
}

fn pyproject(ir: &Ir) -> String {
    format!(
        r#"{header}
[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "kfam"
version = "{version}"
description = "Approved accelerator kernel families: typed tables generated by kfam from manifest/"
license = "{LICENSE}"
requires-python = "{REQUIRES_PYTHON}"
dependencies = []
classifiers = ["Typing :: Typed"]

[project.optional-dependencies]
torch = ["torch>={min_torch}"]

[tool.setuptools]
packages = ["kfam"]

[tool.setuptools.package-data]
kfam = ["py.typed"]
"#,
        header = header().trim_end(),
        version = version(ir),
        min_torch = super::python_torch::MIN_TORCH,
    )
}

// ---------------------------------------------------------------- __init__

/// Record classes every manifest gets (the operation classes come from
/// [`operation_classes`]).
const RECORDS: &[&str] = &[
    "Binding",
    "DimUse",
    "Evidence",
    "Family",
    "Param",
    "Profile",
    "Receipt",
    "Retired",
    "ScalarRef",
    "Symbol",
];
/// Constants of `_tables.py`.
const TABLES: &[&str] = &[
    "ABI_MAJOR",
    "ABI_MINOR",
    "ABI_REVISION",
    "FAMILIES",
    "IDENTITY_FORMAT",
    "MAX_RANK",
    "MAX_SCALAR_ARGS",
    "MAX_TENSOR_ARGS",
    "RETIRED",
];
/// Public names of `_runtime.py`: the lookups and the runtime decisions.
const RUNTIME: &[&str] = &[
    "AdmissionError",
    "Admitted",
    "CallError",
    "CapabilityError",
    "KfamError",
    "MAX_DOCUMENT_BYTES",
    "ScalarArg",
    "Supported",
    "TensorArg",
    "admit",
    "capability",
    "family",
    "find_artifact",
    "find_family",
    "find_retired",
    "find_retired_artifact",
    "validate_call",
];

/// The record classes, operation variants included.
fn record_classes() -> Vec<&'static str> {
    let mut v = RECORDS.to_vec();
    v.extend(operation_classes());
    v
}

/// Public names of the package, sorted (`__all__`).
fn public_names() -> Vec<&'static str> {
    let mut names = record_classes();
    names.push("Operation");
    names.extend(TABLES);
    names.extend(vocabularies_names());
    names.extend(RUNTIME);
    names.sort_unstable();
    names
}

fn import_list(module: &str, mut items: Vec<&str>) -> String {
    items.sort_unstable();
    let one_line = format!("from {module} import {}", items.join(", "));
    if one_line.len() <= WIDTH {
        return one_line;
    }
    let mut s = format!("from {module} import (\n");
    for i in items {
        let _ = writeln!(s, "    {i},");
    }
    s.push(')');
    s
}

fn init_py(ir: &Ir) -> String {
    let mut records = record_classes();
    records.push("Operation");
    let mut all = String::from("__all__ = [\n");
    for n in public_names() {
        let _ = writeln!(all, "    {},", py_str_literal(n));
    }
    all.push(']');
    format!(
        r#"{header}"""kfam: the approved accelerator kernel families, as typed Python records.

Generated from the reviewed manifest (``manifest/``) by the kfam generator; do not edit.

- ``FAMILIES``: every approved family, sorted by name.
- ``family(name)`` / ``find_family(name)``: lookup by family name.
- ``find_artifact(sha256)``: the ``(Family, Profile, Receipt)`` that approves an artifact digest.
- ``Family.identity``: the identity digest recorded in ``manifest/approved.lock``.
- ``ABI_REVISION``, ``ABI_MAJOR``, ``ABI_MINOR``, ``MAX_*`` and ``Status``: the native ABI.
- ``capability(...)``, ``admit(document, sha256)`` and ``validate_call(family, tensors, scalars)``:
  the decisions of the Rust runtime (``kfam-runtime``), refusals raised as ``KfamError``.
"""

from __future__ import annotations

from typing import Final

{records}
{runtime}
{tables}
{vocab}

__version__: Final[str] = {version}

{all}
"#,
        header = header(),
        records = import_list("._records", records),
        runtime = import_list("._runtime", RUNTIME.to_vec()),
        tables = import_list("._tables", TABLES.to_vec()),
        vocab = import_list("._vocab", vocabularies_names()),
        version = py_str_literal(&version(ir)),
    )
}

// ---------------------------------------------------------------- _records

/// The Python class of each operation kind (the IR variant's name).
fn operation_classes() -> Vec<&'static str> {
    OperationKind::ALL
        .iter()
        .map(|k| k.variant_name())
        .collect()
}

/// The dataclass of one operation kind. Exhaustive: a new kind does not
/// compile until it has a Python record.
fn operation_class(kind: OperationKind) -> String {
    let (doc, fields) = match kind {
        OperationKind::ElementwiseBinary => (
            "``out = op(lhs, rhs)`` element by element: equal shapes, no broadcast.",
            "    op: BinaryOp\n    lhs: int\n    rhs: int\n    out: int\n",
        ),
        OperationKind::Matmul => (
            "``c = a @ b`` (``c += a @ b`` when ``accumulate``) with ``a: [m, k]``, ``b: [k, n]``, ``c: [m, n]``.\n\n    Extents of -1 are dynamic.",
            "    m: int\n    k: int\n    n: int\n    a: int\n    b: int\n    c: int\n    accumulate: bool\n",
        ),
        OperationKind::ElementwiseUnary => (
            "``out = op(input)`` element by element: equal shapes; equal dtypes unless ``op`` is ``CAST``.",
            "    op: UnaryOp\n    input: int\n    out: int\n",
        ),
        OperationKind::Reduce => (
            "``out = op(input)`` over ``axes`` (sorted, distinct), dropped or kept as 1 (``keepdim``).",
            "    op: ReduceOp\n    input: int\n    out: int\n    axes: tuple[int, ...]\n    keepdim: bool\n",
        ),
        OperationKind::Softmax => (
            "``out = softmax(input)`` along ``axis``: equal dtypes and shapes.",
            "    input: int\n    out: int\n    axis: int\n",
        ),
        OperationKind::Norm => (
            "RMSNorm or LayerNorm of ``input`` along ``axis`` into ``out``.\n\n    ``weight`` (and ``bias``, LayerNorm only) have the extent of ``input`` along ``axis``.",
            "    op: NormKind\n    input: int\n    weight: int\n    bias: int | None\n    out: int\n    axis: int\n    eps: ScalarRef\n",
        ),
        OperationKind::PagedAttentionDecode => (
            "Decode attention over a paged KV cache.\n\n    ``query`` and ``out`` ``[B, H, D]``, caches ``[num_blocks, block_size, H_kv, D]``,\n    int32 ``block_table`` ``[B, max_blocks]`` and ``context_lens`` ``[B]``.",
            "    query: int\n    key_cache: int\n    value_cache: int\n    block_table: int\n    context_lens: int\n    out: int\n    scale: ScalarRef\n",
        ),
        OperationKind::Custom => (
            "A fused kernel described by its signature and ``semantics`` alone (not cross-checked).",
            "    semantics: str\n",
        ),
    };
    format!(
        r#"@dataclass(frozen=True, slots=True)
class {name}:
    """{doc}

    Operands are indices into ``Family.params``.
    """

{fields}
    @property
    def kind(self) -> OperationKind:
        return OperationKind.{member}
"#,
        name = kind.variant_name(),
        member = names::shouty(kind.as_str()),
    )
}

fn records_py() -> String {
    let classes = operation_classes();
    let ops: String = OperationKind::ALL
        .iter()
        .map(|&k| format!("\n\n{}", operation_class(k)))
        .collect();
    // Every fixed vocabulary appears in a record field (`Status` in none).
    let vocab: Vec<&str> = CATALOGS.iter().map(|c| c.name).collect();
    format!(
        r#"{header}"""Record types of the kfam tables: frozen dataclasses, shapes as tuples of int (-1 is dynamic)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias, Union

{vocab}


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of the complete (logical) signature."""

    name: str
    #: Position in the complete signature, scalars included.
    index: int
    kind: ParamKind
    direction: Direction
    dtype: DType
    #: Logical shape; ``()`` for scalars, -1 for a dynamic extent.
    shape: tuple[int, ...]
    layout: Layout
    #: Assembly shape: NZ blocked, FP4 packed, otherwise equal to ``shape``.
    lowered_shape: tuple[int, ...]
    #: Index among the tensors (for a tensor) or among the scalars (for a scalar).
    pool_index: int
    doc: str | None

    @property
    def is_tensor(self) -> bool:
        return self.kind == ParamKind.TENSOR


@dataclass(frozen=True, slots=True)
class Binding:
    """A final-ABI launch slot: which parameter (index into ``Family.params``) sits where."""

    param: int
    slot: int
    kind: BindingKind


@dataclass(frozen=True, slots=True)
class Profile:
    """Where and how an artifact runs, with its named final-ABI bindings (sorted by slot)."""

    name: str
    platform: Platform
    backend: Backend
    runtime: Runtime
    execution_mode: ExecutionMode
    bindings: tuple[Binding, ...]


@dataclass(frozen=True, slots=True)
class Evidence:
    """When and on what hardware an artifact qualified."""

    date: str
    hardware: str
    note: str | None


@dataclass(frozen=True, slots=True)
class Receipt:
    """One qualified artifact: its codec, path, SHA-256 and evidence.

    ``profile`` is an index into ``Family.profiles``.
    """

    profile: int
    codec: str
    artifact: str
    sha256: str
    evidence: Evidence


@dataclass(frozen=True, slots=True)
class DimUse:
    """One extent that is a named symbol: axis ``axis`` of ``Family.params[param]``.

    ``tensor`` is the parameter's index among the family's tensors (its argument).
    """

    param: int
    tensor: int
    axis: int


@dataclass(frozen=True, slots=True)
class Symbol:
    """A named symbolic dimension (``shape = ["rows", 256]``) and its ``[dims]`` constraints.

    A call passes every extent in ``uses`` equal (``dim_mismatch``), and that extent lies in
    ``min..=max`` and is a multiple of ``multiple_of`` (``dim_range``).
    """

    name: str
    #: Smallest accepted extent (0 when unconstrained).
    min: int
    #: Largest accepted extent; ``None`` when unbounded.
    max: int | None
    #: Accepted extents are multiples of this (1 when unconstrained).
    multiple_of: int
    uses: tuple[DimUse, ...]


@dataclass(frozen=True, slots=True)
class Retired:
    """A family that was approved and then retired (``manifest/retired.toml``).

    ``revision`` and ``identity`` are those of its last approved revision; ``receipts`` holds
    every artifact digest ever approved for it. Its name and artifacts are refused as retired.
    """

    name: str
    revision: int
    identity: str
    reason: str
    receipts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ScalarRef:
    """A scalar operand of an operation (``eps``, ``scale``).

    Either ``constant`` (fixed by the family) or ``param`` (an index into ``Family.params`` of
    the scalar passed at call time) is set, never both.
    """

    constant: float | None
    param: int | None
{ops}

#: The typed operation payload of a family; narrow it with ``isinstance``.
Operation: TypeAlias = Union[{union}]


@dataclass(frozen=True, slots=True)
class Family:
    """One approved kernel family revision."""

    name: str
    revision: int
    summary: str
    contract: Contract
    #: Whether a torch dispatcher binding is requested.
    torch: bool
    operation: Operation
    params: tuple[Param, ...]
    #: Return aliases: indices into ``params`` (repeats kept).
    returns: tuple[int, ...]
    profiles: tuple[Profile, ...]
    receipts: tuple[Receipt, ...]
    tensor_count: int
    scalar_count: int
    #: SHA-256 (lowercase hex) of the canonical identity, as in ``manifest/approved.lock``.
    identity: str
    #: The torch dispatcher schema; ``None`` when torch cannot spell the signature.
    torch_schema: str | None
    #: Named symbolic dimensions, in order of first use; ``()`` when there are none.
    symbols: tuple[Symbol, ...]

    @property
    def return_params(self) -> tuple[Param, ...]:
        """The parameters the return aliases name, in order."""
        return tuple(self.params[i] for i in self.returns)

    def param(self, name: str) -> Param:
        """The parameter called ``name``; ``KeyError`` when there is none."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"family {{self.name!r}} has no parameter {{name!r}}")

    def profile(self, name: str) -> Profile:
        """The profile called ``name``; ``KeyError`` when there is none."""
        for p in self.profiles:
            if p.name == name:
                return p
        raise KeyError(f"family {{self.name!r}} has no profile {{name!r}}")

    def receipts_for(self, profile: str) -> tuple[Receipt, ...]:
        """The receipts of the profile called ``profile`` (empty: not supported there)."""
        return tuple(r for r in self.receipts if self.profiles[r.profile].name == profile)
"#,
        header = header(),
        vocab = import_list("._vocab", vocab),
        union = classes.join(", "),
    )
}

// ---------------------------------------------------------------- _runtime

/// The logic of `_runtime.py`: static Python, reviewed like any other source.
const RUNTIME_SOURCE: &str = include_str!("python_runtime.py");
/// The line of [`RUNTIME_SOURCE`] that [`runtime_data`] replaces.
pub(super) const RUNTIME_DATA_MARKER: &str =
    "# @kfam-data: the generator writes the data tables here.\n";

/// Largest `compiled_meta.json` admitted (`kfam_runtime::admission::MAX_DOCUMENT_BYTES`).
pub const MAX_DOCUMENT_BYTES: usize = 1 << 20;

/// A Python `float` literal that evaluates to exactly `x` (finite).
fn py_float(x: f64) -> String {
    assert!(x.is_finite(), "{x}");
    // `Debug` prints the shortest representation that round-trips, always
    // with a `.` or an exponent, which Python reads back exactly.
    format!("{x:?}")
}

/// One `Final` dict of the data block, with a `#:` comment.
pub(super) fn data_dict(s: &mut String, comment: &str, lead: &str, items: Vec<String>) {
    let _ = writeln!(s, "#: {comment}");
    let _ = writeln!(s, "{lead}{}", Expr::Dict(items).render(0, lead.len()));
}

/// The data `_runtime.py` decides with, as Python.
fn runtime_data() -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "#: Largest ``compiled_meta.json`` admitted, in bytes.\n\
         MAX_DOCUMENT_BYTES: Final[int] = {MAX_DOCUMENT_BYTES}"
    );
    let (mut floats, mut ints) = (Vec::new(), Vec::new());
    for &d in DType::ALL {
        let key = member(DType::NAME, d.as_str());
        match d.scalar_domain() {
            ScalarDomain::Bool => {}
            ScalarDomain::Int(lo, hi) => ints.push(format!("{key}: ({lo}, {hi})")),
            ScalarDomain::Float(max) => floats.push(format!("{key}: {}", py_float(max))),
        }
    }
    data_dict(
        &mut s,
        "Largest finite value of each float dtype: a finite scalar beyond it overflows.",
        "_FLOAT_MAX: Final[dict[DType, float]] = ",
        floats,
    );
    data_dict(
        &mut s,
        "Inclusive range of each integer dtype.",
        "_INT_RANGE: Final[dict[DType, tuple[int, int]]] = ",
        ints,
    );
    let statuses = |vocab: &str, members: Vec<(&str, Status)>| -> Vec<String> {
        members
            .into_iter()
            .map(|(m, st)| {
                format!(
                    "{}: {}",
                    member(vocab, m),
                    member(Status::NAME, st.as_str())
                )
            })
            .collect()
    };
    data_dict(
        &mut s,
        "The C ABI status of each capability outcome.",
        "_CAPABILITY_STATUS: Final[dict[Capability, Status]] = ",
        statuses(
            Capability::NAME,
            Capability::ALL
                .iter()
                .map(|&c| (c.as_str(), c.status()))
                .collect(),
        ),
    );
    data_dict(
        &mut s,
        "The C ABI status of each admission outcome.",
        "_ADMISSION_STATUS: Final[dict[Admission, Status]] = ",
        statuses(
            Admission::NAME,
            Admission::ALL
                .iter()
                .map(|&a| (a.as_str(), a.status()))
                .collect(),
        ),
    );
    data_dict(
        &mut s,
        "The C ABI status of each call validation rule.",
        "_CALL_STATUS: Final[dict[CallRule, Status]] = ",
        statuses(
            CallRule::NAME,
            CallRule::ALL
                .iter()
                .map(|&r| (r.as_str(), r.status()))
                .collect(),
        ),
    );
    s
}

fn runtime_py() -> String {
    assert_eq!(
        RUNTIME_SOURCE.matches(RUNTIME_DATA_MARKER).count(),
        1,
        "python_runtime.py must hold the data marker exactly once"
    );
    format!(
        "{}{}",
        header(),
        RUNTIME_SOURCE.replacen(RUNTIME_DATA_MARKER, &runtime_data(), 1)
    )
}

// ---------------------------------------------------------------- _vocab

/// Every vocabulary with the values Python gets: the fixed codes, and
/// `Status` valued as `abi.toml` declares.
fn vocabularies(ir: &Ir) -> Vec<(Catalog, Vec<(Member, i64)>)> {
    let mut all: Vec<(Catalog, Vec<(Member, i64)>)> = CATALOGS
        .iter()
        .map(|c| {
            (
                *c,
                c.members.iter().map(|m| (*m, i64::from(m.code))).collect(),
            )
        })
        .collect();
    let status = Status::ALL
        .iter()
        .zip(Status::CATALOG.members)
        .map(|(s, m)| (*m, i64::from(ir.abi.status(*s))))
        .collect();
    all.push((Status::CATALOG, status));
    all
}

/// The class names of [`vocabularies`], sorted.
fn vocabularies_names() -> Vec<&'static str> {
    let mut v: Vec<&str> = CATALOGS.iter().map(|c| c.name).collect();
    v.push(Status::CATALOG.name);
    v.sort_unstable();
    v
}

/// Generator-written prose as a one-line `#:` comment (whitespace collapsed,
/// control characters dropped); `None` when there is none.
fn doc_comment(text: &str) -> Option<String> {
    let clean: String = text
        .chars()
        .map(|c| if is_forbidden_char(c, false) { ' ' } else { c })
        .collect();
    let words: Vec<&str> = clean.split_whitespace().collect();
    (!words.is_empty()).then(|| format!("#: {}", words.join(" ")))
}

/// `Vocab.MEMBER`: the Python spelling of a vocabulary member.
pub(super) fn member(vocab: &str, spelling: &str) -> String {
    format!("{vocab}.{}", names::shouty(spelling))
}

fn vocab_py(ir: &Ir) -> String {
    let mut s = header();
    s.push_str(
        r#""""Closed vocabularies of the kfam manifest: one ``IntEnum`` each, valued by the stable code.

A member's name is its manifest spelling in upper case (``DType.BF16`` is ``"bf16"``).
Codes are part of the ABI: they never change meaning.
"""

from __future__ import annotations

from enum import IntEnum, unique
from typing import Final, TypeVar

_KfamVocabT = TypeVar("_KfamVocabT", bound="_KfamVocab")


class _KfamVocab(IntEnum):
    """Base of every vocabulary."""

    @property
    def spelling(self) -> str:
        """The manifest spelling, e.g. ``"bf16"``."""
        return self.name.lower()

    @classmethod
    def from_spelling(cls: type[_KfamVocabT], text: str) -> _KfamVocabT:
        """The member spelled ``text`` in the manifest; ``ValueError`` when there is none."""
        for m in cls:
            if m.spelling == text:
                return m
        raise ValueError(f"{text!r} is not a {cls.__name__} spelling")
"#,
    );
    for (catalog, members) in vocabularies(ir) {
        let doc = catalog.doc.split_whitespace().collect::<Vec<_>>().join(" ");
        let _ = write!(
            s,
            "\n\n@unique\nclass {}(_KfamVocab):\n    {}\n\n",
            catalog.name,
            py_str_literal(&doc)
        );
        for (m, value) in &members {
            if let Some(comment) = doc_comment(m.doc) {
                let _ = writeln!(s, "    {comment}");
            }
            let _ = writeln!(s, "    {} = {value}", names::shouty(m.spelling));
        }
        if catalog.name == DType::NAME {
            s.push_str(
                "\n    @property\n    def bits(self) -> int:\n        \
                 \"\"\"Storage size of one element in bits (4 for packed ``FP4``).\"\"\"\n        \
                 return _KFAM_DTYPE_BITS[self]\n",
            );
        }
    }
    let bits: Vec<String> = DType::ALL
        .iter()
        .map(|d| format!("{}: {}", member(DType::NAME, d.as_str()), d.bits()))
        .collect();
    let lead = "_KFAM_DTYPE_BITS: Final[dict[DType, int]] = ";
    let _ = writeln!(s, "\n\n{lead}{}", Expr::Dict(bits).render(0, lead.len()));
    s
}

// ---------------------------------------------------------------- _tables

/// A Python expression of the data table, laid out on one line when it fits
/// in [`WIDTH`] and one argument or item per line otherwise.
enum Expr {
    Atom(String),
    /// `Name(key=value, ...)`.
    Call(&'static str, Vec<(&'static str, Expr)>),
    Tuple(Vec<Expr>),
    /// Items already rendered as `key: value`.
    Dict(Vec<String>),
}

impl Expr {
    /// Length in bytes of the one-line form, without building it.
    fn flat_len(&self) -> usize {
        self.flat_len_upto(usize::MAX)
    }

    /// [`Expr::flat_len`], or some length over `limit` as soon as it is known
    /// to exceed it: rendering only asks whether an expression fits on its
    /// line, and measuring a whole table to learn that it does not made
    /// rendering quadratic in the nesting depth.
    fn flat_len_upto(&self, limit: usize) -> usize {
        // Adds each part's length to `n`, stopping once `n` is over `limit`.
        fn sum<'e>(
            mut n: usize,
            limit: usize,
            parts: impl Iterator<Item = (usize, &'e Expr)>,
        ) -> usize {
            for (extra, e) in parts {
                if n > limit {
                    break;
                }
                n += extra;
                n = n.saturating_add(e.flat_len_upto(limit.saturating_sub(n)));
            }
            n
        }
        let sep = |n: usize| 2 * n.saturating_sub(1);
        match self {
            Expr::Atom(a) => a.len(),
            Expr::Call(name, args) => sum(
                name.len() + 2 + sep(args.len()),
                limit,
                args.iter().map(|(k, v)| (k.len() + 1, v)),
            ),
            Expr::Tuple(items) if items.len() == 1 => items[0].flat_len_upto(limit) + 3,
            Expr::Tuple(items) => sum(2 + sep(items.len()), limit, items.iter().map(|v| (0, v))),
            Expr::Dict(items) => {
                2 + items.iter().map(String::len).sum::<usize>() + sep(items.len())
            }
        }
    }

    /// The one-line form, appended to `out`.
    fn flat_into(&self, out: &mut String) {
        match self {
            Expr::Atom(a) => out.push_str(a),
            Expr::Call(name, args) => {
                out.push_str(name);
                out.push('(');
                for (i, (k, v)) in args.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(k);
                    out.push('=');
                    v.flat_into(out);
                }
                out.push(')');
            }
            Expr::Tuple(items) if items.len() == 1 => {
                out.push('(');
                items[0].flat_into(out);
                out.push_str(",)");
            }
            Expr::Tuple(items) => {
                out.push('(');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.flat_into(out);
                }
                out.push(')');
            }
            Expr::Dict(items) => {
                out.push('{');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(v);
                }
                out.push('}');
            }
        }
    }

    /// Rendered at indentation `depth` (4 spaces each), starting `used`
    /// columns into its first line.
    fn render(&self, depth: usize, used: usize) -> String {
        let mut out = String::with_capacity(self.flat_len() + 64);
        self.render_into(&mut out, depth, used);
        out
    }

    /// [`Expr::render`], appended to `out` (one buffer for the whole tree:
    /// rendering a large table builds no intermediate strings).
    fn render_into(&self, out: &mut String, depth: usize, used: usize) {
        if matches!(self, Expr::Atom(_))
            || used < WIDTH && self.flat_len_upto(WIDTH - used) < WIDTH - used
        {
            self.flat_into(out);
            return;
        }
        let pad = 4 * (depth + 1);
        match self {
            Expr::Atom(_) => unreachable!(),
            Expr::Call(name, args) => {
                out.push_str(name);
                out.push_str("(\n");
                for (k, v) in args {
                    push_spaces(out, pad);
                    out.push_str(k);
                    out.push('=');
                    v.render_into(out, depth + 1, pad + k.len() + 1);
                    out.push_str(",\n");
                }
                push_spaces(out, 4 * depth);
                out.push(')');
            }
            Expr::Tuple(items) => broken_tuple(out, depth, items),
            Expr::Dict(items) => {
                out.push_str("{\n");
                for v in items {
                    push_spaces(out, pad);
                    out.push_str(v);
                    out.push_str(",\n");
                }
                push_spaces(out, 4 * depth);
                out.push('}');
            }
        }
    }
}

/// A tuple one item per line, as [`Expr::render_into`] breaks it.
fn broken_tuple<E: std::borrow::Borrow<Expr>>(
    out: &mut String,
    depth: usize,
    items: impl IntoIterator<Item = E>,
) {
    let pad = 4 * (depth + 1);
    out.push_str("(\n");
    for v in items {
        push_spaces(out, pad);
        v.borrow().render_into(out, depth + 1, pad + 1);
        out.push_str(",\n");
    }
    push_spaces(out, 4 * depth);
    out.push(')');
}

/// `Expr::Tuple(items.collect()).render_into(out, 0, used)`, building one
/// item at a time when the tuple cannot fit on its line (then it is
/// broken, one item per line): the tree of every family at once would be
/// millions of nodes, allocated and dropped for nothing.
fn render_tuple_lazily(out: &mut String, used: usize, mut items: impl Iterator<Item = Expr>) {
    let Some(first) = items.next() else {
        return Expr::Tuple(Vec::new()).render_into(out, 0, used);
    };
    // The one-line form is at least the first item and `(`, `)`.
    if used + first.flat_len_upto(WIDTH) + 2 < WIDTH {
        let all: Vec<Expr> = std::iter::once(first).chain(items).collect();
        return Expr::Tuple(all).render_into(out, 0, used);
    }
    broken_tuple(out, 0, std::iter::once(first).chain(items));
}

fn atom(s: impl std::fmt::Display) -> Expr {
    Expr::Atom(s.to_string())
}

fn py_bool(b: bool) -> Expr {
    atom(if b { "True" } else { "False" })
}

fn py_opt_str(s: Option<&str>) -> Expr {
    atom(s.map_or_else(|| "None".to_owned(), py_str_literal))
}

fn str_lit(s: &str) -> Expr {
    atom(py_str_literal(s))
}

fn ints<T: std::fmt::Display>(items: &[T]) -> Expr {
    Expr::Tuple(items.iter().map(atom).collect())
}

fn operation_expr(op: &Operation) -> Expr {
    let kind = op.kind().variant_name();
    match op {
        Operation::ElementwiseBinary { op, lhs, rhs, out } => Expr::Call(
            kind,
            vec![
                ("op", atom(member(BinaryOp::NAME, op.as_str()))),
                ("lhs", atom(lhs)),
                ("rhs", atom(rhs)),
                ("out", atom(out)),
            ],
        ),
        Operation::Matmul {
            m,
            k,
            n,
            a,
            b,
            c,
            accumulate,
        } => Expr::Call(
            kind,
            vec![
                ("m", atom(m.as_i64())),
                ("k", atom(k.as_i64())),
                ("n", atom(n.as_i64())),
                ("a", atom(a)),
                ("b", atom(b)),
                ("c", atom(c)),
                ("accumulate", py_bool(*accumulate)),
            ],
        ),
        Operation::ElementwiseUnary { op, input, out } => Expr::Call(
            kind,
            vec![
                ("op", atom(member(UnaryOp::NAME, op.as_str()))),
                ("input", atom(input)),
                ("out", atom(out)),
            ],
        ),
        Operation::Reduce {
            op,
            input,
            out,
            axes,
            keepdim,
        } => Expr::Call(
            kind,
            vec![
                ("op", atom(member(ReduceOp::NAME, op.as_str()))),
                ("input", atom(input)),
                ("out", atom(out)),
                ("axes", ints(axes)),
                ("keepdim", py_bool(*keepdim)),
            ],
        ),
        Operation::Softmax { input, out, axis } => Expr::Call(
            kind,
            vec![
                ("input", atom(input)),
                ("out", atom(out)),
                ("axis", atom(axis)),
            ],
        ),
        Operation::Norm {
            op,
            input,
            weight,
            bias,
            out,
            axis,
            eps,
        } => Expr::Call(
            kind,
            vec![
                ("op", atom(member(NormKind::NAME, op.as_str()))),
                ("input", atom(input)),
                ("weight", atom(weight)),
                (
                    "bias",
                    atom(bias.map_or("None".to_owned(), |b| b.to_string())),
                ),
                ("out", atom(out)),
                ("axis", atom(axis)),
                ("eps", scalar_ref_expr(*eps)),
            ],
        ),
        Operation::PagedAttentionDecode {
            query,
            key_cache,
            value_cache,
            block_table,
            context_lens,
            out,
            scale,
        } => Expr::Call(
            kind,
            vec![
                ("query", atom(query)),
                ("key_cache", atom(key_cache)),
                ("value_cache", atom(value_cache)),
                ("block_table", atom(block_table)),
                ("context_lens", atom(context_lens)),
                ("out", atom(out)),
                ("scale", scalar_ref_expr(*scale)),
            ],
        ),
        Operation::Custom { semantics } => {
            Expr::Call(kind, vec![("semantics", str_lit(semantics))])
        }
    }
}

/// `ScalarRef(constant=..., param=None)` or `ScalarRef(constant=None, param=...)`.
fn scalar_ref_expr(s: ScalarRef) -> Expr {
    let (constant, param) = match s {
        // A Python float literal: `Display` digits, with `.0` when integral.
        ScalarRef::Constant(v) => {
            let mut t = v.to_string();
            if !t.contains('.') {
                t.push_str(".0");
            }
            (atom(t), atom("None"))
        }
        ScalarRef::Param(i) => (atom("None"), atom(i)),
    };
    Expr::Call("ScalarRef", vec![("constant", constant), ("param", param)])
}

fn param_expr(p: &Param) -> Expr {
    Expr::Call(
        "Param",
        vec![
            ("name", str_lit(&p.name)),
            ("index", atom(p.index)),
            ("kind", atom(member(ParamKind::NAME, p.kind.as_str()))),
            (
                "direction",
                atom(member(Direction::NAME, p.direction.as_str())),
            ),
            ("dtype", atom(member(DType::NAME, p.dtype.as_str()))),
            ("shape", ints(&p.shape)),
            ("layout", atom(member(Layout::NAME, p.layout.as_str()))),
            ("lowered_shape", ints(&p.lowered_shape)),
            ("pool_index", atom(p.pool_index)),
            ("doc", py_opt_str(p.doc.as_deref())),
        ],
    )
}

fn profile_expr(p: &Profile) -> Expr {
    let bindings = p
        .bindings
        .iter()
        .map(|b| {
            Expr::Call(
                "Binding",
                vec![
                    ("param", atom(b.param)),
                    ("slot", atom(b.slot)),
                    ("kind", atom(member(BindingKind::NAME, b.kind.as_str()))),
                ],
            )
        })
        .collect();
    Expr::Call(
        "Profile",
        vec![
            ("name", str_lit(&p.name)),
            (
                "platform",
                atom(member(Platform::NAME, p.platform.as_str())),
            ),
            ("backend", atom(member(Backend::NAME, p.backend.as_str()))),
            ("runtime", atom(member(Runtime::NAME, p.runtime.as_str()))),
            (
                "execution_mode",
                atom(member(ExecutionMode::NAME, p.execution_mode.as_str())),
            ),
            ("bindings", Expr::Tuple(bindings)),
        ],
    )
}

fn receipt_expr(r: &Receipt) -> Expr {
    let ir::Evidence {
        date,
        hardware,
        note,
    } = &r.evidence;
    Expr::Call(
        "Receipt",
        vec![
            ("profile", atom(r.profile)),
            ("codec", str_lit(&r.codec)),
            ("artifact", str_lit(&r.artifact)),
            ("sha256", str_lit(&r.sha256)),
            (
                "evidence",
                Expr::Call(
                    "Evidence",
                    vec![
                        ("date", str_lit(date)),
                        ("hardware", str_lit(hardware)),
                        ("note", py_opt_str(note.as_deref())),
                    ],
                ),
            ),
        ],
    )
}

fn retired_expr(r: &ir::Retired) -> Expr {
    Expr::Call(
        "Retired",
        vec![
            ("name", str_lit(&r.name)),
            ("revision", atom(r.revision)),
            ("identity", str_lit(&r.identity)),
            ("reason", str_lit(&r.reason)),
            (
                "receipts",
                Expr::Tuple(r.receipts.iter().map(|d| str_lit(d)).collect()),
            ),
        ],
    )
}

/// `Family::source` is left out: it is the path as `kfam` was invoked, so
/// emitting it would make the output depend on the working directory.
fn family_expr(f: &Family) -> Expr {
    Expr::Call(
        "Family",
        vec![
            ("name", str_lit(&f.name)),
            ("revision", atom(f.revision)),
            ("summary", str_lit(&f.summary)),
            (
                "contract",
                atom(member(Contract::NAME, f.contract.as_str())),
            ),
            ("torch", py_bool(f.torch)),
            ("operation", operation_expr(&f.operation)),
            (
                "params",
                Expr::Tuple(f.params.iter().map(param_expr).collect()),
            ),
            ("returns", ints(&f.returns)),
            (
                "profiles",
                Expr::Tuple(f.profiles.iter().map(profile_expr).collect()),
            ),
            (
                "receipts",
                Expr::Tuple(f.receipts.iter().map(receipt_expr).collect()),
            ),
            ("tensor_count", atom(f.tensor_count)),
            ("scalar_count", atom(f.scalar_count)),
            ("identity", str_lit(&f.identity)),
            ("torch_schema", py_opt_str(f.torch_schema.as_deref())),
            (
                "symbols",
                Expr::Tuple(f.symbols.iter().map(symbol_expr).collect()),
            ),
        ],
    )
}

fn symbol_expr(s: &ir::Symbol) -> Expr {
    let uses = s
        .uses
        .iter()
        .map(|u| {
            Expr::Call(
                "DimUse",
                vec![
                    ("param", atom(u.param)),
                    ("tensor", atom(u.tensor)),
                    ("axis", atom(u.axis)),
                ],
            )
        })
        .collect();
    Expr::Call(
        "Symbol",
        vec![
            ("name", str_lit(&s.name)),
            ("min", atom(s.min)),
            ("max", s.max.map_or_else(|| atom("None"), atom)),
            ("multiple_of", atom(s.multiple_of)),
            ("uses", Expr::Tuple(uses)),
        ],
    )
}

fn tables_py(ir: &Ir) -> String {
    let abi = &ir.abi;
    let vocab = vec![
        Backend::NAME,
        BinaryOp::NAME,
        BindingKind::NAME,
        Contract::NAME,
        DType::NAME,
        Direction::NAME,
        ExecutionMode::NAME,
        Layout::NAME,
        NormKind::NAME,
        ParamKind::NAME,
        Platform::NAME,
        ReduceOp::NAME,
        Runtime::NAME,
        UnaryOp::NAME,
    ];
    let lead = "FAMILIES: Final[tuple[Family, ...]] = ";
    let retired_lead = "RETIRED: Final[tuple[Retired, ...]] = ";
    // The tables are rendered straight into the file's buffer (about 6 KiB
    // per family): at 10,000 families they are over 60 MB, too much to build
    // apart and copy.
    let mut out = String::with_capacity(8192 + (ir.families.len() + ir.retired.len()) * 7 * 1024);
    let _ = write!(
        out,
        r#"{header}"""The approved families of ``manifest/`` and the native ABI they target. Data only."""

from __future__ import annotations

from typing import Final

{records}
{vocab}

#: Native runtime commit the artifacts are built against.
ABI_REVISION: Final[str] = {revision}
ABI_MAJOR: Final[int] = {major}
ABI_MINOR: Final[int] = {minor}
MAX_TENSOR_ARGS: Final[int] = {max_tensor}
MAX_SCALAR_ARGS: Final[int] = {max_scalar}
MAX_RANK: Final[int] = {max_rank}
#: Version of the canonical form ``Family.identity`` is taken over.
IDENTITY_FORMAT: Final[int] = {identity_format}

#: Every approved family, sorted by name.
{lead}"#,
        header = header(),
        records = import_list("._records", record_classes()),
        vocab = import_list("._vocab", vocab),
        revision = py_str_literal(&abi.revision),
        major = abi.major,
        minor = abi.minor,
        max_tensor = abi.max_tensor_args,
        max_scalar = abi.max_scalar_args,
        max_rank = abi.max_rank,
        identity_format = ir::IDENTITY_FORMAT,
    );
    render_tuple_lazily(&mut out, lead.len(), ir.families.iter().map(family_expr));
    out.push_str("\n\n#: Every retired family, sorted by name.\n");
    out.push_str(retired_lead);
    render_tuple_lazily(
        &mut out,
        retired_lead.len(),
        ir.retired.iter().map(retired_expr),
    );
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;
    use std::process::Stdio;

    const HOSTILE: &[&str] = &[
        "",
        "plain text",
        r#"triple """ double"#,
        "triple ''' single",
        r"back\slash \n \x00 \N{DIGIT ONE} \u0041 trailing \",
        "# not a comment",
        "line one\nline two\r\n\ttabbed",
        "nul \0 then 1",
        "bell \u{7} del \u{7f} nbsp \u{a0}",
        "rtl override \u{202E}gnp.exe",
        "bom \u{feff} ls \u{2028} ps \u{2029}",
        "ünïcödé, CJK 漢字, emoji 😀, math 𝔸",
        "{braces} %s %(name)s f'{x}'",
        "\"\"\"; import os; os.system('x') #",
        "ends with backslash \\",
    ];

    #[test]
    fn literals_are_one_line_printable_ascii() {
        for text in HOSTILE {
            let lit = py_str_literal(text);
            assert!(
                lit.starts_with('"') && lit.ends_with('"') && lit.len() >= 2,
                "{lit}"
            );
            assert!(
                lit.bytes().all(|b| (b' '..=b'~').contains(&b)),
                "not printable ASCII: {lit}"
            );
            // Every quote inside is escaped, so the literal cannot end early.
            let inner = &lit[1..lit.len() - 1];
            let mut escaped = false;
            for c in inner.chars() {
                assert!(escaped || c != '"', "unescaped quote in {lit}");
                escaped = !escaped && c == '\\';
            }
            assert!(!escaped, "dangling backslash in {lit}");
        }
    }

    #[test]
    fn literal_spellings() {
        assert_eq!(py_str_literal(""), r#""""#);
        assert_eq!(py_str_literal(r#"a"""b"#), r#""a\"\"\"b""#);
        assert_eq!(py_str_literal("'''"), r#""'''""#);
        assert_eq!(py_str_literal(r"\"), r#""\\""#);
        assert_eq!(py_str_literal("a\nb"), r#""a\nb""#);
        assert_eq!(py_str_literal("\0"), r#""\x00""#);
        assert_eq!(py_str_literal("\u{0}1"), r#""\x001""#);
        assert_eq!(py_str_literal("\u{202E}"), r#""\u202e""#);
        assert_eq!(py_str_literal("é"), r#""\xe9""#);
        assert_eq!(py_str_literal("😀"), r#""\U0001f600""#);
        assert_eq!(py_str_literal("# x"), r##""# x""##);
    }

    /// The literals evaluate back to the text in a real Python.
    #[test]
    fn literals_round_trip_through_python() {
        let script = "import ast, json, sys\n\
                      print(json.dumps([ast.literal_eval(l) for l in sys.stdin.read().splitlines()]))";
        let mut child = kfam_testenv::python()
            .args(["-c", script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the test environment's python runs");
        let input: String = HOSTILE.iter().map(|t| py_str_literal(t) + "\n").collect();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "python3 failed on the literals:\n{input}"
        );
        let back: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(back, HOSTILE);
    }

    #[test]
    fn vocabulary_members_spell_back() {
        let ir = Ir {
            abi: ir::Abi {
                revision: String::new(),
                major: 1,
                minor: 0,
                max_tensor_args: 1,
                max_scalar_args: 1,
                max_rank: 1,
                status: Status::ALL.iter().map(|&s| (s, -s.code())).collect(),
            },
            families: vec![],
            retired: vec![],
        };
        // `_KfamVocab.spelling` is the member name in lower case.
        for (catalog, members) in vocabularies(&ir) {
            for (m, _) in &members {
                let name = names::shouty(m.spelling);
                assert_eq!(name.to_lowercase(), m.spelling, "{}", catalog.name);
                assert!(
                    name.bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'),
                    "{name}"
                );
            }
        }
        let mut listed: Vec<&str> = vocabularies(&ir).iter().map(|(c, _)| c.name).collect();
        listed.sort_unstable();
        assert_eq!(listed, vocabularies_names());
    }

    #[test]
    fn scalar_domains_follow_the_dtype() {
        for &d in DType::ALL {
            match d.scalar_domain() {
                ScalarDomain::Bool => assert_eq!(d, DType::Bool),
                ScalarDomain::Float(max) => {
                    assert!(d.is_float() && max.is_finite() && max > 0.0, "{d}");
                    assert_eq!(py_float(max).parse::<f64>().unwrap(), max);
                }
                ScalarDomain::Int(lo, hi) => {
                    assert!(!d.is_float() && d != DType::Bool, "{d}");
                    assert_eq!(hi - lo + 1, 1i128 << d.bits(), "{d}");
                }
            }
        }
        assert_eq!(py_float(f64::from(f32::MAX)), "3.4028234663852886e38");
        assert_eq!(py_float(65504.0), "65504.0");
    }

    #[test]
    fn runtime_module_gets_its_data_once() {
        let text = runtime_py();
        assert!(!text.contains(RUNTIME_DATA_MARKER.trim_end()));
        assert_eq!(
            text.matches("\nMAX_DOCUMENT_BYTES: Final[int] = 1048576\n")
                .count(),
            1
        );
        for name in [
            "_FLOAT_MAX",
            "_INT_RANGE",
            "_CAPABILITY_STATUS",
            "_ADMISSION_STATUS",
        ] {
            assert_eq!(
                text.matches(&format!("\n{name}: Final[")).count(),
                1,
                "{name}"
            );
        }
        for name in RUNTIME {
            let defined = [
                format!("\ndef {name}("),
                format!("\nclass {name}("),
                format!("\nclass {name}:"),
                format!("\n{name}: Final["),
            ];
            assert!(
                defined.iter().any(|d| text.contains(d.as_str())),
                "{name} is exported but not defined in _runtime.py"
            );
        }
    }

    #[test]
    fn layout_breaks_long_lines_only() {
        let short = Expr::Call("Binding", vec![("param", atom(0)), ("slot", atom(1))]);
        assert_eq!(short.render(0, 0), "Binding(param=0, slot=1)");
        assert_eq!(Expr::Tuple(vec![atom(7)]).render(0, 0), "(7,)");
        assert_eq!(Expr::Tuple(vec![]).render(0, 0), "()");
        let long = Expr::Tuple((0..40).map(atom).collect());
        let text = long.render(1, 4);
        assert!(text.starts_with("(\n        0,\n"), "{text}");
        assert!(text.ends_with("\n    )"), "{text}");
    }

    #[test]
    fn lazy_tuples_render_as_built_ones() {
        let item = |i: usize| {
            Expr::Call(
                "Binding",
                vec![("param", atom(i)), ("slot", atom("x".repeat(i)))],
            )
        };
        for n in [0, 1, 2, 3, 9, 40] {
            for used in [0, 10, 38, 39, 40, 41, 60, 97, 98, 99, 120] {
                let mut lazy = String::new();
                render_tuple_lazily(&mut lazy, used, (0..n).map(item));
                let whole = Expr::Tuple((0..n).map(item).collect()).render(0, used);
                assert_eq!(lazy, whole, "{n} items, {used} columns used");
            }
        }
    }
}
