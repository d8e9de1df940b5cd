//! docs/adopting.md, run as written: a team starts its own catalog with
//! `kfam init` in a git repository outside this workspace, gives it its own
//! identity and platform (with its own layout rules), adds families of
//! several kinds with `kfam new`, checks and generates it into its own
//! layout (Python in `python/`, headers in `native/include/`), runs the CI
//! commands, and consumes the outputs: the page's C program as C99 and
//! C++17 beside kfam's own header, its Python and PyTorch programs beside
//! kfam's package, `mypy --strict` over both packages, and every torch
//! family defined in the catalog's namespace and `opcheck`ed.
//!
//! The page's `sh` commands, `toml` blocks and programs are read from the
//! page, so the page cannot drift from what this test runs.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use crate::support::process;
use crate::support::root;
use process::{output as run, text};

const FLAGS: &[&str] = &["-Wall", "-Wextra", "-Werror", "-pedantic"];

/// Runs `cmd`, which must exit 0.
fn ok(cmd: &mut Command) -> Output {
    let out = run(cmd);
    assert!(out.status.success(), "{cmd:?} failed:\n{}", text(&out));
    out
}

/// The fenced blocks of `doc` whose info string is `lang`, in order.
fn blocks(doc: &str, lang: &str) -> Vec<String> {
    let fence = format!("```{lang}\n");
    let mut found = Vec::new();
    let mut rest = doc;
    while let Some(start) = rest.find(&fence) {
        let body = &rest[start + fence.len()..];
        let end = body.find("```\n").expect("a closed fence");
        found.push(body[..end].to_owned());
        rest = &body[end..];
    }
    found
}

/// A command of the page as argv: `kfam` is the binary under test.
fn command(repo: &Path, line: &str) -> Command {
    let mut words = line.split_whitespace();
    assert_eq!(words.next(), Some("kfam"), "{line}");
    let mut c = Command::new(env!("CARGO_BIN_EXE_kfam"));
    c.current_dir(repo).args(words);
    c
}

fn git(repo: &Path, args: &[&str]) -> Output {
    ok(Command::new("git")
        .current_dir(repo)
        .args(args)
        .env("GIT_AUTHOR_NAME", "team")
        .env("GIT_AUTHOR_EMAIL", "team@example.invalid")
        .env("GIT_COMMITTER_NAME", "team")
        .env("GIT_COMMITTER_EMAIL", "team@example.invalid"))
}

/// `file` with `text[from..to)` (the first `from`, the first `to` after
/// it) replaced by `with`.
fn splice(file: &Path, from: &str, to: &str, with: &str) {
    let text = fs::read_to_string(file).unwrap();
    let a = text
        .find(from)
        .unwrap_or_else(|| panic!("no `{from}` in {}", file.display()));
    let b = a + text[a..]
        .find(to)
        .unwrap_or_else(|| panic!("no `{to}` in {}", file.display()));
    fs::write(file, format!("{}{with}{}", &text[..a], &text[b..])).unwrap();
}

/// Replaces the one `from` in `file`.
fn edit(file: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(file).unwrap();
    assert_eq!(
        text.matches(from).count(),
        1,
        "`{from}` in {}",
        file.display()
    );
    fs::write(file, text.replacen(from, to, 1)).unwrap();
}

/// `gcc` / `g++`, or clang / clang++ of the test environment.
fn compiler(name: &str) -> Command {
    match name {
        "clang" => kfam_testenv::clang(false),
        "clang++" => kfam_testenv::clang(true),
        _ => Command::new(name),
    }
}

