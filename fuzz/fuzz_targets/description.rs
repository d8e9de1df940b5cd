#![no_main]
//! `cargo +nightly fuzz run description`: see fuzz/README.md and `kfam_fuzz::description`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kfam_fuzz::description(data));
