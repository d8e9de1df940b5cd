//! runtime's integration tests: one test binary with a module per suite (docs/testing.md, "Layout"); `alloc` (its own global allocator) is a binary of its own; the macro's trybuild cases run in kfam-dev (`dev/tests/ui.rs`).

mod support;

mod call_messages;
mod conformance;
mod description;
mod examples;
mod fuzz_drive;
mod layering;
mod lifecycle;
mod lookup;
mod package;
mod refusals;
mod schema_bounds;
mod shared;
mod tables;
