//! The module graph of every workspace crate has no circles
//! (docs/architecture.md, "Module graph").
//!
//! Every `.rs` file under each member's `src/` is parsed with `syn`; each
//! module (a file, or an inline `mod` block) is a node, and an edge `A -> B`
//! says that code in `A` names an item of `B`. Edges come from
//!
//! - `use` declarations (`use crate::ir::Ir;`, `use super::*;`, inside
//!   function bodies too), re-exports included: `pub use crate::b::X` in
//!   `a` makes `a` depend on `b` as much as using `X` would, since `a`'s
//!   API changes with `b`'s (a facade over a module that uses the facade is
//!   a circle);
//! - paths written in code, attributes and macro arguments (`crate::x::f()`,
//!   `super::f`, `ir::Extent` after `use crate::ir;`, `child::f`).
//!
//! A path is followed to the module that defines its item, through
//! re-exports (`pub use`) and imports: a dependency on `emit::layout::Field`
//! is an edge to `emit::layout`, and naming `crate::admit` where the crate
//! root only re-exports `admission::admit` is an edge to `admission`.
//!
//! The rule, and what it means for parents and children:
//!
//! - Declaring a child (`mod x;`) is not an edge, nor is re-exporting the
//!   items of the module's own children and their descendants (`pub use
//!   x::Y;`): a parent file that only declares and re-exports its children
//!   is their facade, and fine (`runtime/src/ffi/mod.rs`). Re-exporting a
//!   sibling's or another subtree's item is an edge.
//! - A child that names its parent's items (`super::helper`, `use super::*`)
//!   depends on its parent, and a parent that calls into its child depends on
//!   the child. Both at once is a circle: shared helpers that children use
//!   belong in a module of their own, beside them, not in the parent that
//!   also drives them. A `#[cfg(test)] mod tests` is a child like any other
//!   (it uses its parent; nothing uses it).
//!
//! Not seen: method calls (`x.check()` has no path, so a type whose
//! methods are written in several child modules, `impl FamilyChecker` in
//! `check/params.rs`, counts as its defining module plus children that use
//! it), items a macro generates, the bodies of `macro_rules!` (templates
//! whose paths are resolved where they expand; only `$crate::` paths count)
//! and of `quote!` (code for another crate), and files `include!`d from
//! outside `src/` (the committed `generated/rust/` tables, whose layout is
//! the Rust emitter's). A crate's files under `src/` that its module tree
//! does not reach fail the test, so nothing is skipped silently.
//!
//! Over the same graph, `pipeline_stages_depend_only_backwards` holds
//! kfam-codegen's stages in order (load, check, gate, emit, write) and the
//! emitters to the IR.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::ToTokens;

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

/// ` as name` when a `use` renames what it imports.
fn rename(name: &str, path: &[String]) -> String {
    match path.last() {
        Some(last) if last != name => format!(" as {name}"),
        _ => String::new(),
    }
}

fn workspace_members(root: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let doc: toml::Table = toml::from_str(&text).unwrap();
    let members = doc["workspace"]["members"].as_array().unwrap();
    members
        .iter()
        .map(|m| m.as_str().unwrap().to_owned())
        .collect()
}

/// One module: a file or an inline `mod` block.
#[derive(Default)]
struct Module {
    /// `krate::a::b`.
    name: String,
    parent: Option<usize>,
    children: HashMap<String, usize>,
    /// Names brought in by `use`: name -> (path as written, is a re-export).
    bindings: HashMap<String, (Vec<String>, bool)>,
    /// `use path::*`: (path, is a re-export).
    globs: Vec<(Vec<String>, bool)>,
    /// Items defined here (functions, types, constants, macros, ...).
    defined: BTreeSet<String>,
    /// `use` declarations that bind nothing (`use x as _`).
    anonymous: Vec<Vec<String>>,
    /// Paths written in the module's code (not in `use` items).
    paths: Vec<Vec<String>>,
}

struct Graph {
    modules: Vec<Module>,
    unreached: Vec<PathBuf>,
}

struct Cycle {
    /// The modules of the strongly connected component.
    component: Vec<String>,
    /// One circle through them, first module repeated at the end.
    path: Vec<String>,
    /// For each step of the circle, one path that makes it.
    because: Vec<String>,
}

