//! The module graph of every workspace crate has no circles
//! (docs/architecture.md, "Module graph"). The graph is read from the
//! sources by `support/graph.rs`, which says what an edge is.
//!
//! Over the same graph, `pipeline_stages_depend_only_backwards` holds
//! kfam-codegen's stages in order (load, check, gate, emit, write) and the
//! emitters to the IR.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::support::graph::{tarjan, workspace_members, Graph};

/// Circles that are known and being removed elsewhere: each entry is the
/// exact set of modules of one strongly connected component.
const ALLOWED: &[&[&str]] = &[];

#[test]
fn module_graph_is_acyclic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut problems = Vec::new();
    let mut allowed_seen = BTreeSet::new();
    for member in workspace_members(&root) {
        let graph = Graph::of_crate(&root.join(&member));
        // `KFAM_MODULE_GRAPH=1 cargo test -p kfam-codegen --test integration module_graph:: -- --nocapture`
        // prints every edge, with the path that makes it.
        if std::env::var_os("KFAM_MODULE_GRAPH").is_some() {
            for (from, targets) in graph.edges().iter().enumerate() {
                for (to, because) in targets {
                    let (a, b) = (&graph.modules[from].name, &graph.modules[*to].name);
                    println!("{a} -> {b}: `{because}`");
                }
            }
        }
        problems.extend(graph.unreached.iter().map(|f| {
            format!(
                "{member}: {} is not reached from a crate root (a file no `mod` declares?)",
                f.display()
            )
        }));
        for cycle in graph.cycles() {
            let mut set: Vec<&str> = cycle.component.iter().map(String::as_str).collect();
            set.sort_unstable();
            if let Some(i) = ALLOWED.iter().position(|a| {
                let mut a = a.to_vec();
                a.sort_unstable();
                a == set
            }) {
                allowed_seen.insert(i);
                continue;
            }
            problems.push(format!(
                "{member}: circle {}\n    {}\n    (every module of the circle: {})",
                cycle.path.join(" -> "),
                cycle.because.join("\n    "),
                set.join(", ")
            ));
        }
    }
    for (i, entry) in ALLOWED.iter().enumerate() {
        if !allowed_seen.contains(&i) {
            problems.push(format!(
                "the allowed circle {entry:?} is gone (or changed): remove it from ALLOWED"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "the module graph must be acyclic (docs/architecture.md, \"Module graph\"):\n{}",
        problems.join("\n")
    );
}

/// The Python packages have no import circles either: kfam's runtime
/// (`python/kfam_runtime`) and the shipped catalog's generated package
/// (`generated/python/kfam`), one graph, read by
/// `tests/python/import_graph.py` with the standard library's `ast`. Every
/// import statement is an edge, wherever it stands (inside a function, under
/// `if TYPE_CHECKING:`): a circle that only the type checker follows is
/// still two modules that cannot be read apart.
#[test]
fn python_import_graph_is_acyclic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = std::process::Command::new("python3")
        .arg(root.join("tests/python/import_graph.py"))
        .arg(root.join("python/kfam_runtime"))
        .arg(root.join("generated/python/kfam"))
        .output()
        .expect("python3 (the system's Python) runs tests/python/import_graph.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "import_graph.py failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut edges: Vec<BTreeSet<usize>> = Vec::new();
    let mut because: BTreeMap<(usize, usize), String> = BTreeMap::new();
    let mut node = |name: &str, edges: &mut Vec<BTreeSet<usize>>| {
        let next = index.len();
        let i = *index.entry(name.to_owned()).or_insert(next);
        if i == edges.len() {
            edges.push(BTreeSet::new());
        }
        i
    };
    for line in stdout.lines() {
        let [from, to, at] = line.split(' ').collect::<Vec<_>>()[..] else {
            panic!("import_graph.py printed `{line}`");
        };
        let (a, b) = (node(from, &mut edges), node(to, &mut edges));
        edges[a].insert(b);
        because
            .entry((a, b))
            .or_insert_with(|| format!("{from} -> {to} (line {at})"));
    }
    // The graph is the packages' own: the modules that import most are in it.
    for m in [
        "kfam",
        "kfam.torch",
        "kfam_runtime",
        "kfam_runtime.torch",
        "kfam_runtime._qualify",
    ] {
        assert!(index.contains_key(m), "no edge from or to {m}:\n{stdout}");
    }
    let names: Vec<&String> = index.keys().collect();
    let mut by_index = vec![""; names.len()];
    for (name, &i) in &index {
        by_index[i] = name;
    }
    let circles: Vec<String> = tarjan(&edges)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let members: BTreeSet<usize> = c.iter().copied().collect();
            let lines: Vec<&str> = because
                .iter()
                .filter(|((a, b), _)| members.contains(a) && members.contains(b))
                .map(|(_, why)| why.as_str())
                .collect();
            let set: Vec<&str> = c.iter().map(|&i| by_index[i]).collect();
            format!(
                "circle of {}:\n    {}",
                set.join(", "),
                lines.join("\n    ")
            )
        })
        .collect();
    assert!(
        circles.is_empty(),
        "the Python import graph must be acyclic (docs/architecture.md, \"Module graph\"):\n{}",
        circles.join("\n")
    );
}

