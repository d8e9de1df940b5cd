//! A catalog opened from its description: the bytes a catalog's generated
//! C unit embeds (`kfam_codegen::emit::c::description` writes them), read
//! into a [`Catalog`], so the prebuilt runtime (`libkfamrt`) decides over
//! any catalog it is handed (docs/description.md).
//!
//! The reader fails closed, and trusts nothing because the C unit also
//! carries the SHA-256 of the bytes (that catches corruption; a digest
//! recomputed over damaged bytes vouches for nothing): every length and
//! count is checked against the bytes left before anything is allocated
//! (`reader.rs`), every code against its vocabulary or the catalog's
//! declared targets, every extent and declared attribute against its
//! range, and every reference, count and constraint of a family against
//! the family's own lists (`verify.rs`); every record must end where its
//! length says. A refusal names the field and the value.
//!
//! Memory: a description is read into an arena. A refused one is freed
//! whole. An opened catalog lives for the rest of the process (its records
//! are the generated tables' `'static` types, which every decision hands
//! out), and is opened **at most once per distinct description**: opening
//! the same bytes again answers the catalog already opened, so a process
//! that opens descriptions repeatedly (a reloading server, a registry
//! checking the same catalogs) grows only with the distinct catalogs it
//! accepted. [`check`] reads a description and frees it, opened or not.

use std::fmt;
use std::sync::Mutex;

use crate::catalog::{ArtifactRow, Catalog};
use crate::lookup::index_slots;
use crate::targets::{Backend, ExecutionMode, Platform, Runtime, Targets};
use crate::types::{Abi, Family, Retired};
use crate::vocab::Status;

mod reader;
mod verify;

use reader::Arena;
pub use reader::{Malformed, Read, Reader};

// The `Read` impls of every record, printed from the record declarations,
// and the format's magic and version.
include!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/generated/rust/description.rs"
));

/// Why a description could not be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DescriptionError {
    /// The bytes do not start with [`MAGIC`]: not a description.
    Magic,
    /// A format this runtime does not read: another major, or a newer
    /// minor (the generator is newer than the runtime).
    Format { major: u16, minor: u16 },
    /// The bytes break the format at `offset`.
    Malformed { offset: usize, what: String },
}

impl fmt::Display for DescriptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DescriptionError::Magic => f.write_str("the bytes are not a kfam catalog description"),
            DescriptionError::Format { major, minor } => write!(
                f,
                "the description is format {major}.{minor}, this runtime reads \
                 {FORMAT_MAJOR}.0 to {FORMAT_MAJOR}.{FORMAT_MINOR}: install a kfam runtime \
                 at least as new as the kfam that generated the catalog"
            ),
            DescriptionError::Malformed { offset, what } => {
                write!(f, "the description is malformed at byte {offset}: {what}")
            }
        }
    }
}

impl std::error::Error for DescriptionError {}

/// The ABI: its pin, limits in the ranges `kfam check` allows, and one
/// distinct status code per status (`ok` 0, every other negative).
fn abi(r: &mut Reader) -> Result<Abi, Malformed> {
    let (revision, major, minor) = (r.read()?, r.read()?, r.read()?);
    let mut limits = [0u32; 4];
    for (i, (name, ceiling)) in [
        ("max_tensor_args", 65535),
        ("max_scalar_args", 65535),
        ("max_rank", 8),
        ("max_prepared", 65535),
    ]
    .into_iter()
    .enumerate()
    {
        let at = r.pos;
        let v: u32 = r.read()?;
        if v == 0 || v > ceiling {
            return Err(r.malformed_at(at, format!("`Abi.{name}` is {v}: 1 to {ceiling} expected")));
        }
        limits[i] = v;
    }
    let [max_tensor_args, max_scalar_args, max_rank, max_prepared] = limits;
    let at = r.pos;
    let codes: Vec<i32> = r.list()?;
    let status = <[i32; Status::ALL.len()]>::try_from(codes.as_slice()).map_err(|_| {
        r.malformed_at(
            at,
            format!(
                "{} status codes, {} expected",
                codes.len(),
                Status::ALL.len()
            ),
        )
    })?;
    for (i, (s, &code)) in Status::ALL.iter().zip(&status).enumerate() {
        let fits = if *s == Status::Ok {
            code == 0
        } else {
            code < 0
        };
        if !fits || status[..i].contains(&code) {
            return Err(r.malformed_at(
                at,
                format!(
                    "status `{s}` has the code {code}: `ok` is 0, every other status a negative \
                     code of its own"
                ),
            ));
        }
    }
    Ok(Abi {
        revision,
        major,
        minor,
        max_tensor_args,
        max_scalar_args,
        max_rank,
        max_prepared,
        status,
    })
}

