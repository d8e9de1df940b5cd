//! The `kfam-cli` wheel (`codegen/pyproject.toml`), the way a team without a
//! Rust toolchain gets `kfam`: built with the pinned maturin and zig
//! (`testenv/requirements.txt`) by the one command docs/install.md gives,
//! `maturin build --release --zig`, with the `kfam-runtime` wheel beside
//! it; its contents, metadata, manylinux2014 tag (`auditwheel show`) and
//! glibc symbol versions checked; both installed by pip alone from the
//! directory (`pip install --no-index --find-links`) into a fresh virtual
//! environment, and the installed `kfam` run from that environment's
//! `bin/`, outside the workspace: `--version`, `init`, `check`, `generate`
//! (byte for byte what the workspace's own binary writes) and the language
//! server over stdio. The wheel also carries the prebuilt native runtime and
//! kfam's CMake package, built and staged by the same command
//! (`codegen/build.rs`): a C++ team builds its catalog's library with them
//! and CMake alone, in both workflows of docs/adopting.md
//! (`cli_wheel/cmake_team.rs`).
//!
//! One test, so one wheel build per run. The release build goes to the
//! workspace's target directory (`target/x86_64-unknown-linux-gnu/release/`:
//! `--zig` names the target), where a later run finds it up to date.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::root;

#[path = "cli_wheel/cmake_team.rs"]
mod cmake_team;

const VERSION: &str = env!("CARGO_PKG_VERSION");
const LICENSE: &str = env!("CARGO_PKG_LICENSE");
/// The distribution (not `kfam`, the shipped catalog's Python package:
/// codegen/pyproject.toml says why) and its wheel-file spelling.
const DISTRIBUTION: &str = "kfam-cli";
const WHEEL_STEM: &str = "kfam_cli";
/// The binary is about 10 MB and the runtime's libraries 16 MB, the wheel
/// about 8 MB compressed: this bound catches a debug or unstripped build,
/// or files the wheel should not carry.
const MAX_WHEEL_BYTES: u64 = 16 << 20;
/// What the wheel installs beside the binary, below `<prefix>/`.
const RUNTIME_FILES: &[&str] = &[
    "lib/libkfamrt.so.1",
    "lib/libkfamrt.a",
    "lib/cmake/kfam/kfam-config.cmake",
    "lib/cmake/kfam/kfam-config-version.cmake",
    "lib/pkgconfig/kfamrt.pc",
];

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn run(what: &str, cmd: &mut Command) -> Output {
    let shown = format!("{cmd:?}");
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {shown}: {e}"));
    assert!(
        out.status.success(),
        "{what}: {shown} failed ({})\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A command of the fresh environment, with nothing of the caller's Python
/// setup, cargo or the workspace in reach: it runs in `cwd` (outside the
/// workspace) with only the environment's `bin/` and the system's on PATH.
fn isolated(program: &Path, venv: &Path, cwd: &Path) -> Command {
    let mut c = Command::new(program);
    c.env_clear()
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", venv.join("bin").display()),
        )
        .env("HOME", cwd)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTHONNOUSERSITE", "1")
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .current_dir(cwd);
    c
}

/// Every file below `dir`, relative, with its contents, leaving out the
/// freshness stamp (it records which generator binary wrote the tree).
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.file_name().is_some_and(|n| n == ".kfam-cache") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).expect("below dir").to_path_buf();
                files.insert(rel, fs::read(&path).expect("read"));
            }
        }
    }
    files
}