/// The pipeline of kfam-codegen, in order: a stage (a module and its
/// children) may use the stages before it, never one after it; the
/// emitters read the IR (and the leaf modules of facts beside it: `vocab`,
/// `names`, `limits`, `codes`, `lookup_hash`, the `model` and
/// `compiled_meta` types the JSON Schemas derive from), never an earlier
/// stage nor the diagnostics.
#[test]
fn pipeline_stages_depend_only_backwards() {
    const STAGES: &[&str] = &["load", "check", "gate", "emit", "write"];
    const NOT_FOR_EMITTERS: &[&str] = &["load", "check", "gate", "diag", "live", "diff"];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph = Graph::of_crate(root);
    let top = |m: usize| -> Option<&str> {
        let name = graph.modules[m].name.strip_prefix("kfam_codegen::")?;
        Some(name.split("::").next().unwrap_or(name))
    };
    let mut problems = Vec::new();
    for (from, targets) in graph.edges().iter().enumerate() {
        let Some(a) = top(from) else { continue };
        for (&to, because) in targets {
            let Some(b) = top(to) else { continue };
            let stage = |s: &str| STAGES.iter().position(|x| *x == s);
            let backwards = matches!((stage(a), stage(b)), (Some(i), Some(j)) if j > i);
            let emitter_reaches = a == "emit" && NOT_FOR_EMITTERS.contains(&b);
            if backwards || emitter_reaches {
                let (x, y) = (&graph.modules[from].name, &graph.modules[to].name);
                problems.push(format!("{x} -> {y}: `{because}`"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "load -> check -> gate -> emit -> write: a stage uses a later one, or an emitter \
         reaches past the IR (docs/architecture.md, \"Module graph\"):\n{}",
        problems.join("\n")
    );
}

/// The resolver on small crates written out to a temporary directory.
#[test]
fn resolver_finds_and_spares_the_right_edges() {
    // (case, files of `src/`, the circles expected)
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [&'a str]);
    let cases: &[Case] = &[
        // A parent helper used by a child that the parent calls: a circle.
        (
            "helpers",
            &[
                (
                    "lib.rs",
                    "mod a; pub fn helper() {} pub fn run() { a::go() }",
                ),
                ("a.rs", "pub fn go() { super::helper() }"),
            ],
            &["t -> t::a -> t"],
        ),
        // The same helper in a sibling module: no circle.
        (
            "sibling",
            &[
                ("lib.rs", "mod a; mod util; pub fn run() { a::go() }"),
                ("a.rs", "use crate::util::helper; pub fn go() { helper() }"),
                ("util.rs", "pub fn helper() {}"),
            ],
            &[],
        ),
        // Re-exports are followed to the defining module.
        (
            "reexport",
            &[
                (
                    "lib.rs",
                    "mod a; mod b; pub use a::f; pub static S: b::B = b::B;",
                ),
                ("a.rs", "pub fn f() -> &'static crate::b::B { &crate::S }"),
                ("b.rs", "pub struct B; impl B { fn g() { crate::f(); } }"),
            ],
            &["t -> t::b -> t::a -> t"],
        ),
        // An attribute's path and a glob import are edges.
        (
            "attr",
            &[
                ("lib.rs", "mod a; mod b;"),
                (
                    "a.rs",
                    "#[doc(alias = \"x\")] #[my(max = crate::b::N)] pub struct A;",
                ),
                ("b.rs", "use super::a::*; pub const N: usize = 1;"),
            ],
            &["t::a -> t::b -> t::a"],
        ),
        // Re-exporting another module's item depends on it: a facade that
        // re-exports what uses the facade is a circle.
        (
            "facade",
            &[
                ("lib.rs", "mod a; mod b;"),
                ("a.rs", "pub use crate::b::g; pub fn f() {}"),
                ("b.rs", "pub fn g() { crate::a::f() }"),
            ],
            &["t::a -> t::b -> t::a"],
        ),
        // A parent that declares and re-exports its own children does not
        // depend on them: a child may use the parent's items.
        (
            "own children",
            &[
                ("lib.rs", "mod a; pub use a::f; pub fn h() {}"),
                ("a.rs", "pub fn f() { crate::h() }"),
            ],
            &[],
        ),
        // Tests use their parent; nothing uses them.
        (
            "tests",
            &[(
                "lib.rs",
                "pub fn f() {} #[cfg(test)] mod tests { use super::*; #[test] fn t() { f() } }",
            )],
            &[],
        ),
    ];
    for (name, files, want) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        for (path, text) in *files {
            std::fs::write(dir.path().join("src").join(path), text).unwrap();
        }
        let mut graph = Graph::of_crate(dir.path());
        // Name the crate `t` whatever the directory is called.
        for m in &mut graph.modules {
            let rest = m.name.split_once("::").map(|(_, r)| r);
            m.name = rest.map_or("t".to_owned(), |r| format!("t::{r}"));
        }
        let got: Vec<String> = graph.cycles().map(|c| c.path.join(" -> ")).collect();
        assert_eq!(&got, want, "case {name}");
    }
}

/// Every file of a member's `tests/` runs: with `autotests = false` cargo
/// compiles only `tests/main.rs` (its `mod` lines) and the `[[test]]`
/// targets, so a suite file that is neither would silently never run.
#[test]
fn every_test_file_is_a_suite_or_a_target() {
    let root = crate::support::root();
    let mut orphans = Vec::new();
    for member in workspace_members(&root) {
        let dir = root.join(&member);
        let manifest: toml::Table =
            toml::from_str(&std::fs::read_to_string(dir.join("Cargo.toml")).unwrap()).unwrap();
        let Ok(files) = std::fs::read_dir(dir.join("tests")) else {
            continue;
        };
        let autotests = manifest["package"]
            .get("autotests")
            .and_then(toml::Value::as_bool)
            .unwrap_or(true);
        if autotests {
            continue;
        }
        let mut run: BTreeSet<String> = manifest
            .get("test")
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|t| t.get("path")?.as_str().map(str::to_owned))
            .collect();
        let main = std::fs::read_to_string(dir.join("tests/main.rs")).unwrap_or_default();
        run.extend(main.lines().filter_map(|l| {
            let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(format!("tests/{name}.rs"))
        }));
        for file in files.filter_map(Result::ok) {
            let name = file.file_name().to_string_lossy().into_owned();
            let rel = format!("tests/{name}");
            if name.ends_with(".rs") && !run.contains(&rel) {
                orphans.push(format!("{member}/{rel}"));
            }
        }
    }
    assert!(
        orphans.is_empty(),
        "test files that never run (add `mod <name>;` to tests/main.rs): {orphans:?}"
    );
}
