//! The tools kfam's tests run, provisioned on first use.
//!
//! `cargo test --workspace` is the whole test command: a test that needs
//! pytest, mypy, PyTorch or an npm tool asks this crate for it, and the
//! first such request of a machine creates `target/testenv/` from the pinned
//! lists beside this file (`requirements.txt`, `package.json` +
//! `package-lock.json`). Later requests reuse it; a changed pinned list is
//! installed again. Several test processes may ask at once: one provisions,
//! the others wait on a file lock. When provisioning fails (no network, no
//! `python3` or `npm`), the test fails with what is missing and the one
//! command that installs it; nothing is skipped. See docs/testing.md.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

/// The command that provisions everything ahead of time (also what every
/// failure message names).
pub const INSTALL_COMMAND: &str = "cargo run -p kfam-testenv";

const REQUIREMENTS: &str = include_str!("../requirements.txt");
const PACKAGE_JSON: &str = include_str!("../package.json");
const PACKAGE_LOCK: &str = include_str!("../package-lock.json");

/// Oldest Python the generated package supports (it uses `tomllib`).
const MIN_PYTHON: (u32, u32) = (3, 11);

/// Where the environment lives: `$KFAM_TESTENV` when set, else
/// `testenv/` in cargo's target directory.
pub fn dir() -> PathBuf {
    if let Some(d) = std::env::var_os("KFAM_TESTENV") {
        return PathBuf::from(d);
    }
    target_dir().join("testenv")
}

/// cargo's target directory of the workspace: `$CARGO_TARGET_DIR`, else
/// `target/` at the workspace's root.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent();
            workspace.unwrap_or(Path::new(".")).join("target")
        })
}

/// The environment's Python interpreter (with every package of
/// `requirements.txt`), provisioned if needed. Imports come from the
/// environment only: `PYTHONPATH`, `MYPYPATH`, the user site and bytecode
/// writing are turned off, so a test sees what a clean install sees.
pub fn python() -> Command {
    let exe = ensure(&PYTHON);
    let mut c = Command::new(exe);
    c.env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTHONNOUSERSITE", "1")
        .env_remove("PYTHONPATH")
        .env_remove("PYTHONHOME")
        .env_remove("MYPYPATH");
    c
}

/// kfam's Python runtime, the repository's `python/` (the import package
/// `kfam_runtime`), which every generated package imports.
pub fn runtime_dir() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent();
    workspace.unwrap_or(Path::new(".")).join("python")
}

/// A `PYTHONPATH` or `MYPYPATH` of `dirs` and, last, [`runtime_dir`]: the
/// generated packages under test come first, the runtime they import after.
pub fn search_path(dirs: &[&Path]) -> OsString {
    let runtime = runtime_dir();
    std::env::join_paths(dirs.iter().copied().chain([runtime.as_path()]))
        .expect("a search path of directories without the separator")
}

