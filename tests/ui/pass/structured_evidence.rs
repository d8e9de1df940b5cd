// Structured evidence from a qualification run: `manifest!` embeds it, and
// Rust reads the run's numbers from the receipt.
mod tables {
    kfam_runtime::manifest!("../tests/ui/pass/structured_evidence.toml", abi = "../manifest/abi.toml");
}

fn main() {
    let family = tables::CATALOG.find("structured_evidence").expect("embedded");
    let ev = &family.receipts[0].evidence;
    assert_eq!(ev.tool, Some("kfam.qualify"));
    assert_eq!((ev.cases, ev.seed), (32, 5));
    assert_eq!(ev.versions, &["kfam 0.1.0", "torch 2.9.1", "python 3.11.7"]);
    assert!(ev.shapes.is_empty());
    let out = &ev.errors[0];
    assert_eq!(family.params[out.output as usize].name, "out");
    assert_eq!((out.max_abs, out.max_rel), (0.0078125, 0.00390625));
}
