//! docs/architecture.md's map of the code is the code's (rust-analyzer's
//! "tidy" tests keep docs in step the same way):
//!
//! - every module of every workspace crate (a file under its `src/`, a
//!   directory module as `dir/`) is listed in the first column of its
//!   crate's table in "Crates and modules", and every path listed there is
//!   a module;
//! - the crate's block in "Module graph" (a fenced block whose info string
//!   is `modules <crate dir>/src/`, one line `A ─▶ B, C (tests: D)` per
//!   node: what its code uses, then what only its `#[cfg(test)]` modules
//!   use; `(none)` for a node that uses no other) shows exactly the arrows
//!   of the code's
//!   module graph (`support/graph.rs`, the graph `module_graph.rs` holds
//!   free of circles) at the granularity the block shows: each module
//!   counts as the deepest node that holds it (`ffi/context` when the
//!   block has that node, else `ffi`), a crate root is its file (`lib.rs`,
//!   `main.rs`), and an arrow between two nodes exists when a module of
//!   one uses a module of the other.
//!
//! `KFAM_MODULE_GRAPH=1 cargo test -p kfam-codegen --test integration
//! architecture:: -- --nocapture` prints each crate's arrows as the
//! document writes them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::support::graph::{rs_files, workspace_members, Graph};
use crate::support::root;

const DOC: &str = "docs/architecture.md";

/// The nodes one node uses: from its code, and from its tests alone.
#[derive(Default, Debug, Clone, PartialEq)]
struct Uses {
    code: BTreeSet<String>,
    tests: BTreeSet<String>,
}

/// `a, b` (or `(none)`) as a set.
fn names(list: &str) -> BTreeSet<String> {
    match list.trim() {
        "" | "(none)" => BTreeSet::new(),
        list => list.split(',').map(|t| t.trim().to_owned()).collect(),
    }
}

/// The right side of `A ─▶ B, C (tests: D)`.
fn uses(text: &str) -> Uses {
    let (code, tests) = match text.strip_suffix(')').and_then(|t| t.split_once("(tests:")) {
        Some((code, tests)) => (code, tests),
        None => (text, ""),
    };
    Uses {
        code: names(code),
        tests: names(tests),
    }
}

/// What the document says of one crate.
#[derive(Default, Debug)]
struct Shown {
    /// The paths its table lists (`check/abi.rs`, `emit/c/`).
    modules: BTreeSet<String>,
    /// Its graph block: each node, the nodes it uses and those only its
    /// tests use.
    arrows: BTreeMap<String, Uses>,
    /// Whether the document has the table and the block at all.
    table: bool,
    block: bool,
}

/// The document's sections and blocks, by crate directory (`codegen`).
fn read_doc(text: &str) -> (BTreeMap<String, Shown>, Vec<String>) {
    let mut shown: BTreeMap<String, Shown> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut table_of: Option<String> = None;
    let mut block_of: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let at = n + 1;
        if let Some(dir) = &block_of {
            if line.starts_with("```") {
                block_of = None;
                continue;
            }
            let Some((from, to)) = line.split_once('─').and_then(|(a, b)| {
                let b = b.strip_prefix('▶')?;
                Some((a.trim(), b.trim()))
            }) else {
                problems.push(format!("{DOC}:{at}: not a line `A ─▶ B, C`: `{line}`"));
                continue;
            };
            let arrows = &mut shown.entry(dir.clone()).or_default().arrows;
            if arrows.insert(from.to_owned(), uses(to)).is_some() {
                problems.push(format!("{DOC}:{at}: `{from}` has two lines"));
            }
            continue;
        }
        if let Some(info) = line.strip_prefix("```modules ") {
            let dir = info.trim().trim_end_matches('/').trim_end_matches("/src");
            shown.entry(dir.to_owned()).or_default().block = true;
            block_of = Some(dir.to_owned());
            continue;
        }
        if line.starts_with('#') {
            // `### kfam-codegen: `codegen/src/``: the crate's table follows.
            table_of = line
                .split('`')
                .skip(1)
                .step_by(2)
                .find_map(|t| t.strip_suffix("/src/"))
                .map(str::to_owned);
            if let Some(dir) = &table_of {
                shown.entry(dir.clone()).or_default();
            }
            continue;
        }
        let (Some(dir), Some(row)) = (&table_of, line.strip_prefix('|')) else {
            continue;
        };
        let first = row.split('|').next().unwrap_or("");
        if first.trim().is_empty() || first.trim_start().starts_with('-') {
            continue;
        }
        let crate_shown = shown.entry(dir.clone()).or_default();
        let paths: Vec<&str> = first.split('`').skip(1).step_by(2).collect();
        if !paths.is_empty() {
            crate_shown.table = true;
        }
        crate_shown
            .modules
            .extend(paths.into_iter().map(str::to_owned));
    }
    (shown, problems)
}

