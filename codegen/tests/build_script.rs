//! The build-script API from a crate outside this workspace, as a team
//! uses it (docs/rust.md, "From a build script"): `build.rs` calls
//! `kfam_codegen::build::compile("manifest")`, the crate includes the
//! tables from `OUT_DIR` and decides over its own catalog; a family file
//! added to the manifest directory rebuilds the tables; a manifest mistake
//! fails the build with `kfam check`'s diagnostic. Another crate embeds
//! the same catalog with `manifest!`. Neither holds this repository's
//! catalog: `cargo tree` shows no `kfam-catalog`, and no shipped family's
//! name is in either binary.

use std::fs;
use std::path::Path;

use crate::support::process;
use crate::support::tree;
use crate::support::{member_path, root, team_crate};
use process::{output, text};

const MAIN: &str = r#"
mod catalog {
    include!(concat!(env!("OUT_DIR"), "/kfam_catalog.rs"));
}

use catalog::{execution_modes, platforms};
use kfam_runtime::Contract;

fn main() {
    let names: Vec<&str> = catalog::CATALOG.families.iter().map(|f| f.name).collect();
    let relu = catalog::CATALOG
        .capability("relu_fp16", platforms::A5, execution_modes::SIM, Contract::Kernel)
        .map(|s| s.profile.name);
    println!("{} {:?}", names.join(","), relu);
}
"#;

/// Neither the dependency graph nor the binary holds this repository's
/// catalog: no `kfam-catalog` in `cargo tree`, no shipped family's name
/// in the executable.
fn holds_no_shipped_family(krate: &Path, exe: &Path) {
    let tree = cargo(krate, &["tree"]);
    let tree = String::from_utf8_lossy(&tree.stdout);
    assert!(tree.contains("kfam-runtime"), "{tree}");
    assert!(!tree.contains("kfam-catalog"), "{tree}");
    let binary = fs::read(exe).unwrap();
    let shipped = fs::read_dir(root().join("manifest/families")).unwrap();
    let mut checked = 0;
    for f in shipped {
        let name = f.unwrap().path();
        let name = name.file_stem().unwrap().to_string_lossy().into_owned();
        assert!(
            !binary.windows(name.len()).any(|w| w == name.as_bytes()),
            "{} holds the shipped family `{name}`",
            exe.display()
        );
        checked += 1;
    }
    assert!(checked >= 9, "{checked}");
}

/// A crate that embeds its catalog with `manifest!` decides over it, and
/// holds no shipped family either.
#[test]
fn a_manifest_macro_crate_holds_only_its_own_catalog() {
    let tmp = tempfile::tempdir().unwrap();
    let krate = tmp.path().join("team_macro");
    tree::copy_dir(
        &root().join("examples/embedded/manifest"),
        &krate.join("manifest"),
    );
    team_crate(
        &krate,
        "team_macro",
        &format!(
            "[dependencies]\nkfam-runtime = {{ path = {}, features = [\"macros\"] }}\n",
            member_path("runtime")
        ),
    );
    fs::copy(root().join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
    fs::write(
        krate.join("src/main.rs"),
        MAIN.replace(
            "include!(concat!(env!(\"OUT_DIR\"), \"/kfam_catalog.rs\"));",
            "kfam_runtime::manifest!(\"manifest\");",
        ),
    )
    .unwrap();
    let target = kfam_testenv::team_target();
    let out = cargo(&krate, &["run"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "relu_fp16,scale_fp32 Ok(\"a5_sim\")\n"
    );
    holds_no_shipped_family(&krate, &target.join("debug/team_macro"));
}

fn cargo(dir: &Path, args: &[&str]) -> std::process::Output {
    output(
        kfam_testenv::team_cargo()
            .current_dir(dir)
            .args(args)
            .args(["--offline", "--quiet"]),
    )
}

#[test]
fn a_build_script_embeds_a_catalog_and_watches_its_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let krate = tmp.path().join("team");
    tree::copy_dir(
        &root().join("examples/embedded/manifest"),
        &krate.join("manifest"),
    );
    team_crate(
        &krate,
        "team",
        &format!(
            "[dependencies]\nkfam-runtime = {{ path = {} }}\n\n\
             [build-dependencies]\nkfam-codegen = {{ path = {}, default-features = false }}\n",
            member_path("runtime"),
            member_path("codegen")
        ),
    );
    // The workspace's versions of every dependency, already downloaded.
    fs::copy(root().join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();
    fs::write(
        krate.join("build.rs"),
        "fn main() {\n    kfam_codegen::build::compile(\"manifest\").unwrap();\n}\n",
    )
    .unwrap();
    fs::write(krate.join("src/main.rs"), MAIN).unwrap();
    // Shared with adopting.rs: one build of the kfam crates.
    let target = kfam_testenv::team_target();

    let out = cargo(&krate, &["run"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "relu_fp16,scale_fp32 Ok(\"a5_sim\")\n"
    );
    holds_no_shipped_family(&krate, &target.join("debug/team"));

    // An added family file is seen: cargo watches the directory.
    let families = krate.join("manifest/families");
    let scale = fs::read_to_string(families.join("scale_fp32.toml")).unwrap();
    let added = scale
        .replace("name = \"scale_fp32\"", "name = \"scale_fp32_copy\"")
        .replace(&"2".repeat(64), &"3".repeat(64));
    fs::write(families.join("scale_fp32_copy.toml"), added).unwrap();
    let out = cargo(&krate, &["run"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "relu_fp16,scale_fp32,scale_fp32_copy Ok(\"a5_sim\")\n"
    );

    // A mistake fails the build with the checker's diagnostic.
    fs::write(
        families.join("scale_fp32_copy.toml"),
        fs::read_to_string(families.join("scale_fp32_copy.toml"))
            .unwrap()
            .replace("platform = \"a5\"", "platform = \"a6\""),
    )
    .unwrap();
    let out = cargo(&krate, &["build"]);
    assert!(!out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error[KF0006]: unknown platform `a6`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("manifest/families/scale_fp32_copy.toml"),
        "{stderr}"
    );
}
