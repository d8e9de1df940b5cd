//! The C ABI over any catalog: the bodies of the functions a catalog's
//! header declares (`PREFIX_capability`, ...), each taking the
//! [`CCatalog`] it serves first. [`c_abi!`](macro@crate::c_abi) exports them
//! under the catalog's prefix from the crate that holds its tables, and
//! `kfam-native` as `kfamrt_*` over a catalog it opens; both call them by
//! their path here (`ffi::capability`). The functions, their arguments and
//! their C types are declared once, in kfam-codegen's
//! `record::C_FUNCTIONS`, from which the header's prototypes are printed;
//! `codegen/tests/c_functions.rs` holds these functions, `c_abi!`'s list
//! and `kfam-native`'s to it (docs/architecture.md, "The C ABI's
//! functions").
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

// Whole modules: a function of the C ABI is declared once, in
// kfam-codegen's `record::C_FUNCTIONS`, and implemented once, in one of
// these; it is not listed again here.
pub use catalog::{CCatalog, Shim};
pub use context::*;
pub use decisions::*;
pub use message::*;
pub use records::*;
