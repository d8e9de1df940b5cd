//! A C/C++ team adopts its catalog with the wheel and CMake alone
//! (docs/adopting.md): no cargo, no rustc on the PATH. `kfam init` starts
//! its catalog (its own prefix, platform and status codes);
//! `find_package(kfam)` and `kfam_add_catalog()` build a C++17 program
//! over it and a second catalog (`tests/c/cmake_team/`), in a scratch git
//! repository whose source tree the build never writes; an added family
//! file is refused by `cmake --build` until the lock records it, with the
//! command that does, and then reaches the program; `cmake --install`
//! installs the library and the program, which runs with no
//! `LD_LIBRARY_PATH`, and a second program finds the library with
//! `find_package(xdnaops)` and with pkg-config; a header of another
//! version of the catalog is refused by the installed library, both named;
//! a `major` bump reaches the SONAME by `cmake --build` alone; and each
//! workflow of docs/adopting.md (outputs generated at build time, or
//! committed) passes and fails its documented CI check as the page says.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Instant;

use super::{isolated, run};
use crate::support::root;
use crate::support::tree::copy_dir;

/// `text` with each `(from, to)` replaced, each of which must occur.
fn edit(path: &Path, edits: &[(&str, &str)]) {
    let mut text = fs::read_to_string(path).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{}: no `{from}`", path.display());
        text = text.replace(from, to);
    }
    fs::write(path, text).unwrap();
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The lines `expected` must all be in `text`.
fn has_lines(what: &str, text: &str, expected: &[&str]) {
    for line in expected {
        assert!(
            text.lines().any(|l| l == *line),
            "{what}: no line `{line}` in:\n{text}"
        );
    }
}

/// `cmd` run to completion, which must fail: its stdout and stderr.
fn fails(what: &str, cmd: &mut Command) -> String {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{what} succeeded:\n{text}");
    text
}

/// git in `repo`, as the team's shell has it.
fn git(venv: &Path, home: &Path, repo: &Path, args: &[&str]) -> String {
    let mut c = isolated(Path::new("/usr/bin/git"), venv, home);
    c.current_dir(repo)
        .args(args)
        .env("GIT_AUTHOR_NAME", "team")
        .env("GIT_AUTHOR_EMAIL", "team@example.invalid")
        .env("GIT_COMMITTER_NAME", "team")
        .env("GIT_COMMITTER_EMAIL", "team@example.invalid");
    stdout(&run(&format!("git {}", args.join(" ")), &mut c))
}

/// A fresh clone of `repo` at `home/name`, as a CI job starts from; its path.
fn clone_of(venv: &Path, home: &Path, repo: &Path, name: &str) -> PathBuf {
    let to = home.join(name);
    git(
        venv,
        home,
        home,
        &[
            "clone",
            "-q",
            &repo.display().to_string(),
            &to.display().to_string(),
        ],
    );
    to
}

/// The lines of the ```shell blocks of docs/adopting.md's C++ section
/// (before `## Start`), trimmed, comments removed.
fn documented_shell() -> Vec<String> {
    let doc = fs::read_to_string(root().join("docs/adopting.md")).unwrap();
    let section = &doc[..doc
        .find("## Start: `kfam init`")
        .expect("the Start heading")];
    let mut lines = Vec::new();
    let mut rest = section;
    while let Some(start) = rest.find("```shell\n") {
        let body = &rest[start + "```shell\n".len()..];
        let end = body.find("```").expect("a closed fence");
        for line in body[..end].lines() {
            let line = line.split(" # ").next().unwrap_or("").trim();
            if !line.is_empty() {
                lines.push(line.to_owned());
            }
        }
        rest = &body[end + 3..];
    }
    lines
}

/// The command the refused build names: the text between
/// "record it in the lock: `" and the next "`".
fn named_command(said: &str) -> String {
    let start = said
        .find("record it in the lock: `")
        .unwrap_or_else(|| panic!("no command named in:\n{said}"))
        + "record it in the lock: `".len();
    let end = start + said[start..].find('`').expect("the closing backquote");
    said[start..end].to_owned()
}

fn size(path: &Path) -> u64 {
    fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .len()
}

