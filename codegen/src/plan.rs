//! The plan: what every backend prints, decided once from the IR. The
//! records in their one order (the IR's: families sorted by name), the
//! texts that are written once and named wherever they occur (one rule for
//! every language), the artifact table's order and the lookup indices over
//! it. The C and Rust tables that the runtime library links together are
//! paired by position; both take it from here.

use std::collections::HashMap;
use std::sync::OnceLock;

use xxhash_rust::xxh3::Xxh3DefaultBuilder;

use crate::ir::Ir;
// Built with the function the runtime builds an opened catalog's indices with.
pub use crate::lookup_hash::index_slots;
use crate::origin::Origin;
use crate::record::values::{Row, Value};
use crate::record::{Role, Ty};

/// Everything the emitters print, computed once.
pub struct Plan<'ir> {
    pub ir: &'ir Ir,
    /// The first line of every file, without comment syntax
    /// ([`Origin::banner`]).
    pub banner: String,
    /// The texts of the tables written once, named wherever they occur:
    /// counted by the first emitter that asks ([`Plan::strings`]), so the
    /// count runs beside the jobs that do not need it (the lock, the
    /// schemas) rather than before every job.
    strings: OnceLock<Strings<'ir>>,
    /// `(artifact sha256, family index, receipt index)` of every receipt,
    /// sorted by digest.
    pub artifacts: Vec<(&'ir str, u32, u32)>,
    /// The open-addressing index of the families by name.
    pub family_index: Vec<u32>,
    /// The open-addressing index of [`Plan::artifacts`] by digest.
    pub artifact_index: Vec<u32>,
}

impl<'ir> Plan<'ir> {
    /// The plan of `ir`'s outputs, under the banner of the usual layout
    /// (`Origin::default()`).
    pub fn new(ir: &'ir Ir) -> Plan<'ir> {
        Plan::from_origin(ir, &Origin::default())
    }

    /// The plan of `ir`'s outputs, each under the banner of `origin`.
    pub fn from_origin(ir: &'ir Ir, origin: &Origin) -> Plan<'ir> {
        let artifacts = artifact_rows(ir);
        Plan {
            ir,
            banner: origin.banner(),
            strings: OnceLock::new(),
            family_index: index_slots(ir.families.iter().map(|f| f.name.as_str())),
            artifact_index: index_slots(artifacts.iter().map(|(d, _, _)| *d)),
            artifacts,
        }
    }

    /// The texts written once (counted on first use).
    pub fn strings(&self) -> &Strings<'ir> {
        self.strings.get_or_init(|| Strings::of(self.ir))
    }
}

/// A text is written once, and named where it occurs, when it is at least
/// this long and occurs at least [`POOLED_COUNT`] times: a name and a
/// definition then cost less than the copies, in C (`kfam_gen_s12`) as in
/// Rust (`S12`). One rule for both; at 10,000 synthetic families it gives
/// the smallest tables of the rules tried (docs/performance.md).
pub const POOLED_MIN: usize = 8;
/// See [`POOLED_MIN`].
pub const POOLED_COUNT: u32 = 3;

/// The texts written once: every text of the tables that other records may
/// repeat (`texts`), occurs at least [`POOLED_COUNT`] times and has at
/// least [`POOLED_MIN`] bytes, numbered in sorted order.
pub struct Strings<'ir> {
    index: HashMap<&'ir str, u32, Xxh3DefaultBuilder>,
    order: Vec<&'ir str>,
}

impl<'ir> Strings<'ir> {
    fn of(ir: &'ir Ir) -> Strings<'ir> {
        // XXH3, not SipHash: every text of the tables is hashed here.
        let mut counts: HashMap<&'ir str, u32, Xxh3DefaultBuilder> = HashMap::default();
        let mut add = |s: &'ir str| {
            if s.len() >= POOLED_MIN {
                *counts.entry(s).or_default() += 1;
            }
        };
        for f in &ir.families {
            texts(f, &mut add);
        }
        for r in &ir.retired {
            texts(r, &mut add);
        }
        let mut order: Vec<&str> = counts
            .into_iter()
            .filter(|&(_, n)| n >= POOLED_COUNT)
            .map(|(s, _)| s)
            .collect();
        order.sort_unstable();
        let index = order
            .iter()
            .enumerate()
            .map(|(i, s)| (*s, i as u32))
            .collect();
        Strings { index, order }
    }

    /// The number of `text` when it is written once.
    pub fn get(&self, text: &str) -> Option<u32> {
        if text.len() < POOLED_MIN {
            return None;
        }
        self.index.get(text).copied()
    }

    /// The pooled texts, by number.
    pub fn all(&self) -> &[&'ir str] {
        &self.order
    }
}

/// Calls `f` with every text `row` holds that other records may repeat,
/// its nested records' included: not a table key (a family's name) nor a
/// digest, which no two records share.
fn texts<'a>(row: &'a dyn Row, f: &mut impl FnMut(&'a str)) {
    for (field, v) in row.record().logical().zip(row.values()) {
        if field.role == Role::Key || matches!(field.ty, Ty::Digest) {
            continue;
        }
        match v {
            Value::Str(s) => f(s),
            Value::Strs(list) => list.iter().for_each(|s| f(s)),
            Value::List(rows) => (0..rows.len()).for_each(|i| texts(rows.row(i), f)),
            Value::Nested(r) | Value::Operation(r) => texts(r, f),
            _ => {}
        }
    }
}

/// `(artifact sha256, family index, receipt index)` of every receipt,
/// sorted by digest: the artifact table.
fn artifact_rows(ir: &Ir) -> Vec<(&str, u32, u32)> {
    let mut rows: Vec<(&str, u32, u32)> = ir
        .families
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| {
            f.receipts
                .iter()
                .enumerate()
                .map(move |(ri, r)| (r.sha256.as_str(), fi as u32, ri as u32))
        })
        .collect();
    rows.sort_unstable();
    rows
}