/// A declared member: its code and its name, each once in its list.
fn members<T: 'static>(
    r: &mut Reader,
    what: &str,
    new: fn(i32, &'static str) -> T,
) -> Result<&'static [T], Malformed> {
    let n = r.count(8)?;
    let mut seen: Vec<(i32, &str)> = Vec::with_capacity(n);
    for _ in 0..n {
        let at = r.pos;
        let (code, name): (i32, &'static str) = (r.read()?, r.read()?);
        if let Some((c, m)) = seen.iter().find(|(c, m)| *c == code || *m == name) {
            return Err(r.malformed_at(
                at,
                format!(
                    "{what} `{name}` (code {code}) repeats {what} `{m}` (code {c}): each member has \
                     a name and a code of its own"
                ),
            ));
        }
        seen.push((code, name));
    }
    let list = seen.into_iter().map(|(c, m)| new(c, m)).collect();
    Ok(r.arena.slice(list))
}

/// How reading a catalog stopped.
enum Stop {
    Format(u16, u16),
    Malformed(Malformed),
}

impl From<Malformed> for Stop {
    fn from(m: Malformed) -> Stop {
        Stop::Malformed(m)
    }
}

impl From<Stop> for DescriptionError {
    fn from(s: Stop) -> DescriptionError {
        match s {
            Stop::Format(major, minor) => DescriptionError::Format { major, minor },
            Stop::Malformed(m) => DescriptionError::Malformed {
                offset: m.offset,
                what: m.what,
            },
        }
    }
}

/// Every catalog opened so far, by its description's bytes.
static OPENED: Mutex<Vec<(&'static [u8], &'static Catalog)>> = Mutex::new(Vec::new());

/// Open the description `bytes`: the catalog it describes, which lives for
/// the rest of the process. The same bytes open once: a second call
/// answers the catalog the first opened (and reads nothing); a refused
/// description leaves nothing behind.
pub fn open(bytes: &[u8]) -> Result<&'static Catalog, DescriptionError> {
    // Held while reading, so one description is never opened twice at once.
    let mut opened = OPENED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, c)) = opened.iter().find(|(b, _)| *b == bytes) {
        return Ok(c);
    }
    let (catalog, mut arena, copy) = read(bytes)?;
    let catalog = arena.value(catalog);
    arena.keep();
    opened.push((copy, catalog));
    Ok(catalog)
}

/// Read the description `bytes` as [`open`] does, and free it: `Ok` when
/// it would open. Nothing is kept, whatever the answer.
pub fn check(bytes: &[u8]) -> Result<(), DescriptionError> {
    // The catalog (a `Copy` value of borrows) is not kept: its memory goes
    // with the arena.
    let (_, arena, _) = read(bytes)?;
    drop(arena);
    Ok(())
}

/// Read the description `bytes` as [`open`] does, hand the catalog to `f`,
/// and free it: for fuzzing and tests, which open many descriptions and
/// must not keep them.
///
/// # Safety
/// Nothing borrowed from the catalog (its texts, lists and records, which
/// are typed `'static`) may outlive the call of `f`: everything is freed
/// when it returns.
#[doc(hidden)]
pub unsafe fn inspect<R>(
    bytes: &[u8],
    f: impl FnOnce(&Catalog) -> R,
) -> Result<R, DescriptionError> {
    let (catalog, arena, _) = read(bytes)?;
    let answer = f(&catalog);
    drop(arena);
    Ok(answer)
}

