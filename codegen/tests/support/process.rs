//! Running the tools a test drives (compilers, the programs they build).

use std::process::{Command, Output};

/// `cmd`'s output; fails the test, with both streams, when it cannot run
/// or exits unsuccessfully.
pub fn run(mut cmd: Command) -> Output {
    let out = output(&mut cmd);
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}",
        out.status,
        text(&out)
    );
    out
}

/// `cmd`'s output, whatever its exit status; fails the test when it
/// cannot run.
pub fn output(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

/// Both streams of `out`, for a failure message.
pub fn text(out: &Output) -> String {
    format!(
        "--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