/// Run `script` in the environment's Python with `pythonpath` (and the
/// runtime, [`search_path`]) on its path, `input` on stdin; its stdout
/// lines. Panics (with stderr) when it fails.
pub fn python_lines(script: &str, args: &[&str], pythonpath: &Path, input: &str) -> Vec<String> {
    use std::io::Write as _;
    let mut child = python()
        .env("PYTHONPATH", search_path(&[pythonpath]))
        .args(["-c", script])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the test environment's python");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write to python");
    let out = child.wait_with_output().expect("python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The sets of options the tests run mypy with. mypy keys each cached
/// module by the options that affect it (`OPTIONS_AFFECTING_CACHE`:
/// `--python-version`, every strictness flag, `--untyped-calls-exclude`),
/// PyTorch's stubs included, which take about 12 s to read cold: each set
/// has one cache, which every run with that set shares. A flag meant for
/// the checked modules only (`disallow_any_expr`) goes in a per-module
/// section of a configuration file: set globally, it would apply to
/// PyTorch's modules too and make a set of its own (docs/testing.md).
#[derive(Clone, Copy, Debug)]
pub enum Mypy {
    /// `--strict`, for the environment's Python (3.11), as a user runs it.
    Strict,
    /// `--strict --python-version 3.10`, the oldest Python kfam supports.
    Strict310,
    /// The configuration of `kfam_runtime`'s own sources
    /// (`python/pyproject.toml`): `--strict` for Python 3.10, calls into
    /// `torch.library` (which PyTorch leaves unannotated) exempt from
    /// `--disallow-untyped-calls`, and `disallow_any_expr` for
    /// `kfam_runtime` but its torch layer. The torch layers are checked with
    /// it. (Its options given again on the command line would be read twice:
    /// `--untyped-calls-exclude` adds to the file's list.)
    RuntimeConfig,
}

impl Mypy {
    fn cache(self) -> &'static str {
        match self {
            Mypy::Strict => "strict",
            Mypy::Strict310 => "strict-3.10",
            Mypy::RuntimeConfig => "runtime-config",
        }
    }

    fn add_args(self, c: &mut Command) {
        match self {
            Mypy::Strict => c.arg("--strict"),
            Mypy::Strict310 => c.args(["--strict", "--python-version", "3.10"]),
            Mypy::RuntimeConfig => c
                .arg("--config-file")
                .arg(runtime_dir().join("pyproject.toml")),
        };
    }
}

/// `mypy` in the environment with `options`, and the cache of those
/// options that the environment keeps for every test and test process
/// (`<testenv>/mypy/<set>`): cold, a run re-reads PyTorch's stubs; warm,
/// it checks only what changed (under a second). One mypy runs at a time,
/// across processes (a file lock the interpreter holds), so a cache is
/// never written by two at once; mypy keeps its own answers correct for
/// modules that changed or moved, by path and content, whichever package
/// or interpreter a run checks with. Add the files or packages to check,
/// and no option that mypy keys its cache by.
pub fn mypy(options: Mypy) -> Command {
    const SHIM: &str = "import fcntl, runpy, sys\n\
        lock = open(sys.argv[1], 'w')\n\
        fcntl.flock(lock, fcntl.LOCK_EX)\n\
        sys.argv = ['mypy'] + sys.argv[2:]\n\
        runpy.run_module('mypy', run_name='__main__', alter_sys=True)\n";
    let root = dir().join("mypy");
    let _ = fs::create_dir_all(&root);
    let mut c = python();
    c.args(["-c", SHIM])
        .arg(root.join("lock"))
        .arg("--cache-dir")
        .arg(root.join(options.cache()));
    options.add_args(&mut c);
    c
}

/// The target directory every crate outside this workspace that the tests
/// build shares (the team crates, the packaged crates' verification):
/// `target/tmp/team_crates`, below the tests' `CARGO_TARGET_TMPDIR`.
pub fn team_target() -> PathBuf {
    target_dir().join("tmp").join("team_crates")
}

/// cargo for a team's crate outside this workspace, building in
/// [`team_target`]: the workspace's `RUSTFLAGS` do not reach it, and every
/// such build is made alike (without debug information, which nothing
/// reads) so that they share what they build.
pub fn team_cargo() -> Command {
    let mut c = Command::new(env!("CARGO"));
    c.env("CARGO_TARGET_DIR", team_target())
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env_remove("RUSTFLAGS");
    c
}

/// clang as a C (`cxx == false`) or C++ compiler driver: the pinned
/// `ziglang` wheel's `zig cc` / `zig c++`, which is clang with its own libc
/// and libc++ headers, so the tests need no system clang. It always compiles
/// (`-c` is implied): pass `-c -o FILE` rather than `-fsyntax-only`.
pub fn clang(cxx: bool) -> Command {
    let mut c = python();
    c.args(["-m", "ziglang", if cxx { "c++" } else { "cc" }]);
    c
}

/// An executable a pinned wheel installs into the environment's `bin/`
/// (`cmake`, `ninja`), provisioned if needed, so the tests need no system
/// copy.
pub fn venv_bin(name: &str) -> PathBuf {
    let python = ensure(&PYTHON);
    let bin = python
        .parent()
        .expect("the interpreter is in bin/")
        .join(name);
    assert!(
        bin.exists(),
        "`{name}` is not an executable of testenv/requirements.txt's packages ({})",
        bin.display()
    );
    bin
}

/// An executable of the pinned npm packages (`node_modules/.bin/NAME`),
/// provisioned if needed.
pub fn node_tool(name: &str) -> Command {
    let bin = ensure(&NODE).join(name);
    assert!(
        bin.exists(),
        "`{name}` is not an executable of testenv/package.json's packages ({})",
        bin.display()
    );
    Command::new(bin)
}

/// Provision both parts now; `Err` says what is missing.
pub fn provision() -> Result<(), String> {
    PYTHON.get()?;
    NODE.get()?;
    Ok(())
}

/// One provisioned part: done once per process, under a file lock across
/// processes.
struct Part {
    name: &'static str,
    cell: OnceLock<Result<PathBuf, String>>,
    /// What it is, for messages.
    what: &'static str,
    install: fn(&Path) -> Result<(), String>,
    /// What the part hands out, inside its directory.
    entry: fn(&Path) -> PathBuf,
    /// The inputs whose digest decides whether the part is current.
    inputs: fn() -> String,
}

static PYTHON: Part = Part {
    name: "venv",
    what: "Python",
    cell: OnceLock::new(),
    install: install_python,
    entry: |venv| venv.join("bin").join("python"),
    inputs: || {
        format!(
            "{REQUIREMENTS}\0{}",
            base_python_version().unwrap_or_default()
        )
    },
};

static NODE: Part = Part {
    name: "node",
    what: "npm",
    cell: OnceLock::new(),
    install: install_node,
    entry: |dir| dir.join("node_modules").join(".bin"),
    inputs: || format!("{PACKAGE_JSON}\0{PACKAGE_LOCK}"),
};

impl Part {
    fn get(&self) -> Result<PathBuf, String> {
        self.cell.get_or_init(|| self.provision()).clone()
    }

    fn provision(&self) -> Result<PathBuf, String> {
        let root = dir();
        fs::create_dir_all(&root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
        let lock_path = root.join(format!("{}.lock", self.name));
        let lock = File::create(&lock_path)
            .map_err(|e| format!("cannot create {}: {e}", lock_path.display()))?;
        lock.lock()
            .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
        let part = root.join(self.name);
        let stamp_path = root.join(format!("{}.stamp", self.name));
        let want = hex(&Sha256::digest((self.inputs)().as_bytes()));
        let have = fs::read_to_string(&stamp_path).unwrap_or_default();
        if have.trim() == want && part.exists() {
            return Ok((self.entry)(&part));
        }
        // Stale or absent: start over, so nothing of an old pin remains.
        let _ = fs::remove_file(&stamp_path);
        if part.exists() {
            fs::remove_dir_all(&part)
                .map_err(|e| format!("cannot remove the stale {}: {e}", part.display()))?;
        }
        eprintln!(
            "kfam-testenv: installing the pinned {} tools into {} (first use; reused afterwards)",
            self.what,
            part.display()
        );
        (self.install)(&part)?;
        fs::write(&stamp_path, format!("{want}\n"))
            .map_err(|e| format!("cannot write {}: {e}", stamp_path.display()))?;
        Ok((self.entry)(&part))
    }
}

fn ensure(part: &'static Part) -> PathBuf {
    match part.get() {
        Ok(p) => p,
        Err(e) => panic!(
            "the test environment is not available: {e}\n\
             It is installed from the pinned lists in testenv/ (PyPI and the npm registry \
             must be reachable); install it with `{INSTALL_COMMAND}`, or run the test \
             command again once online. Tests never skip a missing tool."
        ),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The interpreter the environment is created from: `$KFAM_PYTHON`, else
/// `python3`.
fn base_python() -> PathBuf {
    std::env::var_os("KFAM_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"))
}

fn base_python_version() -> Result<String, String> {
    let py = base_python();
    let out = Command::new(&py)
        .args(["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"])
        .output()
        .map_err(|e| match e.kind() {
            ErrorKind::NotFound => format!(
                "`{}` was not found: install Python >= {}.{}",
                py.display(),
                MIN_PYTHON.0,
                MIN_PYTHON.1
            ),
            _ => format!("cannot run `{}`: {e}", py.display()),
        })?;
    if !out.status.success() {
        return Err(format!("`{}` does not run", py.display()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn run(what: &str, cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let status = cmd
        .stdin(Stdio::null())
        .status()
        .map_err(|e| format!("{what}: cannot run {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what}: {shown} failed ({status})"))
    }
}

fn install_python(venv: &Path) -> Result<(), String> {
    let version = base_python_version()?;
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if (major, minor) < MIN_PYTHON {
        return Err(format!(
            "`{}` is Python {version}; the tests need Python >= {}.{}",
            base_python().display(),
            MIN_PYTHON.0,
            MIN_PYTHON.1
        ));
    }
    run(
        "creating the virtual environment",
        Command::new(base_python()).args(["-m", "venv"]).arg(venv),
    )?;
    let python = venv.join("bin").join("python");
    let requirements = venv.join("requirements.txt");
    fs::write(&requirements, REQUIREMENTS)
        .map_err(|e| format!("cannot write {}: {e}", requirements.display()))?;
    let missing = REQUIREMENTS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join(", ");
    // uv (pinned in the list) installs the rest: it downloads, unpacks and
    // byte-compiles in parallel, where pip does one file after another
    // (docs/testing.md, "The test environment"). pip puts uv itself in.
    let uv_pin = REQUIREMENTS
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("uv=="))
        .ok_or("testenv/requirements.txt pins no `uv==` (it installs the rest)")?;
    run(
        &format!("installing {uv_pin}"),
        Command::new(&python).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-input",
            uv_pin,
        ]),
    )?;
    run(
        &format!("installing {missing}"),
        Command::new(venv.join("bin").join("uv"))
            .args([
                "pip",
                "install",
                "--quiet",
                "--compile-bytecode",
                "--python",
            ])
            .arg(&python)
            .arg("-r")
            .arg(&requirements),
    )
}

fn install_node(dir: &Path) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (name, text) in [
        ("package.json", PACKAGE_JSON),
        ("package-lock.json", PACKAGE_LOCK),
    ] {
        let path = dir.join(name);
        fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let packages: serde_json::Value =
        serde_json::from_str(PACKAGE_JSON).map_err(|e| format!("testenv/package.json: {e}"))?;
    let names = packages["dependencies"]
        .as_object()
        .map(|d| d.keys().cloned().collect::<Vec<_>>().join(", "))
        .unwrap_or_default();
    let missing = format!("the npm packages of testenv/package.json ({names})");
    match Command::new("npm").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => {
            return Err(format!(
                "`npm` (Node.js) was not found; it installs {missing}"
            ))
        }
    }
    run(
        &format!("installing {missing}"),
        Command::new("npm")
            .args([
                "ci",
                "--no-audit",
                "--no-fund",
                "--ignore-scripts",
                "--loglevel=error",
            ])
            .current_dir(dir),
    )
}
