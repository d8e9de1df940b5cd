//! Receipts: the qualified artifacts of each profile and their evidence.

use super::abi::is_lower_hex;
use super::family::{err, FamilyChecker};
use super::targets::Kind as TargetKind;
use super::text::{artifact_path_problem, is_codec, printable, MAX_LISTED_NAMES};
use crate::diag::{Code, Diagnostic};
use crate::ir;

impl<'a> FamilyChecker<'a> {
    pub(super) fn check_receipts(&mut self, profiles: &[ir::Profile]) -> Vec<ir::Receipt> {
        let id = self.id;
        let mut out = Vec::new();
        for r in &self.file.receipts {
            let r = &r.value;
            let profile = profiles.iter().position(|p| p.name == r.profile.value);
            if profile.is_none() {
                let names: Vec<&str> = profiles
                    .iter()
                    .take(MAX_LISTED_NAMES + 1)
                    .map(|p| p.name.as_str())
                    .collect();
                self.push(
                    err(
                        Code::ReceiptUnknownProfile,
                        id,
                        &r.profile.span,
                        format!("receipt names unknown profile `{}`", r.profile.value),
                    )
                    .label("unknown profile")
                    .help(if names.is_empty() {
                        "declare the profile under `[[profiles]]`".to_owned()
                    } else {
                        format!("declared profiles: {}", {
                            let mut listed: Vec<String> = names
                                .iter()
                                .take(MAX_LISTED_NAMES)
                                .map(|n| format!("`{n}`"))
                                .collect();
                            let more = profiles.len() - listed.len();
                            if more > 0 {
                                listed.push(format!("and {more} more"));
                            }
                            listed.join(", ")
                        })
                    }),
                );
            }
            if !is_lower_hex(&r.sha256.value, 64) {
                self.push(
                    err(
                        Code::BadDigest,
                        id,
                        &r.sha256.span,
                        "artifact digest is not 64 lowercase hex digits",
                    )
                    .label("not a SHA-256 digest")
                    .help("write the output of `sha256sum ARTIFACT`, lowercase")
                    .fix_if(
                        is_lower_hex(&r.sha256.value.to_ascii_lowercase(), 64),
                        || {
                            (
                                "lowercase the digest".to_owned(),
                                r.sha256.span.clone(),
                                format!("\"{}\"", r.sha256.value.to_ascii_lowercase()),
                            )
                        },
                    ),
                );
            }
            if let Some(problem) = artifact_path_problem(&r.artifact.value) {
                self.push(
                    err(
                        Code::BadArtifactPath,
                        id,
                        &r.artifact.span,
                        format!(
                            "artifact path `{}` is not allowed",
                            printable(&r.artifact.value)
                        ),
                    )
                    .label(problem)
                    .help("use a relative path below the artifact root, with `/` separators"),
                );
            }
            if !is_codec(&r.codec.value) {
                self.push(
                    err(
                        Code::BadCodec,
                        id,
                        &r.codec.span,
                        format!(
                            "codec `{}` is not a valid identifier",
                            printable(&r.codec.value)
                        ),
                    )
                    .label("expected lowercase letters, digits, `_`, `.`, `-`")
                    .help("a codec starts with a lowercase letter, at most 64 characters, e.g. `xdna.generated_add.v1`"),
                );
            } else if let Err(d) =
                self.targets
                    .resolve(self.sources, id, TargetKind::Codec, &r.codec)
            {
                // A catalog that declares its codecs accepts only those.
                self.push(*d);
            }
            let evidence = self.check_evidence(&r.evidence);
            if let Some(profile) = profile {
                out.push(ir::Receipt {
                    profile,
                    codec: r.codec.value.clone(),
                    artifact: r.artifact.value.clone(),
                    sha256: r.sha256.value.clone(),
                    evidence,
                });
            }
        }
        for (i, pr) in self.file.profiles.iter().enumerate() {
            // A profile whose name repeats an earlier one is reported as a
            // duplicate; no receipt can name it.
            let first = profiles.iter().position(|p| p.name == pr.value.name.value);
            if !out.iter().any(|r| r.profile == i) && first == Some(i) {
                self.push(
                    Diagnostic::warning(
                        Code::ProfileWithoutReceipt,
                        id,
                        pr.value.name.span.clone(),
                        format!("profile `{}` has no receipt", pr.value.name.value),
                    )
                    .label("not loadable here")
                    .help(
                        "add a `[[receipts]]` entry once an artifact has qualified on this profile",
                    ),
                );
            }
        }
        out
    }
}
