//! The shared library's SONAME: `libkfamrt.so.<KFAMRT_ABI>`, so the dynamic
//! loader never pairs a catalog's library with a runtime of another ABI.

/// `KFAMRT_ABI` of `codegen/c/kfamrt.h` (the crate's `ABI` asserts it).
const ABI: u32 = 1;

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo::rustc-cdylib-link-arg=-Wl,-soname,libkfamrt.so.{ABI}");
    }
}
