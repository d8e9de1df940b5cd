//! Capability: may family F run on platform P in execution mode M with
//! contract C? Supported only with a profile and a receipt for it.

use crate::catalog::Catalog;
use crate::targets::{ExecutionMode, Platform};
use crate::types::{Family, Profile, Receipt};
use crate::vocab::{Capability, Contract};

/// A supported capability: the matching profile and its receipt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Supported {
    pub family: &'static Family,
    pub profile: &'static Profile,
    pub receipt: &'static Receipt,
}

impl core::fmt::Display for Supported {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{}: family `{}` runs on platform `{}` in `{}` mode with profile `{}`",
            Capability::Supported,
            self.family.name,
            self.profile.platform,
            self.profile.execution_mode,
            self.profile.name
        )
    }
}

/// A refused capability query: the `outcome` and the query it answers, so
/// the refusal names the family, platform, execution mode and contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapabilityRefused<'a> {
    pub outcome: Capability,
    pub family: &'a str,
    pub platform: Platform,
    pub mode: ExecutionMode,
    pub contract: Contract,
}

impl core::fmt::Display for CapabilityRefused<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (family, platform, mode) = (self.family, self.platform, self.mode);
        write!(f, "{}: ", self.outcome)?;
        match self.outcome {
            Capability::UnknownFamily => write!(f, "no approved family `{family}`"),
            Capability::Retired => write!(f, "family `{family}` is retired"),
            Capability::ContractMismatch => {
                write!(f, "family `{family}` is not a `{}` family", self.contract)
            }
            Capability::NoProfile => write!(
                f,
                "family `{family}` has no profile for platform `{platform}` in `{mode}` mode"
            ),
            _ => write!(
                f,
                "family `{family}` has no receipt on platform `{platform}` in `{mode}` mode"
            ),
        }
    }
}

impl std::error::Error for CapabilityRefused<'_> {}

impl Catalog {
    /// May `family` run on `platform` in `mode` with `contract`? The
    /// refusal says why: unknown (or retired) family, contract mismatch, no
    /// profile, or no receipt, and names the query.
    pub fn capability<'q>(
        &self,
        family: &'q str,
        platform: Platform,
        mode: ExecutionMode,
        contract: Contract,
    ) -> Result<Supported, CapabilityRefused<'q>> {
        decide(self, family, platform, mode, contract)
    }
}

/// [`Catalog::capability`].
pub(crate) fn decide<'q>(
    cat: &Catalog,
    family: &'q str,
    platform: Platform,
    mode: ExecutionMode,
    contract: Contract,
) -> Result<Supported, CapabilityRefused<'q>> {
    let refused = |outcome| CapabilityRefused {
        outcome,
        family,
        platform,
        mode,
        contract,
    };
    let name = family;
    let family = cat.find(name).ok_or_else(|| match cat.find_retired(name) {
        Some(_) => refused(Capability::Retired),
        None => refused(Capability::UnknownFamily),
    })?;
    if family.contract != contract {
        return Err(refused(Capability::ContractMismatch));
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
    Err(refused(if any_profile {
        Capability::NoReceipt
    } else {
        Capability::NoProfile
    }))
}
