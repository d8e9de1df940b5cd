//! The C output, for C99 and C++17 consumers (design in `docs/c.md`):
//!
//! - `include/kfam/kfam.h`: ABI constants, every vocabulary as an enum with
//!   explicit values, the status codes of `abi.toml`, the record structs, the
//!   declarations of the runtime library's C functions and of the tables.
//!   Its size does not depend on the number of families.
//! - `include/kfam/kfam_tables.h`: the table data, defined once: `kfam.h`
//!   includes it only in the unit that defines `KFAM_IMPLEMENTATION` (or
//!   `KFAM_PRIVATE_TABLES`).
//! - `include/kfam/kfam_constants.h`: the per-family named constants, for
//!   units that want them.
//!
//! With kfam's prefix; a catalog's `c_prefix` names the directory, the
//! files and every generated name (`myrt/myrt.h`, `myrt_family`,
//! `MYRT_*`): see `prefix.rs`.
//!
//! Free text (summaries, docs, evidence) is copied through [`c_string_literal`]
//! and [`c_comment_text`], which make any text safe inside a string literal or
//! a `/* */` comment. Every generated macro and enumerator name is recorded;
//! a name generated twice (e.g. family `abi` would make `KFAM_ABI_REVISION`
//! collide with the ABI constant) turns into an `#error` in `kfam.h`, and
//! [`c_name_collisions`] reports it to Rust callers, so a collision fails
//! closed instead of silently shadowing a value.

mod constants;
pub mod description;
mod escape;
mod functions;
mod header;
mod library;
mod out;
mod package;
mod prefix;
mod tables;
mod vocab;

use std::collections::HashMap;
use std::fmt::Write as _;

pub use escape::{c_comment_text, c_string_literal};
use out::{collisions, Out, C99_MAX_STRING_BYTES};
use prefix::Prefix;

use super::output::GeneratedFile;
use crate::ir::Ir;
use crate::plan::Plan;

/// Where the header goes, relative to the output directory (with kfam's
/// prefix; a catalog's `c_prefix` names the directory and the files).
pub const HEADER_PATH: &str = "include/kfam/kfam.h";

// The table data's path: defined by the header, which includes it.
pub use header::DATA_PATH;

/// The per-family named constants.
pub const CONSTANTS_PATH: &str = "include/kfam/kfam_constants.h";

/// Rank of an NZ-lowered shape, `[prod(leading), C/c0, R/16, 16, c0]`.
const NZ_LOWERED_RANK: usize = 5;

pub fn emit(plan: &Plan<'_>) -> Vec<GeneratedFile> {
    render(plan).0
}

/// The generated C macro and enumerator names that are defined more than
/// once for `ir` (empty for a usable header). The header itself turns each
/// into an `#error`; callers such as the checker can report them earlier.
pub fn c_name_collisions(ir: &Ir) -> Vec<String> {
    render(&Plan::new(ir)).1
}

/// A generated C name that more than one source defines: the header's own
/// names (`None`) or a family's constants (its index in `ir.families`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameClash {
    pub name: String,
    /// Every definer, in order: the header first, then families by index.
    pub owners: Vec<Option<usize>>,
}