/// Every module file of the crate in `dir`, as the table names it
/// (`check/abi.rs`; a directory module `emit/c/`).
fn module_files(dir: &Path) -> BTreeSet<String> {
    let src = dir.join("src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    files
        .iter()
        .map(|f| {
            let rel = f
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            match rel.strip_suffix("mod.rs") {
                Some(dir) if !dir.is_empty() => dir.to_owned(),
                _ => rel,
            }
        })
        .collect()
}

/// A module of the graph as the block names it: a crate root by its file
/// (`lib.rs`, `main.rs`, `bin/wheel-data.rs`), any other module by its path
/// under `src/` (`emit/c/tables`), with the segments apart.
fn module_path(name: &str) -> Vec<String> {
    let (head, rest) = name.split_once("::").unwrap_or((name, ""));
    if rest.is_empty() {
        let root = match head.split_once('(') {
            None => "lib.rs".to_owned(),
            Some((_, "bin)")) => "main.rs".to_owned(),
            Some((_, bin)) => format!(
                "bin/{}.rs",
                bin.trim_start_matches("bin ").trim_end_matches(')')
            ),
        };
        return vec![root];
    }
    rest.split("::").map(str::to_owned).collect()
}

/// The code's arrows at the granularity of `nodes` (the block's left
/// sides): each with one path that makes it and whether only tests make
/// it; and the modules no node holds.
type Arrows = BTreeMap<(String, String), (String, bool)>;

fn arrows(graph: &Graph, nodes: &BTreeSet<String>) -> (Arrows, BTreeSet<String>) {
    let node_of = |m: usize| -> Option<String> {
        let path = module_path(&graph.modules[m].name);
        (1..=path.len())
            .rev()
            .map(|n| path[..n].join("/"))
            .find(|candidate| nodes.contains(candidate))
    };
    let mut out = Arrows::new();
    let mut homeless = BTreeSet::new();
    for m in 0..graph.modules.len() {
        if node_of(m).is_none() {
            homeless.insert(module_path(&graph.modules[m].name).join("/"));
        }
    }
    for (from, targets) in graph.edges().iter().enumerate() {
        for (&to, because) in targets {
            let (Some(a), Some(b)) = (node_of(from), node_of(to)) else {
                continue;
            };
            if a == b {
                continue;
            }
            let test = graph.modules[from].test;
            let why = format!(
                "{} -> {}: `{because}`",
                graph.modules[from].name, graph.modules[to].name
            );
            let entry = out.entry((a, b)).or_insert((why.clone(), test));
            if entry.1 && !test {
                *entry = (why, false);
            }
        }
    }
    (out, homeless)
}

/// Every member's module graph, read once for the tests of this file.
fn graphs() -> &'static BTreeMap<String, Graph> {
    static GRAPHS: std::sync::OnceLock<BTreeMap<String, Graph>> = std::sync::OnceLock::new();
    GRAPHS.get_or_init(|| {
        let root = root();
        workspace_members(&root)
            .into_iter()
            .map(|m| {
                let graph = Graph::of_crate(&root.join(&m));
                (m, graph)
            })
            .collect()
    })
}

