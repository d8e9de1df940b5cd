//! Identity digests: pinned for the shipped families, and sensitive to
//! exactly what a consumer depends on.
//!
//! The digest is SHA-256 over the canonical form of a family revision
//! (`Family::canonical_identity`): wording (summary, docs), receipts and the
//! TOML layout (comments, key order) are not part of it; the signature, the
//! operation, the final ABI of every profile and the revision are.

use crate::support::root;
use std::fs;

/// The identities of the shipped families. These are the values recorded in
/// `manifest/approved.lock`: a change here is a change of an approved
/// contract, which needs a new `revision`, never an edit of this table.
const PINNED: [(&str, &str); 17] = [
    (
        "add_bf16_1024",
        "4c1b96b2cc5838e383575a40d73bddc0e6046f34343b39a91b7f2ff49a9e5610",
    ),
    (
        "add_bf16_rows",
        "03edd04d4584beabfb2526d8db200afa2870a61e162a1d5c9e1b3748477bf695",
    ),
    (
        "dense_attention_prefill_bf16",
        "4e08ea871ab1ca97cffc0241372d2fef3419df4a25e5c7b62a0a11c3ff397b6a",
    ),
    (
        "linear_bf16_4096x11008",
        "8516d638fd2735d003b78edcce4138b72b1f00ed2382d44120fca0d51de01fc5",
    ),
    (
        "matmul_acc_nz_bf16",
        "3afe10b5fb0f2381117ac8e7bfc0870264065165c574da378fe6a9330540d0ae",
    ),
    (
        "matmul_bf16_128x64x128",
        "dd7d334ce90a9100d205134d17702c5960f8f2853db22453d337011999bdca13",
    ),
    (
        "mul_fp4_dequant",
        "b2656f0f8b9224a6286a748968ba1c6ed3239c3e3ab72a0206242e8f820ac55c",
    ),
    (
        "packed_attention_prefill_bf16",
        "3cf26c2b4e424959cd075c130fad16d3753aee08a536f7d71d90c036cc29863c",
    ),
    (
        "paged_attention_decode_bf16",
        "e12c075e5bfbb84eec79a4401b8c88f41cb222e824089388e8417f57a361cb99",
    ),
    (
        "paged_attention_decode_combined_hnd_bf16",
        "ec50c76b53454e6f67c61fc1549d61d7f9a472c41c36268f85f4eeccfceec56d",
    ),
    (
        "paged_attention_decode_combined_nhd_bf16",
        "3572a6752a3929d31ce731a94c55b137226e21fb47a25c3002885d2164a0c790",
    ),
    (
        "paged_attention_decode_hnd_bf16",
        "9ccdaeb15c722a90fd021602b65600cf5590db2cada99960133382a238d37aad",
    ),
    (
        "paged_attention_decode_x_packed_bf16",
        "5c98eaa15e670483d24d45023a0fbec1c4c38212e32e42617f889cbb85e8c752",
    ),
    (
        "rms_norm_bf16_4096",
        "15aa0eb5d3b5942439cffcc75b5371e4d330c17bf119f390c8e254d0a0f22ca9",
    ),
    (
        "rope_neox_bf16",
        "912e4c6e224d564009bbdbe9348215c80ee36514a3f8e53728437032bf668744",
    ),
    (
        "silu_bf16",
        "534cc5856d9ead250adcdfdb573c3d79931e1bfe07856b2ac79eaf7a1dac92f8",
    ),
    (
        "swiglu_fused_bf16",
        "a54aef7c20c8c3149000b3cc97097884890170d166c3a113c638fcf1b946632c",
    ),
];

fn shipped(name: &str) -> String {
    let path = root().join(format!("manifest/families/{name}.toml"));
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The identity of one family text, checked with the shipped abi. The text
/// must be a valid declaration: an edit here is a legal change.
fn identity(name: &str, text: &str) -> String {
    let abi = fs::read_to_string(root().join("manifest/abi.toml")).expect("read abi.toml");
    let (ir, report) = kfam_codegen::check_sources(
        Some(("manifest/abi.toml".to_owned(), abi)),
        vec![(format!("manifest/families/{name}.toml"), text.to_owned())],
    );
    let rendered = report.render_human(&annotate_snippets::Renderer::plain());
    assert!(
        report.diagnostics.is_empty(),
        "{name} after the edit is not clean:\n{rendered}"
    );
    let ir = ir.expect("IR of a clean manifest");
    assert_eq!(ir.families.len(), 1);
    ir.families[0].identity.clone()
}

/// `text` with `from` replaced by `to` (every occurrence, at least one).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` not found");
    text.replace(from, to)
}

