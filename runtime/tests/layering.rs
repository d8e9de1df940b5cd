//! The runtime is thin: a crate that links kfam-runtime (its default
//! features) compiles no generator crate, and the generator's library
//! compiles no CLI crate. Checked on the resolved dependency graph.

use std::process::Command;

/// `cargo tree -e normal` of `package` with `args`, one crate per line.
fn tree(package: &str, args: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args([
            "tree",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
            "-p",
            package,
        ])
        .args(args)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

fn assert_free_of(crates: &[String], banned: &[&str], what: &str) {
    let found: Vec<&String> = crates
        .iter()
        .filter(|c| banned.contains(&c.as_str()))
        .collect();
    assert!(found.is_empty(), "{what} depends on {found:?}: {crates:?}");
}

#[test]
fn the_runtime_compiles_no_generator() {
    let crates = tree("kfam-runtime", &[]);
    assert!(crates.iter().any(|c| c == "kfam-runtime"), "{crates:?}");
    assert_free_of(
        &crates,
        &[
            "kfam-codegen",
            "kfam-macros",
            "clap",
            "schemars",
            "prettyplease",
            "toml",
            "mimalloc",
        ],
        "kfam-runtime",
    );
    // What the library links: no syn or quote at all. The one compile-time
    // code generator in its tree is serde's derive (the admission reader's
    // types), whose own dependencies are syn and quote.
    let linked = tree("kfam-runtime", &["-e", "no-proc-macro"]);
    assert_free_of(
        &linked,
        &["syn", "quote", "proc-macro2"],
        "kfam-runtime (linked)",
    );
    let proc_macros: Vec<&String> = crates
        .iter()
        .filter(|c| {
            !linked.contains(c)
                && !["syn", "quote", "proc-macro2", "unicode-ident"].contains(&c.as_str())
        })
        .collect();
    assert_eq!(proc_macros, ["serde_derive"], "{crates:?}");
}

#[test]
fn the_macro_is_a_feature() {
    let crates = tree("kfam-runtime", &["--features", "macros"]);
    assert!(crates.iter().any(|c| c == "kfam-macros"), "{crates:?}");
}

#[test]
fn the_generator_library_compiles_no_cli() {
    let crates = tree("kfam-codegen", &["--no-default-features"]);
    assert_free_of(
        &crates,
        &[
            "clap",
            "mimalloc",
            "libmimalloc-sys",
            "lsp-server",
            "lsp-types",
        ],
        "kfam-codegen's library",
    );
}
