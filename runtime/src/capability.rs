//! Capability: may family F run on platform P in execution mode M with
//! contract C? Supported only with a profile and a receipt for it.

use crate::admission::is_placeholder_digest;
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
            Capability::Unqualified => write!(
                f,
                "family `{family}` has no qualified artifact on platform `{platform}` in \
                 `{mode}` mode: its receipts there are placeholders (digests of 32 leading \
                 zeros), which approve no artifact: qualify one and record its receipt"
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
    /// profile, no receipt, or only placeholder receipts (`unqualified`),
    /// and names the query. A placeholder receipt
    /// ([`is_placeholder_digest`])
    /// never supports a query: a profile with a real receipt beside one
    /// answers with the real one.
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
    let (mut any_profile, mut placeholder) = (false, false);
    for (i, profile) in family.profiles.iter().enumerate() {
        if profile.platform != platform || profile.execution_mode != mode {
            continue;
        }
        any_profile = true;
        for receipt in family.receipts.iter().filter(|r| r.profile as usize == i) {
            if is_placeholder_digest(receipt.sha256) {
                placeholder = true;
                continue;
            }
            return Ok(Supported {
                family,
                profile,
                receipt,
            });
        }
    }
    Err(refused(match (any_profile, placeholder) {
        (_, true) => Capability::Unqualified,
        (true, false) => Capability::NoReceipt,
        (false, false) => Capability::NoProfile,
    }))
}
