//! The kernel-mode entry layer: a [`Context`] over a `&'static` [`Catalog`]
//! driven through `init`, `supported`, `prepare`, `launch` and `close`, with
//! the refusals a native runtime's lifecycle needs (see docs/runtime.md).
//!
//! State machine: `Fresh --init--> Ready --close--> Closed`. A second `init`
//! and every entry after `close` are `INVALID_STATE`; `close` is idempotent.
//! Every entry checks its arguments before it touches the state, so a
//! refused entry leaves the context as it was.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use crate::call::{ScalarValue, TensorArg};
use crate::catalog::Catalog;
use crate::targets::{ExecutionMode, Platform};
use crate::types::{Family, Profile};
use crate::vocab::{Contract, Status};

/// The process-wide generation counter: the first context gets 1.
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

/// The next generation number of the process-wide counter.
pub fn next_generation() -> u64 {
    NEXT_GENERATION.fetch_add(1, Ordering::Relaxed)
}

/// One validated call handed to the embedding runtime's [`Launcher`].
#[derive(Clone, Copy, Debug)]
pub struct Launch<'a> {
    pub callable: u64,
    pub generation: u64,
    pub family: &'static Family,
    pub profile: &'static Profile,
    pub tensors: &'a [TensorArg<'a>],
    pub scalars: &'a [ScalarValue],
    /// The caller's stream, an opaque handle passed through per call.
    pub stream: u64,
}

/// The embedding runtime's launch entry. Its status is returned to the
/// caller of [`Context::launch`] unchanged.
pub trait Launcher: Send + Sync {
    fn launch(&self, call: &Launch<'_>) -> i32;
}

impl<F: Fn(&Launch<'_>) -> i32 + Send + Sync> Launcher for F {
    fn launch(&self, call: &Launch<'_>) -> i32 {
        self(call)
    }
}

/// A refused entry: the status (from `abi.toml`) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: Status,
    pub message: String,
}

impl Refusal {
    fn new(status: Status, message: impl Into<String>) -> Self {
        Refusal {
            status,
            message: message.into(),
        }
    }
}

impl core::fmt::Display for Refusal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.status, self.message)
    }
}

impl std::error::Error for Refusal {}

/// The identity `init` latches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity {
    pub platform: Platform,
    pub mode: ExecutionMode,
    pub contract: Contract,
    pub generation: u64,
}

enum State {
    Fresh,
    Ready {
        id: Identity,
        launcher: Arc<dyn Launcher>,
    },
    Closed,
}

#[derive(Clone, Copy)]
struct Prepared {
    family: &'static Family,
    profile: &'static Profile,
}

/// One preparation of one artifact: concurrent callers wait on the same cell
/// and share its success or failure.
type Slot = Arc<OnceLock<Result<u64, Refusal>>>;

#[derive(Default)]
struct Table {
    /// Artifact SHA-256 -> its preparation (in flight or done).
    by_artifact: HashMap<String, Slot>,
    /// Callable id - 1 -> the prepared family and profile.
    callables: Vec<Prepared>,
}

/// A kernel context over a catalog.
pub struct Context {
    catalog: &'static Catalog,
    state: RwLock<State>,
    table: Mutex<Table>,
    max_prepared: usize,
}

fn invalid_state(what: impl Into<String>) -> Refusal {
    Refusal::new(Status::InvalidState, what)
}

fn not_initialised() -> Refusal {
    invalid_state("the context is not initialised")
}

fn closed() -> Refusal {
    invalid_state("the context is closed")
}

