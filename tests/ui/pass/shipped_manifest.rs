// Embed the shipped manifest and use its tables.
mod tables {
    kfam_runtime::manifest!("../manifest");
}

fn main() {
    let add = tables::FAMILIES.iter().find(|f| f.name == "add_bf16_1024").expect("shipped family");
    assert_eq!(add.params.len(), 3);
    assert_eq!(add.params[2].name, "out");
    assert_eq!(add.returns, &[tables::families::add_bf16_1024::PARAM_OUT]);
    assert_eq!(tables::families::add_bf16_1024::SLOT_OUT, 2);
    // The macro and the generated tables are the same tables.
    assert_eq!(tables::FAMILIES, kfam_catalog::FAMILIES);
    assert_eq!(tables::ABI, kfam_catalog::ABI);
}
