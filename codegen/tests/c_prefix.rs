//! A catalog's C prefix (`[catalog] c_prefix`, docs/c.md "Names"): two
//! catalogs generated from copies of the shipped manifest, `myrt` (two
//! families fewer) and `zrt` (other status codes), each with its header in
//! `native/include/<prefix>/`, and one translation unit that includes
//! kfam's committed header and both of theirs and defines all three
//! catalogs' tables; compiled as C99 and C++17 with gcc, g++, clang and
//! clang++ (`kfam-testenv`), run, and its output compared with what the
//! Rust IR of each catalog says. gcc and g++ are required: these tests fail
//! without them, they never skip.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use kfam_codegen::ir::Ir;
use kfam_codegen::{check_dir, generate_dir, GenerateOutcome};

use crate::support::tree;
use tree::copy_dir;

use crate::support::process;
use crate::support::root;
use process::run;

const FLAGS: &[&str] = &["-Wall", "-Wextra", "-Werror", "-pedantic"];

fn render(report: &kfam_codegen::diag::Report) -> String {
    report.render_human(&annotate_snippets::Renderer::plain())
}

/// `gcc` / `g++` (checked to run), or clang / clang++ of the test
/// environment.
fn compiler(name: &str) -> Command {
    match name {
        "clang" => return kfam_testenv::clang(false),
        "clang++" => return kfam_testenv::clang(true),
        _ => {}
    }
    match Command::new(name).arg("--version").output() {
        Ok(out) if out.status.success() => Command::new(name),
        other => panic!("`{name}` does not run ({other:?}); the C tests need gcc and g++"),
    }
}

/// A new catalog `prefix` (its name and C prefix) from a copy of the
/// shipped manifest: no retired families and no approved.lock (a new
/// catalog's history starts empty), its C output in `native/include`,
/// `drop`'s families left out and every status code but `ok` moved by
/// `status_shift`.
fn scratch_manifest(dir: &Path, prefix: &str, drop: &[&str], status_shift: i32) -> PathBuf {
    let manifest = dir.join(format!("{prefix}-manifest"));
    copy_dir(&root().join("manifest"), &manifest);
    fs::remove_file(manifest.join("retired.toml")).unwrap();
    let _ = fs::remove_file(manifest.join("approved.lock"));
    for family in drop {
        fs::remove_file(manifest.join("families").join(format!("{family}.toml"))).unwrap();
    }
    let abi = fs::read_to_string(manifest.join("abi.toml")).unwrap();
    let catalog = "[catalog]\nname = \"kfam\"\nlicense = \"Apache-2.0\"\n";
    assert!(abi.contains(catalog), "the shipped [catalog] changed");
    let mut abi = abi.replacen(
        catalog,
        &format!(
            "[catalog]\nname = \"{prefix}\"\nc_prefix = \"{prefix}\"\nlicense = \"Apache-2.0\"\n\n\
             [catalog.outputs]\nc = \"native/include\"\n"
        ),
        1,
    );
    if status_shift != 0 {
        let mut in_status = false;
        let mut shifted = String::new();
        for line in abi.lines() {
            if line.starts_with('[') {
                in_status = line == "[status]";
            }
            match line.split_once(" = ") {
                Some((key, value)) if in_status && key != "ok" => {
                    let value: i32 = value.parse().expect("a status code");
                    let _ = writeln!(shifted, "{key} = {}", value + status_shift);
                }
                _ => {
                    shifted.push_str(line);
                    shifted.push('\n');
                }
            }
        }
        abi = shifted;
    }
    fs::write(manifest.join("abi.toml"), abi).unwrap();
    manifest
}

/// Generates the catalog into `dir/<prefix>-out`; its IR and the
/// directory to pass with `-I`.
fn generate(dir: &Path, prefix: &str, drop: &[&str], status_shift: i32) -> (Ir, PathBuf) {
    let manifest = scratch_manifest(dir, prefix, drop, status_shift);
    let out = dir.join(format!("{prefix}-out"));
    match generate_dir(&manifest, &out, false) {
        Ok(GenerateOutcome::Written { report, .. }) => {
            assert!(report.diagnostics.is_empty(), "{}", render(&report));
        }
        other => panic!("{other:?}"),
    }
    let (ir, report) = check_dir(&manifest);
    let ir = ir.unwrap_or_else(|| panic!("{}", render(&report)));
    assert_eq!(ir.catalog.c_prefix, prefix);
    let include = out.join("native/include");
    let mut files: Vec<String> = fs::read_dir(include.join(prefix))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            format!("{prefix}.h"),
            format!("{prefix}_constants.h"),
            format!("{prefix}_tables.h")
        ]
    );
    assert!(!out.join("include").exists(), "the C output moved");
    (ir, include)
}

