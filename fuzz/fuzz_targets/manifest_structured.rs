#![no_main]
//! `cargo +nightly fuzz run manifest_structured`: see fuzz/README.md and `kfam_fuzz::manifest_structured`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| kfam_fuzz::manifest_structured(data));