/// The wheel's entries (name, size, Unix mode) and its METADATA, read with
/// the standard library's `zipfile`.
fn wheel_entries(wheel: &Path) -> (Vec<(String, u64, u32)>, String) {
    const SCRIPT: &str = "import json, sys, zipfile\n\
        z = zipfile.ZipFile(sys.argv[1])\n\
        meta = [n for n in z.namelist() if n.endswith('.dist-info/METADATA')]\n\
        print(json.dumps({\n\
            'entries': [[i.filename, i.file_size, i.external_attr >> 16] for i in z.infolist()],\n\
            'metadata': z.read(meta[0]).decode() if len(meta) == 1 else '',\n\
        }))\n";
    let out = run(
        "reading the wheel",
        kfam_testenv::python().args(["-c", SCRIPT]).arg(wheel),
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON from the wheel reader");
    let entries = v["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e[0].as_str().expect("name").to_owned(),
                e[1].as_u64().expect("size"),
                u32::try_from(e[2].as_u64().expect("mode")).expect("mode fits"),
            )
        })
        .collect();
    (
        entries,
        v["metadata"].as_str().expect("metadata").to_owned(),
    )
}

/// The `GLIBC_x.y[.z]` versions `file`'s dynamic symbols name
/// (`objdump -T`), sorted.
fn glibc_versions(file: &Path) -> Vec<(u32, u32, Option<u32>)> {
    let out = run("objdump -T", Command::new("objdump").arg("-T").arg(file));
    let mut versions: Vec<(u32, u32, Option<u32>)> = String::from_utf8_lossy(&out.stdout)
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter_map(|w| {
            let mut parts = w.strip_prefix("GLIBC_")?.split('.');
            let major = parts.next()?.parse().ok()?;
            let minor = parts.next()?.parse().ok()?;
            Some((major, minor, parts.next().and_then(|p| p.parse().ok())))
        })
        .collect();
    versions.sort_unstable();
    versions.dedup();
    versions
}

/// The values of a metadata field (`Name: value` lines of the header).
fn field<'a>(metadata: &'a str, name: &str) -> Vec<&'a str> {
    metadata
        .lines()
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.strip_prefix(name)?.strip_prefix(": "))
        .collect()
}

