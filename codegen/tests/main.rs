//! kfam-codegen's integration tests: one test binary (one link, one
//! process) with a module per suite. `cargo test -p kfam-codegen --test
//! integration <suite>::` runs one suite (docs/testing.md, "Layout").

mod support;

mod accepted;
mod adopting;
mod architecture;
mod bounds;
mod build_script;
mod c_functions;
mod c_header;
mod c_prefix;
mod catalog;
mod ci_formats;
mod cli_wheel;
mod crash_safety;
mod diagnostics;
mod diff_against;
mod docs;
mod editors;
mod format_evolution;
mod fresh;
mod freshness;
mod hooks;
mod identity;
mod init;
mod injection;
mod live;
mod lsp;
mod module_graph;
mod no_panic;
mod python;
mod python_sources;
mod release_workflow;
mod review;
mod robustness;
mod schema;
mod sourcegen;
mod validators;
mod write;
