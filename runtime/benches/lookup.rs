//! Lookup by family name and by artifact digest (`cargo bench -p
//! kfam-runtime --bench lookup`). Target: <= 20 ns at 10,000 families.
//!
//! `lookup/10000/*` runs the runtime's lookup code (`kfam_runtime::lookup`,
//! which `find_family` / `find_artifact` call with the crate's own tables)
//! over a synthetic manifest of 10,000 families (about 21,800 artifacts):
//! the records are built at start-up from the generator's IR and the hash
//! indices by the generator's own plan (`kfam_codegen::plan`), the function that writes
//! `FAMILY_INDEX` / `ARTIFACT_INDEX` into the generated tables. (Compiling
//! the 10,000-family tables as Rust source takes rustc minutes and gigabytes,
//! so the benchmark does not embed them with `manifest!`.)
//! `hot` looks up one key again and again (index, record and name stay in
//! cache: the figure the target is about); `spread` looks up the next of
//! 4,096 keys spread over the table each time, so its figures include the
//! cache misses a hot key hides. `lookup/shipped/*`
//! calls `find_family` / `find_artifact` on the shipped manifest.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

mod common;
use kfam_codegen::ir;
use kfam_codegen::plan::Plan;
use kfam_runtime::lookup;
use kfam_runtime::{
    Binding, BindingKind, Contract, DType, Direction, Evidence, Family, Layout, Operation,
    OutputError, Param, ParamKind, Profile, Receipt,
};

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

fn s(v: &str) -> &'static str {
    Box::leak(v.to_owned().into_boxed_str())
}

fn code<T>(c: i32, from: fn(i32) -> Option<T>) -> T {
    from(c).expect("same vocabulary codes in generator and runtime")
}

/// The runtime record of an IR family, as the generated tables hold it.
fn record(f: &ir::Family) -> Family {
    let params = f
        .params
        .iter()
        .map(|p| Param {
            name: s(&p.name),
            index: p.index as u32,
            kind: code(p.kind.code(), ParamKind::from_code),
            direction: code(p.direction.code(), Direction::from_code),
            dtype: code(p.dtype.code(), DType::from_code),
            shape: leak(p.shape.clone()),
            layout: code(p.layout.code(), Layout::from_code),
            lowered_shape: leak(p.lowered_shape.clone()),
            pool_index: p.pool_index as u32,
            doc: p.doc.as_deref().map(s),
            alignment: p.attrs.get("alignment").map_or(1, |a| a as u32),
        })
        .collect();
    let profiles = f
        .profiles
        .iter()
        .map(|p| Profile {
            name: s(&p.name),
            platform: code(p.platform.code, |c| {
                kfam_catalog::TARGETS.platform_by_code(c)
            }),
            backend: code(p.backend.code, |c| kfam_catalog::TARGETS.backend_by_code(c)),
            runtime: code(p.runtime.code, |c| kfam_catalog::TARGETS.runtime_by_code(c)),
            execution_mode: code(p.execution_mode.code, |c| {
                kfam_catalog::TARGETS.execution_mode_by_code(c)
            }),
            bindings: leak(
                p.bindings
                    .iter()
                    .map(|b| Binding {
                        param: b.param as u32,
                        slot: b.slot,
                        kind: code(b.kind.code(), BindingKind::from_code),
                    })
                    .collect(),
            ),
        })
        .collect();
    let receipts = f
        .receipts
        .iter()
        .map(|r| Receipt {
            profile: r.profile as u32,
            codec: s(&r.codec),
            artifact: s(&r.artifact),
            sha256: s(&r.sha256),
            evidence: Evidence {
                date: s(&r.evidence.date),
                hardware: s(&r.evidence.hardware),
                note: r.evidence.note.as_deref().map(s),
                tool: r.evidence.tool.as_deref().map(s),
                versions: leak(r.evidence.versions.iter().map(|v| s(v)).collect()),
                cases: r.evidence.cases,
                seed: r.evidence.seed,
                shapes: leak(r.evidence.shapes.iter().map(|v| s(v)).collect()),
                errors: leak(
                    r.evidence
                        .errors
                        .iter()
                        .map(|e| OutputError {
                            output: e.output as u32,
                            max_abs: e.max_abs,
                            max_rel: e.max_rel,
                        })
                        .collect(),
                ),
                runs: r.evidence.runs,
                deterministic: r.evidence.deterministic,
                run_max_abs: r.evidence.run_max_abs,
            },
        })
        .collect();
    // Lookups never read the payload (nor symbols, below).
    let operation = Operation::Custom {
        semantics: s(f.operation.kind().as_str()),
    };
    Family {
        name: s(&f.name),
        revision: f.revision,
        summary: s(&f.summary),
        contract: code(f.contract.code(), Contract::from_code),
        torch: f.torch,
        operation,
        params: leak(params),
        returns: leak(f.returns.iter().map(|&r| r as u32).collect()),
        profiles: leak(profiles),
        receipts: leak(receipts),
        tensor_count: f.tensor_count as u32,
        scalar_count: f.scalar_count as u32,
        identity: s(&f.identity),
        torch_schema: f.torch_schema.as_deref().map(s),
        // Lookups never read symbols.
        symbols: &[],
        approval: 1,
    }
}