#[test]
fn wheel_installs_and_runs_without_the_workspace() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let dist = scratch.path().join("dist");

    // Build: what docs/install.md tells a maintainer to run, in an
    // environment where the pinned maturin and zig are installed (maturin
    // finds zig as `python3 -m ziglang` on the PATH). (The test environment
    // is provisioned first, so the time printed is the build's.)
    let mut maturin = kfam_testenv::python();
    let tools_path = format!(
        "{}:{}",
        kfam_testenv::venv_bin("python3")
            .parent()
            .expect("the environment's bin/")
            .display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let started = Instant::now();
    run(
        "building the wheel",
        maturin
            .args(["-m", "maturin", "build", "--release", "--zig", "--out"])
            .arg(&dist)
            .env("PATH", &tools_path)
            .current_dir(crate_dir()),
    );
    eprintln!(
        "cli_wheel: maturin build --release --zig (the binary, and libkfamrt by codegen/build.rs) took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let wheels: Vec<PathBuf> = fs::read_dir(&dist)
        .expect("the wheel's directory")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(wheels.len(), 1, "one wheel: {wheels:?}");
    let wheel = &wheels[0].clone();
    // The Python runtime's wheel, into the same directory.
    let started = Instant::now();
    run(
        "building kfam-runtime's wheel",
        kfam_testenv::python()
            .args([
                "-m",
                "pip",
                "wheel",
                "--quiet",
                "--no-deps",
                "--no-build-isolation",
                "--no-index",
                "--wheel-dir",
            ])
            .arg(&dist)
            .arg(root().join("python")),
    );
    eprintln!(
        "cli_wheel: pip wheel python/ (kfam-runtime) took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let runtime_wheel = dist.join(format!("kfam_runtime-{VERSION}-py3-none-any.whl"));
    assert!(runtime_wheel.is_file(), "no {}", runtime_wheel.display());
    let file_name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    // A platform wheel for any Python 3 (the binary does not link
    // libpython), for glibc 2.17 and later.
    assert!(
        file_name.starts_with(&format!("{WHEEL_STEM}-{VERSION}-py3-none-"))
            && file_name.ends_with(".whl")
            && file_name.contains("manylinux2014_x86_64"),
        "{file_name}"
    );
    let size = fs::metadata(wheel).expect("wheel").len();
    eprintln!(
        "cli_wheel: {file_name}: {size} bytes ({:.1} MiB)",
        size as f64 / f64::from(1 << 20)
    );
    assert!(
        size <= MAX_WHEEL_BYTES,
        "{file_name} is {size} bytes, over {MAX_WHEEL_BYTES}"
    );
    // auditwheel reads every ELF file of the wheel (the binary and
    // libkfamrt) and names the policy their symbols allow.
    let audit = run(
        "auditwheel show",
        Command::new(kfam_testenv::venv_bin("auditwheel"))
            .arg("show")
            .arg(wheel),
    );
    let audit = String::from_utf8_lossy(&audit.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    eprintln!("cli_wheel: auditwheel show: {audit}");
    assert!(
        audit.contains("is consistent with the following platform tag: \"manylinux_2_17_x86_64\""),
        "{audit}"
    );

    // Contents: the binary as an executable script, the runtime and the
    // packages as data, the metadata, nothing else (no Python module, no
    // file of the workspace).
    let (entries, metadata) = wheel_entries(wheel);
    let data = format!("{WHEEL_STEM}-{VERSION}.data/");
    let info = format!("{WHEEL_STEM}-{VERSION}.dist-info/");
    let script = format!("{data}scripts/kfam");
    let (_, binary_size, mode) = entries
        .iter()
        .find(|(name, _, _)| *name == script)
        .unwrap_or_else(|| panic!("no {script} in the wheel: {entries:?}"));
    assert!(
        mode & 0o111 == 0o111,
        "{script} is not executable: {mode:o}"
    );
    assert!(*binary_size > 1 << 20, "{script} is {binary_size} bytes");
    let runtime: Vec<String> = RUNTIME_FILES
        .iter()
        .map(|f| format!("{data}data/{f}"))
        .collect();
    for file in &runtime {
        assert!(
            entries.iter().any(|(n, _, _)| n == file),
            "no {file} in the wheel: {entries:?}"
        );
    }
    for (name, _, _) in &entries {
        assert!(
            *name == script || name.starts_with(&info) || runtime.contains(name),
            "unexpected file in the wheel: {name}"
        );
    }
    for required in ["METADATA", "WHEEL", "RECORD"] {
        let path = format!("{info}{required}");
        assert!(
            entries.iter().any(|(n, _, _)| *n == path),
            "no {path} in the wheel"
        );
    }
    assert_eq!(field(&metadata, "Name"), [DISTRIBUTION], "{metadata}");
    assert_eq!(field(&metadata, "Version"), [VERSION], "{metadata}");
    assert_eq!(
        field(&metadata, "License-Expression"),
        [LICENSE],
        "{metadata}"
    );

    // A fresh environment (not the test environment: nothing installed in
    // it), and the local wheel installed without an index.
    let home = scratch.path().join("home");
    fs::create_dir(&home).expect("home");
    let venv = scratch.path().join("venv");
    run(
        "creating a fresh virtual environment",
        kfam_testenv::python().args(["-m", "venv"]).arg(&venv),
    );
    let kfam_bin = venv.join("bin").join("kfam");
    let kfam = |args: &[&str]| -> Output {
        run(
            &format!("the installed kfam {}", args.join(" ")),
            isolated(&kfam_bin, &venv, &home).args(args),
        )
    };
    let install_started = Instant::now();
    // What a team runs with the wheels in a directory: pip alone, no index.
    run(
        "pip install --no-index --find-links",
        isolated(&venv.join("bin").join("python"), &venv, &home)
            .args([
                "-m",
                "pip",
                "install",
                "--no-index",
                "--quiet",
                "--find-links",
            ])
            .arg(&dist)
            .args([DISTRIBUTION, "kfam-runtime"]),
    );
    run(
        "the installed kfam_runtime",
        isolated(&venv.join("bin").join("python"), &venv, &home).args([
            "-c",
            &format!("import kfam_runtime; assert kfam_runtime.__version__ == {VERSION:?}"),
        ]),
    );
    // No symbol newer than the tag promises, in the binary or the runtime.
    for file in [venv.join("bin/kfam"), venv.join("lib/libkfamrt.so.1")] {
        let versions = glibc_versions(&file);
        let newest = versions.iter().max().expect("glibc symbols");
        eprintln!(
            "cli_wheel: {}: glibc symbol versions {}",
            file.file_name().unwrap().to_string_lossy(),
            versions
                .iter()
                .map(|(a, b, c)| format!(
                    "{a}.{b}{}",
                    c.map(|c| format!(".{c}")).unwrap_or_default()
                ))
                .collect::<Vec<_>>()
                .join(" ")
        );
        assert!(
            (newest.0, newest.1) <= (2, 17),
            "{} needs GLIBC_{}.{}",
            file.display(),
            newest.0,
            newest.1
        );
    }
    let version = kfam(&["--version"]);
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("kfam {VERSION}")
    );

    // A catalog of one's own, from nothing: init, check, generate.
    kfam(&["init", "demo_catalog"]);
    let check = kfam(&["check", "demo_catalog/manifest"]);
    eprintln!(
        "cli_wheel: from `pip install` to a clean `kfam check` (after --version and init): {:.2} s",
        install_started.elapsed().as_secs_f64()
    );
    let said = String::from_utf8_lossy(&check.stderr);
    assert!(!said.contains("warning"), "{said}");
    kfam(&[
        "generate",
        "demo_catalog/manifest",
        "--out",
        "demo_catalog/generated",
    ]);
    let generated = home.join("demo_catalog").join("generated");
    let files = tree(&generated);
    assert!(!files.is_empty(), "nothing in {}", generated.display());
    for expected in ["pyproject.toml", "__init__.py", ".h", ".rs", ".json", ".md"] {
        assert!(
            files
                .keys()
                .any(|p| p.to_string_lossy().ends_with(expected)),
            "no *{expected} in {}: {:?}",
            generated.display(),
            files.keys().collect::<Vec<_>>()
        );
    }
    // The same files as the workspace's own binary writes, run the same way
    // (the markers name the paths): the templates the generator embeds
    // travel inside the installed binary.
    let reference = scratch.path().join("reference");
    fs::create_dir(&reference).expect("reference");
    for args in [
        &["init", "demo_catalog"][..],
        &[
            "generate",
            "demo_catalog/manifest",
            "--out",
            "demo_catalog/generated",
        ],
    ] {
        run(
            "the workspace's kfam",
            Command::new(env!("CARGO_BIN_EXE_kfam"))
                .args(args)
                .env_remove("CI")
                .current_dir(&reference),
        );
    }
    let (installed, expected) = (
        tree(&home.join("demo_catalog")),
        tree(&reference.join("demo_catalog")),
    );
    let differ: Vec<_> = installed
        .keys()
        .chain(expected.keys())
        .filter(|p| installed.get(*p) != expected.get(*p))
        .collect();
    assert!(
        differ.is_empty(),
        "the installed kfam writes other files than the workspace's: {differ:?}"
    );

    language_server(&kfam_bin, &venv, &home);
    cmake_team::cmake_team(&venv, &home);
}

/// Writes one LSP message (Content-Length framing).
fn send(stdin: &mut impl Write, message: &Value) {
    let body = message.to_string();
    write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write to kfam lsp");
    stdin.flush().expect("flush");
}

/// Reads LSP messages from the server on a thread, so a silent server fails
/// the test after a timeout instead of hanging it.
fn messages(stdout: ChildStdout) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        loop {
            let mut length = None;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(v) = line.strip_prefix("Content-Length: ") {
                    length = v.parse::<usize>().ok();
                }
            }
            let mut body = vec![0; length.expect("a Content-Length header")];
            if reader.read_exact(&mut body).is_err() {
                return;
            }
            let message = serde_json::from_slice(&body).expect("a JSON message");
            if tx.send(message).is_err() {
                return;
            }
        }
    });
    rx
}

