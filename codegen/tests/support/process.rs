//! Running the tools a test drives (compilers, the programs they build).

use std::process::{Command, Output};

/// `cmd`'s output; fails the test, with both streams, when it cannot run
/// or exits unsuccessfully.
pub fn run(mut cmd: Command) -> Output {
    let shown = format!("{cmd:?}");
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {shown}: {e}"));
    assert!(
        out.status.success(),
        "{shown} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