/// The catalog `bytes` describe, the arena it is held by and the arena's
/// copy of `bytes`.
fn read(bytes: &[u8]) -> Result<(Catalog, Arena, &'static [u8]), DescriptionError> {
    if bytes.get(..MAGIC.len()) != Some(&MAGIC[..]) {
        return Err(DescriptionError::Magic);
    }
    let mut arena = Arena::default();
    // One copy, which the catalog's texts borrow from.
    let copy = arena.slice(bytes.to_vec());
    let mut r = Reader::new(copy, arena);
    r.pos = MAGIC.len();
    match read_catalog(&mut r) {
        Ok(catalog) => Ok((catalog, r.arena, copy)),
        // `r` and what was read into its arena are dropped here: nothing
        // borrows them (the error holds only its own text).
        Err(stop) => Err(stop.into()),
    }
}

fn read_catalog(r: &mut Reader) -> Result<Catalog, Stop> {
    let (major, minor): (u16, u16) = (r.read()?, r.read()?);
    if major != FORMAT_MAJOR || minor > FORMAT_MINOR {
        return Err(Stop::Format(major, minor));
    }
    let name: &'static str = r.read()?;
    let digest: &'static str = r.read()?;
    let abi = abi(r)?;
    let abi: &'static Abi = r.arena.value(abi);
    let targets = Targets {
        platforms: members(r, "platform", Platform::new)?,
        backends: members(r, "backend", Backend::new)?,
        runtimes: members(r, "runtime", Runtime::new)?,
        execution_modes: members(r, "execution mode", ExecutionMode::new)?,
    };
    let targets: &'static Targets = r.arena.value(targets);
    r.targets = Some(targets);
    let n = r.count(4)?;
    let mut families: Vec<Family> = Vec::with_capacity(n);
    for _ in 0..n {
        let at = r.pos;
        let f = verify::family(r, abi)?;
        if let Some(last) = families.last().filter(|l| l.name >= f.name) {
            return Err(r
                .malformed_at(
                    at,
                    format!(
                        "family `{}` follows family `{}`: families are sorted by name, each once",
                        f.name, last.name
                    ),
                )
                .into());
        }
        families.push(f);
    }
    let families: &'static [Family] = r.arena.slice(families);
    let at = r.pos;
    let retired: &'static [Retired] = r.read()?;
    for (i, t) in retired.iter().enumerate() {
        let again = retired[..i].iter().find(|o| o.name >= t.name);
        let live = families.iter().find(|f| f.name == t.name);
        if let Some(o) = again {
            return Err(r
                .malformed_at(
                    at,
                    format!(
                        "retired family `{}` follows retired family `{}`: tombstones are sorted \
                         by name, each once",
                        t.name, o.name
                    ),
                )
                .into());
        }
        if live.is_some() {
            return Err(r
                .malformed_at(
                    at,
                    format!("family `{}` is both approved and retired", t.name),
                )
                .into());
        }
    }
    if r.pos != r.bytes.len() {
        return Err(r
            .malformed(format!("{} bytes after the catalog", r.bytes.len() - r.pos))
            .into());
    }
    let mut artifacts: Vec<ArtifactRow> = families
        .iter()
        .enumerate()
        .flat_map(|(fi, f)| {
            f.receipts
                .iter()
                .enumerate()
                .map(move |(ri, rc)| (rc.sha256, fi as u32, ri as u32))
        })
        .collect();
    artifacts.sort_unstable();
    let family_index = index_slots(families.iter().map(|f| f.name));
    let artifact_index = index_slots(artifacts.iter().map(|a| a.0));
    Ok(Catalog {
        name,
        digest,
        abi,
        targets,
        families,
        retired,
        artifacts: r.arena.slice(artifacts),
        family_index: r.arena.slice(family_index),
        artifact_index: r.arena.slice(artifact_index),
    })
}
