//! Emit: the pure core `generate(&Ir) -> Vec<GeneratedFile>`, one module per
//! output language. Emitters read the IR, the record declarations
//! (`crate::record`) and the plan computed once from the IR
//! (`crate::plan`), with the vocabularies, the naming rules and the helpers
//! beside them (`output.rs`, `writer.rs`); they never see TOML nor call an
//! earlier stage.

pub mod c;
pub mod docs;
mod output;
pub mod python;
pub mod rust;
pub mod schema;
pub mod writer;

pub use crate::origin::{Origin, MARKER};
pub(crate) use output::needs_no_escape;
pub use output::GeneratedFile;

use crate::ir::{Ir, Outputs};
use crate::par::Job;
use crate::plan::Plan;

/// One output language's emitter.
pub type Emitter = fn(&Plan<'_>) -> Vec<GeneratedFile>;

/// Every emitter, by name, longest first at scale (10,000 families: C,
/// schemas, Rust, Python, docs), so the threads of [`generate_with`], each
/// taking the next emitter when it finishes one, finish together.
pub const EMITTERS: &[(&str, Emitter)] = &[
    ("c", c::emit),
    ("schema", |p| schema::emit(p.ir, &p.banner)),
    ("rust", rust::emit),
    ("python", |p| python::emit(p.ir, &p.banner)),
    ("docs", |p| docs::emit(p.ir, &p.banner)),
];

/// Every output, sorted by path, with the banner of the usual layout
/// (`Origin::default()`: `manifest/` and `generated/` side by side).
/// Deterministic: same IR, same bytes.
pub fn generate(ir: &Ir) -> Vec<GeneratedFile> {
    generate_from(ir, &Origin::default())
}

/// Every output, sorted by path, each under the banner of `origin`.
pub fn generate_from(ir: &Ir, origin: &Origin) -> Vec<GeneratedFile> {
    generate_with(ir, origin, || ()).0
}

/// [`generate_from`], and `side` (the lock) run as one more job on the
/// same threads, first: it is short, and what it frees is then free before
/// the emitters' outputs peak.
pub fn generate_with<'a, X: Send + 'a>(
    ir: &'a Ir,
    origin: &Origin,
    side: impl FnOnce() -> X + Send + 'a,
) -> (Vec<GeneratedFile>, X) {
    enum Done<X> {
        Files(Vec<GeneratedFile>),
        Side(X),
    }
    let plan = Plan::from_origin(ir, origin);
    let plan = &plan;
    let side: Job<'_, Done<X>> = Box::new(move || Done::Side(side()));
    let jobs: Vec<Job<'_, Done<X>>> = std::iter::once(side)
        .chain(EMITTERS.iter().map(|&(name, emit)| {
            Box::new(move || Done::Files(placed(name, &ir.catalog.outputs, lf_only(emit(plan)))))
                as Job<'_, Done<X>>
        }))
        .collect();
    // Two threads: the machines kfam runs on at scale have at least two cores.
    let mut files = Vec::new();
    let mut side = None;
    for done in crate::par::run(2, jobs) {
        match done {
            Done::Files(more) => files.extend(more),
            Done::Side(x) => side = Some(x),
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    (files, side.expect("the side job ran"))
}

/// `files` of the emitter `name`, written below its default location (the
/// layout of `generated/`), moved to the location the catalog declares
/// (`[catalog.outputs]`): emitters know nothing of where they are placed.
fn placed(name: &str, outputs: &Outputs, mut files: Vec<GeneratedFile>) -> Vec<GeneratedFile> {
    let defaults = Outputs::default();
    let (Some(from), Some(to)) = (defaults.of(name), outputs.of(name)) else {
        unreachable!("every emitter has an output location");
    };
    if from != to {
        // A file beside the default directory (the C package files, `lib/`
        // beside `include/`) goes beside the declared one.
        let beside = Outputs::beside(to);
        for f in &mut files {
            let rest = f.path.strip_prefix(from).and_then(|r| r.strip_prefix('/'));
            f.path = match rest {
                Some(rest) => format!("{to}/{rest}"),
                None => format!("{beside}{}", f.path),
            };
        }
    }
    files
}

/// `files` with LF line endings (free text may carry CRLF into docs and
/// comments); run inside each emitter's job, so the scan is parallel too.
fn lf_only(mut files: Vec<GeneratedFile>) -> Vec<GeneratedFile> {
    for f in &mut files {
        if f.contents.contains('\r') {
            f.contents = f.contents.replace("\r\n", "\n");
        }
    }
    files
}
