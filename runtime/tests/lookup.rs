//! The hash index lookups: the runtime probes with the hash the generator
//! placed keys with, finds every shipped family and artifact, and misses
//! cleanly.

use kfam_catalog::{CATALOG, FAMILIES};
use kfam_runtime::lookup::{key_hash, EMPTY};

#[test]
fn runtime_and_generator_hash_alike() {
    let mut keys: Vec<String> = (0..2000)
        .map(|i| format!("family_{i}_{}", "x".repeat(i % 70)))
        .collect();
    keys.extend((0..64).map(|n| "a".repeat(n)));
    keys.push("caf\u{e9}".to_owned());
    for k in &keys {
        assert_eq!(
            key_hash(k.as_bytes()),
            kfam_codegen::lookup_hash::key_hash(k.as_bytes()),
            "{k:?}"
        );
    }
    assert_eq!(EMPTY, kfam_codegen::lookup_hash::EMPTY);
}

#[test]
fn every_shipped_family_and_artifact_is_found() {
    for f in FAMILIES {
        assert!(std::ptr::eq(CATALOG.find(f.name).unwrap(), f));
        for r in f.receipts {
            let (g, p, q) = CATALOG.find_artifact(r.sha256).unwrap();
            assert!(std::ptr::eq(g, f) && std::ptr::eq(q, r));
            assert!(std::ptr::eq(p, &f.profiles[r.profile as usize]));
        }
    }
}

#[test]
fn misses() {
    for name in [
        "",
        "add",
        "add_bf16_1024x",
        "ADD_BF16_1024",
        "add_bf16_102",
        "\u{0}",
    ] {
        assert!(CATALOG.find(name).is_none(), "{name:?}");
    }
    assert!(CATALOG.find_artifact("").is_none());
    assert!(CATALOG.find_artifact(&"0".repeat(64)).is_none());
    assert!(CATALOG.find_artifact(&"f".repeat(65)).is_none());
}

#[test]
fn index_of_a_large_manifest() {
    // The generator's index over 5,000 names: every name found in one or a
    // few probes; a foreign index (all slots used) still terminates.
    let names: Vec<String> = (0..5000).map(|i| format!("family_{i:05}")).collect();
    let slots = kfam_codegen::lookup_hash::index_slots(names.iter().map(String::as_str));
    assert!(slots.len().is_power_of_two() && slots.len() >= 2 * names.len());
    let mut worst = 0;
    for (i, name) in names.iter().enumerate() {
        let mask = slots.len() - 1;
        let mut slot = key_hash(name.as_bytes()) as usize & mask;
        let mut probes = 1;
        while slots[slot] != i as u32 {
            assert_ne!(slots[slot], EMPTY, "{name} not placed");
            slot = (slot + 1) & mask;
            probes += 1;
        }
        worst = worst.max(probes);
    }
    assert!(worst < 32, "longest probe sequence {worst}");
    assert!(kfam_runtime::lookup::family(&[], &[0, 0], "x").is_none());
}
