//! The prebuilt runtime opens a catalog's library once and refuses what it
//! cannot trust (docs/description.md): the shipped catalog's generated C
//! unit, compiled by gcc as a team compiles it and linked with this
//! crate's libkfamrt, then variants of the unit, each with one thing
//! wrong: a damaged description, a truncated one, a newer format from a
//! newer generator, a record size or status codes the runtime was not
//! built with, C tables that disagree with the description. Each is
//! refused at the first call with a message naming what differs, every
//! function answers the catalog's PREPARED_INCOMPATIBLE, and nothing
//! crashes (`tests/c/refused.c`). gcc must be installed.

use std::path::{Path, PathBuf};
use std::process::Command;

use kfam_codegen::emit::c::description::{c_rows, description, FORMAT_MINOR, ROW};
use kfam_codegen::ir::{catalog_digest, sha256_hex, Ir};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn shipped() -> Ir {
    let (ir, report) = kfam_codegen::check_dir(&root().join("manifest"));
    ir.unwrap_or_else(|| panic!("the shipped manifest checks: {report:?}"))
}

/// The unit `generated/src/kfam_catalog.c` with `bytes` as its description
/// (and their length and SHA-256, unless `sha256` says otherwise).
fn with_description(unit: &str, bytes: &[u8], sha256: Option<&str>) -> String {
    let ir = shipped();
    let old = description(&ir, &catalog_digest(&ir));
    let open = "static const unsigned char kfam_gen_description[";
    let start = unit.find(open).expect("the unit declares its description");
    let body = start + unit[start..].find("{\n").expect("the array opens") + 2;
    let end = body + unit[body..].find("\n};\n").expect("the array ends");
    let rows = |n: usize| n.div_ceil(ROW).max(1);
    let mut text = unit[..body].replace(
        &format!("{open}{}]", rows(old.len())),
        &format!("{open}{}]", rows(bytes.len())),
    );
    c_rows(&mut text, bytes);
    text.push_str(&unit[end..]);
    let (old_sha, new_sha) = (
        sha256_hex(&old),
        sha256.map_or_else(|| sha256_hex(bytes), str::to_owned),
    );
    assert!(
        text.contains(&old_sha),
        "the unit records its description's SHA-256"
    );
    let length = |n: usize| format!("    {n}u,\n");
    assert!(
        text.contains(&length(old.len())),
        "the unit records its length"
    );
    text.replace(&old_sha, &new_sha)
        .replace(&length(old.len()), &length(bytes.len()))
}

