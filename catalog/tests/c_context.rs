//! The kernel context through the C ABI: tests/c/context_example.c (the
//! example of docs/c.md, a fake launcher) built with gcc as C99 and g++ as
//! C++17 with warnings as errors, linked against the static library, run;
//! and docs/c.md shows that file verbatim.

use std::process::Command;

use crate::support::libraries;
use crate::support::root;

/// The code block after `<!-- example: tests/c/context_example.c -->` in
/// docs/c.md is a part of the file, byte for byte, so the docs show code
/// that compiles and runs.
#[test]
fn docs_show_the_context_example_verbatim() {
    let doc = std::fs::read_to_string(root().join("docs/c.md")).unwrap();
    let marker = "<!-- example: tests/c/context_example.c -->\n```c\n";
    let (_, rest) = doc
        .split_once(marker)
        .expect("docs/c.md marks the context example");
    let (block, _) = rest.split_once("```").expect("the example block ends");
    let source = std::fs::read_to_string(root().join("tests/c/context_example.c")).unwrap();
    assert!(
        block.trim().len() > 100 && source.contains(block),
        "docs/c.md's context example is not a verbatim part of tests/c/context_example.c"
    );
}

#[test]
fn c_program_drives_a_context_with_a_fake_launcher() {
    let dir = tempfile::tempdir().unwrap();
    let meta = root().join("generated/schema/examples/silu_bf16.a2a3_sim.compiled_meta.json");
    for library in libraries::BOTH {
        let built = libraries::shipped(library, dir.path());
        for (compiler, std) in [("gcc", "-std=c99"), ("g++", "-std=c++17")] {
            let out = dir.path().join(format!("context_{library:?}_{compiler}"));
            let mut cmd = Command::new(compiler);
            cmd.args([std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-o"])
                .arg(&out)
                .arg("-I")
                .arg(root().join("generated/include"));
            if compiler == "g++" {
                cmd.args(["-x", "c++"]);
            }
            cmd.arg(root().join("tests/c/context_example.c"));
            if compiler == "g++" {
                cmd.args(["-x", "none"]);
            }
            cmd.args(built.link_args(false));
            let o = cmd
                .output()
                .unwrap_or_else(|e| panic!("{compiler} is required: {e}"));
            assert!(
                o.status.success(),
                "{compiler}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let run = Command::new(&out).arg(&meta).output().unwrap();
            assert!(
                run.status.success(),
                "{compiler} build over the {library:?} library: {}{}",
                String::from_utf8_lossy(&run.stdout),
                String::from_utf8_lossy(&run.stderr)
            );
        }
    }
}
