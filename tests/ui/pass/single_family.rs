// Embed one family file, checked against an explicit abi.toml, and read its
// params, aliases and slots.
mod tables {
    kfam_runtime::manifest!("../manifest/families/matmul_acc_nz_bf16.toml", abi = "../manifest/abi.toml");
}

use tables::families::matmul_acc_nz_bf16 as m;

fn main() {
    assert_eq!(tables::FAMILIES.len(), 1);
    let f = m::FAMILY;
    let names: Vec<&str> = f.params.iter().map(|p| p.name).collect();
    assert_eq!(names, ["x", "w", "acc", "tile_rows", "alpha"]);
    assert_eq!(f.returns, &[m::PARAM_ACC, m::PARAM_ACC]);
    assert_eq!(f.params[m::PARAM_W as usize].lowered_shape, &[1, 8, 4, 16, 16]);
    assert_eq!(m::SLOT_ALPHA, 4);
    assert_eq!(f.identity, kfam_catalog::families::matmul_acc_nz_bf16::IDENTITY);
    assert_eq!(tables::ARTIFACTS.len(), 2);
}
