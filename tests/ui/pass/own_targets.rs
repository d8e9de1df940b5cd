// A catalog that declares its own platform, backends, runtime and modes:
// `manifest!` embeds it, and every decision resolves its members.
mod tables {
    kfam_runtime::manifest!("../tests/catalogs/npuops");
}

use kfam_runtime::{CapabilityRefused, Contract};
use tables::{execution_modes, platforms, CATALOG};

fn main() {
    assert_eq!(platforms::NPU.code(), 0);
    assert_eq!(platforms::NPU.as_str(), "npu");
    assert_eq!(CATALOG.targets.platform("npu"), Some(platforms::NPU));
    assert_eq!(CATALOG.targets.platform("a2a3"), None);
    assert_eq!(CATALOG.targets.backend_by_code(1), Some(tables::backends::NPUCC_NEXT));
    let ok = CATALOG
        .capability("scale_ok", platforms::NPU, execution_modes::ONBOARD, Contract::Kernel)
        .expect("the receipt covers npu onboard");
    assert_eq!(ok.profile.platform, platforms::NPU);
    assert_eq!(ok.profile.runtime, tables::runtimes::NPU_RT);
    assert_eq!(ok.receipt.codec, "npu.kernel.v1");
    let refused: CapabilityRefused<'_> = CATALOG
        .capability("scale_ok", platforms::NPU, execution_modes::ONBOARD, Contract::Program)
        .unwrap_err();
    assert!(refused.to_string().contains("is not a `program` family"), "{refused}");
}