/// The response to request `id`, skipping the server's notifications.
fn response(rx: &mpsc::Receiver<Value>, id: u64, server: &mut Child) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(m) if m["id"] == json!(id) && m.get("method").is_none() => return m,
            Ok(_) => {}
            Err(e) => {
                let _ = server.kill();
                panic!("kfam lsp: no response to request {id}: {e}");
            }
        }
    }
}

fn language_server(kfam_bin: &Path, venv: &Path, cwd: &Path) {
    let mut server = isolated(kfam_bin, venv, cwd)
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the installed kfam lsp");
    let mut stdin = server.stdin.take().expect("stdin");
    let rx = messages(server.stdout.take().expect("stdout"));
    let root = format!("file://{}", cwd.join("demo_catalog").display());
    send(
        &mut stdin,
        &json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {
                "processId": std::process::id(),
                "rootUri": root,
                "capabilities": {},
                "workspaceFolders": [{"uri": root, "name": "demo_catalog"}],
            },
        }),
    );
    let init = response(&rx, 1, &mut server);
    let capabilities = &init["result"]["capabilities"];
    assert!(
        capabilities.as_object().is_some_and(|c| !c.is_empty()),
        "initialize answered without capabilities: {init}"
    );
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    );
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": null}),
    );
    let shutdown = response(&rx, 2, &mut server);
    assert!(
        shutdown.get("error").is_none(),
        "shutdown failed: {shutdown}"
    );
    send(&mut stdin, &json!({"jsonrpc": "2.0", "method": "exit"}));
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = server.try_wait().expect("wait for kfam lsp") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = server.kill();
            panic!("kfam lsp did not exit after `exit`");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    if let Some(mut e) = server.stderr.take() {
        let _ = e.read_to_string(&mut stderr);
    }
    assert!(status.success(), "kfam lsp exited with {status}\n{stderr}");
}