/// Every disagreement between the document's text and the code.
fn disagreements(text: &str) -> Vec<String> {
    let root = root();
    let (shown, mut problems) = read_doc(text);
    let members = workspace_members(&root);
    for dir in shown.keys() {
        if !members.contains(dir) {
            problems.push(format!(
                "{DOC} maps `{dir}/src/`, which is no workspace member"
            ));
        }
    }
    for member in &members {
        let Some(doc) = shown.get(member) else {
            problems.push(format!(
                "{DOC} has no section `{member}/src/` (a `### ...: `{member}/src/`` heading, \
                 its table of modules and a ```modules {member}/src/ block)"
            ));
            continue;
        };
        let files = module_files(&root.join(member));
        if !doc.table {
            problems.push(format!("{DOC}: no table of the modules of `{member}/src/`"));
        }
        for f in files.difference(&doc.modules) {
            problems.push(format!("{DOC} does not list the module `{member}/src/{f}`"));
        }
        for f in doc.modules.difference(&files) {
            problems.push(format!(
                "{DOC} lists `{member}/src/{f}`, which is no module"
            ));
        }
        if !doc.block {
            problems.push(format!("{DOC}: no ```modules {member}/src/ block"));
            continue;
        }
        let graph = &graphs()[member];
        let nodes: BTreeSet<String> = doc.arrows.keys().cloned().collect();
        let (code, homeless) = arrows(graph, &nodes);
        for m in &homeless {
            problems.push(format!(
                "the module graph of `{member}/src/` has no node for `{m}` (a line `{m} ─▶ ...`)"
            ));
        }
        for (from, shown_uses) in &doc.arrows {
            let listed = shown_uses.code.iter().map(|t| (t, false));
            for (to, test) in listed.chain(shown_uses.tests.iter().map(|t| (t, true))) {
                let what = if test { "tests use" } else { "uses" };
                match code.get(&(from.clone(), to.clone())) {
                    _ if !nodes.contains(to) => problems.push(format!(
                        "`{member}/src/`: `{from} ─▶ {to}`: `{to}` has no line"
                    )),
                    None => problems.push(format!(
                        "{DOC} shows `{from} ─▶ {to}` in `{member}/src/`, but `{from}` uses \
                         nothing of `{to}`"
                    )),
                    Some((why, only_tests)) if *only_tests != test => problems.push(format!(
                        "{DOC} says `{from}` {what} `{to}` in `{member}/src/`, but {} ({why})",
                        if *only_tests {
                            "only its tests do"
                        } else {
                            "its code does"
                        }
                    )),
                    Some(_) => {}
                }
            }
        }
        for ((from, to), (why, test)) in &code {
            let shown = doc
                .arrows
                .get(from)
                .is_some_and(|u| u.code.contains(to) || u.tests.contains(to));
            if !shown {
                let tests = if *test { " (its tests)" } else { "" };
                problems.push(format!(
                    "{DOC} does not show `{from} ─▶ {to}`{tests} in `{member}/src/` ({why})"
                ));
            }
        }
        if std::env::var_os("KFAM_MODULE_GRAPH").is_some() {
            println!("```modules {member}/src/");
            for node in &nodes {
                let to = |tests: bool| -> Vec<&str> {
                    code.iter()
                        .filter(|((a, _), (_, t))| a == node && *t == tests)
                        .map(|((_, b), _)| b.as_str())
                        .collect()
                };
                let (code, tests) = (to(false), to(true));
                let mut line = code.join(", ");
                if !tests.is_empty() {
                    line = format!("{line} (tests: {})", tests.join(", "));
                }
                if line.is_empty() {
                    line = "(none)".to_owned();
                }
                println!("{node} ─▶ {}", line.trim_start());
            }
            println!("```");
        }
    }
    problems
}

#[test]
fn architecture_doc_maps_every_module_and_arrow() {
    let text = std::fs::read_to_string(root().join(DOC)).unwrap();
    let problems = disagreements(&text);
    assert!(
        problems.is_empty(),
        "docs/architecture.md and the code disagree (run with KFAM_MODULE_GRAPH=1 and \
         --nocapture for the code's arrows):\n  {}",
        problems.join("\n  ")
    );
}

/// A module the document does not list, an arrow it does not show and one
/// it shows that the code does not have are each found.
#[test]
fn a_missing_module_or_arrow_is_found() {
    let text = std::fs::read_to_string(root().join(DOC)).unwrap();
    assert!(disagreements(&text).is_empty());
    let edit = |from: &str, to: &str| {
        assert!(text.contains(from), "the document has no `{from}`");
        text.replacen(from, to, 1)
    };
    let unlisted = edit("| `live.rs` |", "| live.rs |");
    let problems = disagreements(&unlisted);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("does not list the module `codegen/src/live.rs`")),
        "{problems:?}"
    );
    let hidden = edit("\nwrite ─▶ ", "\nwrite ─▶ vocab, ");
    let problems = disagreements(&hidden);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("shows `write ─▶ vocab`")),
        "{problems:?}"
    );
    let dropped = edit("\nlive ─▶ ", "\nlive ─▶ (none)\nlive_was ─▶ ");
    let problems = disagreements(&dropped);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("does not show `live ─▶")),
        "{problems:?}"
    );
}