struct Tables {
    families: &'static [Family],
    artifacts: &'static [(&'static str, u32, u32)],
    family_index: &'static [u32],
    artifact_index: &'static [u32],
}

fn tables(n: usize) -> Tables {
    let (abi, families) = kfam_codegen::synth::manifest(n, 1).sources("manifest");
    let (ir, _) = kfam_codegen::check_sources(abi, families);
    let ir = ir.expect("synthetic manifest checks");
    let plan = Plan::new(&ir);
    Tables {
        families: leak(ir.families.iter().map(record).collect()),
        artifacts: leak(
            plan.artifacts
                .iter()
                .map(|&(d, f, r)| (s(d), f, r))
                .collect(),
        ),
        family_index: leak(plan.family_index.clone()),
        artifact_index: leak(plan.artifact_index.clone()),
    }
}

/// 4,096 keys spread over `keys` (a fixed stride through the table).
fn spread(keys: Vec<&'static str>) -> Vec<&'static str> {
    (0..4096).map(|i| keys[(i * 7919) % keys.len()]).collect()
}

fn bench(c: &mut Criterion<common::Clock>) {
    let t = tables(10_000);
    let mut group = c.benchmark_group("lookup/10000");
    let names = spread(t.families.iter().map(|f| f.name).collect());
    let digests = spread(t.artifacts.iter().map(|a| a.0).collect());
    for &n in &names {
        assert_eq!(
            lookup::family(t.families, t.family_index, n).unwrap().name,
            n
        );
    }
    for &d in &digests {
        let (_, _, r) = lookup::artifact(t.families, t.artifacts, t.artifact_index, d).unwrap();
        assert_eq!(r.sha256, d);
    }
    // One key, looked up again and again: the index, record and name stay
    // in cache (what a launch path that resolves one family pays).
    let (name, digest) = (names[17], digests[17]);
    group.bench_function("family_by_name/hot", |b| {
        b.iter(|| lookup::family(t.families, t.family_index, black_box(name)))
    });
    group.bench_function("artifact_by_digest/hot", |b| {
        b.iter(|| lookup::artifact(t.families, t.artifacts, t.artifact_index, black_box(digest)))
    });
    // The next of 4,096 keys each time: cache misses included.
    let mut i = 0;
    group.bench_function("family_by_name/spread", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            lookup::family(t.families, t.family_index, black_box(names[i]))
        })
    });
    group.bench_function("artifact_by_digest/spread", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            lookup::artifact(
                t.families,
                t.artifacts,
                t.artifact_index,
                black_box(digests[i]),
            )
        })
    });
    let misses: Vec<String> = names.iter().map(|n| format!("{n}_x")).collect();
    group.bench_function("family_miss/spread", |b| {
        b.iter(|| {
            i = (i + 1) & 4095;
            lookup::family(t.families, t.family_index, black_box(&misses[i]))
        })
    });
    group.finish();

    let mut group = c.benchmark_group("lookup/shipped");
    group.bench_function("find_family", |b| {
        b.iter(|| kfam_catalog::CATALOG.find(black_box("matmul_acc_nz_bf16")))
    });
    group.bench_function("find_artifact", |b| {
        b.iter(|| {
            kfam_catalog::CATALOG.find_artifact(black_box(
                "7d6c5b4a39281706f5e4d3c2b1a098877d6c5b4a39281706f5e4d3c2b1a09887",
            ))
        })
    });
    group.finish();
}

criterion_group!(name = benches; config = common::criterion(); targets = bench);
criterion_main!(benches);