/// Build the catalog library of `unit` with gcc, link `tests/c/refused.c`
/// against it, run it: its output.
fn run(dir: &Path, name: &str, unit: &str) -> String {
    let variant = dir.join(name);
    std::fs::create_dir_all(variant.join("src")).unwrap();
    // The unit includes its header as `../include/kfam/kfam.h`.
    let include = root().join("generated/include");
    std::os::unix::fs::symlink(&include, variant.join("include")).unwrap();
    std::fs::copy(
        root().join("generated/src/kfamrt.h"),
        variant.join("src/kfamrt.h"),
    )
    .unwrap();
    let source = variant.join("src/kfam_catalog.c");
    std::fs::write(&source, unit).unwrap();
    let deps = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    std::os::unix::fs::symlink(deps.join("libkfamrt.so"), variant.join("libkfamrt.so.1")).unwrap();
    let gcc = |args: &mut Command| {
        let out = args
            .output()
            .unwrap_or_else(|e| panic!("gcc is required for this test: {e}"));
        assert!(
            out.status.success(),
            "{name}: {args:?}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let c99 = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"];
    gcc(Command::new("gcc")
        .args(c99)
        .args(["-fPIC", "-shared", "-o"])
        .arg(variant.join("libkfam_catalog.so"))
        .arg(&source)
        .arg("-Wl,-rpath,$ORIGIN")
        .arg(format!("-L{}", deps.display()))
        .arg("-l:libkfamrt.so"));
    let exe = variant.join("refused");
    gcc(Command::new("gcc")
        .args(c99)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-I{}", include.display()))
        .arg(root().join("tests/c/refused.c"))
        .arg(format!("-L{}", variant.display()))
        .arg("-lkfam_catalog")
        .arg(format!("-Wl,-rpath,{}", variant.display())));
    // cargo's LD_LIBRARY_PATH names target/<profile>/deps, which may hold
    // kfam-catalog's Rust-built library of the same name: load this one.
    let out = Command::new(&exe)
        .env("LD_LIBRARY_PATH", &variant)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{name}: {}\n{stdout}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// A refused catalog's answers: PREPARED_INCOMPATIBLE (-1002) everywhere,
/// out-records of refused calls, the reason in both messages.
fn assert_refused(name: &str, out: &str, reason: &str) {
    let lines: Vec<&str> = out.lines().collect();
    let expected_prefix = [
        "check -1002 prepared_incompatible: the library of catalog `kfam` (generated by kfam ",
        "capability -1002 outcome 0 profile -",
        "capability_message -1002 prepared_incompatible: the library of catalog `kfam`",
        "find_family -1002 -",
        "admit -1002 outcome 0",
        "validate_call -1002 rule 0",
        "context_new -1002 -",
    ];
    assert_eq!(lines.len(), expected_prefix.len(), "{name}:\n{out}");
    for (line, prefix) in lines.iter().zip(expected_prefix) {
        assert!(
            line.starts_with(prefix),
            "{name}: `{line}` is not `{prefix}...`\n{out}"
        );
    }
    for line in [lines[0], lines[2]] {
        assert!(
            line.contains("cannot be opened by this runtime") && line.contains(reason),
            "{name}: `{line}` does not say `{reason}`"
        );
    }
}

#[test]
fn a_catalog_opens_once_and_what_differs_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let unit = std::fs::read_to_string(root().join("generated/src/kfam_catalog.c")).unwrap();
    let ir = shipped();
    let bytes = description(&ir, &catalog_digest(&ir));

    let intact = run(dir.path(), "intact", &unit);
    assert!(
        intact.starts_with("check 0 ok: the library serves catalog `kfam`\ncapability 0 outcome 1 profile xdna2_onboard\n"),
        "{intact}"
    );
    assert!(
        intact.contains("context_new 0 context\ncontext_free 0\n"),
        "{intact}"
    );

    // One byte of a summary changed: the unit's SHA-256 no longer matches.
    let mut damaged = bytes.clone();
    let at = bytes.len() / 2;
    damaged[at] ^= 0x01;
    let sha = sha256_hex(&bytes);
    let out = run(
        dir.path(),
        "damaged",
        &with_description(&unit, &damaged, Some(&sha)),
    );
    assert_refused(
        "damaged",
        &out,
        &format!(
            "its description ({} bytes) is damaged: its SHA-256 is",
            bytes.len()
        ),
    );
    assert!(
        out.contains(&format!("the unit records {}", &sha[..12])),
        "{out}"
    );

    // Truncated, with a matching digest: the reader runs out of bytes.
    let out = run(
        dir.path(),
        "truncated",
        &with_description(&unit, &bytes[..bytes.len() - 100], None),
    );
    assert_refused("truncated", &out, "the description is malformed at byte ");

    // A newer generator's format: the runtime is older than the code.
    let mut newer = bytes.clone();
    newer[10] += 1;
    let (minor, next) = (FORMAT_MINOR, FORMAT_MINOR + 1);
    let newer_unit = with_description(&unit, &newer, None)
        .replace(
            &format!("sizeof(kfamrt_catalog),\n    1,\n    {minor},"),
            &format!("sizeof(kfamrt_catalog),\n    1,\n    {next},"),
        )
        .replace(
            &format!("\"kfam {}\"", env!("CARGO_PKG_VERSION")),
            "\"kfam 9.1.0\"",
        );
    let out = run(dir.path(), "newer", &newer_unit);
    assert_refused(
        "newer",
        &out,
        &format!("its description is format 1.{next}, this runtime reads 1.0 to 1.{minor}"),
    );
    assert!(out.contains("(generated by kfam 9.1.0)"), "{out}");
    assert!(
        out.contains("install a kfam runtime at least as new"),
        "{out}"
    );

    // A header whose record sizes are not the runtime's.
    let wider = unit.replace(
        "(uint32_t)sizeof(kfam_tensor_arg),",
        "(uint32_t)sizeof(kfam_tensor_arg) + 8,",
    );
    assert_ne!(wider, unit);
    let out = run(dir.path(), "sizes", &wider);
    let size = kfam_runtime::ffi::RECORD_SIZES
        .iter()
        .find(|(n, _)| *n == "kfam_tensor_arg")
        .unwrap()
        .1;
    assert_refused(
        "sizes",
        &out,
        &format!(
            "record `tensor_arg` is {} bytes in the header the catalog was compiled with, {size} in this runtime",
            size + 8
        ),
    );

    // Status codes of another header.
    let status = unit.replace(
        "KFAM_STATUS_NOT_APPROVED},",
        "KFAM_STATUS_NOT_APPROVED - 1},",
    );
    assert_ne!(status, unit);
    let out = run(dir.path(), "status", &status);
    assert_refused("status", &out, "its header's status codes");

    // The description of another version of the catalog (one family fewer)
    // beside these C tables.
    let mut fewer = ir.clone();
    fewer.families.remove(0);
    let other = description(&fewer, &catalog_digest(&fewer));
    let out = run(dir.path(), "tables", &with_description(&unit, &other, None));
    assert_refused(
        "tables",
        &out,
        &format!(
            "its C tables hold family `{}` at position 0, its description family `{}`",
            ir.families[0].name, ir.families[1].name
        ),
    );
}

/// Copy the directory `from` to `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `path` with `from` replaced by `to` (which must occur).
fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{}: no `{from}`", path.display());
    std::fs::write(path, text.replace(from, to)).unwrap();
}