#[test]
fn the_adopting_guide_works_as_written() {
    let doc = fs::read_to_string(root().join("docs/adopting.md")).unwrap();
    let sh: Vec<String> = blocks(&doc, "sh")
        .iter()
        .flat_map(|b| b.lines().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    let expected = [
        "kfam init --name npuops --license MIT",
        "kfam new silu_bf16 --kind elementwise_unary",
        "kfam new row_sum --kind reduce",
        "kfam new proj_nz --kind matmul",
        "kfam new attn_decode --kind paged_attention_decode manifest",
        "kfam check",
        "kfam generate --out .",
        "kfam check --message-format github",
        "kfam generate --out . --check",
        "kfam diff --against origin/main",
    ];
    assert_eq!(
        sh, expected,
        "the page's commands changed: update this test"
    );
    let toml = blocks(&doc, "toml");
    let [catalog, platform, cargo_toml] = &toml[..] else {
        panic!("the page has three toml blocks: {toml:?}")
    };
    let rust = blocks(&doc, "rust");
    let [build_rs, main_rs] = &rust[..] else {
        panic!("the page has two rust blocks")
    };
    let c_program = &blocks(&doc, "c")[0];
    let python = blocks(&doc, "python");
    let [py_consumer, py_torch] = &python[..] else {
        panic!("the page has two python blocks")
    };
    let text_blocks = blocks(&doc, "text");
    let [refusal, unqualified] = &text_blocks[..] else {
        panic!("the page has two text blocks")
    };
    // The digest the page records for `row_sum`'s qualified artifact.
    let qualified = doc
        .split("the built kernel; here\n`")
        .nth(1)
        .and_then(|r| r.split('`').next())
        .expect("the page names row_sum's qualified digest");
    assert_eq!(qualified.len(), 64);

    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("npu-kernels");
    fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    let step = |i: usize| ok(&mut command(&repo, expected[i]));

    // Start, then the page's identity and platform.
    step(0);
    let abi = repo.join("manifest/abi.toml");
    splice(
        &abi,
        "[catalog]\n",
        "# Where artifacts run",
        &format!("{catalog}\n"),
    );
    splice(
        &abi,
        "[[platforms]]\n",
        "[[backends]]",
        &format!("{platform}\n"),
    );

    // Families of four kinds besides the example, torch on, NZ where the
    // platform takes it.
    for i in 1..=4 {
        step(i);
    }
    let families = repo.join("manifest/families");
    for entry in fs::read_dir(&families).unwrap() {
        edit(
            &entry.unwrap().path(),
            "contract = \"kernel\"\n",
            "contract = \"kernel\"\ntorch = true\n",
        );
    }
    edit(
        &families.join("proj_nz.toml"),
        "name = \"b\"\ndtype = \"bf16\"\n",
        "name = \"b\"\ndtype = \"bf16\"\nlayout = \"nz\"\n",
    );
    // `row_sum` qualified, as the page does: its placeholder receipt's
    // digest replaced by the qualified artifact's.
    edit(
        &families.join("row_sum.toml"),
        &kfam_codegen::init::placeholder_sha256("row_sum"),
        qualified,
    );

    // The platform's own rules: without NZ in its layouts, `proj_nz` is
    // refused with a note at the platform's declaration, as the page shows.
    let layouts = "layouts = [\"nd\", \"nz\"]";
    edit(&abi, layouts, "layouts = [\"nd\"]");
    let refused = run(&mut command(&repo, "kfam check"));
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains(refusal.trim()), "{stderr}");
    assert!(
        stderr.contains("note: `npu` declares its layouts at manifest/abi.toml:"),
        "{stderr}"
    );
    edit(&abi, "layouts = [\"nd\"]", layouts);

    let checked = step(5);
    assert!(!text(&checked).contains("warning"), "{}", text(&checked));
    step(6);
    for path in [
        "python/pyproject.toml",
        "python/npuops/__init__.py",
        "native/include/npu/npu.h",
        "native/include/npu/npu_constants.h",
        "generated/rust/tables.rs",
        "generated/schema/family.schema.json",
        "generated/docs/families.md",
        "manifest/approved.lock",
    ] {
        assert!(repo.join(path).is_file(), "{path} was not written");
    }

    // CI, against the base a pull request would have.
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "the npuops catalog"]);
    git(
        tmp.path(),
        &["clone", "-q", "--bare", "npu-kernels", "origin.git"],
    );
    git(&repo, &["remote", "add", "origin", "../origin.git"]);
    git(&repo, &["fetch", "-q", "origin"]);
    for i in 7..=9 {
        step(i);
    }
    // A renumbered runtime is breaking: the third CI command fails on it.
    edit(
        &abi,
        "name = \"host_runtime\"\ncode = 0",
        "name = \"host_runtime\"\ncode = 1",
    );
    let diff = run(&mut command(&repo, expected[9]));
    assert_eq!(diff.status.code(), Some(1), "{}", text(&diff));
    assert!(text(&diff).contains("KD095"), "{}", text(&diff));
    git(&repo, &["checkout", "-q", "--", "manifest/abi.toml"]);

    consume_in_c(tmp.path(), &repo, c_program);
    consume_in_python(tmp.path(), &repo, py_consumer, py_torch, unqualified);
    consume_in_rust(&repo, cargo_toml, build_rs, main_rs);
}