#[test]
fn shipped_identities_are_pinned() {
    let (ir, report) = kfam_codegen::check_dir(&root().join("manifest"));
    assert!(
        report.diagnostics.is_empty(),
        "{}",
        report.render_human(&annotate_snippets::Renderer::plain())
    );
    let actual: Vec<(String, String)> = ir
        .expect("IR")
        .families
        .into_iter()
        .map(|f| (f.name, f.identity))
        .collect();
    let pinned: Vec<(String, String)> = PINNED
        .iter()
        .map(|(n, d)| (n.to_string(), d.to_string()))
        .collect();
    assert_eq!(actual, pinned);
    // Checked alone or with the rest of the manifest: the same digest.
    for (name, digest) in PINNED {
        assert_eq!(identity(name, &shipped(name)), digest, "{name}");
    }
}

#[test]
fn wording_receipts_and_layout_do_not_change_the_identity() {
    let add = shipped("add_bf16_1024");
    let pinned_add = PINNED[0].1;
    let matmul = shipped("matmul_acc_nz_bf16");
    let pinned_matmul = PINNED[4].1;

    let unchanged = [
        (
            "summary",
            "add_bf16_1024",
            edit(&add, "Elementwise BF16 addition of two", "Element-wise bf16 sum of two"),
            pinned_add,
        ),
        (
            "param doc",
            "matmul_acc_nz_bf16",
            edit(&matmul, "Activations: a dynamic number of rows.", "Input activations, any number of rows."),
            pinned_matmul,
        ),
        (
            "a param doc added",
            "add_bf16_1024",
            edit(&add, "name = \"lhs\"\n", "name = \"lhs\"\ndoc = \"Left operand.\"\n"),
            pinned_add,
        ),
        (
            "receipt evidence",
            "matmul_acc_nz_bf16",
            edit(
                &matmul,
                "evidence = { date = \"2026-11-03\", hardware = \"Ascend 910B (a2a3)\", note = \"borrowed-stream launch on device 0\" }",
                "evidence = { date = \"2026-12-24\", hardware = \"Ascend 910B2 (a2a3)\", note = \"requalified after a driver update\" }",
            ),
            pinned_matmul,
        ),
        (
            "receipt (a requalified artifact)",
            "add_bf16_1024",
            edit(
                &edit(&add, "5c1f0e3c8f0a4a57f0d7a3c2a7e1a4b0f6b3d5d8e2c9a1b7f4e6d3c2b1a09876", &"e".repeat(64)),
                "artifact = \"xdna2/add_bf16_1024.elf\"",
                "artifact = \"xdna2/requalified/add_bf16_1024.elf\"",
            ),
            pinned_add,
        ),
        (
            "comments and key order",
            "add_bf16_1024",
            edit(
                &add,
                "name = \"rhs\"\ndirection = \"in\"\ndtype = \"bf16\"\nshape = [1024]\n",
                "# the right operand\nshape = [1024]\ndtype = \"bf16\"\nname = \"rhs\"\ndirection = \"in\"\n",
            ),
            pinned_add,
        ),
        (
            "default direction spelt out or left out",
            "add_bf16_1024",
            edit(&add, "direction = \"in\"\n", ""),
            pinned_add,
        ),
    ];
    for (what, name, text, expected) in unchanged {
        assert_eq!(
            identity(name, &text),
            expected,
            "changing the {what} of {name} changed its identity"
        );
    }
}