impl Graph {
    /// Every crate root of the package in `dir` (`src/lib.rs`,
    /// `src/main.rs`, `src/bin/*.rs`) and the modules they reach.
    fn of_crate(dir: &Path) -> Graph {
        let src = dir.join("src");
        let package = package_name(dir);
        let mut graph = Graph {
            modules: Vec::new(),
            unreached: Vec::new(),
        };
        let mut reached = BTreeSet::new();
        let mut roots = Vec::new();
        if src.join("lib.rs").is_file() {
            roots.push((src.join("lib.rs"), package.clone()));
        }
        if src.join("main.rs").is_file() {
            roots.push((src.join("main.rs"), format!("{package}(bin)")));
        }
        if let Ok(bins) = std::fs::read_dir(src.join("bin")) {
            for e in bins {
                let p = e.unwrap().path();
                if p.extension().is_some_and(|x| x == "rs") {
                    let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
                    roots.push((p, format!("{package}(bin {stem})")));
                }
            }
        }
        for (file, name) in roots {
            let id = graph.add(name, None);
            let items = parse_file(&file, &mut reached);
            graph.fill(id, &items, &file, file.parent().unwrap(), &mut reached);
        }
        let mut all = Vec::new();
        rs_files(&src, &mut all);
        graph.unreached = all
            .into_iter()
            .filter(|f| !reached.contains(&f.canonicalize().unwrap()))
            .collect();
        graph
    }

    fn add(&mut self, name: String, parent: Option<usize>) -> usize {
        self.modules.push(Module {
            name,
            parent,
            ..Module::default()
        });
        self.modules.len() - 1
    }