/// The page's crate in `rust/`, with this checkout's kfam crates for the
/// published ones it names, built offline with the workspace's lock.
fn consume_in_rust(repo: &Path, cargo_toml: &str, build_rs: &str, main_rs: &str) {
    let krate = repo.join("rust");
    fs::create_dir_all(krate.join("src")).unwrap();
    let path = |dir: &str| format!("{{ path = {:?}", root().join(dir).display().to_string());
    let manifest = cargo_toml
        .replace(
            "kfam-runtime = \"0.1\"",
            &format!("kfam-runtime = {} }}", path("runtime")),
        )
        .replace(
            "kfam-codegen = { version = \"0.1\"",
            &format!("kfam-codegen = {}", path("codegen")),
        );
    assert_ne!(manifest, cargo_toml, "the page's dependencies changed");
    fs::write(
        krate.join("Cargo.toml"),
        format!("{manifest}\n[workspace]\n"),
    )
    .unwrap();
    fs::copy(root().join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
    fs::write(krate.join("build.rs"), build_rs).unwrap();
    fs::write(krate.join("src/main.rs"), main_rs).unwrap();
    // Shared with build_script.rs: one build of the kfam crates.
    let out =
        ok(kfam_testenv::team_cargo()
            .current_dir(&krate)
            .args(["run", "--offline", "--quiet"]));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "row_sum on npu (code 0)\n\
         no_profile: family `row_sum` has no profile for platform `npu` in `onboard` mode\n"
    );
}

