//! Python: a pip-installable, standard-library-only package under `python/`
//! of the output directory (docs/python.md): the catalog's data and its own
//! names, which depends on kfam's Python runtime (the distribution
//! `kfam-runtime`, the import package `kfam_runtime`) in a compatible range.
//!
//! The runtime is not part of the output: it is the repository's
//! `python/kfam_runtime/`, a distribution of its own (`python/pyproject.toml`),
//! linted and type-checked there (`codegen/tests/python_sources.rs`) and
//! installed once for every catalog in an environment. Two of its modules
//! are rendered here from kfam's vocabularies and record definitions and
//! committed (checked by `codegen/tests/sourcegen.rs`, [`sourcegen`]):
//! `vocab.py` (`vocab.rs`: the `IntEnum`s, the data that follows from them,
//! and the bases of the vocabularies a catalog values or declares) and
//! `records.py` (`records.rs`: the frozen dataclasses and the decoder of
//! each record's row).
//!
//! A catalog's package, in `<python_package>/`:
//!
//! - **its data**: `_abi.py` (`abi.rs`: ABI constants, `Status` and the
//!   declared vocabularies subclassing the runtime's bases, `__version__`)
//!   and `_tables.py` (`tables.rs`: one row per family), plus
//!   `pyproject.toml`, `README.md` and `.gitignore`;
//! - **its own names** (`package.rs`): `__init__.py` (the runtime
//!   compatibility check first, then the error classes named for the
//!   catalog, `CATALOG` and the lookups and decisions bound to it),
//!   `context.py` and `torch.py` (the runtime's kernel context and PyTorch
//!   integration bound to the catalog), and `py.typed`.
//!
//! So a manifest edit changes only the data files, and a runtime fix reaches
//! every catalog with the runtime. Free text reaches Python only through
//! [`py_str_literal`] (or, in a row, `tables::json_str`).
//!
//! The submodules depend one way: `text` is a leaf every other one uses,
//! `abi` uses `vocab`, and none uses this module.

mod abi;
mod package;
mod records;
mod tables;
mod text;
mod vocab;

/// Largest `compiled_meta.json` admitted: `MAX_DOCUMENT_BYTES` of
/// `python/kfam_runtime/_shared.py` spells it (written from
/// `kfam_runtime::admission`; a test here and `runtime/tests/shared.rs`
/// compare).
pub use crate::compiled_meta::MAX_DOCUMENT_BYTES;
pub use package::runtime_requirement;
pub use text::py_str_literal;

use super::GeneratedFile;
use crate::ir::{Ir, GENERATOR_VERSION};
use text::header;

/// Where the distribution sits below its output location (the catalog's
/// `outputs.python`; `super::generate_with` places it).
const ROOT: &str = "python";
/// Where kfam's Python runtime lives in this repository.
const RUNTIME_PACKAGE: &str = "python/kfam_runtime";
/// Lowest Python the generated code supports (`slots=True` dataclasses, `X | Y`).
const REQUIRES_PYTHON: &str = ">=3.10";

/// Lowest PyTorch release `kfam_runtime.torch` supports: the first with
/// `torch.library.impl_abstract`, the fallback of `register_fake` (2.4).
/// `python/kfam_runtime/torch.py` spells it too (`MIN_TORCH`; a test
/// compares), and so does the runtime's `torch` extra.
pub const MIN_TORCH: &str = "2.2";
/// The release the tests run against (`testenv/requirements.txt` pins it;
/// `TESTED_TORCH` of `python/kfam_runtime/torch.py`).
pub const TESTED_TORCH: &str = "2.9.1";

/// A module the same for every catalog: its file name, the emitter module
/// that renders it, and the renderer (given the first line).
type Rendered = (&'static str, &'static str, fn(&str) -> String);

/// The runtime's modules rendered from kfam's vocabularies and record
/// definitions.
const RENDERED: &[Rendered] = &[
    ("records.py", "records.rs", records::records_py),
    ("vocab.py", "vocab.rs", vocab::vocab_py),
];

/// The package, every file under `banner`
/// ([`crate::origin::Origin::banner`]) as its first line.
pub fn emit(ir: &Ir, banner: &str) -> Vec<GeneratedFile> {
    let header = header(banner);
    let package = &ir.catalog.python_package;
    let module = |name: &str| format!("{ROOT}/{package}/{name}");
    // `_abi.py` records the digest of `_tables.py` and checks itself: the
    // runtime checks each before it reads it (`kfam_runtime.check_data`).
    let tables = tables::tables_py(ir, &header);
    let abi = abi::abi_py(ir, &header, &crate::ir::sha256_hex(tables.as_bytes()));
    vec![
        GeneratedFile::new(format!("{ROOT}/.gitignore"), gitignore(&header)),
        GeneratedFile::new(format!("{ROOT}/pyproject.toml"), pyproject(ir, &header)),
        GeneratedFile::new(format!("{ROOT}/README.md"), readme(ir, banner)),
        GeneratedFile::new(
            module("__init__.py"),
            package::init_py(&ir.catalog, &header),
        ),
        GeneratedFile::new(module("_abi.py"), abi),
        GeneratedFile::new(module("_tables.py"), tables),
        GeneratedFile::new(
            module("context.py"),
            package::context_py(&ir.catalog, &header),
        ),
        GeneratedFile::new(module("py.typed"), header.clone()),
        GeneratedFile::new(module("torch.py"), package::torch_py(&ir.catalog, &header)),
    ]
}