    /// Record the items of module `id`, declared in `file`, whose child
    /// module files live in `dir`.
    fn fill(
        &mut self,
        id: usize,
        items: &[syn::Item],
        file: &Path,
        dir: &Path,
        reached: &mut BTreeSet<PathBuf>,
    ) {
        for item in items {
            match item {
                syn::Item::Mod(m) => {
                    let name = m.ident.to_string();
                    let child_name = format!("{}::{name}", self.modules[id].name);
                    let child = self.add(child_name, Some(id));
                    self.modules[id].children.insert(name.clone(), child);
                    // The attributes of the declaration are the parent's code.
                    let attrs: TokenStream = m.attrs.iter().map(|a| a.to_token_stream()).collect();
                    let mut paths = Vec::new();
                    scan(attrs, &mut paths);
                    self.modules[id].paths.extend(paths);
                    let path_attr = m.attrs.iter().find_map(|a| match &a.meta {
                        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                            syn::Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Str(s),
                                ..
                            }) => Some(s.value()),
                            _ => None,
                        },
                        _ => None,
                    });
                    match &m.content {
                        Some((_, inner)) => {
                            let items = expand_includes(inner, file, reached);
                            self.fill(child, &items, file, &dir.join(&name), reached);
                        }
                        None => {
                            let path = match path_attr {
                                Some(p) => file.parent().unwrap().join(p),
                                None if dir.join(format!("{name}.rs")).is_file() => {
                                    dir.join(format!("{name}.rs"))
                                }
                                None => dir.join(&name).join("mod.rs"),
                            };
                            let items = parse_file(&path, reached);
                            let child_dir = if path.file_name().unwrap() == "mod.rs" {
                                path.parent().unwrap().to_owned()
                            } else {
                                path.with_extension("")
                            };
                            self.fill(child, &items, &path, &child_dir, reached);
                        }
                    }
                }
                syn::Item::Use(u) => {
                    let reexport = !matches!(u.vis, syn::Visibility::Inherited);
                    let mut paths = Vec::new();
                    scan(
                        u.attrs.iter().map(|a| a.to_token_stream()).collect(),
                        &mut paths,
                    );
                    let m = &mut self.modules[id];
                    m.paths.extend(paths);
                    use_tree(&u.tree, Vec::new(), &mut |name, path| match name {
                        UseName::Name(n) => {
                            m.bindings.insert(n, (path, reexport));
                        }
                        UseName::Glob => m.globs.push((path, reexport)),
                        UseName::Underscore => m.anonymous.push(path),
                    });
                }
                other => {
                    if let Some(name) = defined_name(other) {
                        self.modules[id].defined.insert(name);
                    }
                    let mut paths = Vec::new();
                    scan(other.to_token_stream(), &mut paths);
                    self.modules[id].paths.extend(paths);
                }
            }
        }
    }

    /// Whether module `m` is `ancestor` or one of its descendants.
    fn is_within(&self, mut m: usize, ancestor: usize) -> bool {
        loop {
            if m == ancestor {
                return true;
            }
            match self.modules[m].parent {
                Some(p) => m = p,
                None => return false,
            }
        }
    }

    fn root_of(&self, mut m: usize) -> usize {
        while let Some(p) = self.modules[m].parent {
            m = p;
        }
        m
    }

    /// The module that defines what `path`, written in module `m`, names;
    /// `None` for what lies outside the crate (std, dependencies) or is
    /// local to `m` without a module prefix.
    fn resolve(&self, m: usize, path: &[String], depth: u32) -> Option<usize> {
        if depth > 32 || path.is_empty() {
            return None;
        }
        let (first, rest) = (path[0].as_str(), &path[1..]);
        match first {
            "crate" | "$crate" => self.walk(self.root_of(m), rest, depth),
            "self" => self.walk(m, rest, depth),
            "super" => {
                let mut cur = self.modules[m].parent?;
                let mut rest = rest;
                while rest.first().is_some_and(|s| s == "super") {
                    cur = self.modules[cur].parent?;
                    rest = &rest[1..];
                }
                self.walk(cur, rest, depth)
            }
            name => {
                if let Some(&child) = self.modules[m].children.get(name) {
                    self.walk(child, rest, depth)
                } else if let Some((target, _)) = self.modules[m].bindings.get(name) {
                    let full: Vec<String> = target.iter().chain(rest).cloned().collect();
                    self.resolve(m, &full, depth + 1)
                } else {
                    None
                }
            }
        }
    }

    /// Follow `path` from inside module `cur`.
    fn walk(&self, cur: usize, path: &[String], depth: u32) -> Option<usize> {
        let Some(first) = path.first() else {
            return Some(cur);
        };
        let module = &self.modules[cur];
        if first == "super" || first == "self" {
            return self.resolve(cur, path, depth + 1);
        }
        if let Some(&child) = module.children.get(first) {
            return self.walk(child, &path[1..], depth);
        }
        if module.defined.contains(first) {
            return Some(cur);
        }
        if let Some((target, _)) = module.bindings.get(first) {
            let full: Vec<String> = target.iter().chain(&path[1..]).cloned().collect();
            return self.resolve(cur, &full, depth + 1).or(Some(cur));
        }
        for (glob, _) in &module.globs {
            if let Some(g) = self.resolve(cur, glob, depth + 1) {
                let gm = &self.modules[g];
                if gm.children.contains_key(first)
                    || gm.defined.contains(first)
                    || gm.bindings.contains_key(first)
                {
                    return self.walk(g, path, depth + 1);
                }
            }
        }
        Some(cur)
    }

    /// `module -> module` dependencies, each with the first path that
    /// makes it.
    fn edges(&self) -> Vec<BTreeMap<usize, String>> {
        let mut edges = vec![BTreeMap::new(); self.modules.len()];
        for (id, m) in self.modules.iter().enumerate() {
            let mut targets = Vec::new();
            let mut uses: Vec<(&Vec<String>, String, bool)> = Vec::new();
            for (name, (path, reexport)) in &m.bindings {
                let text = format!("use {}", path.join("::")) + &rename(name, path);
                uses.push((
                    path,
                    if *reexport {
                        format!("pub {text}")
                    } else {
                        text
                    },
                    *reexport,
                ));
            }
            for (path, reexport) in &m.globs {
                let text = format!("use {}::*", path.join("::"));
                uses.push((
                    path,
                    if *reexport {
                        format!("pub {text}")
                    } else {
                        text
                    },
                    *reexport,
                ));
            }
            for path in &m.anonymous {
                uses.push((path, format!("use {} as _", path.join("::")), false));
            }
            uses.sort();
            for (path, text, reexport) in uses {
                let target = self.resolve(id, path, 0);
                // Re-exporting an item of the module's own subtree is the
                // parent's rule (a facade over its children), not a
                // dependency; re-exporting anything else is.
                if reexport && target.is_some_and(|t| self.is_within(t, id)) {
                    continue;
                }
                targets.push((target, text));
            }
            for path in &m.paths {
                // A lone name is a dependency only when it was imported.
                if path.len() == 1 && !m.bindings.contains_key(&path[0]) {
                    continue;
                }
                targets.push((self.resolve(id, path, 0), path.join("::")));
            }
            for (t, text) in targets {
                if let Some(t) = t.filter(|&t| t != id) {
                    edges[id].entry(t).or_insert(text);
                }
            }
        }
        edges
    }

    /// One circle per strongly connected component of more than one module,
    /// in a stable order.
    fn cycles(&self) -> impl Iterator<Item = Cycle> + '_ {
        let edges = self.edges();
        let mut out = Vec::new();
        let targets: Vec<BTreeSet<usize>> =
            edges.iter().map(|e| e.keys().copied().collect()).collect();
        for comp in tarjan(&targets) {
            if comp.len() < 2 {
                continue;
            }
            let inside: BTreeSet<usize> = comp.iter().copied().collect();
            let start = *comp.iter().min_by_key(|&&m| &self.modules[m].name).unwrap();
            // The shortest way from `start` back to itself inside the component.
            let mut prev: BTreeMap<usize, usize> = BTreeMap::new();
            let mut queue = std::collections::VecDeque::from([start]);
            let mut last = None;
            'bfs: while let Some(n) = queue.pop_front() {
                for &t in edges[n].keys() {
                    if t == start {
                        last = Some(n);
                        break 'bfs;
                    }
                    if inside.contains(&t) && !prev.contains_key(&t) {
                        prev.insert(t, n);
                        queue.push_back(t);
                    }
                }
            }
            let mut back = Vec::new();
            let mut n = last.unwrap();
            while n != start {
                back.push(n);
                n = prev[&n];
            }
            let path: Vec<usize> = std::iter::once(start)
                .chain(back.into_iter().rev())
                .chain(std::iter::once(start))
                .collect();
            let name = |m: &usize| self.modules[*m].name.clone();
            let mut component: Vec<String> = comp.iter().map(name).collect();
            component.sort();
            let because = path
                .windows(2)
                .map(|w| {
                    format!(
                        "{} -> {}: `{}`",
                        name(&w[0]),
                        name(&w[1]),
                        edges[w[0]][&w[1]]
                    )
                })
                .collect();
            out.push(Cycle {
                component,
                path: path.iter().map(name).collect(),
                because,
            });
        }
        out.sort_by(|a, b| a.component.cmp(&b.component));
        out.into_iter()
    }
}