fn is_digest(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl Context {
    /// A fresh (not yet initialised) context over `catalog`, holding at most
    /// the catalog's `max_prepared` (`abi.toml`) callables. Past the limit,
    /// `prepare` of a new artifact is refused and nothing is evicted.
    pub fn new(catalog: &'static Catalog) -> Self {
        Self::with_limit(catalog, catalog.abi.max_prepared as usize)
    }

    /// A fresh context holding at most `max_prepared` callables (0: none).
    pub fn with_limit(catalog: &'static Catalog, max_prepared: usize) -> Self {
        Context {
            catalog,
            state: RwLock::new(State::Fresh),
            table: Mutex::new(Table::default()),
            max_prepared,
        }
    }

    /// The most callables this context holds prepared.
    pub fn max_prepared(&self) -> usize {
        self.max_prepared
    }

    fn identity(&self) -> Result<(Identity, Arc<dyn Launcher>), Refusal> {
        match &*self.state.read().unwrap_or_else(|e| e.into_inner()) {
            State::Fresh => Err(not_initialised()),
            State::Closed => Err(closed()),
            State::Ready { id, launcher } => Ok((*id, launcher.clone())),
        }
    }

    /// Run `f` on the latched identity and the table while the context is
    /// ready. The state is the one record of whether the context is closed:
    /// it stays read-locked while `f` runs, and `close` takes it (then the
    /// table) for writing, so `f` sees either a ready context or none at all,
    /// and a preparation in flight when the context closes adds nothing.
    fn ready<R>(
        &self,
        f: impl FnOnce(&Identity, &Arc<dyn Launcher>, &mut Table) -> R,
    ) -> Result<R, Refusal> {
        let state = self.state.read().unwrap_or_else(|e| e.into_inner());
        match &*state {
            State::Ready { id, launcher } => {
                let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
                Ok(f(id, launcher, &mut t))
            }
            State::Fresh => Err(not_initialised()),
            State::Closed => Err(closed()),
        }
    }

    /// Latch the context's identity once. `generation` `None` takes the next
    /// number of the process-wide counter; `Some(0)` is invalid.
    pub fn init(
        &self,
        platform: Platform,
        mode: ExecutionMode,
        contract: Contract,
        launcher: Arc<dyn Launcher>,
        generation: Option<u64>,
    ) -> Result<u64, Refusal> {
        if generation == Some(0) {
            return Err(Refusal::new(
                Status::InvalidArgument,
                "generation 0 is reserved; pass None for the process-wide counter",
            ));
        }
        let mut state = self.state.write().unwrap_or_else(|e| e.into_inner());
        match &*state {
            State::Ready { .. } => return Err(invalid_state("the context is already initialised")),
            State::Closed => return Err(closed()),
            State::Fresh => {}
        }
        if contract != Contract::Kernel {
            return Err(invalid_state(
                "a kernel context cannot be latched in program mode",
            ));
        }
        if !self.catalog.has_profile(platform, mode, Some(contract)) {
            return Err(Refusal::new(
                Status::Unsupported,
                format!("no approved {contract} profile runs on `{platform}` in `{mode}` mode"),
            ));
        }
        let generation = generation.unwrap_or_else(next_generation);
        *state = State::Ready {
            id: Identity {
                platform,
                mode,
                contract,
                generation,
            },
            launcher,
        };
        Ok(generation)
    }

    /// The latched identity.
    pub fn latched(&self) -> Result<Identity, Refusal> {
        self.identity().map(|(id, _)| id)
    }

    /// Capability of `family` for the latched platform, mode and contract.
    pub fn supported(&self, family: &str) -> Result<(), Refusal> {
        if family.is_empty() {
            return Err(Refusal::new(Status::InvalidArgument, "empty family name"));
        }
        let (id, _) = self.identity()?;
        self.catalog
            .capability(family, id.platform, id.mode, id.contract)
            .map(|_| ())
            .map_err(|r| Refusal::new(r.outcome.status(), r.to_string()))
    }

    /// Admit and check one artifact; the same artifact twice returns the
    /// same callable id.
    pub fn prepare(&self, compiled_meta: &[u8], sha256: &str) -> Result<u64, Refusal> {
        if !is_digest(sha256) {
            return Err(Refusal::new(
                Status::InvalidArgument,
                "the artifact digest is not 64 lowercase hex digits",
            ));
        }
        if compiled_meta.is_empty() {
            return Err(Refusal::new(Status::InvalidArgument, "empty compiled_meta"));
        }
        let (id, slot) = self.ready(|id, _, t| match t.by_artifact.get(sha256) {
            Some(s) => Ok((*id, s.clone())),
            None => {
                if t.by_artifact.len() >= self.max_prepared {
                    return Err(invalid_state(format!(
                        "the context already holds its limit of {} prepared callables",
                        self.max_prepared
                    )));
                }
                let s: Slot = Arc::default();
                t.by_artifact.insert(sha256.to_owned(), s.clone());
                Ok((*id, s))
            }
        })??;
        let result = slot
            .get_or_init(|| self.decide(id, compiled_meta, sha256))
            .clone();
        if result.is_err() {
            // The waiters of this preparation shared its failure; a later
            // call decides afresh and the failed one holds no place.
            let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
            if t.by_artifact
                .get(sha256)
                .is_some_and(|s| Arc::ptr_eq(s, &slot))
            {
                t.by_artifact.remove(sha256);
            }
        }
        result
    }

    fn decide(&self, id: Identity, json: &[u8], sha256: &str) -> Result<u64, Refusal> {
        let admitted = self
            .catalog
            .admit(json, sha256)
            .map_err(|r| Refusal::new(r.outcome.status(), r.to_string()))?;
        if admitted.contract != id.contract {
            return Err(invalid_state(format!(
                "a {} artifact cannot be prepared on a {} context",
                admitted.contract, id.contract
            )));
        }
        let name = admitted.family.name;
        let s = self
            .catalog
            .capability(name, id.platform, id.mode, id.contract)
            .map_err(|r| Refusal::new(r.outcome.status(), r.to_string()))?;
        if !core::ptr::eq(s.profile, admitted.profile) {
            return Err(Refusal::new(
                Status::Unsupported,
                format!("the artifact's profile of `{name}` is not the one for this context"),
            ));
        }
        self.ready(|_, _, t| {
            t.callables.push(Prepared {
                family: admitted.family,
                profile: admitted.profile,
            });
            t.callables.len() as u64
        })
        .map_err(|_| invalid_state("the context was closed during the preparation"))
    }

    /// Validate a call of a prepared callable and hand it to the launcher;
    /// the launcher's status is returned unchanged.
    pub fn launch(
        &self,
        callable: u64,
        tensors: &[TensorArg<'_>],
        scalars: &[ScalarValue],
        stream: u64,
    ) -> Result<i32, Refusal> {
        if callable == 0 {
            return Err(Refusal::new(Status::InvalidArgument, "callable id 0"));
        }
        let (id, launcher, prepared) = self.ready(|id, launcher, t| {
            let p = usize::try_from(callable - 1)
                .ok()
                .and_then(|i| t.callables.get(i).copied());
            (*id, launcher.clone(), p)
        })?;
        let Some(p) = prepared else {
            return Err(Refusal::new(
                Status::InvalidArgument,
                format!("callable {callable} was not prepared on this context"),
            ));
        };
        self.catalog
            .validate_call(p.family, tensors, scalars)
            .map_err(|e| {
                Refusal::new(
                    Status::InvalidArgument,
                    e.explain(p.family, tensors, scalars),
                )
            })?;
        Ok(launcher.launch(&Launch {
            callable,
            generation: id.generation,
            family: p.family,
            profile: p.profile,
            tensors,
            scalars,
            stream,
        }))
    }

    /// Release everything the context holds. Idempotent; every other entry
    /// after it is `INVALID_STATE`, and a preparation in flight when it
    /// closes adds nothing (it fails `INVALID_STATE`). A launch already past
    /// its checks completes: its launcher was handed the call before close.
    pub fn close(&self) {
        let mut state = self.state.write().unwrap_or_else(|e| e.into_inner());
        *state = State::Closed;
        // Still holding the state: a preparation waiting to add its
        // callable sees `Closed` once it gets the table.
        let mut t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        *t = Table::default();
    }

    /// The family callable `callable` was prepared for.
    pub fn family_of(&self, callable: u64) -> Option<&'static Family> {
        let t = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let i = usize::try_from(callable).ok()?.checked_sub(1)?;
        t.callables.get(i).map(|p| p.family)
    }

    /// Number of callables prepared and held.
    pub fn prepared(&self) -> usize {
        self.table
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .callables
            .len()
    }
}