/// `kfam runtime` finds the runtime beside the binary, as the wheel lays it
/// out (`<prefix>/bin/kfam`, `<prefix>/lib/cmake/kfam/`), and says where
/// it comes from when there is none: a binary built by cargo has none.
#[test]
fn kfam_runtime_names_the_wheels_install_or_its_absence() {
    let out = Command::new(env!("CARGO_BIN_EXE_kfam"))
        .arg("runtime")
        .output()
        .expect("run kfam runtime");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no prebuilt runtime beside this kfam")
            && stderr.contains("pip install kfam-cli"),
        "{stderr}"
    );

    let prefix = tempfile::tempdir().expect("tempdir");
    let prefix = prefix.path().canonicalize().expect("canonical");
    fs::create_dir_all(prefix.join("bin")).unwrap();
    fs::create_dir_all(prefix.join("lib/cmake/kfam")).unwrap();
    fs::write(prefix.join("lib/cmake/kfam/kfam-config.cmake"), "").unwrap();
    let kfam = prefix.join("bin/kfam");
    fs::copy(env!("CARGO_BIN_EXE_kfam"), &kfam).unwrap();
    let said = |flag: &str| {
        let out = run("kfam runtime", Command::new(&kfam).args(["runtime", flag]));
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    assert_eq!(said("--prefix"), prefix.display().to_string());
    assert_eq!(said("--libdir"), prefix.join("lib").display().to_string());
    assert_eq!(
        said("--cmakedir"),
        prefix.join("lib/cmake/kfam").display().to_string()
    );
    assert_eq!(
        said("--pkgconfigdir"),
        prefix.join("lib/pkgconfig").display().to_string()
    );
}