/// Which definers of [`c_name_collisions`] each name has: the header and
/// every family's constants, rendered as the emitter renders them (the
/// data file defines no macro of a family's), so the checker can say which
/// family to rename.
pub fn c_name_clashes(ir: &Ir) -> Vec<NameClash> {
    let prefix = Prefix::new(&ir.catalog.c_prefix);
    let lowered_max = ir
        .families
        .iter()
        .flat_map(|f| f.params.iter().map(|p| p.lowered_shape.len()))
        .chain([ir.abi.max_rank as usize, NZ_LOWERED_RANK])
        .max()
        .unwrap_or(NZ_LOWERED_RANK);
    let mut h = Out::new(160 * 1024);
    header::header(&mut h, ir, &extents(ir, lowered_max), &prefix);
    let header_names: Vec<String> = h
        .names()
        .into_iter()
        .map(|n| prefix.name(n).into_owned())
        .collect();
    // Every name's hash with its definer: the header's, then each family's
    // constants rendered alone, as `render` writes them. At 10,000
    // families the constants are 14 MB of text and half a million names:
    // hashing them family by family holds 16 bytes a name instead of the
    // text and its names (this runs in `kfam check`, beside the loaded
    // manifest, where the check's memory peaks). Only names whose hash is
    // shared are then compared as text.
    let state = std::hash::RandomState::new();
    let hash = |n: &str| std::hash::BuildHasher::hash_one(&state, n);
    let mut hashed: Vec<(u64, Option<usize>)> =
        header_names.iter().map(|n| (hash(n), None)).collect();
    let constants_of = |i: usize| {
        let mut c = Out::new(4096);
        constants::family_constants(&mut c, i, &ir.families[i], &prefix.upper);
        c
    };
    for i in 0..ir.families.len() {
        let mut c = constants_of(i);
        hashed.extend(c.names().into_iter().map(|n| (hash(n), Some(i))));
    }
    hashed.sort_unstable();
    let shared: std::collections::BTreeSet<u64> = hashed
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|run| run.len() > 1)
        .map(|run| run[0].0)
        .collect();
    if shared.is_empty() {
        return Vec::new();
    }
    // The definers of those hashes, by exact name, in definer order.
    let mut owners: std::collections::BTreeMap<String, Vec<Option<usize>>> = Default::default();
    for n in header_names.iter().filter(|n| shared.contains(&hash(n))) {
        owners.entry(n.clone()).or_default().push(None);
    }
    let families: std::collections::BTreeSet<usize> = hashed
        .iter()
        .filter(|(h, _)| shared.contains(h))
        .filter_map(|(_, i)| *i)
        .collect();
    for i in families {
        let mut c = constants_of(i);
        for n in c.names().into_iter().filter(|n| shared.contains(&hash(n))) {
            owners.entry(n.to_owned()).or_default().push(Some(i));
        }
    }
    owners
        .into_iter()
        .filter(|(_, o)| o.len() > 1)
        .map(|(name, owners)| NameClash { name, owners })
        .collect()
}

/// Entries of `kfam_family.operands` (`KFAM_OPERAND_COUNT`).
const OPERAND_COUNT: usize = 3;

/// The value of each array extent's macro.
fn extents(ir: &Ir, lowered_max: usize) -> HashMap<&'static str, usize> {
    HashMap::from([
        ("KFAM_MAX_RANK", ir.abi.max_rank as usize),
        ("KFAM_MAX_LOWERED_RANK", lowered_max),
        ("KFAM_OPERAND_COUNT", OPERAND_COUNT),
    ])
}

fn render(plan: &Plan<'_>) -> (Vec<GeneratedFile>, Vec<String>) {
    let ir = plan.ir;
    let lowered_max = ir
        .families
        .iter()
        .flat_map(|f| f.params.iter().map(|p| p.lowered_shape.len()))
        .chain([ir.abi.max_rank as usize, NZ_LOWERED_RANK])
        .max()
        .unwrap_or(NZ_LOWERED_RANK);

    let prefix = Prefix::new(&ir.catalog.c_prefix);
    let mut h = Out::new(160 * 1024);
    let extent = extents(ir, lowered_max);
    header::header(&mut h, ir, &extent, &prefix);

    // About 1.6 KiB of constants per family with several params and profiles.
    let mut c = Out::new(4 * 1024 + ir.families.len() * 1700);
    c.line(format_args!("/* {} */", plan.banner));
    c.w.raw(&prefix.apply(CONSTANTS_DOC));
    let guard = format!("{p}_{p}_CONSTANTS_H", p = prefix.upper);
    c.line(format_args!("#ifndef {guard}"));
    c.line(format_args!("#define {guard}"));
    c.blank();
    c.line(format_args!("#include \"{}\"", prefix.file("")));
    c.blank();
    for (i, f) in ir.families.iter().enumerate() {
        constants::family_constants(&mut c, i, f, &prefix.upper);
    }
    c.line(format_args!("#endif /* {guard} */"));

    let first_line = format!("/* {} */\n", plan.banner);
    let data_prologue = format!("{first_line}{}", data_doc(&prefix));
    let (mut data, data_overlong) = tables::data_file(plan, &data_prologue, extent);
    if !prefix.is_kfam() {
        // The first line names the manifest and output directories: kept.
        data = format!("{first_line}{}", prefix.apply(&data[first_line.len()..]));
    }

    // The header's names as the prefix spells them; the constants are
    // written with it.
    let twice = {
        let header_names = h.names();
        let mut names: Vec<std::borrow::Cow<'_, str>> =
            header_names.into_iter().map(|n| prefix.name(n)).collect();
        names.extend(c.names().into_iter().map(std::borrow::Cow::Borrowed));
        let names: Vec<&str> = names.iter().map(|n| n.as_ref()).collect();
        collisions(&names)
    };
    let overlong: Vec<String> = [&h.overlong, &c.overlong, &data_overlong]
        .into_iter()
        .flatten()
        .cloned()
        .collect();

    // The prologue names what the rest turned out to define twice, so it is
    // written last and put in front.
    let mut text = format!("/* {} */\n{}", plan.banner, header_doc(&prefix));
    for name in &twice {
        let _ = writeln!(
            text,
            "#error \"kfam: the generated C name {name} is defined twice; rename the family, profile or parameter it comes from\""
        );
    }
    for start in &overlong {
        let _ = writeln!(
            text,
            "#error {}",
            c_string_literal(&format!("kfam: text over {C99_MAX_STRING_BYTES} bytes (starting {start:?}) is not a C99 string"))
        );
    }
    if !twice.is_empty() || !overlong.is_empty() {
        text.push('\n');
    }
    text.push_str(&prefix.apply(&h.w.finish()));
    let mut files = vec![
        GeneratedFile::new(prefix.path(""), text),
        GeneratedFile::new(prefix.path("_constants"), c.w.finish()),
        GeneratedFile::new(prefix.path("_tables"), data),
    ];
    files.extend(package::files(ir, &plan.banner));
    let c_dir = ir.catalog.outputs.c.rsplit('/').next().unwrap_or("include");
    files.extend(library::files(ir, &plan.banner, &prefix, c_dir));
    (files, twice)
}

