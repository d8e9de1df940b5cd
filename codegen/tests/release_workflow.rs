//! The release workflow (`.github/workflows/release.yml`), which builds
//! every wheel and the crates and publishes them with trusted publishing
//! (docs/install.md, "Publishing"): actionlint (the pinned wheel of
//! `testenv/requirements.txt`) finds nothing in it, it builds each wheel
//! with the one command of docs/install.md for every target the page
//! names, with the maturin and zig the tests pin, and only its publishing
//! job may ask for an OpenID Connect token.

use std::fs;
use std::process::Command;

use crate::support::root;

/// `name==version` of the pinned test environment.
fn pinned(name: &str) -> String {
    let list = fs::read_to_string(root().join("testenv/requirements.txt")).unwrap();
    list.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}==")))
        .unwrap_or_else(|| panic!("{name} is not pinned in testenv/requirements.txt"))
        .trim()
        .to_owned()
}

#[test]
fn the_release_workflow_lints_clean_and_builds_every_wheel() {
    let workflow = root().join(".github/workflows/release.yml");
    let out = Command::new(kfam_testenv::venv_bin("actionlint"))
        .arg("-color=false")
        .arg(&workflow)
        .current_dir(root())
        .output()
        .expect("run actionlint");
    assert!(
        out.status.success(),
        "actionlint: {}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    let text = fs::read_to_string(&workflow).unwrap();
    for (what, needle) in [
        (
            "maturin",
            format!("MATURIN_VERSION: \"{}\"", pinned("maturin")),
        ),
        ("zig", format!("ZIG_VERSION: \"{}\"", pinned("ziglang"))),
        (
            "the one command",
            "maturin build --release --zig --locked".to_owned(),
        ),
        ("manylinux2014", "compatibility: manylinux2014".to_owned()),
        ("musllinux", "compatibility: musllinux_1_2".to_owned()),
        (
            "kfam-runtime",
            "python -m build --outdir dist python".to_owned(),
        ),
        ("PyPI", "uses: pypa/gh-action-pypi-publish@".to_owned()),
        (
            "crates.io",
            "uses: rust-lang/crates-io-auth-action@".to_owned(),
        ),
    ] {
        assert!(
            text.contains(&needle),
            "{what}: no `{needle}` in release.yml"
        );
    }
    for target in [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "x86_64-unknown-linux-musl",
        "aarch64-unknown-linux-musl",
        "aarch64-apple-darwin",
        "x86_64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ] {
        assert!(
            text.contains(&format!("target: {target}")),
            "no wheel for {target}"
        );
    }
    // Trusted publishing: the token is asked for once, by the job that
    // publishes, behind its environment; the workflow's default is read-only.
    assert_eq!(text.matches("id-token: write").count(), 1, "{text}");
    assert!(text.contains("permissions:\n  contents: read\n"), "{text}");
    assert!(text.contains("    environment: release\n"), "{text}");
    assert!(!text.contains("secrets."), "a stored secret: {text}");
}
