//! The build-script API: a crate's `build.rs` checks a manifest directory
//! and writes its tables for `kfam_runtime` into `OUT_DIR`, as prost-build
//! writes messages (docs/rust.md, "From a build script"):
//!
//! ```ignore
//! // build.rs
//! fn main() {
//!     kfam_codegen::build::compile("manifest").unwrap();
//! }
//! ```
//!
//! ```ignore
//! // src/lib.rs
//! pub mod catalog {
//!     include!(concat!(env!("OUT_DIR"), "/kfam_catalog.rs"));
//! }
//! // catalog::CATALOG.capability(...), catalog::FAMILIES, ...
//! ```
//!
//! Unlike `manifest!`, a build script can ask cargo to watch the manifest
//! directory itself: a family file added to `families/` reruns it.

use std::fmt;
use std::path::{Path, PathBuf};

use annotate_snippets::Renderer;

use crate::diag::Report;
use crate::emit::rust::embedded_source;

/// What [`Builder::compile`] refuses: the manifest's diagnostics (every
/// error and warning, rendered as `kfam check` prints them), or why the
/// file could not be written.
pub struct Error(String);

/// The text itself, so that `build::compile(...).unwrap()` in a build
/// script prints the diagnostics as `kfam check` does.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// Where a manifest's tables go and how they are typed.
#[derive(Clone, Debug)]
pub struct Builder {
    manifest: PathBuf,
    out_dir: Option<PathBuf>,
    file_name: String,
    runtime: String,
    cargo_directives: bool,
    c_abi: bool,
}

impl Builder {
    /// The tables of the manifest directory `manifest` (relative to the
    /// crate's directory when run by cargo, which runs build scripts there).
    pub fn new(manifest: impl Into<PathBuf>) -> Self {
        Builder {
            manifest: manifest.into(),
            out_dir: None,
            file_name: "kfam_catalog.rs".to_owned(),
            runtime: "::kfam_runtime".to_owned(),
            cargo_directives: true,
            c_abi: false,
        }
    }

    /// The directory to write into (default: `OUT_DIR`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The file's name (default `kfam_catalog.rs`): one per catalog when a
    /// crate embeds several.
    pub fn file_name(mut self, name: impl Into<String>) -> Self {
        self.file_name = name.into();
        self
    }

    /// The path of the runtime crate the tables are typed by (default
    /// `::kfam_runtime`; a crate that renames or re-exports it says where).
    pub fn runtime_path(mut self, path: impl Into<String>) -> Self {
        self.runtime = path.into();
        self
    }

    /// Whether to print `cargo:rerun-if-changed` for the manifest
    /// directory and `cargo:warning` for each warning (default: yes; off
    /// outside a build script).
    pub fn cargo_directives(mut self, on: bool) -> Self {
        self.cargo_directives = on;
        self
    }

    /// Whether the crate also exports the catalog's C ABI (default: no):
    /// the functions its header declares, named with its C
    /// prefix (`npu_capability`, ...), from the crate's `cdylib` or
    /// `staticlib`. The catalog's headers are written into
    /// `OUT_DIR/include` (`npu/npu.h`), their tables compiled into the crate
    /// with `cc`, and the tables file ends with `c_abi!` (docs/c.md, "A
    /// catalog's own library").
    pub fn c_abi(mut self, on: bool) -> Self {
        self.c_abi = on;
        self
    }

    /// Checks the manifest (with the review gate, as `kfam check`) and
    /// writes its tables; the file written.
    pub fn compile(self) -> Result<PathBuf, Error> {
        if self.cargo_directives {
            // A directory is watched whole: an added family file reruns.
            println!("cargo:rerun-if-changed={}", self.manifest.display());
        }
        let (ir, report) = crate::check_dir(&self.manifest);
        let rendered = render(&report);
        if self.cargo_directives {
            for d in report.diagnostics.iter().filter(|d| !d.is_error()) {
                let one = d.render(&report.sources, &Renderer::plain());
                for line in one.lines() {
                    println!("cargo:warning={line}");
                }
            }
        }
        let ir = ir.ok_or(Error(rendered))?;
        let dir = match self.out_dir {
            Some(dir) => dir,
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    Error(
                        "OUT_DIR is not set: run from a build script, or call `out_dir`".to_owned(),
                    )
                })?,
        };
        let path = dir.join(&self.file_name);
        let banner = format!(
            "// @generated by kfam_codegen::build from {}: do not edit\n",
            self.manifest.display()
        );
        let mut text = embedded_source(&ir, &self.runtime, &banner);
        if self.c_abi {
            c_library(&ir, &dir)?;
            if self.cargo_directives {
                soname(&ir);
            }
            text.push_str(&format!(
                "\n{}::c_abi!({:?}, CATALOG);\n",
                self.runtime, ir.catalog.c_prefix
            ));
        }
        write_if_changed(&path, &text).map_err(|e| cannot_write(&path, e))?;
        Ok(path)
    }
}

