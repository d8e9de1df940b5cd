//! The C ABI over any catalog: the bodies of the functions a catalog's
//! header declares (`PREFIX_capability`, ...), each taking the
//! [`CCatalog`] it serves first. [`c_abi!`](crate::c_abi) exports them
//! under the catalog's prefix from the crate that holds its tables, and
//! `kfam-native` as `kfamrt_*` over a catalog it opens; both call them by
//! their path here (`ffi::capability`).
//!
//! This module only declares its children and re-exports their items (it
//! uses none of them itself), so the children share helpers through
//! `boundary`, `catalog`, `decode` and `records`, never through it.

mod boundary;
mod catalog;
mod context;
mod decisions;
mod decode;
mod message;
mod records;
#[cfg(test)]
mod tests;

pub use catalog::{CCatalog, Shim};
pub use context::{
    context_close, context_free, context_generation, context_init, context_init_generation,
    context_launch, context_new, context_new_with, context_prepare, context_supported, KfamContext,
    LaunchFn,
};
pub use decisions::{
    admission_status, admit, capability, capability_status, find_artifact, find_family,
    library_table, torch_schema, validate_call,
};
pub use message::{
    admit_message, capability_message, check_catalog, check_pairing, validate_call_message,
    write_message,
};
pub use records::*;