/// Every identifier of `text` that begins with `kfam_` or `KFAM_`, in code,
/// comments and string literals alike, and every `kfam/` or `kfam.h`.
fn kfam_names(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(|c: char| c.is_ascii_alphanumeric() || c == '_') {
        let token_len = rest[at..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len() - at);
        let token = &rest[at..at + token_len];
        let after = &rest[at + token_len..];
        if token.starts_with("kfam_")
            || token.starts_with("KFAM_")
            || (token == "kfam" && (after.starts_with('/') || after.starts_with(".h")))
        {
            found.push(format!("{token}{}", after.chars().next().unwrap_or(' ')));
        }
        rest = after;
    }
    found
}

/// The line the program prints for a catalog, as its IR says it.
fn expected(ir: &Ir) -> String {
    let status = |name: &str| {
        ir.abi
            .status
            .iter()
            .find(|(s, _)| s.as_str() == name)
            .map(|(_, v)| *v)
            .unwrap()
    };
    let last = ir.families.last().unwrap();
    format!(
        "{} families={} retired={} table={} first={} last={} last_index={} not_found={} ({}) invalid_argument={} max_prepared={}",
        ir.catalog.c_prefix,
        ir.families.len(),
        ir.retired.len(),
        ir.families.len(),
        ir.families[0].name,
        last.name,
        ir.families.len() - 1,
        status("not_found"),
        "not_found",
        status("invalid_argument"),
        ir.abi.max_prepared,
    )
}

/// The part of the program that prints `expected` for catalog `p`, whose
/// last family is `last`.
fn print_catalog(p: &str, last: &str) -> String {
    let upper = p.to_ascii_uppercase();
    let last_upper = last.to_ascii_uppercase();
    format!(
        r#"    printf("{p} families=%d retired=%d table=%u first=%s last=%s last_index=%d not_found=%d (%s) invalid_argument=%d max_prepared=%u\n",
           (int){upper}_FAMILY_COUNT, (int){upper}_RETIRED_COUNT,
           (unsigned){p}_header_table.family_count, {p}_families[0].name,
           {p}_families[{upper}_FAMILY_COUNT - 1].name, (int){upper}_{last_upper}_INDEX,
           (int){upper}_STATUS_NOT_FOUND, {p}_status_name({upper}_STATUS_NOT_FOUND),
           (int){upper}_STATUS_INVALID_ARGUMENT, (unsigned){p}_header_table.max_prepared);
"#
    )
}

