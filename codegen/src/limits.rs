//! The bounds of the manifest format and the characters free text may not
//! hold: facts that the model (the JSON Schemas' `maxLength` and `maximum`),
//! the checker, the diagnostics renderer and the emitters all rely on, kept
//! here so none of them reaches into another for them.

/// Longest free-text field.
pub const MAX_TEXT_CHARS: usize = 1000;
/// Most entries of a list of structured evidence (versions, shapes,
/// errors): bounded like free text, far above one entry per symbol.
pub const MAX_EVIDENCE_ENTRIES: usize = 1024;
/// Upper bound of `max_rank` the generated tables support.
pub const RANK_CEILING: u32 = 8;
/// Upper bound of the tensor and scalar argument limits.
pub const ARG_CEILING: u32 = 65535;
/// ISO C99's minimum supported length of a string literal (5.2.4.1),
/// after concatenation: longer literals fail `-pedantic`
/// (`-Woverlength-strings`). Every text the C tables hold stays within it
/// (free text by [`MAX_TEXT_CHARS`], a torch schema by KF0903).
pub const C_MAX_STRING_BYTES: usize = 4095;
/// PyTorch's dispatcher takes at most 64 arguments per operator (it keeps
/// one bit per argument in a 64-bit set): a torch family with more cannot
/// be defined (KF0902).
pub const TORCH_MAX_ARGS: usize = 64;
/// Upper bound of `max_prepared`: a context's table of prepared callables
/// is bounded memory, and callable ids stay small.
pub const PREPARED_CEILING: u32 = 65535;
/// `max_prepared` of an `abi.toml` that does not declare it (the key came
/// in kfam 0.x after the format was in use, so it is optional; see
/// docs/manifest.md, "Format evolution"): the value the shipped manifest
/// has always declared.
pub const DEFAULT_MAX_PREPARED: u32 = 64;

/// Characters free text may not contain: controls (newline allowed where
/// `allow_newline`), bidirectional controls and invisible format characters.
pub fn is_forbidden_char(c: char, allow_newline: bool) -> bool {
    if c == '\n' {
        return !allow_newline;
    }
    c.is_control()
        || matches!(c,
            '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// The catalog identity of an `abi.toml` without a `[catalog]` table (the
/// table came after the format was in use; docs/manifest.md, "The
/// catalog's identity"): the names every output carried before, which a
/// declared catalog's `name` replaces.
pub const DEFAULT_CATALOG_NAME: &str = "kfam";
/// The license of an `abi.toml` without a `[catalog]` table: kfam's own,
/// which the generated Python package declared before the table existed.
pub const DEFAULT_LICENSE: &str = "Apache-2.0";
/// Longest SPDX license expression of `[catalog]`.
pub const MAX_LICENSE_CHARS: usize = 200;
/// Longest version of `[catalog]`.
pub const MAX_VERSION_CHARS: usize = 64;
/// Longest output location of `[catalog.outputs]`.
pub const MAX_OUTPUT_PATH_CHARS: usize = 200;
/// Highest code of a declared platform, backend, runtime or execution mode:
/// C promises an enumeration constant no more than 16 bits.
pub const MAX_TARGET_CODE: u32 = 32767;
/// Longest codec (a wire-format identifier).
pub const MAX_CODEC_CHARS: usize = 64;
