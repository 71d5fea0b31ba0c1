//! The module graph of a crate's sources, and the circles in it.
//!
//! A *circle* is a set of sibling modules that depend on each other: `a`
//! uses something of `b` and `b` (or something `b` uses in turn) uses
//! something of `a`. The check is made at every level of the module tree:
//! the children of each module must depend on each other one way only, so
//! that each can be read, tested and changed after the ones it builds on.
//! What a module's descendants use counts as used by the module (at the
//! level where they are siblings), and a module may always use its own
//! ancestors and descendants (a parent is its children's namespace).
//!
//! Dependencies are found in the source text with `syn` (no compilation,
//! no rust-analyzer): every `use` declaration and every path written in
//! the code (`crate::x::Y`, `super::z`, `child::f`, a name brought in by a
//! `use` or a glob import, paths inside macro calls), resolved to the
//! module that *defines* the item, following re-exports (`pub use`) and
//! glob imports. Test code (`#[cfg(test)]` items and modules) is left out:
//! tests may use anything. Doc-comment links are not dependencies.
//!
//! Used by the test suite (`tests/workspace.rs`) on the simulator and the
//! lab (and [`long_fns`], the functions over ~100 lines, by
//! `tests/long_functions.rs`), and as a command: `cargo run -p msctp-modgraph -- crates/sim/src`
//! prints the circles (exit status 1 if there is one), with `--edges` the
//! dependencies between siblings at every level.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::spanned::Spanned;
use syn::visit::Visit;

pub mod long_fns;