/// Generate `manifest` into `out` (writing its lock, as `kfam generate`
/// does) and build the catalog's shared library there with gcc.
fn generate_and_build(manifest: &Path, out: &Path) {
    kfam_codegen::generate_dir(manifest, out, false)
        .unwrap_or_else(|e| panic!("{} generates: {e:?}", manifest.display()));
    let deps = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let _ = std::os::unix::fs::symlink(deps.join("libkfamrt.so"), out.join("libkfamrt.so.1"));
    let built = Command::new("gcc")
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-fPIC",
            "-shared",
        ])
        .arg("-o")
        .arg(out.join("libnpuops_catalog.so"))
        .arg(out.join("src/npuops_catalog.c"))
        .arg("-Wl,-rpath,$ORIGIN")
        .arg(format!("-L{}", deps.display()))
        .arg("-l:libkfamrt.so")
        .output()
        .expect("gcc is required for this test");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
}

/// `tests/c/pairing.c` compiled against the header of `header` and run
/// against the library of `library`: its output.
fn pair(dir: &Path, header: &Path, library: &Path) -> String {
    let exe = dir.join(format!(
        "pairing-{}-{}",
        header.file_name().unwrap().to_string_lossy(),
        library.file_name().unwrap().to_string_lossy()
    ));
    let built = Command::new("gcc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-o"])
        .arg(&exe)
        .arg(format!("-I{}", header.join("include").display()))
        .arg(root().join("tests/c/pairing.c"))
        .arg(format!("-L{}", library.display()))
        .arg("-lnpuops_catalog")
        .output()
        .expect("gcc is required for this test");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let out = Command::new(&exe)
        .env("LD_LIBRARY_PATH", library)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A program pairs with a library that only added families since its
