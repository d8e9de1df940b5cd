//! The module graph of a workspace crate, read from its sources: what
//! `module_graph.rs` holds free of circles and `architecture.rs` to
//! docs/architecture.md.
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

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::ToTokens;

/// ` as name` when a `use` renames what it imports.
fn rename(name: &str, path: &[String]) -> String {
    match path.last() {
        Some(last) if last != name => format!(" as {name}"),
        _ => String::new(),
    }
}

pub fn workspace_members(root: &Path) -> Vec<String> {
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
pub struct Module {
    /// `krate::a::b`; a crate root is `krate`, a binary's `krate(bin)` or
    /// `krate(bin NAME)`.
    pub name: String,
    pub parent: Option<usize>,
    /// Compiled for tests only: `#[cfg(test)] mod x`, or inside one.
    pub test: bool,
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

pub struct Graph {
    pub modules: Vec<Module>,
    /// Files under `src/` that no `mod` reaches.
    pub unreached: Vec<PathBuf>,
}

pub struct Cycle {
    /// The modules of the strongly connected component.
    pub component: Vec<String>,
    /// One circle through them, first module repeated at the end.
    pub path: Vec<String>,
    /// For each step of the circle, one path that makes it.
    pub because: Vec<String>,
}

impl Graph {
    /// Every crate root of the package in `dir` (`src/lib.rs`,
    /// `src/main.rs`, `src/bin/*.rs`) and the modules they reach.
    pub fn of_crate(dir: &Path) -> Graph {
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
                    self.modules[child].test = self.modules[id].test || is_cfg_test(&m.attrs);
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
    pub fn edges(&self) -> Vec<BTreeMap<usize, String>> {
        let mut edges = vec![BTreeMap::new(); self.modules.len()];
        for (id, m) in self.modules.iter().enumerate() {
            let mut targets = Vec::new();
            let mut uses: Vec<(&Vec<String>, String, bool)> = Vec::new();
            let shown = |text: String, reexport: bool| {
                if reexport {
                    format!("pub {text}")
                } else {
                    text
                }
            };
            for (name, (path, reexport)) in &m.bindings {
                let text = format!("use {}", path.join("::")) + &rename(name, path);
                uses.push((path, shown(text, *reexport), *reexport));
            }
            for (path, reexport) in &m.globs {
                let text = format!("use {}::*", path.join("::"));
                uses.push((path, shown(text, *reexport), *reexport));
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
    pub fn cycles(&self) -> impl Iterator<Item = Cycle> + '_ {
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
pub fn tarjan(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
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

/// `#[cfg(test)]`.
fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string() == "test")
    })
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

/// Every `.rs` file below `dir`, appended to `out`.
pub fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
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
