//! Where artifacts run, as `abi.toml` declares it: the catalog's platforms
//! (with what each allows), backends, runtimes, execution modes and codecs.
//! Each list is optional; an absent one is kfam's default
//! (`ir/targets.rs`).

use schemars::JsonSchema;
use serde::Deserialize;

use super::pattern;
use super::spanned::Spanned;
use crate::vocab::{DType, Layout};

/// `[[platforms]]`: a platform artifacts run on, and what it allows.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Platform {
    /// The platform's name, as profiles spell it: an identifier.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub name: Spanned<String>,
    /// Its stable numeric code in C, Rust and Python: part of the ABI, never
    /// reused or renumbered.
    #[schemars(range(max = crate::limits::MAX_TARGET_CODE))]
    pub code: Spanned<u32>,
    /// What it is, for the generated docs and comments.
    #[schemars(length(min = 1, max = crate::limits::MAX_TEXT_CHARS))]
    pub doc: Spanned<String>,
    /// The backends that compile for it (names of `[[backends]]`).
    pub backends: Spanned<Vec<Spanned<String>>>,
    /// The runtimes that launch on it (names of `[[runtimes]]`).
    pub runtimes: Spanned<Vec<Spanned<String>>>,
    /// The tensor layouts its runtime accepts. Optional: `nd` and `nchw`
    /// when absent (a platform takes `nz` only by saying so).
    #[serde(default)]
    pub layouts: Option<Spanned<Vec<Spanned<Layout>>>>,
    /// The dtypes its kernels may take. Optional: every dtype when absent.
    #[serde(default)]
    pub dtypes: Option<Spanned<Vec<Spanned<DType>>>>,
}

/// `[[backends]]`, `[[runtimes]]`, `[[execution_modes]]`: a member of a
/// vocabulary the catalog declares.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Member {
    /// The member's name, as profiles spell it: an identifier.
    #[schemars(pattern(pattern::IDENTIFIER), length(max = crate::names::MAX_NAME_LEN))]
    pub name: Spanned<String>,
    /// Its stable numeric code: part of the ABI, never reused or renumbered.
    #[schemars(range(max = crate::limits::MAX_TARGET_CODE))]
    pub code: Spanned<u32>,
    /// What it is, for the generated docs and comments.
    #[schemars(length(min = 1, max = crate::limits::MAX_TEXT_CHARS))]
    pub doc: Spanned<String>,
}

/// `[[codecs]]`: a wire format receipts may name.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Codec {
    /// The codec as receipts spell it.
    #[schemars(pattern(pattern::CODEC), length(max = crate::limits::MAX_CODEC_CHARS))]
    pub name: Spanned<String>,
    /// What it is, for the generated docs.
    #[schemars(length(min = 1, max = crate::limits::MAX_TEXT_CHARS))]
    pub doc: Spanned<String>,
}
