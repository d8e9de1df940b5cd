// A catalog that checks clean but declares its own platforms: `manifest!`
// refuses it, since `kfam_runtime`'s target enums have kfam's members.
mod tables {
    kfam_runtime::manifest!("../tests/ui/catalog/own_targets");
}

fn main() {
    let _ = tables::FAMILIES.len();
}
