//! A catalog opened from its description: the bytes a catalog's generated
//! C unit embeds (`kfam_codegen::emit::c::description` writes them), read
//! once into a [`Catalog`] that lives for the rest of the process, so the
//! prebuilt runtime (`libkfamrt`) decides over any catalog it is handed
//! (docs/description.md).
//!
//! The reader fails closed: every length is checked against the bytes
//! left, every code against its vocabulary or the catalog's declared
//! targets, every parameter, profile and return reference against the
//! family's lists, and every record must end where its length says.
//! Nothing is trusted because the C unit also carries the SHA-256 of the
//! bytes: that catches corruption, this catches everything else.

use std::fmt;

use crate::catalog::{ArtifactRow, Catalog};
use crate::lookup::index_slots;
use crate::targets::{Backend, ExecutionMode, Platform, Runtime, Targets};
use crate::types::{Abi, Family, Retired, ScalarRef};
use crate::vocab::Status;

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

/// A malformation, before it is reported as a [`DescriptionError`].
#[derive(Debug)]
pub struct Malformed {
    offset: usize,
    what: String,
}

/// A value a description holds.
pub trait Read: Sized {
    fn read(r: &mut Reader) -> Result<Self, Malformed>;
}

/// A cursor over a description. Texts and lists it reads live for the
/// process (a catalog is opened once and never closed).
pub struct Reader {
    bytes: &'static [u8],
    pos: usize,
    /// Where the innermost record being read ends.
    end: usize,
    targets: Option<&'static Targets>,
    /// One more than the largest parameter index read since the family
    /// being read began.
    params: u32,
}

impl Reader {
    fn new(bytes: &'static [u8]) -> Reader {
        Reader {
            bytes,
            pos: 0,
            end: bytes.len(),
            targets: None,
            params: 0,
        }
    }

    fn malformed(&self, what: impl Into<String>) -> Malformed {
        Malformed {
            offset: self.pos,
            what: what.into(),
        }
    }

    /// An unknown code of the vocabulary `what`.
    pub fn unknown(&self, what: &str, code: i32) -> Malformed {
        self.malformed(format!("unknown {what} code {code}"))
    }

    fn take(&mut self, n: usize) -> Result<&'static [u8], Malformed> {
        if n > self.end - self.pos {
            return Err(self.malformed(format!("{n} bytes expected, {} left", self.end - self.pos)));
        }
        let bytes = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Malformed> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    pub fn read<T: Read>(&mut self) -> Result<T, Malformed> {
        T::read(self)
    }

    /// A record: its byte length, then `fields`, which must read exactly
    /// that many bytes.
    pub fn record<T>(
        &mut self,
        fields: impl FnOnce(&mut Reader) -> Result<T, Malformed>,
    ) -> Result<T, Malformed> {
        let len = self.read::<u32>()? as usize;
        if len > self.end - self.pos {
            return Err(self.malformed(format!(
                "a record of {len} bytes, {} left",
                self.end - self.pos
            )));
        }
        let outer = std::mem::replace(&mut self.end, self.pos + len);
        let value = fields(self)?;
        if self.pos != self.end {
            return Err(self.malformed(format!(
                "{} bytes left over at the end of a record",
                self.end - self.pos
            )));
        }
        self.end = outer;
        Ok(value)
    }

    /// A field appended in a later minor of the format: its type's default
    /// when the record, written by an earlier generator, ends before it.
    pub fn appended<T: Read + Default>(&mut self) -> Result<T, Malformed> {
        if self.pos == self.end {
            return Ok(T::default());
        }
        self.read()
    }

    /// [`Reader::appended`] for a type whose absent value is `absent`
    /// (a vocabulary's member of code 0).
    pub fn appended_or<T: Read>(&mut self, absent: T) -> Result<T, Malformed> {
        if self.pos == self.end {
            return Ok(absent);
        }
        self.read()
    }

