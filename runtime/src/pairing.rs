//! Pairing a program with a library: whether what a program compiled in
//! from its header (the catalog, the ABI major, the status codes, the
//! limits, the record sizes, the targets and the families) is what the
//! library decides with, so that the library's answers mean to the program
//! what they say (docs/compatibility.md).
//!
//! A library pairs with a program built against an earlier header of its
//! catalog when the change between them is compatible: families and
//! targets added, nothing the program compiled in changed. The families
//! are compared by approval (`Family::approval`, from `approved.lock`): the
//! library's families of the header's approval and older must be the
//! header's, digest for digest. The first difference is named.

use std::fmt;

use sha2::{Digest, Sha256};

use crate::catalog::Catalog;
use crate::types::{Family, Retired};
use crate::vocab::Status;

/// What a program compiled in from its header (`PREFIX_pairing`).
#[derive(Clone, Copy, Debug)]
pub struct Pairing<'a> {
    pub name: &'a str,
    /// The catalog digest (`PREFIX_CATALOG_DIGEST`): equal to the
    /// library's, the two were generated alike.
    pub digest: &'a str,
    pub abi_major: u16,
    /// The digest of the header's families (`PREFIX_CATALOG_FAMILIES`).
    pub families: &'a str,
    /// The newest approval among them (`PREFIX_CATALOG_APPROVAL`).
    pub approval: u32,
    /// `max_tensor_args`, `max_scalar_args`, `max_rank`, `max_prepared`.
    pub limits: [u32; 4],
    /// The status codes, in `Status::ALL` order.
    pub status: &'a [i32],
    /// `sizeof` each C ABI record, in `ffi::RECORD_SIZES` order.
    pub record_sizes: &'a [u32],
    /// One `kind name code` line per declared target.
    pub targets: &'a str,
}

/// The first thing a program compiled in that the library does not decide
/// with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch(String);

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Mismatch {}

/// The names of the limits, in [`Pairing::limits`] order.
const LIMITS: [&str; 4] = [
    "max_tensor_args",
    "max_scalar_args",
    "max_rank",
    "max_prepared",
];

/// The digest of `families` (sorted by name): `kfam_codegen::ir::families_digest`.
pub fn families_digest<'a>(families: impl IntoIterator<Item = &'a Family>) -> String {
    digest_of(
        families
            .into_iter()
            .map(|f| (f.name, f.revision, f.identity)),
    )
}

/// Two digests that differ, each shown long enough to see that they do:
/// 12 characters when they differ there, else through 4 characters past
/// the first that differs (whole when they agree).
pub fn distinct_prefixes<'a>(a: &'a str, b: &'a str) -> (&'a str, &'a str) {
    let first = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let n = if a == b {
        usize::MAX
    } else {
        (first + 4).max(12)
    };
    let cut = |d: &'a str| d.get(..n.min(d.len())).unwrap_or(d);
    (cut(a), cut(b))
}

