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

use kfam_codegen::emit::c::description::{c_rows, description, rows, FORMAT_MINOR};
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
    let length = |n: usize| format!("#define KFAM_GEN_DESCRIPTION_LEN {n}u\n");
    assert!(
        text.contains(&length(old.len())),
        "the unit records its length"
    );
    text.replace(&old_sha, &new_sha)
        .replace(&length(old.len()), &length(bytes.len()))
}

/// gcc's flags for the unit and the program: C99, every warning an error,
/// and AddressSanitizer with UndefinedBehaviorSanitizer when `sanitize`
/// (every finding fatal).
fn flags(sanitize: bool) -> Vec<&'static str> {
    let mut f = vec!["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"];
    if sanitize {
        f.extend([
            "-g",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer",
        ]);
    }
    f
}

/// Build the catalog library of `unit` with gcc and link
/// `tests/c/refused.c` against it: the program, or gcc's refusal.
fn build(dir: &Path, name: &str, unit: &str, sanitize: bool) -> Result<PathBuf, String> {
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
    let gcc = |args: &mut Command| -> Result<(), String> {
        let out = args
            .output()
            .unwrap_or_else(|e| panic!("gcc is required for this test: {e}"));
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    };
    gcc(Command::new("gcc")
        .args(flags(sanitize))
        .args(["-fPIC", "-shared", "-o"])
        .arg(variant.join("libkfam_catalog.so"))
        .arg(&source)
        .arg("-Wl,-rpath,$ORIGIN")
        .arg(format!("-L{}", deps.display()))
        .arg("-l:libkfamrt.so"))?;
    let exe = variant.join("refused");
    gcc(Command::new("gcc")
        .args(flags(sanitize))
        .arg("-o")
        .arg(&exe)
        .arg(format!("-I{}", include.display()))
        .arg(root().join("tests/c/refused.c"))
        .arg(format!("-L{}", variant.display()))
        .arg("-lkfam_catalog")
        .arg(format!("-Wl,-rpath,{}", variant.display())))
    .unwrap_or_else(|e| panic!("{name}: the program builds: {e}"));
    Ok(exe)
}

/// Run a program `build` made: its exit status, output and errors.
fn execute(exe: &Path) -> std::process::Output {
    // cargo's LD_LIBRARY_PATH names target/<profile>/deps, which may hold
    // kfam-catalog's Rust-built library of the same name: load this one.
    Command::new(exe)
        .env("LD_LIBRARY_PATH", exe.parent().unwrap())
        .env(
            "ASAN_OPTIONS",
            "detect_leaks=1:abort_on_error=0:exitcode=99",
        )
        .env(
            "UBSAN_OPTIONS",
            "print_stacktrace=1:halt_on_error=1:exitcode=98",
        )
        .output()
        .unwrap()
}

/// Build the catalog library of `unit` with gcc, link `tests/c/refused.c`
/// against it, run it: its output.
fn run(dir: &Path, name: &str, unit: &str) -> String {
    run_with(dir, name, unit, false)
}

/// [`run`], under the sanitizers when `sanitize`.
fn run_with(dir: &Path, name: &str, unit: &str, sanitize: bool) -> String {
    let exe = build(dir, name, unit, sanitize).unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = execute(&exe);
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
        out.contains(&format!(
            "its SHA-256 is {}, the unit records `{sha}`",
            sha256_hex(&damaged)
        )),
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
            "its C tables hold family `{}` at position 0, its description family `{}` \
             (identity {}): the tables and the description are of different generations",
            ir.families[0].name, ir.families[1].name, ir.families[1].identity
        ),
    );

    // One family revised between the generation of the tables and the
    // description's: the same name twice, both identities named in full.
    let mut revised = ir.clone();
    revised.families[0].identity = "0".repeat(63) + "1";
    let other = description(&revised, &catalog_digest(&revised));
    let out = run(
        dir.path(),
        "revised",
        &with_description(&unit, &other, None),
    );
    assert_refused(
        "revised",
        &out,
        &format!(
            "family `{}` at position 0 has identity {} in its C tables, {} in its description",
            ir.families[0].name, ir.families[0].identity, revised.families[0].identity
        ),
    );
}

/// `KFAM_GEN_DESCRIPTION_LEN {from}u` of the unit, edited to `to`.
fn with_length(unit: &str, from: usize, to: &str) -> String {
    let line = format!("#define KFAM_GEN_DESCRIPTION_LEN {from}u\n");
    assert!(unit.contains(&line), "the unit defines its length");
    unit.replace(&line, &format!("#define KFAM_GEN_DESCRIPTION_LEN {to}\n"))
}