/// The committed copies of the rendered modules of the runtime: `(path in
/// the repository, contents)`, each under a first line that names the test
/// rebuilding it. `codegen/tests/sourcegen.rs` fails when
/// `python/kfam_runtime/` differs, and rewrites it with `KFAM_BLESS=1`.
pub fn sourcegen() -> Vec<(String, String)> {
    RENDERED
        .iter()
        .map(|&(name, rs, render)| {
            let first = format!(
                "# @generated from codegen/src/emit/python/{rs}: rebuild with \
                 `KFAM_BLESS=1 cargo test -p kfam-codegen --test integration sourcegen::`; do not edit\n"
            );
            (format!("{RUNTIME_PACKAGE}/{name}"), render(&first))
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
dependencies = ["{requirement}"]
classifiers = ["Typing :: Typed"]

[project.optional-dependencies]
torch = ["{torch}"]

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
        requirement = runtime_requirement(GENERATOR_VERSION),
        torch = runtime_requirement(GENERATOR_VERSION).replacen(
            "kfam-runtime",
            "kfam-runtime[torch]",
            1
        ),
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
         `{namespace}` namespace.\n\n\
         The code that reads it is kfam's Python runtime, `{requirement}`, a\n\
         distribution of its own. Once kfam publishes it on PyPI, pip installs it with\n\
         this package. Until then, build its wheel from a checkout of kfam (`pip wheel\n\
         --no-deps --wheel-dir DIR python/`) and install this package with pip alone,\n\
         pointing it there: `pip install --find-links DIR .` in this directory.\n\n",
        distribution = c.python_distribution,
        name = c.name,
        package = c.python_package,
        namespace = c.torch_namespace,
        requirement = runtime_requirement(GENERATOR_VERSION),
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
    use crate::record::{OperationKind, VOCABULARIES};

    /// A runtime source of the repository (not part of the crate's package:
    /// these checks run in the workspace).
    fn runtime_source(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(RUNTIME_PACKAGE)
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
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

    /// The names a module's `__all__ = [...]` lists, in order.
    fn all_of(text: &str) -> Vec<&str> {
        let all = &text[text.find("\n__all__ = [\n").expect("__all__")..];
        let end = all.find("\n]").expect("the end of __all__");
        all[..end]
            .lines()
            .filter_map(|l| l.strip_prefix("    \"")?.strip_suffix("\","))
            .collect()
    }

    /// A catalog's `__all__` lists its names, each one imported or
    /// defined, and adds the runtime's records (every record and
    /// operation class) and shared vocabularies (those a catalog declares
    /// come from its `_abi`).
    #[test]
    fn init_exports_every_public_name() {
        let catalog = crate::ir::Catalog::default();
        let init = package::init_py(&catalog, "");
        let error = crate::names::python_error_class(&catalog.name);
        assert_eq!(error, "KfamError");
        let want = package::init_all(&error);
        assert_eq!(all_of(&init), want);
        for name in &want {
            let name = name.as_str();
            assert!(
                init.contains(&format!("    {name},\n"))
                    || init.contains(&format!("\n{name} = CATALOG.{name}\n"))
                    || init.contains(&format!("\nclass {name}("))
                    || init.contains(&format!("\n{name}: Final = "))
                    || init.contains(&format!("    {name}: Final["))
                    || init.contains(&format!("    {name}: Final = "))
                    || init.contains(&format!(" as {name}\n")),
                "{name} is in __all__ but neither imported nor defined"
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

    /// The constants the runtime's sources spell by hand are the generator's.
    #[test]
    fn sources_spell_the_generators_constants() {
        let shared = runtime_source("_shared.py");
        assert!(shared.contains(&format!(
            "\nMAX_DOCUMENT_BYTES: Final[int] = {MAX_DOCUMENT_BYTES}\n"
        )));
        let torch = runtime_source("torch.py");
        for line in [
            format!("\nMIN_TORCH: Final[str] = \"{MIN_TORCH}\"\n"),
            format!("\nSUPPORTED_TORCH: Final[str] = \"{MIN_TORCH} or newer\"\n"),
            format!("\nTESTED_TORCH: Final[str] = \"{TESTED_TORCH}\"\n"),
        ] {
            assert!(torch.contains(&line), "torch.py lacks {line:?}");
        }
        let init = runtime_source("_version.py");
        assert!(
            init.contains(&format!(
                "\n__version__: Final[str] = \"{GENERATOR_VERSION}\"\n"
            )),
            "kfam_runtime.__version__ is not the workspace's version {GENERATOR_VERSION}"
        );
        let pins = include_str!("../../../../testenv/requirements.txt");
        assert!(
            pins.lines().any(|l| l == format!("torch=={TESTED_TORCH}")),
            "testenv/requirements.txt does not pin torch {TESTED_TORCH}"
        );
    }
}