/// [`families_digest`] of `(name, revision, identity)` rows, sorted by name.
fn digest_of<'a>(rows: impl IntoIterator<Item = (&'a str, u32, &'a str)>) -> String {
    let mut h = Sha256::new();
    h.update(b"kfam-families-1\n");
    for (name, revision, identity) in rows {
        h.update(format!("{name} {revision} {identity}\n").as_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

impl Catalog {
    /// Whether this catalog pairs with what a program compiled in, with the
    /// C ABI records of `record_sizes` (`ffi::RECORD_SIZES`, `(C name,
    /// size)`).
    pub fn pair(&self, p: &Pairing<'_>, record_sizes: &[(&str, usize)]) -> Result<(), Mismatch> {
        let differs = |what: String| Err(Mismatch(what));
        if p.name != self.name {
            return differs(format!(
                "the program's header is of catalog `{}`, this library serves catalog `{}`",
                p.name, self.name
            ));
        }
        if p.abi_major != self.abi.major {
            return differs(format!(
                "ABI major: {} in the program, {} in the library",
                p.abi_major, self.abi.major
            ));
        }
        if p.status.len() != Status::ALL.len() {
            return differs(format!(
                "status codes: {} in the program, {} in the library",
                p.status.len(),
                Status::ALL.len()
            ));
        }
        for (s, &code) in Status::ALL.iter().zip(p.status) {
            let ours = self.abi.status_code(*s);
            if code != ours {
                return differs(format!(
                    "status code {s}: {code} in the program, {ours} in the library"
                ));
            }
        }
        let a = self.abi;
        let ours = [
            a.max_tensor_args,
            a.max_scalar_args,
            a.max_rank,
            a.max_prepared,
        ];
        for ((name, theirs), ours) in LIMITS.iter().zip(p.limits).zip(ours) {
            if theirs != ours {
                return differs(format!(
                    "limit {name}: {theirs} in the program, {ours} in the library"
                ));
            }
        }
        if p.record_sizes.len() != record_sizes.len() {
            return differs(format!(
                "argument and result records: {} in the program, {} in the library",
                p.record_sizes.len(),
                record_sizes.len()
            ));
        }
        for (&theirs, &(c_name, ours)) in p.record_sizes.iter().zip(record_sizes) {
            if theirs as usize != ours {
                let record = c_name.strip_prefix("kfam_").unwrap_or(c_name);
                return differs(format!(
                    "record `{record}`: {theirs} bytes in the program, {ours} in the library"
                ));
            }
        }
        self.pair_targets(p.targets)?;
        self.pair_families(p)
    }

    /// Every target the program compiled in is the library's, with its code.
    fn pair_targets(&self, targets: &str) -> Result<(), Mismatch> {
        let t = self.targets;
        for line in targets.lines().filter(|l| !l.is_empty()) {
            let mut words = line.split(' ');
            let (Some(kind), Some(name), Some(code), None) =
                (words.next(), words.next(), words.next(), words.next())
            else {
                return Err(Mismatch(format!(
                    "the program's targets are malformed (`{line}`)"
                )));
            };
            let code: i32 = code
                .parse()
                .map_err(|_| Mismatch(format!("the program's targets are malformed (`{line}`)")))?;
            let ours = match kind {
                "platform" => t.platform(name).map(|m| m.code()),
                "backend" => t.backend(name).map(|m| m.code()),
                "runtime" => t.runtime(name).map(|m| m.code()),
                "execution_mode" => t.execution_mode(name).map(|m| m.code()),
                _ => {
                    return Err(Mismatch(format!(
                        "the program's targets are malformed (`{line}`)"
                    )))
                }
            };
            match ours {
                Some(ours) if ours == code => {}
                Some(ours) => {
                    return Err(Mismatch(format!(
                        "{} `{name}`: code {code} in the program, {ours} in the library",
                        kind.replace('_', " ")
                    )))
                }
                None => {
                    return Err(Mismatch(format!(
                        "{} `{name}` (code {code}) of the program is not the library's",
                        kind.replace('_', " ")
                    )))
                }
            }
        }
        Ok(())
    }

    /// The library's families of the program's approval and older are the
    /// program's. Retired families count: their tombstones keep the
    /// approval and the last revision of what a program may have compiled
    /// in.
    fn pair_families(&self, p: &Pairing<'_>) -> Result<(), Mismatch> {
        if p.digest == self.digest {
            // The same catalog: the same families.
            return Ok(());
        }
        let a = p.approval;
        let newest = self
            .families
            .iter()
            .map(|f| f.approval)
            .chain(self.retired.iter().map(|r| r.approval))
            .max()
            .unwrap_or(0);
        if a > newest {
            return Err(Mismatch(format!(
                "the program's header is of approval {a}, newer than this library's families \
                 (approval {newest}, retired ones included): build the library from the same \
                 manifest or a newer one"
            )));
        }
        let live: Vec<(&str, u32, &str)> = self
            .families
            .iter()
            .filter(|f| f.approval <= a)
            .map(|f| (f.name, f.revision, f.identity))
            .collect();
        if digest_of(live.iter().copied()) == p.families {
            return Ok(());
        }
        // Families the header compiled in and the library retired since:
        // the header's families are then the library's of its approval
        // with the tombstones' last revisions among them.
        let retired: Vec<&Retired> = self
            .retired
            .iter()
            .filter(|r| r.approval > 0 && r.approval <= a)
            .collect();
        if !retired.is_empty() {
            let mut rows = live.clone();
            rows.extend(retired.iter().map(|r| (r.name, r.revision, r.identity)));
            rows.sort_unstable_by_key(|r| r.0);
            if digest_of(rows) == p.families {
                let r = retired[0];
                return Err(Mismatch(format!(
                    "family `{}`: revision {} (approval {}) is in the program's header (approval \
                     {a}) and retired in the library ({}): rebuild the program against the \
                     library's header, which no longer has it",
                    r.name, r.revision, r.approval, r.reason
                )));
            }
        }
        // The digests differ: name a revision newer than the header if the
        // tables show one (a live family, or a retired one revised before
        // it was retired), else the digests, in full.
        let revised = self
            .families
            .iter()
            .find(|f| f.approval > a && f.revision > 1);
        let retired_revised = self
            .retired
            .iter()
            .find(|r| r.approval > a && r.revision > 1);
        let message = match (revised, retired_revised) {
            (Some(f), _) => format!(
                "family `{}`: revision {} (approval {}) is newer than the program's header \
                 (approval {a}), which was built against an earlier revision",
                f.name, f.revision, f.approval
            ),
            (None, Some(r)) => format!(
                "family `{}`: revision {} (approval {}) is newer than the program's header \
                 (approval {a}), which was built against an earlier revision, and was retired \
                 since ({})",
                r.name, r.revision, r.approval, r.reason
            ),
            (None, None) => format!(
                "the program's families of approval {a} have the digest {}, this library's {}: \
                 a family was revised or retired since, or the header comes from another \
                 history of the manifest",
                p.families,
                digest_of(live.iter().copied())
            ),
        };
        Err(Mismatch(message))
    }
}

#[cfg(test)]
mod tests {
    use super::distinct_prefixes;

    /// Digests that differ are never shown alike: 12 characters when that
    /// shows the difference, longer when they share a longer prefix.
    #[test]
    fn digests_are_shown_long_enough_to_differ() {
        let a = "33ab6f99829a106d780f5a446376b73d8f8a7b2af8d9164b327eaa62f3362cfd";
        let b = "4c1b96b2cc5838e383575a40d73bddc0e6046f34343b39a91b7f2ff49a9e5610";
        assert_eq!(distinct_prefixes(a, b), ("33ab6f99829a", "4c1b96b2cc58"));
        let c = "33ab6f99829a106d780f5a44ffffffffffffffffffffffffffffffffffffffff";
        let (x, y) = distinct_prefixes(a, c);
        assert_eq!(
            (x, y),
            (
                "33ab6f99829a106d780f5a446376",
                "33ab6f99829a106d780f5a44ffff"
            )
        );
        assert_ne!(x, y);
        assert_eq!(distinct_prefixes(a, a), (a, a));
        assert_eq!(distinct_prefixes("abc", "abd"), ("abc", "abd"));
    }
}
