//! Admission of a typical `compiled_meta.json` (`cargo bench -p kfam-runtime
//! --bench admission`), beside validating the same document with the
//! `jsonschema` crate against the generated schema, in the same run.
//!
//! The document is the shipped example for `matmul_acc_nz_bf16` on
//! `a2a3_onboard` (schema 3: 5 params, lowered params with an NZ shape, two
//! return aliases, 2.3 KB pretty-printed). Target: `admit` within 20 us.
//! `jsonschema/parse_and_validate` (also from the document's bytes) and
//! `jsonschema/validate_parsed` are shown for reference; a ratio to them is
//! not a goal.
//! `jsonschema` only checks the document's shape; `admit` also matches it
//! against the approved family, profile and receipt.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

mod common;

const DOC: &str = include_str!(
    "../../generated/schema/examples/matmul_acc_nz_bf16.a2a3_onboard.compiled_meta.json"
);
const SCHEMA: &str = include_str!("../../generated/schema/compiled_meta.schema.json");
const SHA256: &str = "7d6c5b4a39281706f5e4d3c2b1a098877d6c5b4a39281706f5e4d3c2b1a09887";

fn bench(c: &mut Criterion<common::Clock>) {
    let mut group = c.benchmark_group("admission");
    kfam_catalog::CATALOG
        .admit(DOC.as_bytes(), SHA256)
        .expect("the example is admitted");
    group.bench_function("admit", |b| {
        b.iter(|| kfam_catalog::CATALOG.admit(black_box(DOC.as_bytes()), black_box(SHA256)))
    });

    let schema: serde_json::Value = serde_json::from_str(SCHEMA).unwrap();
    let validator = jsonschema::draft202012::new(&schema).expect("schema compiles");
    let parsed: serde_json::Value = serde_json::from_str(DOC).unwrap();
    assert!(validator.is_valid(&parsed));
    group.bench_function("jsonschema/parse_and_validate", |b| {
        b.iter(|| {
            let doc: serde_json::Value = serde_json::from_slice(black_box(DOC.as_bytes())).unwrap();
            validator.validate(&doc).is_ok()
        })
    });
    group.bench_function("jsonschema/validate_parsed", |b| {
        b.iter(|| validator.validate(black_box(&parsed)).is_ok())
    });
    group.finish();
}

criterion_group!(name = benches; config = common::criterion(); targets = bench);
criterion_main!(benches);