/// The descriptor's initializer of the unit with its length (and, when
/// given, its row count) written as numbers, bypassing the unit's own
/// macro and the assertion that holds it to the array.
fn bypassing(unit: &str, length: &str, rows: Option<&str>) -> String {
    let mut text = unit.replacen(
        "    &kfam_gen_description[0][0],\n    KFAM_GEN_DESCRIPTION_LEN,",
        &format!("    &kfam_gen_description[0][0],\n    {length},"),
        1,
    );
    assert!(
        text.contains(&format!("[0][0],\n    {length},")),
        "the descriptor is initialized with the macro"
    );
    if let Some(rows) = rows {
        let from = "    sizeof kfam_gen_description / KFAMRT_DESCRIPTION_STRIDE,\n};";
        assert!(text.contains(from), "the descriptor counts the rows");
        text = text.replace(from, &format!("    {rows},\n}};"));
    }
    text
}

/// A damaged unit never crashes the program, compiled with
/// AddressSanitizer and UndefinedBehaviorSanitizer (gcc): its length edited
/// larger, smaller, to 2^32 and 2^40, its array given a row more or fewer,
/// are refused by the compiler (the unit asserts that its length needs
/// exactly its rows); the same lengths written into the descriptor past
/// that assertion, a character of the text, and references of the
/// description damaged under a recomputed digest are refused at the first
/// call, every function answering PREPARED_INCOMPATIBLE, with a message
/// naming what is wrong. A unit that lies consistently about its array
/// (length and row count edited together: "edited with intent" in
/// docs/security.md) is the one thing the runtime cannot see, and the
/// sanitizer does: which shows that the runs above would have shown an
/// over-read.
#[test]
fn damaged_units_are_refused_under_sanitizers() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let unit = std::fs::read_to_string(root().join("generated/src/kfam_catalog.c")).unwrap();
    let ir = shipped();
    let bytes = description(&ir, &catalog_digest(&ir));
    let len = bytes.len();
    let n_rows = rows(len);

    let intact = run_with(dir, "intact", &unit, true);
    assert!(intact.starts_with("check 0 ok"), "{intact}");

    // Refused by the compiler: the unit disagrees with its own array.
    let mut added = unit.replace(
        &format!("kfam_gen_description[{n_rows}]"),
        &format!("kfam_gen_description[{}]", n_rows + 1),
    );
    added = added.replacen("\"\n};\n", "\",\n    \"QUJD\"\n};\n", 1);
    let removed = unit.replace(
        &format!("kfam_gen_description[{n_rows}]"),
        &format!("kfam_gen_description[{}]", n_rows - 1),
    );
    for (name, edited) in [
        (
            "larger",
            with_length(&unit, len, &format!("{}u", len + 8192)),
        ),
        ("2^32", with_length(&unit, len, "4294967296u")),
        ("2^40", with_length(&unit, len, "1099511627776u")),
        ("row_added", added),
        ("row_removed", removed),
    ] {
        assert!(edited != unit, "{name}: the edit applies");
        let err = build(dir, &format!("compile-{name}"), &edited, true)
            .expect_err(&format!("{name}: a unit at odds with its array compiles"));
        assert!(
            err.contains("kfam_gen_description_length_matches_its_rows"),
            "{name}: {err}"
        );
    }

    // Refused at the first call, the program intact under the sanitizers.
    let mut character = unit.clone();
    let first = character.find("\n    \"").unwrap() + 6;
    character.replace_range(first + 10..first + 11, "*");
    let mut variants: Vec<(String, String, String)> = vec![
        (
            "smaller".into(),
            with_length(&unit, len, &format!("{}u", len - 1)),
            "cannot be opened by this runtime".into(),
        ),
        (
            "bypass-2^32".into(),
            bypassing(&unit, "4294967296u", None),
            "its description's length is 4294967296 bytes, past the 1073741824 this runtime opens"
                .into(),
        ),
        (
            "bypass-2^40".into(),
            bypassing(&unit, "1099511627776u", None),
            "its description's length is 1099511627776 bytes, past the 1073741824".into(),
        ),
        (
            "bypass-larger".into(),
            bypassing(&unit, &format!("{}u", len + 8192), None),
            format!(
                "its description's length, {} bytes ({} characters of base64), needs {} rows of \
                 4095, and its array holds {n_rows}: the unit was edited",
                len + 8192,
                (len + 8192).div_ceil(3) * 4,
                rows(len + 8192)
            ),
        ),
        (
            "bypass-smaller".into(),
            bypassing(&unit, &format!("{}u", len - 5000), None),
            format!("and its array holds {n_rows}: the unit was edited"),
        ),
        (
            "bypass-rows".into(),
            bypassing(&unit, "KFAM_GEN_DESCRIPTION_LEN", Some("1000000")),
            "and its array holds 1000000: the unit was edited".into(),
        ),
        (
            "character".into(),
            character,
            "its description's text holds a character that is not base64 (byte 0x2a) at row 0, \
             column 10"
                .into(),
        ),
    ];
    // References of the description, damaged, under a recomputed digest.
    let symbolic = ir
        .families
        .iter()
        .position(|f| !f.symbols.is_empty())
        .expect("a shipped family has a symbol");
    type Damage = (&'static str, fn(&mut Ir, usize), &'static str);
    let damages: [Damage; 4] = [
        (
            "axis",
            |ir, i| ir.families[i].symbols[0].uses[0].axis = 7,
            "`DimUse.axis` of symbol `",
        ),
        (
            "multiple_of",
            |ir, i| ir.families[i].symbols[0].multiple_of = 0,
            "is 0: at least 1 expected",
        ),
        (
            "extent",
            |ir, _| ir.families[0].params[2].shape[0] = -5,
            "`Param.shape` holds the extent -5",
        ),
        (
            "count",
            |ir, _| ir.families[0].scalar_count = 1,
            "`Family.scalar_count` is 1, its parameters hold 0 scalars",
        ),
    ];
    for (name, damage, said) in damages {
        let mut damaged = ir.clone();
        damage(&mut damaged, symbolic);
        let other = description(&damaged, &catalog_digest(&damaged));
        variants.push((
            format!("reference-{name}"),
            with_description(&unit, &other, None),
            said.into(),
        ));
    }
    for (name, edited, said) in &variants {
        let out = run_with(dir, name, edited, true);
        assert_refused(name, &out, said);
    }

    // Length and rows edited together (and the last row filled with text,
    // where the reader would stop at its end): the runtime reads the rows
    // the unit states, past its array, and AddressSanitizer reports it.
    let end = unit.find("\"\n};\n").expect("the rows end");
    let last = unit[..end].rfind("\n    \"").expect("a last row") + 6;
    let mut full = unit.clone();
    full.replace_range(last..end, &"A".repeat(4095));
    let lying_len = (n_rows + 3) * 4095 / 4 * 3;
    let lying = bypassing(
        &full,
        &format!("{lying_len}u"),
        Some(&rows(lying_len).to_string()),
    );
    let exe = build(dir, "lying", &lying, true).expect("a consistent lie compiles");
    let out = execute(&exe);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("global-buffer-overflow"),
        "the sanitizer sees an over-read: {}\n{}{stderr}",
        out.status,
        String::from_utf8_lossy(&out.stdout)
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
        // The header of another catalog history: with the lock, the gate
        // refuses the change unless `major` is raised (KF1110), which the
        // pairing would then report first.
        std::fs::remove_file(copy.join("approved.lock")).unwrap();
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
        newer.starts_with("pair -3 prepared_incompatible: the program's header is of approval 2, newer than this library's families (approval 1, retired ones included)"),
        "{newer}"
    );

    // The newest family retired: the library counts its tombstone, so a
    // program built against the header that had it is told that the
    // family was retired, not that its header is newer than the library.
    let retiring = dir.join("manifest-retired");
    copy_dir(&manifest, &retiring);
    std::fs::remove_file(retiring.join("families/scale_two.toml")).unwrap();
    let lock = std::fs::read_to_string(retiring.join("approved.lock")).unwrap();
    let entry = &lock[lock
        .find("name = \"scale_two\"")
        .expect("scale_two is locked")..];
    let identity = entry
        .split("identity = \"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("its identity");
    std::fs::write(
        retiring.join("retired.toml"),
        format!(
            "[[retired]]\nname = \"scale_two\"\nrevision = 1\nidentity = \"{identity}\"\nreason = \"folded into scale_ok\"\n"
        ),
    )
    .unwrap();
    let retired = dir.join("retired");
    generate_and_build(&retiring, &retired);
    let out = pair(dir, &v2, &retired);
    assert!(
        out.starts_with(
            "pair -3 prepared_incompatible: family `scale_two`: revision 1 (approval 2) is in the program's header (approval 2) and retired in the library (folded into scale_ok): rebuild the program against the library's header"
        ),
        "{out}"
    );
    // A program of the header before it still pairs.
    assert!(
        pair(dir, &v1, &retired).starts_with("pair 0 ok"),
        "the header before the retired family pairs"
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
