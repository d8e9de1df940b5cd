//! A C/C++ team adopts its catalog with the wheel and CMake alone
//! (docs/adopting.md): no cargo, no rustc on the PATH. `kfam init` starts
//! its catalog (its own prefix, platform and status codes);
//! `find_package(kfam)` and `kfam_add_catalog()` build a C++17 program
//! over it and a second catalog (`tests/c/cmake_team/`); an added family
//! file reaches the program by `cmake --build` alone; `cmake --install`
//! installs the library, which a second program finds with
//! `find_package(xdnaops)` and with pkg-config; a header of another
//! version of the catalog is refused by the installed library, both named.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
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

    // The team's catalog: kfam init, then its own platform and codes.
    let proj = home.join("xdna_runtime");
    fs::create_dir(&proj).unwrap();
    run(
        "kfam init",
        tool(&kfam)
            .args(["init", ".", "--name", "xdnaops"])
            .current_dir(&proj),
    );
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

    // Configure and build: kfam_add_catalog generates both catalogs and
    // builds their libraries with the project's compilers.
    let build = proj.join("build");
    let started = Instant::now();
    run(
        "cmake configure",
        tool(&cmake)
            .arg("-S")
            .arg(&proj)
            .arg("-B")
            .arg(&build)
            .args(["-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"])
            .arg(format!("-DCMAKE_MAKE_PROGRAM={}", ninja.display())),
    );
    let configured = started.elapsed();
    let started = Instant::now();
    run("cmake --build", tool(&cmake).arg("--build").arg(&build));
    let built = started.elapsed();
    let meta = build.join("xdnaops-kfam/schema/examples/example_add.npu_sim.compiled_meta.json");
    let app = |exe: &str| stdout(&run(exe, tool(&build.join(exe)).arg(&meta).arg(&sha)));
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
        let out = app(exe);
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

    // A family file added: the next build regenerates (reconfiguring by
    // itself) and the program sees it.
    run(
        "kfam new",
        tool(&kfam)
            .args([
                "new",
                "scale_rows",
                "--kind",
                "elementwise_unary",
                "manifest",
            ])
            .current_dir(&proj),
    );
    let started = Instant::now();
    run(
        "cmake --build again",
        tool(&cmake).arg("--build").arg(&build),
    );
    let rebuilt = started.elapsed();
    has_lines(
        "app after a family was added",
        &app("app"),
        &["families 2: example_add scale_rows"],
    );

    // Installed, and found by a program that knows only the install.
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
        "lib/libxdnaops_catalog.so.1",
        "lib/libxdnaops_catalog.a",
        "lib/libkfamrt.so.1",
        "lib/libkfamrt.a",
        "lib/cmake/xdnaops/xdnaops-config.cmake",
        "lib/pkgconfig/xdnaops.pc",
        "include/xdnaops/xdnaops.h",
    ] {
        assert!(prefix.join(file).exists(), "{file} not installed");
    }
    let consumer = home.join("consumer");
    copy_dir(&root().join("tests/c/cmake_team/installed"), &consumer);
    // Neither kfam nor its environment: the system's PATH alone.
    let system = |program: &Path| {
        let mut c = isolated(program, venv, home);
        c.env("PATH", "/usr/bin:/bin");
        c
    };
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
}