    /// A parameter's signature index, checked once the family is read.
    pub fn param(&mut self) -> Result<u32, Malformed> {
        let i = self.read::<u32>()?;
        self.params = self.params.max(i.saturating_add(1));
        Ok(i)
    }

    /// A parameter's signature index, or none.
    pub fn opt_param(&mut self) -> Result<Option<u32>, Malformed> {
        match self.read::<u8>()? {
            0 => Ok(None),
            1 => self.param().map(Some),
            tag => Err(self.malformed(format!("option tag {tag}"))),
        }
    }

    fn targets(&self) -> Result<&'static Targets, Malformed> {
        self.targets
            .ok_or_else(|| self.malformed("a target before the targets"))
    }

    /// A list's count, bounded by the bytes left (every entry takes at
    /// least one), so no count allocates more than the description holds.
    fn count(&mut self) -> Result<usize, Malformed> {
        let n = self.read::<u32>()? as usize;
        if n > self.end - self.pos {
            return Err(self.malformed(format!(
                "a list of {n} entries, {} bytes left",
                self.end - self.pos
            )));
        }
        Ok(n)
    }

    fn list<T: Read>(&mut self) -> Result<Vec<T>, Malformed> {
        let n = self.count()?;
        (0..n).map(|_| self.read()).collect()
    }
}

macro_rules! number {
    ($($t:ty),*) => {$(
        impl Read for $t {
            fn read(r: &mut Reader) -> Result<Self, Malformed> {
                Ok(<$t>::from_le_bytes(r.array()?))
            }
        }
    )*};
}
number!(u8, u16, u32, i32, i64, f64);

impl Read for bool {
    fn read(r: &mut Reader) -> Result<Self, Malformed> {
        match r.read::<u8>()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(r.malformed(format!("boolean {b}"))),
        }
    }
}

impl Read for &'static str {
    fn read(r: &mut Reader) -> Result<Self, Malformed> {
        let n = r.read::<u32>()? as usize;
        let bytes = r.take(n)?;
        std::str::from_utf8(bytes)
            .map_err(|e| r.malformed(format!("a text that is not UTF-8: {e}")))
    }
}

impl<T: Read> Read for Option<T> {
    fn read(r: &mut Reader) -> Result<Self, Malformed> {
        match r.read::<u8>()? {
            0 => Ok(None),
            1 => r.read().map(Some),
            tag => Err(r.malformed(format!("option tag {tag}"))),
        }
    }
}

impl<T: Read + 'static> Read for &'static [T] {
    fn read(r: &mut Reader) -> Result<Self, Malformed> {
        Ok(Box::leak(r.list::<T>()?.into_boxed_slice()))
    }
}

impl Read for ScalarRef {
    fn read(r: &mut Reader) -> Result<Self, Malformed> {
        match r.read::<u8>()? {
            0 => r.read().map(ScalarRef::Constant),
            1 => r.param().map(ScalarRef::Param),
            tag => Err(r.malformed(format!("scalar reference tag {tag}"))),
        }
    }
}

macro_rules! declared {
    ($($t:ident $list:ident $what:literal),*) => {$(
        impl Read for $t {
            fn read(r: &mut Reader) -> Result<Self, Malformed> {
                let code = r.read::<i32>()?;
                let targets = r.targets()?;
                targets.$list.iter().copied().find(|m| m.code() == code)
                    .ok_or_else(|| r.unknown($what, code))
            }
        }
    )*};
}
declared!(
    Platform platforms "platform",
    Backend backends "backend",
    Runtime runtimes "runtime",
    ExecutionMode execution_modes "execution mode"
);

/// A declared member: its code and its name.
fn members<T: 'static>(
    r: &mut Reader,
    new: fn(i32, &'static str) -> T,
) -> Result<&'static [T], Malformed> {
    let n = r.count()?;
    let list = (0..n)
        .map(|_| Ok(new(r.read()?, r.read()?)))
        .collect::<Result<Vec<T>, Malformed>>()?;
    Ok(Box::leak(list.into_boxed_slice()))
}

