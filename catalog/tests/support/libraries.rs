//! The two C libraries of a catalog that the C tests link, each the way
//! its users get it: the Rust-built one (this crate's staticlib and cdylib,
//! `kfam_runtime::c_abi!`), and the one a C/C++ team builds, the generated
//! unit (`src/PREFIX_catalog.c`) compiled by gcc and linked with the
//! prebuilt runtime libkfamrt (kfam-native, which cargo builds beside this
//! test as a dev-dependency). Shared by c_abi.rs, c_conformance.rs and
//! c_context.rs.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `target/<profile>/deps`, where cargo puts this crate's and kfam-native's
/// libraries beside the test executable.
pub fn deps_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().to_path_buf()
}

/// Which library a program links.
#[derive(Clone, Copy, Debug)]
pub enum Library {
    /// This crate's own, built by cargo from Rust.
    RustBuilt,
    /// The generated C unit over the prebuilt runtime.
    Prebuilt,
}

pub const BOTH: [Library; 2] = [Library::RustBuilt, Library::Prebuilt];

/// The system libraries a Rust static library needs on Linux.
pub const NATIVE_LIBS: &[&str] = &["-lpthread", "-ldl", "-lm"];

/// A built catalog library: where it is, and how a program links it.
pub struct Built {
    /// Holds the shared library under its SONAME (and libkfamrt.so.1 for
    /// the prebuilt one): the program's LD_LIBRARY_PATH.
    pub dir: PathBuf,
    shared: Vec<String>,
    static_: Vec<String>,
}

impl Built {
    /// The linker arguments of a program that links it.
    pub fn link_args(&self, shared: bool) -> &[String] {
        if shared {
            &self.shared
        } else {
            &self.static_
        }
    }
}

fn run(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?} (gcc and binutils are required): {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// [`build`] for this repository's catalog, from `generated/`.
pub fn shipped(library: Library, dir: &Path) -> Built {
    let generated = Path::new(env!("CARGO_MANIFEST_DIR")).join("../generated");
    build(
        library,
        "kfam",
        kfam_catalog::ABI.major,
        &generated.join("src/kfam_catalog.c"),
        &generated.join("include"),
        &dir.join(format!("{library:?}")),
    )
}

/// Build (or, for the Rust-built one, place) the library of the catalog
/// `name` (C prefix `prefix`, ABI major `major`) into `dir`. `unit` is its
/// generated C unit, `include` the directory of its headers.
pub fn build(
    library: Library,
    name: &str,
    major: u16,
    unit: &Path,
    include: &Path,
    dir: &Path,
) -> Built {
    std::fs::create_dir_all(dir).unwrap();
    let deps = deps_dir();
    let soname = format!("lib{name}_catalog.so.{major}");
    let native = NATIVE_LIBS.iter().map(|s| s.to_string());
    match library {
        Library::RustBuilt => {
            // The program needs the library by its SONAME, as an installed
            // library is found; cargo writes `lib<name>_catalog.so`.
            std::os::unix::fs::symlink(
                deps.join(format!("lib{name}_catalog.so")),
                dir.join(&soname),
            )
            .unwrap();
            Built {
                dir: dir.to_path_buf(),
                shared: vec![format!("-L{}", deps.display()), format!("-l{name}_catalog")],
                static_: std::iter::once(
                    deps.join(format!("lib{name}_catalog.a"))
                        .display()
                        .to_string(),
                )
                .chain(native)
                .collect(),
            }
        }
        Library::Prebuilt => {
            std::os::unix::fs::symlink(deps.join("libkfamrt.so"), dir.join("libkfamrt.so.1"))
                .unwrap();
            let c99 = [
                "-std=c99",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                "-O1",
            ];
            let shared = dir.join(&soname);
            run(Command::new("gcc")
                .args(c99)
                .args(["-fPIC", "-shared", "-o"])
                .arg(&shared)
                .arg(format!("-I{}", include.display()))
                .arg(unit)
                .arg(format!("-Wl,-soname,{soname}"))
                .arg("-Wl,-rpath,$ORIGIN")
                .arg(format!("-L{}", deps.display()))
                .arg("-l:libkfamrt.so"));
            std::os::unix::fs::symlink(&soname, dir.join(format!("lib{name}_catalog.so"))).unwrap();
            let object = dir.join(format!("{name}_catalog.o"));
            run(Command::new("gcc")
                .args(c99)
                .arg("-c")
                .arg("-o")
                .arg(&object)
                .arg(format!("-I{}", include.display()))
                .arg(unit));
            let archive = dir.join(format!("lib{name}_catalog.a"));
            run(Command::new("ar").arg("rcs").arg(&archive).arg(&object));
            Built {
                dir: dir.to_path_buf(),
                shared: vec![format!("-L{}", dir.display()), format!("-l{name}_catalog")],
                static_: [archive, deps.join("libkfamrt.a")]
                    .iter()
                    .map(|p| p.display().to_string())
                    .chain(native)
                    .collect(),
            }
        }
    }
}