/// header, and answers right; a renumbered status code, a changed limit and
/// a family revised since its header are refused, the difference named
/// (docs/compatibility.md).
#[test]
fn a_library_pairs_with_earlier_headers_that_compiled_in_nothing_it_changed() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let manifest = dir.join("manifest");
    copy_dir(&root().join("tests/catalogs/npuops"), &manifest);
    let v1 = dir.join("v1");
    generate_and_build(&manifest, &v1);
    let same = pair(dir, &v1, &v1);
    assert!(
        same.starts_with("pair 0 ok: the library pairs with the header of catalog `npuops` (approval 1)\nstrict 0\ncapability 0 supported 1\n"),
        "{same}"
    );

    // What a program compiled in changed: refused, naming it (the
    // library's prepared_incompatible is -3).
    for (name, file, from, to, said) in [
        (
            "status",
            "abi.toml",
            "invalid_argument = -5",
            "invalid_argument = -15",
            "status code invalid_argument: -15 in the program, -5 in the library",
        ),
        (
            "limit",
            "abi.toml",
            "max_rank = 4",
            "max_rank = 6",
            "limit max_rank: 6 in the program, 4 in the library",
        ),
    ] {
        let copy = dir.join(format!("manifest-{name}"));
        copy_dir(&manifest, &copy);
        edit(&copy.join(file), from, to);
        let header = dir.join(name);
        generate_and_build(&copy, &header);
        let out = pair(dir, &header, &v1);
        assert!(
            out.starts_with(&format!("pair -3 prepared_incompatible: {said}\n")),
            "{name}: {out}"
        );
    }

    // A family added: the library of the new manifest pairs with the
    // program built against the header before it, and answers it.
    let families = manifest.join("families");
    let scale = std::fs::read_to_string(families.join("scale_ok.toml")).unwrap();
    std::fs::write(
        families.join("scale_two.toml"),
        scale
            .replace("name = \"scale_ok\"", "name = \"scale_two\"")
            .replace(&"ab".repeat(32), &"cd".repeat(32)),
    )
    .unwrap();
    let v2 = dir.join("v2");
    generate_and_build(&manifest, &v2);
    let added = pair(dir, &v1, &v2);
    assert!(
        added.starts_with(
            "pair 0 ok: the library pairs with the header of catalog `npuops` (approval 1)\n"
        ),
        "{added}"
    );
    // The exact digest no longer matches (`check_catalog` is strict), and
    // the decisions are the new library's, right for the old program.
    assert!(
        added.contains("\nstrict -3\ncapability 0 supported 1\n"),
        "{added}"
    );
    // The other way round, a header newer than the library is refused.
    let newer = pair(dir, &v2, &v1);
    assert!(
        newer.starts_with("pair -3 prepared_incompatible: the program's header is of approval 2, newer than this library's families (approval 1)"),
        "{newer}"
    );

    // A family revised: the program built against either earlier header
    // is refused, the family named.
    edit(
        &families.join("scale_ok.toml"),
        "revision = 1",
        "revision = 2",
    );
    edit(
        &families.join("scale_ok.toml"),
        "shape = [64, 128]",
        "shape = [64, 256]",
    );
    edit(
        &families.join("scale_ok.toml"),
        &"ab".repeat(32),
        &"ef".repeat(32),
    );
    let v3 = dir.join("v3");
    generate_and_build(&manifest, &v3);
    for (header, approval) in [(&v1, 1), (&v2, 2)] {
        let out = pair(dir, header, &v3);
        assert!(
            out.starts_with(&format!(
                "pair -3 prepared_incompatible: family `scale_ok`: revision 2 (approval 3) is newer than the program's header (approval {approval})"
            )),
            "{out}"
        );
    }
    let fresh = pair(dir, &v3, &v3);
    assert!(
        fresh.starts_with("pair 0 ok") && fresh.contains("capability 0 supported 2\n"),
        "{fresh}"
    );
}
