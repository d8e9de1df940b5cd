//! The record types of the tables. Each is declared once, in the
//! generator's record declarations (`kfam_codegen::record`), and printed
//! into `generated/rust/records.rs`, which both the generated tables and
//! the `kfam_macros::manifest!` expansion fill in.

include!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/generated/rust/records.rs"
));

/// The native ABI the artifacts target (`manifest/abi.toml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Abi {
    /// Native runtime commit (40 lowercase hex digits).
    pub revision: &'static str,
    pub major: u16,
    pub minor: u16,
    pub max_tensor_args: u32,
    pub max_scalar_args: u32,
    pub max_rank: u32,
    /// Most callables one kernel context holds prepared (the default limit
    /// of [`Context::new`](crate::Context::new)).
    pub max_prepared: u32,
    /// The C ABI's code of each [`Status`](crate::Status), in `Status::ALL`
    /// order (`[status]` of `abi.toml`).
    pub status: [i32; crate::Status::ALL.len()],
}

impl Abi {
    /// The C ABI's code of `status` in this catalog.
    pub const fn status_code(&self, status: crate::Status) -> i32 {
        self.status[status as usize]
    }
}
