//! Python: a pip-installable, standard-library-only package under `python/`
//! of the output directory (docs/python.md).
//!
//! The package is kfam's runtime plus the catalog's data. Three kinds of
//! module, in `kfam/`:
//!
//! - **kfam's runtime, copied**: `__init__.py` (the public API),
//!   `_decode.py` (checked reads of row values), `_lookup.py` (the lazy
//!   tables), `_runtime.py` (capability, admission of `compiled_meta.json`
//!   and call validation, the decisions of `kfam-runtime`), `context.py`
//!   (the kernel context), `torch.py` (PyTorch schemas, fake kernels and
//!   registration; the only module that imports `torch`) and `py.typed`.
//!   They are real source files in the repository's `python/kfam_runtime/`, linted
//!   and type-checked there (`codegen/tests/python_sources.rs`), embedded
//!   in the generator with `include_str!` (through the crate's `python`
//!   link to them) and written out behind the generated-file marker.
//! - **derived from kfam's vocabularies and record definitions**, the same
//!   for every catalog of one kfam version, rendered here and also
//!   committed in `python/kfam_runtime/` (checked by `codegen/tests/sourcegen.rs`,
//!   [`sourcegen`]): `_vocab.py` (`vocab.rs`: the `IntEnum`s and the data
//!   that follows from them) and `_records.py` (`records.rs`: the frozen
//!   dataclasses and the decoder of each record's row).
//! - **the catalog's data**, generated into the output alone: `_abi.py`
//!   (`abi.rs`: ABI constants, `Status`, `__version__`) and `_tables.py`
//!   (`tables.rs`: one row per family), plus `pyproject.toml` and
//!   `.gitignore`. `python/kfam_runtime/_abi.pyi` and `_tables.pyi` declare their
//!   names for the checks in place; they are not copied.
//!
//! So a manifest edit changes only the data files. Annotations are inline
//! (no `.pyi` in the output), so `mypy --strict` checks the code that
//! actually runs. Free text reaches Python only through [`py_str_literal`]
//! (or, in a row, `tables::json_str`); private generated names start with
//! `_kfam`/`_Kfam`, which a declared name (lowercase first letter) can never
//! do.
//!
//! The submodules depend one way: `text` is a leaf every other one uses,
//! `abi` uses `vocab`, and none uses this module.

mod abi;
mod records;
mod tables;
mod text;
mod vocab;

/// Largest `compiled_meta.json` admitted: `MAX_DOCUMENT_BYTES` of
/// `python/kfam_runtime/_runtime.py` spells it (a test compares).
pub use crate::compiled_meta::MAX_DOCUMENT_BYTES;
pub use text::py_str_literal;

use super::GeneratedFile;
use crate::ir::Ir;
use text::header;

/// Where the distribution sits below its output location (the catalog's
/// `outputs.python`; `super::generate_with` places it).
const ROOT: &str = "python";
/// The package directory of kfam's own sources in this repository.
const SOURCE_PACKAGE: &str = "kfam_runtime";
/// Lowest Python the generated code supports (`slots=True` dataclasses, `X | Y`).
const REQUIRES_PYTHON: &str = ">=3.10";

/// Lowest PyTorch release `kfam.torch` supports: the first with
/// `torch.library.impl_abstract`, the fallback of `register_fake` (2.4).
/// `python/kfam_runtime/torch.py` spells it too (`MIN_TORCH`; a test compares).
pub const MIN_TORCH: &str = "2.2";
/// The release the tests run against (`testenv/requirements.txt` pins it;
/// `TESTED_TORCH` of `python/kfam_runtime/torch.py`).
pub const TESTED_TORCH: &str = "2.9.1";

/// kfam's runtime modules, `python/kfam_runtime/*` of the repository, embedded so
/// that the generator writes them for any catalog, anywhere.
const SOURCES: &[(&str, &str)] = &[
    (
        "__init__.py",
        include_str!("../../../python/kfam_runtime/__init__.py"),
    ),
    (
        "_decode.py",
        include_str!("../../../python/kfam_runtime/_decode.py"),
    ),
    (
        "_lookup.py",
        include_str!("../../../python/kfam_runtime/_lookup.py"),
    ),
    (
        "_methods.py",
        include_str!("../../../python/kfam_runtime/_methods.py"),
    ),
    (
        "_qualify.py",
        include_str!("../../../python/kfam_runtime/_qualify.py"),
    ),
    (
        "_reference.py",
        include_str!("../../../python/kfam_runtime/_reference.py"),
    ),
    (
        "_runtime.py",
        include_str!("../../../python/kfam_runtime/_runtime.py"),
    ),
    (
        "context.py",
        include_str!("../../../python/kfam_runtime/context.py"),
    ),
    ("py.typed", include_str!("../../../python/kfam_runtime/py.typed")),
    ("torch.py", include_str!("../../../python/kfam_runtime/torch.py")),
];