/// Why a crate's sources could not be read.
#[derive(Debug)]
pub enum Error {
    /// A file could not be read.
    Io(PathBuf, std::io::Error),
    /// A file is not valid Rust.
    Parse(PathBuf, syn::Error),
    /// A `mod name;` whose file is neither `name.rs` nor `name/mod.rs`.
    MissingModule { declared_in: PathBuf, name: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(p, e) => write!(f, "{}: {e}", p.display()),
            Error::Parse(p, e) => {
                let at = e.span().start();
                write!(f, "{}:{}:{}: {e}", p.display(), at.line, at.column)
            }
            Error::MissingModule { declared_in, name } => write!(
                f,
                "{}: module {name} has no file ({name}.rs or {name}/mod.rs)",
                declared_in.display()
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Where a dependency is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness {
    pub file: PathBuf,
    pub line: usize,
    /// The path as written (`super::build::Names`).
    pub path: String,
}

impl fmt::Display for Witness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{} {}", self.file.display(), self.line, self.path)
    }
}

/// A dependency between two sibling modules.
#[derive(Debug, Clone)]
pub struct Edge {
    /// The parent of both (`crate::scenario`), `crate` at the top.
    pub level: String,
    pub from: String,
    pub to: String,
    /// The first place that makes it.
    pub witness: Witness,
}

/// Sibling modules that depend on each other in a circle.
#[derive(Debug, Clone)]
pub struct Circle {
    /// Their parent (`crate::scenario`).
    pub level: String,
    /// Every module of the circle (a strongly connected set of siblings).
    pub members: Vec<String>,
    /// One shortest way round: `a -> b -> a`, each step with the place
    /// that makes it.
    pub path: Vec<Edge>,
}

impl fmt::Display for Circle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "circle in {} between {}:",
            self.level,
            self.members.join(", ")
        )?;
        for e in &self.path {
            writeln!(f, "  {} -> {}   ({})", e.from, e.to, e.witness)?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
struct Use {
    /// The name it binds; `None` for a glob (`use x::*`).
    name: Option<String>,
    path: Vec<String>,
    line: usize,
}

#[derive(Debug, Clone)]
struct Ref {
    path: Vec<String>,
    line: usize,
    /// A single lower-case name may be a local variable: it is looked up
    /// in glob imports only when it is called (`f(..)`).
    called: bool,
}

#[derive(Debug)]
struct Module {
    path: Vec<String>,
    file: PathBuf,
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    items: BTreeSet<String>,
    uses: Vec<Use>,
    refs: Vec<Ref>,
}

/// A crate's module tree with what each module uses.
#[derive(Debug)]
pub struct Crate {
    modules: Vec<Module>,
}

/// Depth of re-export chains followed before giving up (a re-export
/// circle would otherwise never end).
const MAX_HOPS: usize = 32;

impl Crate {
    /// Reads the crate whose sources are in `src` (`lib.rs` or `main.rs`
    /// and every module file they declare).
    pub fn load(src: &Path) -> Result<Crate, Error> {
        let root = ["lib.rs", "main.rs"]
            .iter()
            .map(|f| src.join(f))
            .find(|p| p.is_file())
            .unwrap_or_else(|| src.join("lib.rs"));
        let mut c = Crate {
            modules: Vec::new(),
        };
        let file = parse(&root)?;
        c.add_module(
            Vec::new(),
            root.clone(),
            None,
            &file.items,
            src.to_path_buf(),
        )?;
        Ok(c)
    }

    fn add_module(
        &mut self,
        path: Vec<String>,
        file: PathBuf,
        parent: Option<usize>,
        items: &[syn::Item],
        child_dir: PathBuf,
    ) -> Result<usize, Error> {
        let id = self.modules.len();
        self.modules.push(Module {
            path: path.clone(),
            file: file.clone(),
            parent,
            children: BTreeMap::new(),
            items: BTreeSet::new(),
            uses: Vec::new(),
            refs: Vec::new(),
        });
        let mut collector = Collector::default();
        for item in items {
            if is_test_only(item_attrs(item)) {
                continue;
            }
            if let Some(name) = item_name(item) {
                self.modules[id].items.insert(name);
            }
            match item {
                syn::Item::Mod(m) => {
                    let name = m.ident.to_string();
                    let mut cpath = path.clone();
                    cpath.push(name.clone());
                    let child = match &m.content {
                        Some((_, inner)) => self.add_module(
                            cpath,
                            file.clone(),
                            Some(id),
                            inner,
                            child_dir.join(&name),
                        )?,
                        None => {
                            let (cfile, cdir) = module_file(&child_dir, &name, &m.attrs)
                                .ok_or_else(|| Error::MissingModule {
                                    declared_in: file.clone(),
                                    name: name.clone(),
                                })?;
                            let parsed = parse(&cfile)?;
                            self.add_module(cpath, cfile, Some(id), &parsed.items, cdir)?
                        }
                    };
                    self.modules[id].children.insert(name, child);
                }
                syn::Item::Use(u) => {
                    use_leaves(&u.tree, &mut Vec::new(), line_of(u), &mut collector.uses)
                }
                other => collector.visit_item(other),
            }
        }
        let m = &mut self.modules[id];
        m.uses.extend(collector.uses);
        m.refs.extend(collector.refs);
        Ok(id)
    }

    /// The path of a module as Rust writes it (`crate::scenario::build`).
    fn name(&self, m: usize) -> String {
        let mut s = String::from("crate");
        for p in &self.modules[m].path {
            s.push_str("::");
            s.push_str(p);
        }
        s
    }

    fn bound_use(&self, m: usize, name: &str) -> Option<&Use> {
        self.modules[m]
            .uses
            .iter()
            .find(|u| u.name.as_deref() == Some(name))
    }

    fn globs(&self, m: usize) -> impl Iterator<Item = &Use> {
        self.modules[m].uses.iter().filter(|u| u.name.is_none())
    }

    /// A path written in module `m`, made absolute (from the crate root);
    /// `None` for a path outside the crate (another crate, the prelude, a
    /// local variable, a generic parameter).
    fn absolute(&self, m: usize, path: &[String], globs: bool, hops: usize) -> Option<Vec<String>> {
        let (first, rest) = path.split_first()?;
        if hops > MAX_HOPS {
            return None;
        }
        let module = &self.modules[m];
        let mut out;
        match first.as_str() {
            "crate" => out = Vec::new(),
            "self" => out = module.path.clone(),
            "super" => {
                let mut up = module.parent?;
                let mut rest = rest;
                while let Some(("super", r)) = rest.split_first().map(|(a, r)| (a.as_str(), r)) {
                    up = self.modules[up].parent?;
                    rest = r;
                }
                let mut out = self.modules[up].path.clone();
                out.extend(rest.iter().cloned());
                return Some(out);
            }
            _ if module.children.contains_key(first) || module.items.contains(first) => {
                out = module.path.clone();
                out.push(first.clone());
            }
            _ => {
                if let Some(u) = self.bound_use(m, first) {
                    out = self.absolute(m, &u.path, true, hops + 1)?;
                } else if globs {
                    out = self.glob_lookup(m, first, hops)?;
                } else {
                    return None;
                }
            }
        }
        out.extend(rest.iter().cloned());
        Some(out)
    }

    /// `name` found through one of module `m`'s glob imports.
    fn glob_lookup(&self, m: usize, name: &str, hops: usize) -> Option<Vec<String>> {
        for g in self.globs(m) {
            let Some(mut base) = self.absolute(m, &g.path, false, hops + 1) else {
                continue;
            };
            base.push(name.to_string());
            if let Some((_, true)) = self.locate(&base, hops + 1) {
                return Some(base);
            }
        }
        None
    }

    /// The module that defines what an absolute path names, and whether
    /// the item was found (`false`: attributed to the deepest module
    /// reached).
    fn locate(&self, path: &[String], hops: usize) -> Option<(usize, bool)> {
        if hops > MAX_HOPS {
            return None;
        }
        let mut m = 0;
        for (i, seg) in path.iter().enumerate() {
            let module = &self.modules[m];
            if let Some(&c) = module.children.get(seg) {
                m = c;
                continue;
            }
            if module.items.contains(seg) {
                return Some((m, true));
            }
            let target = if let Some(u) = self.bound_use(m, seg) {
                self.absolute(m, &u.path, true, hops + 1)
            } else {
                self.glob_lookup(m, seg, hops)
            };
            return match target {
                Some(mut t) => {
                    t.extend(path[i + 1..].iter().cloned());
                    self.locate(&t, hops + 1)
                }
                None => Some((m, false)),
            };
        }
        Some((m, true))
    }

    fn ancestors(&self, mut m: usize) -> Vec<usize> {
        let mut out = vec![m];
        while let Some(p) = self.modules[m].parent {
            out.push(p);
            m = p;
        }
        out.reverse();
        out
    }

    /// Every dependency between siblings, at every level, one per ordered
    /// pair (the first place that makes it).
    pub fn edges(&self) -> Vec<Edge> {
        let mut seen: BTreeMap<(usize, usize), Witness> = BTreeMap::new();
        for (m, module) in self.modules.iter().enumerate() {
            let written = module
                .uses
                .iter()
                .map(|u| (&u.path, u.line, true))
                .chain(module.refs.iter().map(|r| (&r.path, r.line, r.called)));
            for (path, line, globs) in written {
                let globs = globs
                    || path.len() > 1
                    || path[0].chars().next().is_some_and(char::is_uppercase);
                let Some(abs) = self.absolute(m, path, globs, 0) else {
                    continue;
                };
                let Some((t, _)) = self.locate(&abs, 0) else {
                    continue;
                };
                let (a, b) = (self.ancestors(m), self.ancestors(t));
                let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
                if common == a.len() || common == b.len() {
                    continue; // one is an ancestor of the other
                }
                seen.entry((a[common], b[common]))
                    .or_insert_with(|| Witness {
                        file: module.file.clone(),
                        line,
                        path: path.join("::"),
                    });
            }
        }
        seen.into_iter()
            .map(|((from, to), witness)| Edge {
                level: self.name(self.modules[from].parent.unwrap_or(0)),
                from: self.modules[from].path.last().cloned().unwrap_or_default(),
                to: self.modules[to].path.last().cloned().unwrap_or_default(),
                witness,
            })
            .collect()
    }

    /// The circles among siblings, at every level.
    pub fn circles(&self) -> Vec<Circle> {
        let mut by_level: BTreeMap<String, Vec<Edge>> = BTreeMap::new();
        for e in self.edges() {
            by_level.entry(e.level.clone()).or_default().push(e);
        }
        let mut out = Vec::new();
        for (level, edges) in by_level {
            for members in strongly_connected(&edges) {
                let path = shortest_cycle(&edges, &members);
                out.push(Circle {
                    level: level.clone(),
                    members,
                    path,
                });
            }
        }
        out
    }
}

/// The sets of two or more modules that reach each other (Tarjan).
fn strongly_connected(edges: &[Edge]) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&str> = edges
        .iter()
        .flat_map(|e| [e.from.as_str(), e.to.as_str()])
        .collect();
    let nodes: Vec<&str> = nodes.into_iter().collect();
    let index_of = |n: &str| nodes.iter().position(|x| *x == n).unwrap_or(0);
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for e in edges {
        next[index_of(&e.from)].push(index_of(&e.to));
    }
    struct State {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(v: usize, next: &[Vec<usize>], s: &mut State) {
        s.index[v] = Some(s.counter);
        s.low[v] = s.counter;
        s.counter += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &next[v] {
            match s.index[w] {
                None => {
                    visit(w, next, s);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                s.out.push(comp);
            }
        }
    }
    let n = nodes.len();
    let mut s = State {
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        counter: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(v, &next, &mut s);
        }
    }
    s.out
        .into_iter()
        .map(|c| {
            let mut names: Vec<String> = c.into_iter().map(|i| nodes[i].to_string()).collect();
            names.sort();
            names
        })
        .collect()
}

/// The shortest way from the first member back to itself, within the
/// members (breadth first).
fn shortest_cycle(edges: &[Edge], members: &[String]) -> Vec<Edge> {
    let inside: Vec<&Edge> = edges
        .iter()
        .filter(|e| members.contains(&e.from) && members.contains(&e.to))
        .collect();
    let start = &members[0];
    let mut came_by: BTreeMap<&str, &Edge> = BTreeMap::new();
    let mut queue = VecDeque::from([start.as_str()]);
    while let Some(n) = queue.pop_front() {
        for e in inside.iter().filter(|e| e.from == n) {
            if e.to == *start {
                let mut path = vec![(*e).clone()];
                let mut at = n;
                while at != start {
                    let step = came_by[at];
                    path.push(step.clone());
                    at = &step.from;
                }
                path.reverse();
                return path;
            }
            if !came_by.contains_key(e.to.as_str()) {
                came_by.insert(&e.to, e);
                queue.push_back(&e.to);
            }
        }
    }
    Vec::new()
}

fn parse(path: &Path) -> Result<syn::File, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io(path.to_path_buf(), e))?;
    syn::parse_file(&text).map_err(|e| Error::Parse(path.to_path_buf(), e))
}

