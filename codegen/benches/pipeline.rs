//! Generation benchmarks (`cargo bench -p kfam-codegen`).
//!
//! - `pipeline/N`: load (TOML parse), check, lower, gate, and emit every
//!   output, in memory, for a synthetic manifest of N families. Reported
//!   per run; targets: <= 1.0 s at 10,000 families, and 10x the families
//!   <= 12x the time.
//! - `generate_disk/{fresh,unchanged}/N`: the `kfam generate` binary end to
//!   end on a manifest directory: into an empty output directory, and again
//!   when nothing changed (what `cargo build` pays after an edit elsewhere).
//!   `fresh` runs up to 1,000 families (`KFAM_BENCH_FRESH_MAX` raises it).
//!
//! Set `KFAM_BENCH_SIZES=100,1000` to restrict the sizes (the default is
//! 100, 1000, 10000). See docs/performance.md for figures and commands.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use kfam_codegen::{check_loaded, diag::Report, emit, load, synth};

// The `kfam` binary's allocator, so `pipeline/N` measures what `kfam generate` runs.
#[cfg(feature = "mimalloc")]
#[path = "../src/alloc.rs"]
mod alloc;

const SEED: u64 = 1;

fn sizes() -> Vec<usize> {
    std::env::var("KFAM_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![100, 1000, 10_000])
}

/// The whole in-memory pipeline: what `kfam generate` does before writing.
fn pipeline(
    abi: Option<(String, String)>,
    families: Vec<(String, String)>,
) -> (Vec<emit::GeneratedFile>, String) {
    let mut report = Report::default();
    let loaded = load::load_sources(abi, families, &mut report);
    let ir = check_loaded(&loaded, &mut report).expect("synthetic manifests check cleanly");
    kfam_codegen::generate_files(&loaded, &ir)
}

fn bench_pipeline(c: &mut Criterion) {
    #[cfg(feature = "mimalloc")]
    alloc::tune();
    let mut group = c.benchmark_group("pipeline");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    for n in sizes() {
        let (abi, families) = synth::manifest(n, SEED).sources("manifest");
        group.throughput(Throughput::Elements(n as u64));
        group.measurement_time(Duration::from_secs(if n >= 10_000 { 20 } else { 5 }));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            // The inputs are moved into the loader, as `kfam generate` does;
            // cloning them is setup, not measured.
            b.iter_batched(
                || (abi.clone(), families.clone()),
                |(abi, families)| pipeline(abi, families),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

fn kfam(args: &[&std::ffi::OsStr]) {
    let status = Command::new(env!("CARGO_BIN_EXE_kfam"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("run kfam");
    assert!(status.success(), "kfam {args:?} failed");
}

fn generate(manifest: &Path, out: &Path) {
    kfam(&[
        "generate".as_ref(),
        manifest.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
}

fn bench_generate_disk(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate_disk");
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    for n in sizes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let manifest = dir.path().join("manifest");
        synth::write_dir(&manifest, n, SEED).expect("write synthetic manifest");
        let out = dir.path().join("generated");
        // The first run approves every family into approved.lock.
        generate(&manifest, &out);
        group.measurement_time(Duration::from_secs(if n >= 10_000 { 30 } else { 5 }));
        // Writing ~22,000 files, each flushed to disk before its rename,
        // takes minutes at 10,000 families: `fresh` runs up to 1,000 unless
        // KFAM_BENCH_FRESH_MAX says otherwise.
        let fresh_max: usize = std::env::var("KFAM_BENCH_FRESH_MAX")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1000);
        if n <= fresh_max {
            group.bench_with_input(BenchmarkId::new("fresh", n), &n, |b, _| {
                b.iter_batched(
                    || {
                        let _ = std::fs::remove_dir_all(&out);
                    },
                    |()| generate(&manifest, &out),
                    BatchSize::PerIteration,
                )
            });
        }
        group.bench_with_input(BenchmarkId::new("unchanged", n), &n, |b, _| {
            b.iter(|| generate(&manifest, &out))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_pipeline, bench_generate_disk);
criterion_main!(benches);