pub fn cmake_team(venv: &Path, home: &Path) {
    let kfam = venv.join("bin/kfam");
    // What the team's shell has: the environment's bin/ and the system's,
    // with no Rust toolchain.
    let which = run(
        "looking for a Rust toolchain",
        isolated(Path::new("/bin/sh"), venv, home).args(["-c", "command -v cargo rustc || true"]),
    );
    assert_eq!(stdout(&which), "", "cargo or rustc on the team's PATH");
    let cmake = kfam_testenv::venv_bin("cmake");
    let ninja = kfam_testenv::venv_bin("ninja");
    let tool = |program: &Path| isolated(program, venv, home);

    // The prebuilt runtime is where the wheel put it.
    let paths = stdout(&run("kfam runtime", tool(&kfam).arg("runtime")));
    let cmakedir = stdout(&run(
        "kfam runtime --cmakedir",
        tool(&kfam).args(["runtime", "--cmakedir"]),
    ));
    assert_eq!(
        PathBuf::from(cmakedir.trim()),
        venv.canonicalize().unwrap().join("lib/cmake/kfam"),
        "{paths}"
    );
    let runtime = venv.join("lib/libkfamrt.so.1");
    eprintln!(
        "cli_wheel: libkfamrt.so.1 {} bytes, libkfamrt.a {} bytes",
        size(&runtime),
        size(&venv.join("lib/libkfamrt.a"))
    );

    // The commands docs/adopting.md gives a C++ team, which this test runs.
    let documented = documented_shell();
    let expected_doc = [
        "python -m venv .venv && . .venv/bin/activate",
        "pip install kfam-cli",
        "kfam init --name xdnaops",
        "kfam generate --out build/xdnaops-kfam",
        "cmake -S . -B build -G Ninja",
        "cmake --build build",
        "kfam new scale_rows --kind elementwise_unary",
        "cmake --build build",
        "kfam generate --out build/xdnaops-kfam",
        "cmake --build build",
        "cmake --install build --prefix /opt/xdna",
        "kfam generate --check",
        "cmake -S . -B build -G Ninja && cmake --build build",
        "cmake -S . -B build -G Ninja && cmake --build build",
        "git status --porcelain",
    ];
    assert_eq!(
        documented, expected_doc,
        "docs/adopting.md's C++ commands changed: update this test"
    );
    let kfam_in = |dir: &Path, args: &[&str]| {
        run(
            &format!("kfam {}", args.join(" ")),
            tool(&kfam).args(args).current_dir(dir),
        )
    };
    let configure = |src: &Path, build: &Path| {
        let mut c = tool(&cmake);
        c.arg("-S")
            .arg(src)
            .arg("-B")
            .arg(build)
            .args(["-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"])
            .arg(format!("-DCMAKE_MAKE_PROGRAM={}", ninja.display()));
        c
    };
    let build_cmd = |build: &Path| {
        let mut c = tool(&cmake);
        c.arg("--build").arg(build);
        c
    };
    let status = |repo: &Path| git(venv, home, repo, &["status", "--porcelain"]);

    // The team's catalog, in its own git repository: kfam init, then its
    // own platform and codes, and the first lock, recorded by a person.
    let proj = home.join("xdna_runtime");
    fs::create_dir(&proj).unwrap();
    git(venv, home, &proj, &["init", "-q", "-b", "main"]);
    kfam_in(&proj, &["init", "--name", "xdnaops"]);
    let mut codes: Vec<(String, String)> = Vec::new();
    for (i, old) in (1000..1008).enumerate() {
        codes.push((format!("= -{old} "), format!("= -{} ", 100 + i)));
    }
    let mut abi_edits: Vec<(&str, &str)> = vec![("name = \"npu\"", "name = \"xdna3\"")];
    abi_edits.extend(codes.iter().map(|(a, b)| (a.as_str(), b.as_str())));
    edit(&proj.join("manifest/abi.toml"), &abi_edits);
    let family = proj.join("manifest/families/example_add.toml");
    let placeholder = fs::read_to_string(&family)
        .unwrap()
        .lines()
        .find_map(|l| {
            l.strip_prefix("sha256 = \"")?
                .strip_suffix('"')
                .map(str::to_owned)
        })
        .expect("the receipt's digest");
    // The qualified artifact's digest replaces the placeholder kfam init
    // wrote, which admission refuses.
    let sha = "5e".repeat(32);
    edit(
        &family,
        &[
            ("platform = \"npu\"", "platform = \"xdna3\""),
            (placeholder.as_str(), sha.as_str()),
        ],
    );
    copy_dir(
        &root().join("tests/catalogs/npuops"),
        &proj.join("npuops/manifest"),
    );
    for file in ["CMakeLists.txt", "app.cpp"] {
        fs::copy(
            root().join("tests/c/cmake_team").join(file),
            proj.join(file),
        )
        .unwrap();
    }
    fs::write(proj.join(".gitignore"), "/build/\n").unwrap();
    kfam_in(&proj, &["generate", "--out", "build/xdnaops-kfam"]);
    // The second catalog's lock, recorded the same way (a fixture's lock
    // may lag behind the lock format of the kfam under test).
    kfam_in(
        &proj,
        &["generate", "npuops/manifest", "--out", "build/npuops-kfam"],
    );
    git(venv, home, &proj, &["add", "-A"]);
    git(venv, home, &proj, &["commit", "-q", "-m", "the catalog"]);

    // Configure and build: kfam_add_catalog generates both catalogs into
    // the build tree and builds their libraries with the project's
    // compilers; the source tree stays as committed.
    let build = proj.join("build");
    let started = Instant::now();
    run("cmake configure", &mut configure(&proj, &build));
    let configured = started.elapsed();
    let started = Instant::now();
    run("cmake --build", &mut build_cmd(&build));
    let built = started.elapsed();
    assert_eq!(status(&proj), "", "the build wrote into the source tree");
    let meta = build.join("xdnaops-kfam/schema/examples/example_add.npu_sim.compiled_meta.json");
    let app = |exe: &Path| stdout(&run("app", tool(exe).arg(&meta).arg(&sha)));
    let expected = [
        "check xdnaops 0 ok",
        "check npuops 0 ok",
        "families 1: example_add",
        "capability 0 supported npu_sim",
        "capability onboard -101 no_profile: family `example_add` has no profile for platform `xdna3` in `onboard` mode",
        "capability unknown -105 not_found",
        "npuops capability 0 supported",
        "admit 0 admitted example_add",
        "admit other digest -107 not_approved",
        "call 0 ok",
        "bad call -104 dtype param 1: argument 1 (`rhs`): dtype: dtype fp16, expected bf16",
    ];
    for exe in ["app", "app_static"] {
        let out = app(&build.join(exe));
        has_lines(exe, &out, &expected);
        // A header of another catalog: refused, both named.
        assert!(
            out.contains("check other -102 prepared_incompatible: the program was compiled with the header of catalog `npuops`")
                && out.contains("this library serves catalog `xdnaops`"),
            "{out}"
        );
    }
    let catalog_so = build.join("libxdnaops_catalog.so.1");
    eprintln!(
        "cli_wheel: C++ team: configure {:.2} s, build {:.2} s; libxdnaops_catalog.so.1 {} bytes, \
         app {} bytes, app_static {} bytes",
        configured.as_secs_f64(),
        built.as_secs_f64(),
        size(&catalog_so),
        size(&build.join("app")),
        size(&build.join("app_static")),
    );
    // The headers of this version, for the stale program below.
    let v1 = home.join("xdnaops-v1-include");
    copy_dir(&build.join("xdnaops-kfam/include"), &v1);

    // A family file added: the build refuses it until the lock records
    // it, writing nothing, and names the command that records it.
    kfam_in(&proj, &["new", "scale_rows", "--kind", "elementwise_unary"]);
    let said = fails("cmake --build after kfam new", &mut build_cmd(&build));
    assert!(
        said.contains("approved.lock does not record everything the manifest approves"),
        "{said}"
    );
    assert_eq!(
        status(&proj),
        "?? manifest/families/scale_rows.toml\n",
        "the refused build wrote into the source tree"
    );
    let named = named_command(&said);
    assert!(
        named.starts_with("kfam generate ")
            && named.ends_with(&format!("--out {}", build.join("xdnaops-kfam").display())),
        "{named}"
    );
    // The page's spelling of it, from the project's root.
    kfam_in(&proj, &["generate", "--out", "build/xdnaops-kfam"]);
    let started = Instant::now();
    run("cmake --build again", &mut build_cmd(&build));
    let rebuilt = started.elapsed();
    has_lines(
        "app after a family was added",
        &app(&build.join("app")),
        &["families 2: example_add scale_rows"],
    );
    assert_eq!(
        status(&proj),
        " M manifest/approved.lock\n?? manifest/families/scale_rows.toml\n"
    );
    git(venv, home, &proj, &["add", "-A"]);
    git(venv, home, &proj, &["commit", "-q", "-m", "scale_rows"]);

    // Installed, the program with it: it runs from the prefix with no
    // LD_LIBRARY_PATH (the install RPATH find_package(kfam) sets), and
    // another program finds the catalog knowing only the install.
    let prefix = home.join("prefix");
    let started = Instant::now();
    run(
        "cmake --install",
        tool(&cmake)
            .arg("--install")
            .arg(&build)
            .arg("--prefix")
            .arg(&prefix),
    );
    let installed = started.elapsed();
    eprintln!(
        "cli_wheel: C++ team: rebuild after a new family {:.2} s, install {:.2} s",
        rebuilt.as_secs_f64(),
        installed.as_secs_f64()
    );
    for file in [
        "bin/app",
        "lib/libxdnaops_catalog.so.1",
        "lib/libxdnaops_catalog.a",
        "lib/libnpuops_catalog.so.1",
        "lib/libkfamrt.so.1",
        "lib/libkfamrt.a",
        "lib/cmake/xdnaops/xdnaops-config.cmake",
        "lib/pkgconfig/xdnaops.pc",
        "include/xdnaops/xdnaops.h",
    ] {
        assert!(prefix.join(file).exists(), "{file} not installed");
    }
    // Neither kfam nor its environment: the system's PATH alone.
    let system = |program: &Path| {
        let mut c = isolated(program, venv, home);
        c.env("PATH", "/usr/bin:/bin");
        c
    };
    let out = stdout(&run(
        "the installed app",
        system(&prefix.join("bin/app")).arg(&meta).arg(&sha),
    ));
    has_lines(
        "the installed app, no LD_LIBRARY_PATH",
        &out,
        &[
            "check xdnaops 0 ok",
            "families 2: example_add scale_rows",
            "call 0 ok",
        ],
    );
    // The installed headers name their manifest, not the build directory.
    let banner = fs::read_to_string(prefix.join("include/xdnaops/xdnaops.h"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(
        banner,
        "/* @generated by kfam from manifest by the project's build: do not edit; change the manifest and rebuild */"
    );
    let consumer = home.join("consumer");
    copy_dir(&root().join("tests/c/cmake_team/installed"), &consumer);
    run(
        "consumer configure",
        system(&cmake)
            .arg("-S")
            .arg(&consumer)
            .arg("-B")
            .arg(consumer.join("build"))
            .args(["-G", "Ninja"])
            .arg(format!("-DCMAKE_MAKE_PROGRAM={}", ninja.display()))
            .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display())),
    );
    run(
        "consumer build",
        system(&cmake).arg("--build").arg(consumer.join("build")),
    );
    let found = [
        "check 0 ok: the library serves catalog `xdnaops`",
        "families 2",
        "capability 0 supported",
        "unknown -105 not_found",
    ];
    let out = stdout(&run(
        "consumer",
        &mut system(&consumer.join("build/consumer")),
    ));
    has_lines("the installed catalog with find_package", &out, &found);

    // The same program with pkg-config's flags.
    let pc = |args: &[&str]| {
        let out = run(
            "pkg-config",
            system(Path::new("/usr/bin/pkg-config"))
                .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
                .args(args)
                .arg("xdnaops"),
        );
        stdout(&out)
            .split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let gxx = |include: &[String], out: &Path| {
        run(
            "g++",
            system(Path::new("/usr/bin/g++"))
                .args(["-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic"])
                .args(include)
                .arg(consumer.join("consumer.cpp"))
                .args(pc(&["--libs"]))
                .arg("-o")
                .arg(out),
        );
    };
    let with_pc = home.join("consumer_pc");
    gxx(&pc(&["--cflags"]), &with_pc);
    let out = stdout(&run(
        "consumer (pkg-config)",
        system(&with_pc).env("LD_LIBRARY_PATH", prefix.join("lib")),
    ));
    has_lines("the installed catalog with pkg-config", &out, &found);

    // A program compiled with the headers of the version before the new
    // family, linked with the installed library: refused, both named.
    let stale = home.join("consumer_stale");
    gxx(&[format!("-I{}", v1.display())], &stale);
    let out = stdout(&run(
        "stale consumer",
        system(&stale).env("LD_LIBRARY_PATH", prefix.join("lib")),
    ));
    let digest = |dir: &Path| {
        fs::read_to_string(dir.join("xdnaops/xdnaops.h"))
            .unwrap()
            .lines()
            .find_map(|l| {
                l.strip_prefix("#define XDNAOPS_CATALOG_DIGEST \"")
                    .map(|d| d[..12].to_owned())
            })
            .expect("the header defines its digest")
    };
    let (old, new) = (digest(&v1), digest(&prefix.join("include")));
    assert_ne!(old, new);
    assert!(
        out.starts_with(&format!(
            "check -102 prepared_incompatible: the program was compiled with the header of catalog `xdnaops` (digest {old}), but this library serves catalog `xdnaops` (digest {new})"
        )),
        "{out}"
    );

    // Workflow "generated at build time": its CI check, in a fresh clone,
    // passes, and the build leaves the clone as committed; a family
    // committed without its lock entry fails it.
    let ci = clone_of(venv, home, &proj, "ci-build-time");
    run("CI configure", &mut configure(&ci, &ci.join("build")));
    run("CI build", &mut build_cmd(&ci.join("build")));
    assert_eq!(status(&ci), "", "the CI build wrote into the clone");
    kfam_in(&ci, &["new", "late_rows", "--kind", "elementwise_unary"]);
    git(venv, home, &ci, &["add", "-A"]);
    git(venv, home, &ci, &["commit", "-q", "-m", "unrecorded"]);
    fs::remove_dir_all(ci.join("build")).unwrap();
    let said = fails(
        "CI configure, lock stale",
        &mut configure(&ci, &ci.join("build")),
    );
    assert!(said.contains("does not record everything"), "{said}");
    assert_eq!(status(&ci), "", "the refused CI build wrote into the clone");

    // Workflow "committed outputs": `kfam generate` writes them beside the
    // manifest and they are committed; CI's `kfam generate --check` and
    // build pass, and the build leaves the tree as committed. A lock
    // recorded through the build directory alone leaves the committed
    // outputs stale: the build passes, the check fails, until `kfam
    // generate` rewrites them.
    let committed = clone_of(venv, home, &proj, "committed");
    kfam_in(&committed, &["generate"]);
    assert!(committed
        .join("generated/include/xdnaops/xdnaops.h")
        .is_file());
    git(venv, home, &committed, &["add", "-A"]);
    git(venv, home, &committed, &["commit", "-q", "-m", "outputs"]);
    kfam_in(&committed, &["generate", "--check"]);
    run(
        "committed: configure",
        &mut configure(&committed, &committed.join("build")),
    );
    run("committed: build", &mut build_cmd(&committed.join("build")));
    assert_eq!(
        status(&committed),
        "",
        "the build wrote into the source tree"
    );
    kfam_in(
        &committed,
        &["new", "late_rows", "--kind", "elementwise_unary"],
    );
    kfam_in(&committed, &["generate", "--out", "build/xdnaops-kfam"]);
    run("committed: build", &mut build_cmd(&committed.join("build")));
    let said = fails(
        "kfam generate --check, outputs stale",
        tool(&kfam)
            .args(["generate", "--check"])
            .current_dir(&committed),
    );
    assert!(
        said.contains("stale: ") && said.contains("run `kfam generate manifest --out generated`"),
        "{said}"
    );
    kfam_in(&committed, &["generate"]);
    kfam_in(&committed, &["generate", "--check"]);

    // A `major` bump is a change of the approved ABI: the build refuses it
    // until the lock records it, as a family; then it reaches the SONAME
    // by `cmake --build` alone (abi.toml is a configure dependency).
    edit(
        &proj.join("manifest/abi.toml"),
        &[("major = 1\n", "major = 2\n")],
    );
    let said = fails("cmake --build after a major bump", &mut build_cmd(&build));
    assert!(
        said.contains("approved.lock does not record everything the manifest approves"),
        "{said}"
    );
    kfam_in(&proj, &["generate", "--out", "build/xdnaops-kfam"]);
    run("cmake --build after a major bump", &mut build_cmd(&build));
    let so2 = build.join("libxdnaops_catalog.so.2");
    let dynamic = stdout(&run(
        "readelf -d",
        system(Path::new("/usr/bin/readelf")).arg("-d").arg(&so2),
    ));
    assert!(
        dynamic.contains("Library soname: [libxdnaops_catalog.so.2]"),
        "{dynamic}"
    );
    has_lines(
        "app after a major bump",
        &app(&build.join("app")),
        &["check xdnaops 0 ok"],
    );
}
