//! catalog's integration tests: one test binary with a module per suite (docs/testing.md, "Layout").

mod support;

mod c_abi;
mod c_conformance;
mod c_context;
mod two_catalogs;
