//! Capability: may family F run on platform P in execution mode M with
//! contract C? Supported only with a profile and a receipt for it.

use crate::types::{Family, Profile, Receipt};
use crate::vocab::{Capability, Contract, ExecutionMode, Platform};

/// A supported capability: the matching profile and its receipt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Supported {
    pub family: &'static Family,
    pub profile: &'static Profile,
    pub receipt: &'static Receipt,
}

/// Decide a capability query over the approved tables. The refusal says why:
/// unknown (or retired) family, contract mismatch, no profile, or no receipt.
pub fn capability(
    family: &str,
    platform: Platform,
    mode: ExecutionMode,
    contract: Contract,
) -> Result<Supported, Capability> {
    let family = crate::find_family(family).ok_or_else(|| match crate::find_retired(family) {
        Some(_) => Capability::Retired,
        None => Capability::UnknownFamily,
    })?;
    if family.contract != contract {
        return Err(Capability::ContractMismatch);
    }
    let mut any_profile = false;
    for (i, profile) in family.profiles.iter().enumerate() {
        if profile.platform != platform || profile.execution_mode != mode {
            continue;
        }
        any_profile = true;
        if let Some(receipt) = family.receipts.iter().find(|r| r.profile as usize == i) {
            return Ok(Supported {
                family,
                profile,
                receipt,
            });
        }
    }
    Err(if any_profile {
        Capability::NoReceipt
    } else {
        Capability::NoProfile
    })
}
