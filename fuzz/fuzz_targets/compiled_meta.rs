#![no_main]
//! `cargo +nightly fuzz run compiled_meta`: see fuzz/README.md and `kfam_fuzz::compiled_meta`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kfam_fuzz::compiled_meta(data));