/// The page's program, as C99 and C++17 with gcc and clang, alone and in
/// one translation unit with kfam's own header and tables.
fn consume_in_c(tmp: &Path, repo: &Path, program: &str) {
    let want = "proj_nz: 3 params, profile npu_sim on npu (sim), b in nz\n";
    let with_kfam = format!(
        "#define KFAM_IMPLEMENTATION\n#include <kfam/kfam.h>\n#include <kfam/kfam_constants.h>\n{}",
        program.replace(
            "    return 0;",
            "    printf(\"%s\\n\", kfam_families[0].name);\n    return 0;"
        )
    );
    // kfam's families are sorted by name, as the table is.
    let mut names: Vec<String> = fs::read_dir(root().join("manifest/families"))
        .unwrap()
        .map(|e| {
            e.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    let first_kfam = &names[0];
    for (name, source, expect) in [
        ("alone", program.to_owned(), want.to_owned()),
        ("beside_kfam", with_kfam, format!("{want}{first_kfam}\n")),
    ] {
        for (tool, lang, std) in [
            ("gcc", "c", "-std=c99"),
            ("g++", "c++", "-std=c++17"),
            ("clang", "c", "-std=c99"),
            ("clang++", "c++", "-std=c++17"),
        ] {
            let src = tmp.join(format!("{name}-{tool}.{lang}"));
            fs::write(&src, &source).unwrap();
            let exe = tmp.join(format!("{name}-{tool}"));
            ok(compiler(tool)
                .arg(std)
                .args(FLAGS)
                .arg("-I")
                .arg(repo.join("native/include"))
                .arg("-I")
                .arg(root().join("generated/include"))
                .args(["-x", lang])
                .arg(&src)
                .arg("-o")
                .arg(&exe));
            let out = ok(&mut Command::new(&exe));
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                expect,
                "{name} {tool}"
            );
        }
    }
}

/// The page's Python and PyTorch programs; both packages in one
/// interpreter, every torch family of the team's catalog defined in its
/// namespace and `opcheck`ed; `mypy --strict` over both packages and the
/// page's consumer.
fn consume_in_python(
    tmp: &Path,
    repo: &Path,
    consumer: &str,
    torch_program: &str,
    unqualified: &str,
) {
    let team = repo.join("python");
    let shipped = root().join("generated/python");
    let path = kfam_testenv::search_path(&[&team, &shipped]);
    let python = |code: &str| {
        let out = ok(kfam_testenv::python()
            .args(["-c", code])
            .env("PYTHONPATH", &path));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let printed = python(consumer);
    assert_eq!(printed, "row_sum npu_sim npuops npu\n");
    python(torch_program);

    // The receipt `kfam new` wrote is a placeholder: an artifact document
    // that names it is refused at admission, with a message saying so,
    // though the catalog holds the receipt.
    let examples = repo.join("generated/schema/examples");
    let placeholder = format!(
        r#"
import json, pathlib, kfam_runtime, npuops
doc = pathlib.Path({examples:?}) / "silu_bf16.npu_sim.compiled_meta.json"
text = doc.read_bytes()
sha = json.loads(text)["artifact"]["sha256"]
assert kfam_runtime.is_placeholder_digest(sha), sha
assert npuops.find_artifact(sha) is not None
try:
    npuops.admit(text, sha)
except npuops.AdmissionError as e:
    print(e.outcome.spelling, e.field, e)
"#
    );
    assert_eq!(
        python(&placeholder),
        "not_approved artifact.sha256 not_approved: `artifact.sha256` is a placeholder digest \
         (32 leading zeros, as `kfam new` writes), which approves no artifact: qualify the \
         artifact and record its receipt\n"
    );
    // And its capability says that no qualified artifact exists, as the
    // page shows.
    let capability = r#"
import npuops
try:
    npuops.capability("silu_bf16", npuops.Platform.NPU, npuops.ExecutionMode.SIM,
                      npuops.Contract.KERNEL)
except npuops.CapabilityError as e:
    assert e.outcome is npuops.Capability.UNQUALIFIED
    assert e.status is npuops.Status.NOT_APPROVED
    print(e)
"#;
    assert_eq!(python(capability).trim(), unqualified.trim());

    let both = r#"
import torch
from torch.library import Library
import kfam, npuops, npuops.torch

assert (npuops.CATALOG_NAME, kfam.CATALOG_NAME) == ("npuops", "kfam")
assert npuops.CATALOG_DIGEST != kfam.CATALOG_DIGEST
assert [p.spelling for p in npuops.Platform] == ["npu"]
assert "a2a3" in [p.spelling for p in kfam.Platform]
torch_families = [f for f in npuops.FAMILIES if f.torch]
assert len(torch_families) == 5, [f.name for f in torch_families]
lib = Library("npu", "DEF")
for fam in torch_families:
    op = npuops.torch.define(lib, fam)
    assert str(op._schema).startswith(f"npu::{fam.name}("), op._schema
    written = [p.index for p in fam.params if p.direction is not npuops.Direction.IN]

    # A test-only kernel: writes every output (opcheck checks the
    # registration, schema, fake kernel and compiled dispatch, not values).
    def kernel(*args, written=written):
        for i in written:
            args[i].copy_(torch.ones_like(args[i]))

    lib.impl(fam.name, kernel, "CPU")
    args = []
    for p in fam.params:
        shape = [d if isinstance(d, int) and d >= 0 else 4 for d in p.shape]
        args.append(torch.zeros(shape, dtype=npuops.torch.torch_dtype(p.dtype)))
    result = torch.library.opcheck(op, args)
    assert set(result.values()) == {"SUCCESS"}, (fam.name, result)
print("ok")
"#;
    assert_eq!(python(both), "ok\n");

    let snippet = tmp.join("consumer.py");
    fs::write(&snippet, consumer).unwrap();
    let out = run(kfam_testenv::mypy(kfam_testenv::Mypy::Strict310)
        .args(["--exclude", "/torch\\.py$"])
        .arg(team.join("npuops"))
        .arg(shipped.join("kfam"))
        .arg(&snippet)
        .env("MYPYPATH", &path));
    assert!(
        out.status.success(),
        "mypy --strict rejects the packages or the page's consumer:\n{}",
        text(&out)
    );
}
