//! The documented Rust consumer (runtime/examples/consumer.rs) runs and says
//! what docs/rust.md shows.

use std::process::Command;

#[test]
fn consumer_example_runs() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let meta =
        format!("{root}/generated/schema/examples/add_bf16_1024.xdna2_onboard.compiled_meta.json");
    let sha = kfam_catalog::families::add_bf16_1024::FAMILY.receipts[0].sha256;
    // Built with the workspace's features, as `cargo test --workspace` built
    // it (nothing to do then): `cargo run -p kfam-runtime` resolves the
    // runtime's features alone and rebuilt its dependencies (about a minute).
    let build = Command::new(env!("CARGO"))
        .args(["build", "-q", "--workspace", "--example", "consumer"])
        .output()
        .unwrap();
    assert!(
        build.status.success(),
        "cargo build --example consumer:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let target = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("debug/examples/consumer");
    let out = Command::new(target).arg(&meta).arg(sha).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in [
        "supported on a2a3_sim by a2a3/sim/matmul_acc_nz_bf16.so",
        "admitted add_bf16_1024 for xdna2_onboard (kernel)",
        "add_bf16_1024 call ok",
        "matmul_acc_nz_bf16 without tensors: arg_count",
        "kfam::add_bf16_1024(Tensor(a0) lhs, Tensor(a1) rhs, Tensor(a2!) out) -> Tensor(a2!)",
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "missing `{line}` in:\n{stdout}"
        );
    }
}