fn abi(r: &mut Reader) -> Result<Abi, Malformed> {
    let (revision, major, minor) = (r.read()?, r.read()?, r.read()?);
    let (max_tensor_args, max_scalar_args, max_rank, max_prepared) =
        (r.read()?, r.read()?, r.read()?, r.read()?);
    let codes: Vec<i32> = r.list()?;
    let status = <[i32; Status::ALL.len()]>::try_from(codes.as_slice()).map_err(|_| {
        r.malformed(format!(
            "{} status codes, {} expected",
            codes.len(),
            Status::ALL.len()
        ))
    })?;
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

/// A family, with every reference into its own lists checked.
fn family(r: &mut Reader) -> Result<Family, Malformed> {
    r.params = 0;
    let at = r.pos;
    let f: Family = r.read()?;
    let bad = |what: String| {
        Err(Malformed {
            offset: at,
            what: format!("family `{}`: {what}", f.name),
        })
    };
    let params = f.params.len();
    if r.params as usize > params {
        return bad(format!(
            "parameter {} referenced, {params} declared",
            r.params - 1
        ));
    }
    if let Some(i) = f.returns.iter().find(|&&i| i as usize >= params) {
        return bad(format!("return alias {i}, {params} parameters declared"));
    }
    if let Some(rc) = f
        .receipts
        .iter()
        .find(|rc| rc.profile as usize >= f.profiles.len())
    {
        return bad(format!(
            "a receipt of profile {}, {} declared",
            rc.profile,
            f.profiles.len()
        ));
    }
    if let Some(p) = f
        .params
        .iter()
        .enumerate()
        .find(|(i, p)| p.index as usize != *i)
    {
        return bad(format!("parameter {} has index {}", p.0, p.1.index));
    }
    Ok(f)
}

/// Open the description `bytes`: the catalog it describes, which lives for
/// the rest of the process.
pub fn open(bytes: &[u8]) -> Result<&'static Catalog, DescriptionError> {
    // One copy, which the catalog's texts borrow from.
    let bytes: &'static [u8] = Box::leak(bytes.to_vec().into_boxed_slice());
    if bytes.get(..MAGIC.len()) != Some(&MAGIC[..]) {
        return Err(DescriptionError::Magic);
    }
    let mut r = Reader::new(bytes);
    r.pos = MAGIC.len();
    read_catalog(&mut r).map_err(|m| match m {
        Stop::Format(major, minor) => DescriptionError::Format { major, minor },
        Stop::Malformed(m) => DescriptionError::Malformed {
            offset: m.offset,
            what: m.what,
        },
    })
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

fn read_catalog(r: &mut Reader) -> Result<&'static Catalog, Stop> {
    let (major, minor): (u16, u16) = (r.read()?, r.read()?);
    if major != FORMAT_MAJOR || minor > FORMAT_MINOR {
        return Err(Stop::Format(major, minor));
    }
    let name: &'static str = r.read()?;
    let digest: &'static str = r.read()?;
    let abi: &'static Abi = Box::leak(Box::new(abi(r)?));
    let targets: &'static Targets = Box::leak(Box::new(Targets {
        platforms: members(r, Platform::new)?,
        backends: members(r, Backend::new)?,
        runtimes: members(r, Runtime::new)?,
        execution_modes: members(r, ExecutionMode::new)?,
    }));
    r.targets = Some(targets);
    let n = r.count()?;
    let families = (0..n)
        .map(|_| family(r))
        .collect::<Result<Vec<Family>, Malformed>>()?;
    let families: &'static [Family] = Box::leak(families.into_boxed_slice());
    let retired: &'static [Retired] = r.read()?;
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
    Ok(Box::leak(Box::new(Catalog {
        name,
        digest,
        abi,
        targets,
        families,
        retired,
        artifacts: Box::leak(artifacts.into_boxed_slice()),
        family_index: Box::leak(family_index.into_boxed_slice()),
        artifact_index: Box::leak(artifact_index.into_boxed_slice()),
    })))
}
