//! The language server's per-keystroke work (`cargo bench -p kfam-codegen
//! --bench live`): `live/check_file/N` re-checks one edited family file
//! against a synthetic manifest of N families on disk, lock included (what
//! `kfam lsp` runs on every change); `live/open/N` loads that manifest (what
//! it runs once, and again after a save). Target: a keystroke well under
//! 50 ms at 1,000 families. `KFAM_BENCH_SIZES=1000` restricts the sizes
//! (the default is 1000, 10000). See docs/performance.md.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use kfam_codegen::{live::Manifest, synth};

#[cfg(feature = "mimalloc")]
#[path = "../src/alloc.rs"]
mod alloc;

fn sizes() -> Vec<usize> {
    std::env::var("KFAM_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1000, 10_000])
}

fn bench_live(c: &mut Criterion) {
    // As `kfam lsp` runs.
    #[cfg(feature = "mimalloc")]
    alloc::tune();
    let mut group = c.benchmark_group("live");
    group.sample_size(20);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
    for n in sizes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("manifest");
        synth::write_dir(&root, n, 1).expect("write the synthetic manifest");
        // The lock, so the review gate runs as it does in a real manifest.
        kfam_codegen::generate_dir(&root, &dir.path().join("generated"), false)
            .expect("synthetic manifests generate");
        let mut manifest = Manifest::open(&root);
        let (id, _) = manifest.families()[n / 2];
        let path = std::path::PathBuf::from(&manifest.sources().get(id).path);
        // An edit in progress: the text on disk with a comment being typed.
        let text = format!("{}# editing\n", manifest.sources().get(id).text);
        let first = manifest.check_file(&path, text.clone());
        assert!(first.outcome.is_some_and(|o| o.family.is_some()));
        group.bench_with_input(BenchmarkId::new("check_file", n), &n, |b, _| {
            b.iter(|| manifest.check_file(&path, text.clone()));
        });
        group.bench_with_input(BenchmarkId::new("open", n), &n, |b, _| {
            b.iter(|| Manifest::open(&root));
        });
    }
    group.finish();
}

criterion_group!(benches, bench_live);
criterion_main!(benches);
