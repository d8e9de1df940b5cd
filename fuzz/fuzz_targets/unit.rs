#![no_main]
//! `cargo +nightly fuzz run unit`: see fuzz/README.md and `fuzz/src/unit.rs`.

use libfuzzer_sys::fuzz_target;

#[path = "../src/unit.rs"]
mod unit;

fuzz_target!(|data: &[u8]| unit::unit(data));
