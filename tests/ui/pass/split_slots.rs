// One name per fact: `SLOT_<P>` where every profile binds `P` to the same
// slot, `<PROFILE>_SLOT_<P>` for each profile only where they disagree.
mod tables {
    kfam_runtime::manifest!("../tests/ui/pass/split_slots.toml", abi = "../manifest/abi.toml");
}

use tables::families::split_slots as m;

fn main() {
    assert_eq!(m::SLOT_OUT, 2);
    assert_eq!((m::XDNA2_ONBOARD_SLOT_LHS, m::A5_SIM_SLOT_LHS), (0, 1));
    assert_eq!((m::XDNA2_ONBOARD_SLOT_RHS, m::A5_SIM_SLOT_RHS), (1, 0));
    assert_eq!(m::FAMILY.profiles.len(), 2);
}