/// The file of `mod name;` and the directory of its own children.
fn module_file(dir: &Path, name: &str, attrs: &[syn::Attribute]) -> Option<(PathBuf, PathBuf)> {
    for a in attrs {
        if let syn::Meta::NameValue(nv) = &a.meta
            && nv.path.is_ident("path")
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            let file = dir.join(s.value());
            let cdir = file.with_extension("");
            return file.is_file().then_some((file, cdir));
        }
    }
    let flat = dir.join(format!("{name}.rs"));
    if flat.is_file() {
        return Some((flat, dir.join(name)));
    }
    let nested = dir.join(name).join("mod.rs");
    nested.is_file().then(|| (nested, dir.join(name)))
}

fn line_of(node: &impl Spanned) -> usize {
    node.span().start().line
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

/// The leaves of a use tree: each name it binds with its full path.
fn use_leaves(tree: &syn::UseTree, prefix: &mut Vec<String>, line: usize, out: &mut Vec<Use>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, line, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                out.push(Use {
                    name: prefix.last().cloned(),
                    path: prefix.clone(),
                    line,
                });
            } else {
                let mut path = prefix.clone();
                path.push(name.clone());
                out.push(Use {
                    name: Some(name),
                    path,
                    line,
                });
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            out.push(Use {
                name: Some(r.rename.to_string()),
                path,
                line,
            });
        }
        syn::UseTree::Glob(_) => out.push(Use {
            name: None,
            path: prefix.clone(),
            line,
        }),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix, line, out);
            }
        }
    }
}