const HEADER_DOC: &str = "/*
 * kfam.h - the approved accelerator kernel families, for C99 and C++17.
 *
 * Declarations only: include it anywhere, it stays small however many
 * families there are. The tables (kfam_families, kfam_header_table, ...) are
 * defined once per program: in exactly one translation unit write
 *
 *     #define KFAM_IMPLEMENTATION
 *     #include <kfam/kfam.h>
 *
 * The KFAM_<FAMILY>_* constants are in <kfam/kfam_constants.h>. With the
 * catalog's own library linked, also call the kfam_* functions declared
 * below, kfam_check_catalog first. See docs/c.md.
 */

";

/// The header's prologue, after its first line.
fn header_doc(prefix: &Prefix) -> std::borrow::Cow<'static, str> {
    if prefix.is_kfam() {
        return HEADER_DOC.into();
    }
    prefix.apply(HEADER_DOC).into_owned().into()
}

/// The data file's prologue, after its first line (written with kfam's
/// prefix and renamed with the rest; the `#error` text is a string literal,
/// spelled here with `prefix`).
fn data_doc(prefix: &Prefix) -> String {
    format!(
        "/*
 * kfam_tables.h - the table data of kfam.h. Do not include it yourself:
 * kfam.h includes it in the one translation unit that defines
 * KFAM_IMPLEMENTATION (or, for a private copy, KFAM_PRIVATE_TABLES).
 * One record per line; each array's fields are named above it, codes are
 * the enum values of kfam.h. See docs/c.md.
 */
#ifndef KFAM_GEN_LINKAGE
#error \"kfam: {p}_tables.h is the data of {p}.h: define {P}_IMPLEMENTATION in one translation unit and include <{p}/{p}.h> there\"
#endif

",
        p = prefix.lower,
        P = prefix.upper
    )
}

const CONSTANTS_DOC: &str = "/*
 * kfam_constants.h - named constants of every approved family, for code
 * that knows its family at compile time: KFAM_<FAMILY>_INDEX (into
 * kfam_families), _NAME, _REVISION, _IDENTITY, _TENSOR_COUNT, _SCALAR_COUNT,
 * _PARAM_<PARAM> (signature index), _PROFILE_<PROFILE> (profile index),
 * _SLOT_<PARAM> (launch slot, where every profile of the family binds the
 * parameter to the same slot) or else _<PROFILE>_SLOT_<PARAM> (launch slot
 * in each profile that binds it): one name per fact.
 * Includes kfam.h. See docs/c.md.
 */

";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_prefix_says_whose_functions_it_declares() {
        let doc = header_doc(&Prefix::new("myrt"));
        assert!(doc.contains("#define MYRT_IMPLEMENTATION\n"), "{doc}");
        assert!(doc.contains("<myrt/myrt.h>"), "{doc}");
        assert!(
            doc.contains("catalog's own library linked, also call the myrt_* functions"),
            "{doc}"
        );
        assert!(doc.contains("myrt_check_catalog first"), "{doc}");
        assert_eq!(header_doc(&Prefix::new("kfam")), HEADER_DOC);
    }
}