/// Strongly connected components (Tarjan), iteratively.
fn tarjan(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    let n = edges.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    for v0 in 0..n {
        if index[v0] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, Vec<usize>)> = Vec::new();
        index[v0] = next;
        low[v0] = next;
        next += 1;
        stack.push(v0);
        on_stack[v0] = true;
        work.push((v0, edges[v0].iter().copied().collect()));
        while let Some((v, todo)) = work.last_mut() {
            let v = *v;
            if let Some(w) = todo.pop() {
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, edges[w].iter().copied().collect()));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some((u, _)) = work.last() {
                    low[*u] = low[*u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    loop {
                        let w = stack.pop().unwrap();
                        on_stack[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    out.push(comp);
                }
            }
        }
    }
    out
}

enum UseName {
    Name(String),
    Glob,
    Underscore,
}

fn use_tree(tree: &syn::UseTree, prefix: Vec<String>, f: &mut impl FnMut(UseName, Vec<String>)) {
    let with = |s: String| {
        let mut p = prefix.clone();
        p.push(s);
        p
    };
    match tree {
        syn::UseTree::Path(p) => use_tree(&p.tree, with(p.ident.to_string()), f),
        syn::UseTree::Name(n) if n.ident == "self" => {
            let name = prefix.last().cloned().unwrap_or_default();
            f(UseName::Name(name), prefix);
        }
        syn::UseTree::Name(n) => f(
            UseName::Name(n.ident.to_string()),
            with(n.ident.to_string()),
        ),
        syn::UseTree::Rename(r) => {
            let path = if r.ident == "self" {
                prefix.clone()
            } else {
                with(r.ident.to_string())
            };
            if r.rename == "_" {
                f(UseName::Underscore, path);
            } else {
                f(UseName::Name(r.rename.to_string()), path);
            }
        }
        syn::UseTree::Glob(_) => f(UseName::Glob, prefix),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree(t, prefix.clone(), f);
            }
        }
    }
}

fn defined_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        _ => return None,
    };
    Some(ident.to_string())
}

/// Every path in `tokens`: `a::b::c` sequences (and single names) outside
/// string literals, doc comments, `quote!`-like macros and `macro_rules!`
/// templates (whose `$crate::` paths are kept); a string literal of a
/// non-doc attribute that is a `crate::`/`super::`/`self::` path counts
/// (`#[serde(with = "crate::x")]`).
fn scan(tokens: TokenStream, out: &mut Vec<Vec<String>>) {
    scan_in(tokens, false, false, out);
}