/// A module the same for every catalog: its file name, the emitter module
/// that renders it, and the renderer (given the first line).
type Rendered = (&'static str, &'static str, fn(&str) -> String);

/// The modules rendered from kfam's vocabularies and record definitions.
const RENDERED: &[Rendered] = &[
    ("_records.py", "records.rs", records::records_py),
    ("_vocab.py", "vocab.rs", vocab::vocab_py),
];

/// The package, every file under `banner`
/// ([`crate::origin::Origin::banner`]) as its first line.
pub fn emit(ir: &Ir, banner: &str) -> Vec<GeneratedFile> {
    let header = header(banner);
    let package = &ir.catalog.python_package;
    let module = |name: &str| format!("{ROOT}/{package}/{name}");
    let mut files = vec![
        GeneratedFile::new(format!("{ROOT}/.gitignore"), gitignore(&header)),
        GeneratedFile::new(format!("{ROOT}/pyproject.toml"), pyproject(ir, &header)),
        GeneratedFile::new(format!("{ROOT}/README.md"), readme(ir, banner)),
        GeneratedFile::new(module("_abi.py"), abi::abi_py(ir, &header)),
        GeneratedFile::new(module("_tables.py"), tables::tables_py(ir, &header)),
    ];
    for &(name, _, render) in RENDERED {
        files.push(GeneratedFile::new(module(name), render(&header)));
    }
    for &(name, source) in SOURCES {
        files.push(GeneratedFile::new(
            module(name),
            format!("{header}{source}"),
        ));
    }
    files
}

/// The committed copies of the rendered modules: `(path in the repository,
/// contents)`, each under a first line that names the test rebuilding it.
/// `codegen/tests/sourcegen.rs` fails when `python/kfam_runtime/` differs, and
/// rewrites it with `KFAM_BLESS=1`.
pub fn sourcegen() -> Vec<(String, String)> {
    RENDERED
        .iter()
        .map(|&(name, rs, render)| {
            let first = format!(
                "# @generated from codegen/src/emit/python/{rs}: rebuild with \
                 `KFAM_BLESS=1 cargo test -p kfam-codegen --test sourcegen`; do not edit\n"
            );
            (format!("{ROOT}/{SOURCE_PACKAGE}/{name}"), render(&first))
        })
        .collect()
}

// ---------------------------------------------------------------- pyproject

/// What an in-tree `pip install generated/python` leaves behind.
fn gitignore(header: &str) -> String {
    format!("{header}/build/\n/*.egg-info/\n__pycache__/\n")
}