fn cannot_write(path: &Path, e: std::io::Error) -> Error {
    Error(format!("cannot write {}: {e}", path.display()))
}

/// The catalog's headers into `dir/include`, and its C tables compiled
/// (`c/shim.c` against them) into the crate being built.
fn c_library(ir: &crate::ir::Ir, dir: &Path) -> Result<(), Error> {
    let prefix = &ir.catalog.c_prefix;
    for file in crate::emit::c::emit(&crate::plan::Plan::new(ir)) {
        let path = dir.join(&file.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| cannot_write(parent, e))?;
        }
        write_if_changed(&path, &file.contents).map_err(|e| cannot_write(&path, e))?;
    }
    let shim = dir.join("kfam_shim.c");
    write_if_changed(&shim, SHIM).map_err(|e| cannot_write(&shim, e))?;
    cc::Build::new()
        .file(&shim)
        .include(dir.join("include"))
        .define("KFAM_SHIM_PREFIX", prefix.as_str())
        .define(
            "KFAM_SHIM_HEADER",
            format!("\"{prefix}/{prefix}.h\"").as_str(),
        )
        .define(
            &format!("{}_PRIVATE_TABLES", prefix.to_ascii_uppercase()),
            None,
        )
        .std("c99")
        .warnings(true)
        .extra_warnings(true)
        // Warnings fail kfam's own builds (`.cargo/config.toml` sets
        // KFAM_C_WERROR), not a team's: a newer compiler's new warning
        // must not break a catalog that built yesterday.
        .warnings_into_errors(c_werror())
        // Leaf accessors over static tables: a frame pointer buys nothing,
        // and asking for one makes cc probe the compiler on every run.
        .force_frame_pointer(false)
        .cargo_metadata(std::env::var_os("OUT_DIR").is_some())
        .try_compile(&format!("{prefix}_kfam_tables"))
        .map_err(|e| Error(format!("cannot compile the C tables of `{prefix}`: {e}")))
}

/// Whether the C tables compile with `-Werror`: `KFAM_C_WERROR=1`.
fn c_werror() -> bool {
    println!("cargo:rerun-if-env-changed=KFAM_C_WERROR");
    std::env::var_os("KFAM_C_WERROR").is_some_and(|v| v == "1")
}

/// On Linux, the crate's shared library's SONAME is the name the catalog's
/// CMake and pkg-config files link (`lib<catalog>_catalog`) with the ABI
/// major (`libnpuops_catalog.so.1`), whatever the crate is called, so the
/// dynamic loader never pairs a program with a library of another major.
fn soname(ir: &crate::ir::Ir) {
    if std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux") {
        println!(
            "cargo:rustc-cdylib-link-arg=-Wl,-soname,lib{}_catalog.so.{}",
            ir.catalog.name, ir.abi.major
        );
    }
}

/// The accessors of a catalog's C tables (real C, compiled per catalog).
const SHIM: &str = include_str!("../c/shim.c");

/// `Builder::new(manifest).compile()`: the tables of `manifest` into
/// `OUT_DIR/kfam_catalog.rs`.
pub fn compile(manifest: impl AsRef<Path>) -> Result<PathBuf, Error> {
    Builder::new(manifest.as_ref()).compile()
}

fn render(report: &Report) -> String {
    report.render_human(&Renderer::plain())
}

/// Leaves an unchanged file alone, so its modification time (which cargo
/// compares) moves only when the tables do.
fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text)
}
