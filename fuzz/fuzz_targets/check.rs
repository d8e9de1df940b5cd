#![no_main]
//! `cargo +nightly fuzz run check`: see fuzz/README.md and `kfam_fuzz::check`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kfam_fuzz::check(data));