/// The distribution's metadata, from the catalog's identity. Every value
/// is checked by `kfam check` to need no escaping in a TOML string.
fn pyproject(ir: &Ir, header: &str) -> String {
    let c = &ir.catalog;
    format!(
        r#"{header}
[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "{distribution}"
version = "{version}"
description = "Approved accelerator kernel families of the {name} catalog: typed tables generated by kfam"
readme = "README.md"
license = "{license}"
requires-python = "{REQUIRES_PYTHON}"
dependencies = []
classifiers = ["Typing :: Typed"]

[project.optional-dependencies]
torch = ["torch>={MIN_TORCH}"]

[tool.setuptools]
packages = ["{package}"]

[tool.setuptools.package-data]
{package} = ["py.typed"]
"#,
        header = header.trim_end(),
        distribution = c.python_distribution,
        version = c.version,
        name = c.name,
        license = c.license,
        package = c.python_package,
    )
}

/// The distribution's long description (PyPI's project page; `twine check
/// --strict` wants one): what the package is, and its families. Only names
/// the checker keeps to identifiers are printed, so nothing needs escaping.
fn readme(ir: &Ir, banner: &str) -> String {
    let c = &ir.catalog;
    let mut out = format!(
        "<!-- {banner} -->\n\n# {distribution}\n\n\
         The approved accelerator kernel families of the `{name}` catalog, as typed\n\
         Python tables and runtime checks (capability, admission, call validation):\n\
         `import {package}`. Generated by kfam from the catalog's reviewed manifest;\n\
         `{package}.CATALOG_DIGEST` names what it approves. The `torch` extra adds\n\
         `{package}.torch`, which defines the families as PyTorch operators in the\n\
         `{namespace}` namespace.\n\n",
        distribution = c.python_distribution,
        name = c.name,
        package = c.python_package,
        namespace = c.torch_namespace,
    );
    if ir.families.is_empty() {
        out.push_str("The catalog approves no family yet.\n");
        return out;
    }
    out.push_str("| Family | Revision | Operation | PyTorch operator |\n|---|---|---|---|\n");
    for f in &ir.families {
        let op = if f.torch {
            format!("`{}::{}`", c.torch_namespace, f.name)
        } else {
            "no".to_owned()
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {op} |\n",
            f.name,
            f.revision,
            f.operation.kind().as_str()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{OperationKind, Status, VOCABULARIES};

    fn source(name: &str) -> &'static str {
        SOURCES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
            .unwrap_or_else(|| panic!("no source {name}"))
    }

    /// Record classes every catalog gets, besides the operation classes.
    const RECORDS: &[&str] = &[
        "Binding",
        "DimUse",
        "Evidence",
        "Family",
        "Operation",
        "OutputError",
        "Param",
        "Profile",
        "Receipt",
        "Retired",
        "ScalarRef",
        "Symbol",
    ];
    /// Constants of `_abi.py`.
    const ABI: &[&str] = &[
        "ABI_MAJOR",
        "ABI_MINOR",
        "ABI_REVISION",
        "CATALOG_DIGEST",
        "CATALOG_NAME",
        "IDENTITY_FORMAT",
        "MAX_PREPARED",
        "MAX_RANK",
        "MAX_SCALAR_ARGS",
        "MAX_TENSOR_ARGS",
        "TORCH_NAMESPACE",
    ];
    /// The lookups of `_lookup.py`, and the names `kfam.__getattr__` builds
    /// on first access.
    const LOOKUP: &[&str] = &[
        "FAMILIES",
        "RETIRED",
        "family",
        "find_artifact",
        "find_family",
        "find_retired",
        "find_retired_artifact",
    ];
    /// Public names of `_runtime.py`: the runtime decisions.
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
        "validate_call",
    ];

    /// The names a module's `__all__ = [...]` lists, in order.
    fn all_of(text: &str) -> Vec<&str> {
        let all = &text[text.find("\n__all__ = [\n").expect("__all__")..];
        let end = all.find("\n]").expect("the end of __all__");
        all[..end]
            .lines()
            .filter_map(|l| l.strip_prefix("    \"")?.strip_suffix("\","))
            .collect()
    }

    /// `kfam.__all__` is what kfam makes public: the static `__init__.py`
    /// lists the ABI, the lookups and the runtime decisions and adds the
    /// `__all__` of `_records.py` (every record and operation class) and of
    /// `_vocab.py` (every vocabulary kfam fixes; those a catalog declares
    /// come from `_abi`), each sorted.
    #[test]
    fn init_exports_every_public_name() {
        let mut want: Vec<&str> = ABI.iter().chain(LOOKUP).chain(RUNTIME).copied().collect();
        want.push(Status::NAME);
        // The vocabularies the catalog declares come from `_abi` too.
        want.extend(VOCABULARIES.iter().filter(|v| v.declared).map(|v| v.name));
        want.sort_unstable();
        let init = source("__init__.py");
        assert_eq!(all_of(init), want);
        for name in &want {
            assert!(
                init.contains(&format!("    {name},\n"))
                    || init.contains(&format!(" as _kfam_{}", name.to_lowercase())),
                "{name} is in __all__ but not imported"
            );
        }
        assert!(init.contains("\n__all__ += _records.__all__\n"));
        assert!(init.contains("\n__all__ += _vocab.__all__\n"));

        let mut records: Vec<&str> = RECORDS.to_vec();
        records.extend(OperationKind::ALL.iter().map(|k| k.variant_name()));
        records.sort_unstable();
        assert_eq!(all_of(&records::records_py("")), records);
        let mut vocab: Vec<&str> = VOCABULARIES
            .iter()
            .filter(|v| !v.declared)
            .map(|v| v.name)
            .collect();
        vocab.sort_unstable();
        assert_eq!(all_of(&vocab::vocab_py("")), vocab);
    }

    #[test]
    fn runtime_defines_what_it_exports() {
        let text = source("_runtime.py");
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

    /// The constants the Python sources spell by hand are the generator's.
    #[test]
    fn sources_spell_the_generators_constants() {
        let runtime = source("_runtime.py");
        assert!(runtime.contains(&format!(
            "\nMAX_DOCUMENT_BYTES: Final[int] = {MAX_DOCUMENT_BYTES}\n"
        )));
        let torch = source("torch.py");
        for line in [
            format!("\nMIN_TORCH: Final[str] = \"{MIN_TORCH}\"\n"),
            format!("\nSUPPORTED_TORCH: Final[str] = \"{MIN_TORCH} or newer\"\n"),
            format!("\nTESTED_TORCH: Final[str] = \"{TESTED_TORCH}\"\n"),
        ] {
            assert!(torch.contains(&line), "torch.py lacks {line:?}");
        }
        let pins = include_str!("../../../../testenv/requirements.txt");
        assert!(
            pins.lines().any(|l| l == format!("torch=={TESTED_TORCH}")),
            "testenv/requirements.txt does not pin torch {TESTED_TORCH}"
        );
    }

    /// Nothing is spliced into the sources any more, and none of them
    /// carries the generated-file marker itself (the writer adds it).
    #[test]
    fn sources_are_copied_whole() {
        for (name, text) in SOURCES {
            assert!(!text.contains("@kfam-data"), "{name}");
            assert!(!text.contains(crate::emit::MARKER), "{name}");
        }
    }
}