#[test]
fn contract_changes_change_the_identity() {
    let add = shipped("add_bf16_1024");
    let matmul = shipped("matmul_acc_nz_bf16");
    let fp4 = shipped("mul_fp4_dequant");

    let changed = [
        // `acc` accumulates in bf16 instead of fp32: one parameter's dtype.
        (
            "a param dtype",
            "matmul_acc_nz_bf16",
            edit(
                &matmul,
                "dtype = \"fp32\"\nshape = [-1, 128]",
                "dtype = \"bf16\"\nshape = [-1, 128]",
            ),
        ),
        // Elementwise operands share one dtype, so all three change together.
        (
            "the operands' dtype",
            "add_bf16_1024",
            edit(&add, "dtype = \"bf16\"", "dtype = \"fp16\""),
        ),
        (
            "a shape",
            "add_bf16_1024",
            edit(&add, "shape = [1024]", "shape = [2048]"),
        ),
        (
            "a dynamic extent made static",
            "mul_fp4_dequant",
            edit(&fp4, "shape = [-1, 256]", "shape = [8, 256]"),
        ),
        (
            "a binding slot",
            "add_bf16_1024",
            edit(
                &add,
                "{ param = \"out\", slot = 2,",
                "{ param = \"out\", slot = 3,",
            ),
        ),
        (
            "the binding order",
            "add_bf16_1024",
            edit(
                &edit(
                    &add,
                    "{ param = \"lhs\", slot = 0,",
                    "{ param = \"lhs\", slot = 9,",
                ),
                "{ param = \"rhs\", slot = 1,",
                "{ param = \"rhs\", slot = 0,",
            ),
        ),
        (
            "the revision",
            "add_bf16_1024",
            edit(&add, "revision = 1", "revision = 2"),
        ),
        (
            "a scalar's dtype",
            "matmul_acc_nz_bf16",
            edit(&matmul, "dtype = \"int32\"", "dtype = \"int64\""),
        ),
        (
            "a return alias",
            "matmul_acc_nz_bf16",
            edit(
                &matmul,
                "returns = [\"acc\", \"acc\"]",
                "returns = [\"acc\"]",
            ),
        ),
        (
            "the torch flag",
            "add_bf16_1024",
            edit(&add, "torch = true\n", "torch = false\n"),
        ),
        (
            "an execution mode",
            "matmul_acc_nz_bf16",
            edit(
                &matmul,
                "execution_mode = \"sim\"",
                "execution_mode = \"onboard\"",
            ),
        ),
    ];
    for (what, name, text) in changed {
        let pinned = PINNED
            .iter()
            .find(|(n, _)| *n == name)
            .expect("pinned family")
            .1;
        assert_ne!(
            identity(name, &text),
            pinned,
            "changing {what} of {name} kept its identity"
        );
    }
}

/// The lock's canonical form reads back into typed records and a family
/// (`Canonical::to_family`) that the change engine finds identical to the
/// declaration, and that writes the same canonical text again: for every
/// shipped family (every operation kind, symbols, `[dims]`) and a synthetic
/// catalog.
#[test]
fn canonical_forms_read_back_into_the_same_family() {
    use kfam_codegen::canonical::Canonical;
    let (ir, report) = kfam_codegen::check_dir(&root().join("manifest"));
    let ir = ir.unwrap_or_else(|| panic!("{report:?}"));
    let synth = kfam_codegen::synth::manifest(200, 3);
    let (abi, families) = synth.sources("m");
    let (synthetic, report) = kfam_codegen::check_sources(abi, families);
    let synthetic = synthetic.unwrap_or_else(|| panic!("{report:?}"));
    for f in ir.families.iter().chain(&synthetic.families) {
        let back = Canonical::parse(&f.canonical)
            .and_then(|c| c.to_family())
            .unwrap_or_else(|e| panic!("{}: {e}", f.name));
        assert_eq!(back.canonical, f.canonical, "{}", f.name);
        assert_eq!(back.identity, f.identity, "{}", f.name);
        assert_eq!(
            kfam_codegen::diff::identity_changes(&back, f),
            [],
            "{}",
            f.name
        );
    }
    // A damaged record is refused, not misread.
    let f = &ir.families[0];
    for bad in [
        f.canonical
            .replace("\"kind\":\"elementwise_binary\"", "\"kind\":\"matmul\""),
        f.canonical.replace("\"returns\":[2]", "\"returns\":[9]"),
        f.canonical.replace("\"torch\":", "\"extra\":1,\"torch\":"),
    ] {
        assert_ne!(bad, f.canonical);
        assert!(
            Canonical::parse(&bad).and_then(|c| c.to_family()).is_err(),
            "{bad}"
        );
    }
}
