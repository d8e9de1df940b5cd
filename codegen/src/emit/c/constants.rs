//! `include/kfam/kfam_constants.h`: the named constants of every family
//! (indices, identity digests, binding slots). They grow with the catalog,
//! so they are a header of their own that a unit includes when it wants
//! them; `kfam.h` stays the same size however many families there are.

use super::out::Out;
use crate::ir::Family;
use crate::names::shouty;

/// `MYRT_<FAMILY>`: `macro_prefix` is the catalog's prefix in capitals.
pub(super) fn fam_prefix(f: &Family, macro_prefix: &str) -> String {
    format!("{macro_prefix}_{}", shouty(&f.name))
}

/// Names and numbers only: the family's and its parameters' prose is in
/// the tables (`summary`, `doc`) and docs/families.md, not repeated here
/// (as the Rust per-family modules carry none either). Spelled with the
/// catalog's prefix here, not renamed afterwards: the comment above them
/// names the family as the manifest does.
pub(super) fn family_constants(w: &mut Out, index: usize, f: &Family, macro_prefix: &str) {
    let p = fam_prefix(f, macro_prefix);
    w.line(format_args!(
        "/* --- {} (revision {}) --- */",
        f.name, f.revision
    ));
    w.define(format_args!("{p}_INDEX"), index);
    let name = w.string(&f.name);
    w.define(format_args!("{p}_NAME"), name);
    w.define(format_args!("{p}_REVISION"), f.revision);
    let identity = w.string(&f.identity);
    w.define(format_args!("{p}_IDENTITY"), identity);
    w.define(format_args!("{p}_TENSOR_COUNT"), f.tensor_count);
    w.define(format_args!("{p}_SCALAR_COUNT"), f.scalar_count);
    let params: Vec<String> = f.params.iter().map(|param| shouty(&param.name)).collect();
    for (param, shout) in f.params.iter().zip(&params) {
        w.define(format_args!("{p}_PARAM_{shout}"), param.index);
    }
    for (pi, profile) in f.profiles.iter().enumerate() {
        let pp = shouty(&profile.name);
        w.define(format_args!("{p}_PROFILE_{pp}"), pi);
        // One name per fact: a per-profile slot only where the profiles
        // disagree (the family-wide name below covers the rest).
        for b in &profile.bindings {
            if f.common_slot(b.param).is_none() {
                w.define(format_args!("{p}_{pp}_SLOT_{}", params[b.param]), b.slot);
            }
        }
    }
    for (param, shout) in f.params.iter().zip(&params) {
        if let Some(slot) = f.common_slot(param.index) {
            w.define(format_args!("{p}_SLOT_{shout}"), slot);
        }
    }
    w.blank();
}