#[test]
fn catalogs_of_three_prefixes_share_one_translation_unit() {
    let dir = tempfile::tempdir().unwrap();
    let (kfam, _) = {
        let (ir, report) = check_dir(&root().join("manifest"));
        (ir.unwrap_or_else(|| panic!("{}", render(&report))), ())
    };
    assert_eq!(kfam.catalog.c_prefix, "kfam");
    let kfam_include = root().join("generated/include");
    let (myrt, myrt_include) = generate(dir.path(), "myrt", &["silu_bf16", "swiglu_fused_bf16"], 0);
    let (zrt, zrt_include) = generate(dir.path(), "zrt", &[], -2000);
    assert_eq!(myrt.families.len() + 2, kfam.families.len());
    assert_eq!(zrt.families.len(), kfam.families.len());

    // No name of kfam's is left in the other catalogs' C outputs (but in
    // the first line, which names the command that generated them).
    for (prefix, include) in [("myrt", &myrt_include), ("zrt", &zrt_include)] {
        for file in ["", "_tables", "_constants"] {
            let path = include.join(prefix).join(format!("{prefix}{file}.h"));
            let text = fs::read_to_string(&path).unwrap();
            let body = text.split_once('\n').unwrap().1;
            let left = kfam_names(body);
            assert!(left.is_empty(), "{}: {left:?}", path.display());
            let upper = prefix.to_ascii_uppercase();
            if file.is_empty() {
                assert!(body.contains(&format!("#ifndef {upper}_{upper}_H\n")));
                assert!(body.contains(&format!("#include \"{prefix}_tables.h\"\n")));
                assert!(body.contains(&format!("typedef struct {prefix}_family {{")));
                assert!(body.contains(&format!(
                    "{upper}_API int32_t {prefix}_find_family(const char *name, const {prefix}_family **out);"
                )));
            }
        }
        // The library's C unit is renamed too, and compiles as C99 against
        // the renamed header it includes.
        let unit = include
            .parent()
            .unwrap()
            .join(format!("src/{prefix}_catalog.c"));
        let text = fs::read_to_string(&unit).unwrap();
        let left = kfam_names(text.split_once('\n').unwrap().1);
        assert!(left.is_empty(), "{}: {left:?}", unit.display());
        assert!(text.contains(&format!(
            "{upper}_API int32_t {prefix}_capability(",
            upper = prefix.to_ascii_uppercase()
        )));
        for tool in ["gcc", "clang"] {
            let out = compiler(tool)
                .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-c"])
                .arg(&unit)
                .arg("-o")
                .arg(dir.path().join(format!("{prefix}-{tool}.o")))
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{tool} {}: {}",
                unit.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let status = |ir: &Ir| ir.abi.status.iter().map(|(_, v)| *v).collect::<Vec<_>>();
    assert_ne!(status(&zrt), status(&kfam));

    let mut program = String::from(
        "#include <stdio.h>\n\
         #define KFAM_IMPLEMENTATION\n#include <kfam/kfam.h>\n#include <kfam/kfam_constants.h>\n\
         #define MYRT_IMPLEMENTATION\n#include <myrt/myrt.h>\n#include <myrt/myrt_constants.h>\n\
         #define ZRT_PRIVATE_TABLES\n#include <zrt/zrt.h>\n#include <zrt/zrt_constants.h>\n\
         int main(void) {\n",
    );
    for ir in [&kfam, &myrt, &zrt] {
        program.push_str(&print_catalog(
            &ir.catalog.c_prefix,
            &ir.families.last().unwrap().name,
        ));
    }
    program.push_str("    return 0;\n}\n");
    let want: String = [&kfam, &myrt, &zrt]
        .iter()
        .map(|ir| expected(ir) + "\n")
        .collect();
    assert!(want.contains("zrt families=17 retired=0"), "{want}");
    assert!(want.contains("not_found=-3005"), "{want}");

    for (tool, lang, std) in [
        ("gcc", "c", "-std=c99"),
        ("g++", "c++", "-std=c++17"),
        ("clang", "c", "-std=c99"),
        ("clang++", "c++", "-std=c++17"),
    ] {
        let source = dir.path().join(format!("three-{tool}.{lang}"));
        fs::write(&source, &program).unwrap();
        let exe = dir.path().join(format!("three-{tool}"));
        let mut cmd = compiler(tool);
        cmd.arg(std)
            .args(FLAGS)
            .arg("-I")
            .arg(&kfam_include)
            .arg("-I")
            .arg(&myrt_include)
            .arg("-I")
            .arg(&zrt_include)
            .args(["-x", lang])
            .arg(&source)
            .arg("-o")
            .arg(&exe);
        run(cmd);
        let out = String::from_utf8(run(Command::new(&exe)).stdout).unwrap();
        assert_eq!(out, want, "{tool}");
    }
}

/// A prefix with `_` is refused (KF1201): `kfam_x`'s names could be
/// `kfam`'s (its family `index` and kfam's family `x_index` would both
/// define `KFAM_X_INDEX_INDEX`).
#[test]
fn a_prefix_with_an_underscore_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = scratch_manifest(dir.path(), "myrt", &[], 0);
    let abi = fs::read_to_string(manifest.join("abi.toml")).unwrap();
    fs::write(
        manifest.join("abi.toml"),
        abi.replace("c_prefix = \"myrt\"", "c_prefix = \"kfam_x\""),
    )
    .unwrap();
    let (ir, report) = check_dir(&manifest);
    assert!(ir.is_none());
    let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["KF1201"], "{}", render(&report));
    let text = render(&report);
    assert!(text.contains("without `_`"), "{text}");
}
