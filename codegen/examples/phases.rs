//! Time each phase of the pipeline, one thread, on a synthetic manifest:
//! `cargo run --release -p kfam-codegen --example phases -- 10000 [rust,c]`
//! (`pipeline` instead of phase names: the whole pipeline, five times).
//! Where the benchmark `pipeline/N` says how long, this says where.

use std::time::Instant;

// The `kfam` binary's allocator, so the phases add up to what it runs.
#[cfg(feature = "mimalloc")]
#[path = "../src/alloc.rs"]
mod alloc;

use kfam_codegen::{check_loaded, diag::Report, emit, gate, load, synth};

fn main() {
    #[cfg(feature = "mimalloc")]
    alloc::tune();
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let (abi, families) = synth::manifest(n, 1).sources("manifest");
    let mut report = Report::default();
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    if std::env::args().nth(2).as_deref() == Some("pipeline") {
        // What `pipeline/N` measures, five times in one process (as the
        // benchmark's iterations are), each run's wall time printed.
        for _ in 0..5 {
            let (abi, families) = (abi.clone(), families.clone());
            let t = Instant::now();
            let loaded = load::load_sources(abi, families, &mut report);
            let load = ms(t);
            let ir = check_loaded(&loaded, &mut report).expect("synthetic manifests check cleanly");
            let check = ms(t) - load;
            let output = kfam_codegen::generate_files(&loaded, &ir);
            let total = ms(t);
            println!(
                "pipeline: {total:7.1} ms (load {load:.1}, check {check:.1}, emit {:.1})",
                total - load - check
            );
            drop(output);
        }
        return;
    }
    let start = Instant::now();
    let loaded = load::load_sources(abi, families, &mut report);
    println!(
        "    load: {:7.1} ms (two threads at 64 files or more)",
        ms(start)
    );
    let t = Instant::now();
    let ir = check_loaded(&loaded, &mut report).expect("synthetic manifests check cleanly");
    println!("   check: {:7.1} ms", ms(t));
    let t = Instant::now();
    let plan = kfam_codegen::plan::Plan::new(&ir);
    println!("    plan: {:7.1} ms", ms(t));
    type Phase<'a> = Box<dyn Fn() -> usize + 'a>;
    let mut phases: Vec<(&str, Phase)> =
        vec![("lock", Box::new(|| gate::lock_contents(&loaded, &ir).len()))];
    for &(name, emit) in emit::EMITTERS {
        let plan = &plan;
        phases.push((name, Box::new(move || size(emit(plan)))));
    }
    // A second argument runs only the phases it names (`rust,c`): for a profiler.
    let only = std::env::args().nth(2);
    for (name, phase) in phases {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|p| p == name))
        {
            continue;
        }
        // Twice: the first run pays for fresh memory (as one `kfam generate`
        // does), the second reuses it (as the benchmark's iterations do).
        let t = Instant::now();
        let bytes = phase();
        let cold = ms(t);
        let t = Instant::now();
        phase();
        println!(
            "{name:>8}: {cold:7.1} ms, again {:7.1} ms  {:6.1} MB",
            ms(t),
            bytes as f64 / 1e6
        );
    }
    println!(
        "   total: {:7.1} ms (emitters one after another, each twice)",
        ms(start)
    );
}

fn size(files: Vec<emit::GeneratedFile>) -> usize {
    files.iter().map(|f| f.contents.len()).sum()
}