fn scan_in(tokens: TokenStream, template: bool, attr: bool, out: &mut Vec<Vec<String>>) {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tts.len() {
        match &tts[i] {
            TokenTree::Group(g) => {
                // `#[doc = ".."]` and `#![..]`: skip doc attributes.
                let is_attr = i > 0
                    && g.delimiter() == Delimiter::Bracket
                    && matches!(&tts[i - 1], TokenTree::Punct(p) if p.as_char() == '#' || p.as_char() == '!');
                if is_attr && attr_is_doc(g.stream()) {
                    i += 1;
                    continue;
                }
                scan_in(g.stream(), template, attr || is_attr, out);
                i += 1;
            }
            TokenTree::Ident(id) => {
                let bang =
                    matches!(tts.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
                let name = id.to_string();
                if bang && matches!(name.as_str(), "quote" | "quote_spanned" | "parse_quote") {
                    i += 3;
                    continue;
                }
                if bang && name == "macro_rules" {
                    // `macro_rules! name { .. }`
                    if let Some(TokenTree::Group(g)) = tts.get(i + 3) {
                        scan_in(g.stream(), true, attr, out);
                    }
                    i += 4;
                    continue;
                }
                let after_dot =
                    i > 0 && matches!(&tts[i - 1], TokenTree::Punct(p) if p.as_char() == '.');
                let after_colons = i > 1
                    && matches!(&tts[i - 1], TokenTree::Punct(p) if p.as_char() == ':')
                    && matches!(&tts[i - 2], TokenTree::Punct(p) if p.as_char() == ':');
                let dollar =
                    i > 0 && matches!(&tts[i - 1], TokenTree::Punct(p) if p.as_char() == '$');
                let mut path = vec![if dollar && name == "crate" {
                    "$crate".to_owned()
                } else {
                    name
                }];
                let mut j = i + 1;
                while let (
                    Some(TokenTree::Punct(a)),
                    Some(TokenTree::Punct(b)),
                    Some(TokenTree::Ident(next)),
                ) = (tts.get(j), tts.get(j + 1), tts.get(j + 2))
                {
                    if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':' {
                        path.push(next.to_string());
                        j += 3;
                    } else {
                        break;
                    }
                }
                let keep = !after_dot && !after_colons && (!template || path[0] == "$crate");
                if keep {
                    out.push(path);
                }
                i = j;
            }
            TokenTree::Literal(lit) if attr && !template => {
                let text = lit.to_string();
                if let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                    let local = ["crate::", "super::", "self::"];
                    if local.iter().any(|p| inner.starts_with(p)) {
                        out.push(inner.split("::").map(str::to_owned).collect());
                    }
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
}

fn attr_is_doc(attr: TokenStream) -> bool {
    matches!(attr.into_iter().next(), Some(TokenTree::Ident(i)) if i == "doc")
}

fn parse_file(path: &Path, reached: &mut BTreeSet<PathBuf>) -> Vec<syn::Item> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    reached.insert(path.canonicalize().unwrap());
    let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    expand_includes(&file.items, path, reached)
}

/// `include!("file.rs")` and `include!(concat!(env!("CARGO_MANIFEST_DIR"),
/// "/file.rs"))` in item position: the file's items.
fn expand_includes(
    items: &[syn::Item],
    file: &Path,
    reached: &mut BTreeSet<PathBuf>,
) -> Vec<syn::Item> {
    let mut out = Vec::new();
    for item in items {
        let syn::Item::Macro(m) = item else {
            out.push(item.clone());
            continue;
        };
        if !m.mac.path.is_ident("include") {
            out.push(item.clone());
            continue;
        }
        let package = file
            .ancestors()
            .find(|d| d.join("Cargo.toml").is_file())
            .unwrap();
        let tokens = m.mac.tokens.to_string();
        // A build script's output (`OUT_DIR`) is generated code, as
        // `generated/rust/` is: not the crate's sources.
        if tokens.contains("OUT_DIR") {
            continue;
        }
        let lits: Vec<&str> = tokens
            .split('"')
            .skip(1)
            .step_by(2)
            .filter(|l| *l != "CARGO_MANIFEST_DIR")
            .collect();
        let target = if tokens.contains("CARGO_MANIFEST_DIR") {
            package.join(lits.concat().trim_start_matches('/'))
        } else {
            file.parent().unwrap().join(lits.concat())
        };
        // Generated code (`generated/rust/`) is the emitters' output, not
        // this crate's sources: its module layout is the Rust emitter's.
        let src = package.join("src").canonicalize().unwrap();
        if target.canonicalize().unwrap().starts_with(&src) {
            out.extend(parse_file(&target, reached));
        }
    }
    out
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn package_name(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
    let doc: toml::Table = toml::from_str(&text).unwrap_or_default();
    let name = doc
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .unwrap_or("crate");
    name.replace('-', "_")
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