/// The paths and nested `use`s of the items of one module.
#[derive(Default)]
struct Collector {
    uses: Vec<Use>,
    refs: Vec<Ref>,
}

impl Collector {
    fn push(&mut self, path: &syn::Path, called: bool) {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if !segs.is_empty() {
            self.refs.push(Ref {
                path: segs,
                line: line_of(path),
                called,
            });
        }
    }

    /// `crate::a::b`, `super::c` and `self::d` inside a macro's tokens.
    fn scan_tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => self.scan_tokens(g.stream()),
                TokenTree::Ident(id)
                    if matches!(id.to_string().as_str(), "crate" | "super" | "self") =>
                {
                    let mut segs = vec![id.to_string()];
                    let line = id.span().start().line;
                    let mut j = i + 1;
                    loop {
                        match (&trees.get(j), &trees.get(j + 1), &trees.get(j + 2)) {
                            (
                                Some(TokenTree::Punct(a)),
                                Some(TokenTree::Punct(b)),
                                Some(TokenTree::Ident(n)),
                            ) if a.as_char() == ':' && b.as_char() == ':' => {
                                segs.push(n.to_string());
                                j += 3;
                            }
                            _ => break,
                        }
                    }
                    if segs.len() > 1 {
                        self.refs.push(Ref {
                            path: segs,
                            line,
                            called: false,
                        });
                    }
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        self.push(p, false);
        syn::visit::visit_path(self, p);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            self.push(&p.path, true);
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.scan_tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        use_leaves(&u.tree, &mut Vec::new(), line_of(u), &mut self.uses);
    }

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {
        // A module inside a function body: not part of the tree.
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test_only(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test_only(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }
}

/// Reads `src` and returns its circles.
pub fn circles_in(src: &Path) -> Result<Vec<Circle>, Error> {
    Ok(Crate::load(src)?.circles())
}
