//! A stable-Rust driver for the fuzz target bodies (no coverage feedback):
//! runs a target over its checked-in corpus, the built-in seeds and any
//! directories given, then over mutated inputs until the iteration count or
//! the time budget is reached.
//!
//! ```text
//! cargo run --release --manifest-path fuzz/Cargo.toml --example drive -- \
//!     TARGET [--iterations N] [--seconds S] [--seed N] [DIR...]
//! ```
//!
//! TARGET is `manifest`, `manifest_structured`, `check`, `compiled_meta`,
//! `description`, `unit`,
//! `call`, or `check_shortcut`: the inputs of `check`, asserting that its
//! cached parse of the shipped documents decides as `check_sources` does.
//! A panic is a finding: the input is written to
//! `fuzz/artifacts/TARGET/drive-crash-<seed>-<n>` before the panic is
//! re-raised.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use kfam_fuzz::{builtin_seeds, corpus, dictionary, mutate, Rng};

/// The `unit` target's body (it needs the prebuilt runtime's crate, which
/// the other bodies do not).
#[path = "../src/unit.rs"]
mod unit;

fn main() {
    let mut args = std::env::args().skip(1);
    let target = args.next().unwrap_or_else(|| usage());
    let body: fn(&[u8]) = match target.as_str() {
        "manifest" => kfam_fuzz::manifest,
        "manifest_structured" => kfam_fuzz::manifest_structured,
        "check" => kfam_fuzz::check,
        "check_shortcut" => kfam_fuzz::check_light_matches_full,
        "compiled_meta" => kfam_fuzz::compiled_meta,
        "description" => kfam_fuzz::description,
        "unit" => unit::unit,
        "call" => kfam_fuzz::call,
        _ => usage(),
    };
    let (mut iterations, mut seconds, mut seed) = (usize::MAX, u64::MAX, 1u64);
    let mut dirs = Vec::new();
    while let Some(a) = args.next() {
        let mut num = || {
            args.next()
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or_else(|| usage())
        };
        match a.as_str() {
            "--iterations" => iterations = num() as usize,
            "--seconds" => seconds = num(),
            "--seed" => seed = num(),
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    if iterations == usize::MAX && seconds == u64::MAX {
        iterations = 10_000;
    }
    // `check_shortcut` (the `check` target's cached parse against
    // `check_sources`) runs on the inputs of `check`.
    let inputs = if target == "check_shortcut" {
        "check"
    } else {
        target.as_str()
    };
    let mut seeds = corpus(inputs);
    seeds.extend(builtin_seeds(inputs));
    for d in &dirs {
        for e in std::fs::read_dir(d).expect("corpus directory").flatten() {
            if let Ok(b) = std::fs::read(e.path()) {
                seeds.push(b);
            }
        }
    }
    if seeds.is_empty() {
        seeds.push(vec![0u8; 64]);
    }
    let dict = dictionary(inputs);
    let artifacts = kfam_fuzz::repo_root().join("fuzz/artifacts").join(&target);
    let deadline = Instant::now() + Duration::from_secs(seconds.min(1 << 40));
    let mut rng = Rng::new(seed);
    let mut execs = 0usize;
    let run = |data: &[u8], n: usize| {
        let r = std::panic::catch_unwind(|| body(data));
        if let Err(e) = r {
            std::fs::create_dir_all(&artifacts).unwrap();
            let path = artifacts.join(format!("drive-crash-{seed}-{n}"));
            std::fs::write(&path, data).unwrap();
            eprintln!("crash input written to {}", path.display());
            std::panic::resume_unwind(e);
        }
    };
    for s in &seeds {
        run(s, execs);
        execs += 1;
    }
    let start = Instant::now();
    while execs - seeds.len() < iterations && Instant::now() < deadline {
        let mut data = seeds[rng.below(seeds.len())].clone();
        for _ in 0..=rng.below(4) {
            mutate(&mut data, &mut rng, &dict, &seeds);
        }
        run(&data, execs);
        execs += 1;
    }
    println!(
        "{target}: {execs} executions ({} seeds) in {:.1}s, no crash",
        seeds.len(),
        start.elapsed().as_secs_f64()
    );
}

fn usage() -> ! {
    eprintln!("usage: drive manifest|manifest_structured|check|check_shortcut|compiled_meta|description|unit|call [--iterations N] [--seconds S] [--seed N] [DIR...]");
    std::process::exit(2);
}
