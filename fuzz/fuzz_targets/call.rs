#![no_main]
//! `cargo +nightly fuzz run call`: see fuzz/README.md and `kfam_fuzz::call`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kfam_fuzz::call(data));
