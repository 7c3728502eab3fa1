//! The import graph of a Rust crate, between its files.
//!
//! The module tree is read the way rustc finds it: from `lib.rs` (and `main.rs`, a crate of its
//! own) through every `mod name;` (with `#[path]`), whatever its `#[cfg]`, so code compiled for
//! one target only (`src/wasm`) is in the graph too. Inline `mod name { ... }` blocks belong to
//! their file.
//!
//! A file imports another when it names an item defined there:
//! - a private `use` (at any depth, e.g. in a function);
//! - a path in code that starts with `crate::`, `super::`, `self::` or a child module's name;
//! - a `pub use` whose name the same module also uses in its own code.
//!
//! A path is followed to the file that defines its item, through re-exports: importing
//! `crate::protocol::SessionState` is an edge to `protocol/generated.rs`, not to
//! `protocol/mod.rs` (which only re-exports it). An item the reader cannot find (made by a
//! macro, say) is taken to be in the module's file. Paths into other crates are not edges.
//!
//! Two kinds of use are not edges:
//! - a module's use of its own descendants: a parent declares, re-exports and dispatches to
//!   its children (`mod turn; ... turn::delta(..)`), and they may use what it defines
//!   (`use super::Field`); the parent is the top of its directory. Circles between siblings,
//!   or through a module outside the directory, still count;
//! - test code (`#[cfg(test)]` modules, inline or in files of their own): a test may use any
//!   part of the crate (an encoder's test decodes) without being a dependency of the code.

use super::lex::{tokens, Kind, Token};
use super::{display, Graph};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

/// Adds the files of the crate(s) in `dir` (`lib.rs`, `main.rs`) and their imports to `graph`,
/// naming files by their path relative to `root`.
pub fn add_crates(graph: &mut Graph, root: &Path, dir: &Path) -> Result<(), String> {
    let mut tree = Tree::default();
    let roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|name| dir.join(name))
        .filter(|path| path.is_file())
        .collect();
    if roots.is_empty() {
        return Err(format!("{}: no lib.rs or main.rs", dir.display()));
    }
    for path in roots {
        let module = tree.new_module(None, false, false);
        tree.load(module, &path, dir.to_path_buf())?;
    }
    let nodes: Vec<usize> = tree
        .files
        .iter()
        .map(|path| graph.node(&display(root, path)))
        .collect();
    tree.add_edges(graph, &nodes);
    Ok(())
}

#[derive(Default)]
struct Tree {
    modules: Vec<Module>,
    files: Vec<PathBuf>,
}

#[derive(Default)]
struct Module {
    file: usize,
    parent: Option<usize>,
    /// The crate root this module belongs to (what `crate::` means).
    root: usize,
    /// The module whose file this module is in (itself, unless inline).
    file_module: usize,
    /// Under `#[cfg(test)]` (itself or an ancestor).
    test: bool,
    children: BTreeMap<String, usize>,
    /// Names this module defines (structs, functions, consts, macros, ...).
    items: BTreeSet<String>,
    uses: Vec<UseLeaf>,
    /// Paths in code that may name another module: `crate::`, `super::`, `self::`, `child::`.
    paths: Vec<PathRef>,
    /// Every identifier in the module's code outside `use` declarations.
    idents: HashSet<String>,
}

/// One name a `use` declaration imports.
struct UseLeaf {
    path: Vec<String>,
    glob: bool,
    /// The name it binds (the alias, or the path's last segment).
    name: String,
    public: bool,
    line: usize,
}

struct PathRef {
    path: Vec<String>,
    line: usize,
}

/// What a path names.
enum Resolved {
    /// An item or module of this crate: the module that defines it (or the module itself).
    Module(usize),
    /// Something of another crate.
    Extern,
    /// Not found: assumed to be in the module it was looked up in.
    Unknown(usize),
}

impl Tree {
    fn new_module(&mut self, parent: Option<usize>, inline: bool, test: bool) -> usize {
        let id = self.modules.len();
        let (root, file, file_module, parent_test) = match parent {
            Some(p) => {
                let p = &self.modules[p];
                let file_module = if inline { p.file_module } else { id };
                (p.root, p.file, file_module, p.test)
            }
            None => (id, 0, id, false),
        };
        self.modules.push(Module {
            file,
            parent,
            root,
            file_module,
            test: test || parent_test,
            ..Module::default()
        });
        id
    }

    /// Whether `module` is `ancestor` or inside it.
    fn within(&self, module: usize, ancestor: usize) -> bool {
        let mut at = Some(module);
        while let Some(m) = at {
            if m == ancestor {
                return true;
            }
            at = self.modules[m].parent;
        }
        false
    }

    /// Reads `path` as the body of `module`; `child_dir` is where its `mod name;` files are.
    fn load(&mut self, module: usize, path: &Path, child_dir: PathBuf) -> Result<(), String> {
        let source = std::fs::read_to_string(path)
            .map_err(|e| format!("reading {}: {e}", path.display()))?;
        let file = match self.files.iter().position(|f| f == path) {
            Some(file) => file,
            None => {
                self.files.push(path.to_path_buf());
                self.files.len() - 1
            }
        };
        self.modules[module].file = file;
        let declared = self.parse(module, &tokens(&source), child_dir);
        let file_dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        for decl in declared {
            let child_path = match &decl.path_attr {
                Some(attr) => file_dir.join(attr),
                None => {
                    let flat = decl.dir.join(format!("{}.rs", decl.name));
                    if flat.is_file() {
                        flat
                    } else {
                        decl.dir.join(&decl.name).join("mod.rs")
                    }
                }
            };
            if !child_path.is_file() {
                return Err(format!(
                    "{}:{}: `mod {};` has no file ({} not found)",
                    path.display(),
                    decl.line,
                    decl.name,
                    child_path.display()
                ));
            }
            let grandchild_dir = if child_path.file_name().is_some_and(|n| n == "mod.rs") {
                child_path.parent().unwrap().to_path_buf()
            } else {
                child_path.with_extension("")
            };
            self.load(decl.module, &child_path, grandchild_dir)?;
        }
        Ok(())
    }

    /// Reads one file's tokens into `module` (and its inline modules); returns the `mod name;`
    /// declarations, their modules created.
    fn parse(&mut self, module: usize, toks: &[Token], child_dir: PathBuf) -> Vec<ModDecl> {
        struct Frame {
            module: usize,
            depth: usize,
            child_dir: PathBuf,
        }
        let mut stack = vec![Frame {
            module,
            depth: 0,
            child_dir,
        }];
        let mut declared = Vec::new();
        let mut depth = 0;
        let mut path_attr: Option<String> = None;
        let mut cfg_test = false;
        let mut i = 0;
        while i < toks.len() {
            let frame = stack.last().unwrap();
            let current = frame.module;
            let at_item_level = depth == frame.depth;
            let next = toks.get(i + 1);
            match &toks[i].kind {
                Kind::Punct('{') => {
                    depth += 1;
                    (path_attr, cfg_test) = (None, false);
                }
                Kind::Punct('}') => {
                    if depth == frame.depth && stack.len() > 1 {
                        stack.pop();
                    }
                    depth = depth.saturating_sub(1);
                    (path_attr, cfg_test) = (None, false);
                }
                Kind::Punct(';') => (path_attr, cfg_test) = (None, false),
                Kind::Punct('#') if at_item_level => {
                    let (end, attr) = attribute(toks, i);
                    match attr {
                        Attribute::Path(path) => path_attr = Some(path),
                        Attribute::CfgTest => cfg_test = true,
                        Attribute::Other => {}
                    }
                    i = end;
                    continue;
                }
                Kind::Ident(word) if word == "mod" && at_item_level => {
                    let name = next.and_then(Token::ident).map(str::to_string);
                    let after = toks.get(i + 2);
                    if let (Some(name), Some(after)) = (name, after) {
                        let inline = after.is_punct('{');
                        let child = self.new_module(Some(current), inline, cfg_test);
                        cfg_test = false;
                        self.modules[current].children.insert(name.clone(), child);
                        let dir = frame.child_dir.clone();
                        if inline {
                            let child_dir = dir.join(&name);
                            depth += 1;
                            stack.push(Frame {
                                module: child,
                                depth,
                                child_dir,
                            });
                        } else {
                            declared.push(ModDecl {
                                module: child,
                                name,
                                dir,
                                path_attr: path_attr.take(),
                                line: toks[i].line,
                            });
                        }
                        i += 3;
                        continue;
                    }
                }
                Kind::Ident(word) if word == "use" => {
                    let public = at_item_level && visibility_before(toks, i);
                    let line = toks[i].line;
                    let mut leaves = Vec::new();
                    i += 1;
                    use_tree(toks, &mut i, Vec::new(), &mut leaves);
                    while i < toks.len() && !toks[i].is_punct(';') {
                        i += 1;
                    }
                    for (path, glob, alias) in leaves {
                        self.add_use(current, path, glob, alias, public, line);
                    }
                    continue;
                }
                Kind::Ident(word) => {
                    if at_item_level {
                        if let Some(name) = defined_name(word, next, toks.get(i + 2)) {
                            self.modules[current].items.insert(name.to_string());
                        }
                    }
                    let starts_path = next.is_some_and(|t| t.kind == Kind::PathSep)
                        && !(i > 0
                            && (toks[i - 1].kind == Kind::PathSep || toks[i - 1].is_ident("in")));
                    if starts_path {
                        let (end, path) = path_at(toks, i);
                        let line = toks[i].line;
                        let idents = &mut self.modules[current].idents;
                        idents.extend(path.iter().cloned());
                        self.modules[current].paths.push(PathRef { path, line });
                        i = end;
                        continue;
                    }
                    self.modules[current].idents.insert(word.clone());
                }
                _ => {}
            }
            i += 1;
        }
        declared
    }

    fn add_use(
        &mut self,
        module: usize,
        mut path: Vec<String>,
        glob: bool,
        alias: Option<String>,
        public: bool,
        line: usize,
    ) {
        if !glob && path.len() > 1 && path.last().is_some_and(|s| s == "self") {
            path.pop();
        }
        let name = alias.unwrap_or_else(|| path.last().cloned().unwrap_or_default());
        self.modules[module].uses.push(UseLeaf {
            path,
            glob,
            name,
            public,
            line,
        });
    }

    /// Where a path starts: the module its first segments name, and the rest. `None`: another
    /// crate's (or a name a `use` brought in, whose `use` is an edge of its own).
    fn start<'p>(&self, module: usize, path: &'p [String]) -> Option<(usize, &'p [String])> {
        let first = path.first()?;
        let m = &self.modules[module];
        match first.as_str() {
            "crate" => Some((m.root, &path[1..])),
            "self" => Some((module, &path[1..])),
            "super" => {
                let mut at = module;
                let mut rest = path;
                while rest.first().is_some_and(|s| s == "super") {
                    at = self.modules[at].parent?;
                    rest = &rest[1..];
                }
                Some((at, rest))
            }
            _ if m.children.contains_key(first) || m.items.contains(first) => Some((module, path)),
            _ => None,
        }
    }

    /// The file of what `rest` names from `module`.
    fn walk(
        &self,
        module: usize,
        rest: &[String],
        seen: &mut HashSet<(usize, String)>,
    ) -> Resolved {
        let mut at = module;
        for segment in rest {
            match self.modules[at].children.get(segment) {
                Some(&child) => at = child,
                None => return self.item(at, segment, seen),
            }
        }
        Resolved::Module(at)
    }

    /// The file that defines `name` as seen in `module`, through its `use`s.
    fn item(&self, module: usize, name: &str, seen: &mut HashSet<(usize, String)>) -> Resolved {
        let m = &self.modules[module];
        if m.items.contains(name) {
            return Resolved::Module(module);
        }
        if !seen.insert((module, name.to_string())) {
            return Resolved::Unknown(module); // globs importing each other
        }
        if let Some(leaf) = m.uses.iter().find(|u| !u.glob && u.name == name) {
            return match self.start(module, &leaf.path) {
                Some((from, rest)) => self.walk(from, rest, seen),
                None => Resolved::Extern,
            };
        }
        for leaf in m.uses.iter().filter(|u| u.glob) {
            let Some(target) = self.glob_module(module, &leaf.path) else {
                continue;
            };
            match self.item(target, name, seen) {
                Resolved::Unknown(_) => {}
                found => return found,
            }
        }
        Resolved::Unknown(module)
    }

    /// The module a glob `use` imports from (`None`: another crate's, or an enum's variants).
    fn glob_module(&self, module: usize, path: &[String]) -> Option<usize> {
        let (mut at, rest) = self.start(module, path)?;
        for segment in rest {
            at = *self.modules[at].children.get(segment)?;
        }
        Some(at)
    }

    /// Adds every module's imports; `nodes[file]` is the graph node of `files[file]`.
    fn add_edges(&self, graph: &mut Graph, nodes: &[usize]) {
        for (id, m) in self.modules.iter().enumerate() {
            if m.test {
                continue;
            }
            let from = nodes[m.file];
            // An edge to another file, unless it is into this file's own subtree.
            let mut add = |target: Option<Resolved>, line: usize, via: &str| {
                if let Some(Resolved::Module(to) | Resolved::Unknown(to)) = target {
                    if !self.within(to, m.file_module) {
                        graph.edge(from, nodes[self.modules[to].file], line, via);
                    }
                }
            };
            for leaf in &m.uses {
                if leaf.public && (leaf.glob || !m.idents.contains(&leaf.name)) {
                    continue; // a re-export
                }
                let target = if leaf.glob {
                    self.glob_module(id, &leaf.path).map(Resolved::Module)
                } else {
                    self.start(id, &leaf.path)
                        .map(|(at, rest)| self.walk(at, rest, &mut HashSet::new()))
                };
                let glob = if leaf.glob { "::*" } else { "" };
                add(
                    target,
                    leaf.line,
                    &format!("use {}{glob}", leaf.path.join("::")),
                );
            }
            for path in &m.paths {
                let target = self
                    .start(id, &path.path)
                    .map(|(at, rest)| self.walk(at, rest, &mut HashSet::new()));
                add(target, path.line, &path.path.join("::"));
            }
        }
    }
}

struct ModDecl {
    module: usize,
    name: String,
    dir: PathBuf,
    path_attr: Option<String>,
    line: usize,
}

/// The attributes that matter to the module tree.
enum Attribute {
    /// `#[path = "..."]`.
    Path(String),
    /// `#[cfg(test)]`.
    CfgTest,
    Other,
}

/// An attribute at `i` (`#[...]` or `#![...]`): the index after it, and what it is.
fn attribute(toks: &[Token], i: usize) -> (usize, Attribute) {
    let mut j = i + 1;
    if toks.get(j).is_some_and(|t| t.is_punct('!')) {
        j += 1;
    }
    if !toks.get(j).is_some_and(|t| t.is_punct('[')) {
        return (i + 1, Attribute::Other);
    }
    let open = j;
    let mut depth = 0;
    while j < toks.len() {
        if toks[j].is_punct('[') {
            depth += 1;
        } else if toks[j].is_punct(']') {
            depth -= 1;
            if depth == 0 {
                break;
            }
        }
        j += 1;
    }
    let body = &toks[open + 1..j.min(toks.len())];
    let attribute = match body {
        [name, eq, Token {
            kind: Kind::Str(value),
            ..
        }] if name.is_ident("path") && eq.is_punct('=') => Attribute::Path(value.clone()),
        [cfg, open, test, close]
            if cfg.is_ident("cfg")
                && open.is_punct('(')
                && test.is_ident("test")
                && close.is_punct(')') =>
        {
            Attribute::CfgTest
        }
        _ => Attribute::Other,
    };
    (j + 1, attribute)
}

/// Whether the `use` at `i` has a visibility (`pub`, `pub(crate)`, `pub(in path)`).
fn visibility_before(toks: &[Token], i: usize) -> bool {
    match i.checked_sub(1).map(|j| &toks[j]) {
        Some(t) if t.is_ident("pub") => true,
        Some(t) if t.is_punct(')') => toks[..i - 1]
            .iter()
            .rposition(|t| t.is_punct('('))
            .is_some_and(|open| open > 0 && toks[open - 1].is_ident("pub")),
        _ => false,
    }
}

/// The name an item definition at `word` introduces (`fn name`, `struct Name`,
/// `macro_rules! name`, ...).
fn defined_name<'t>(
    word: &str,
    next: Option<&'t Token>,
    after: Option<&'t Token>,
) -> Option<&'t str> {
    match word {
        "struct" | "enum" | "union" | "trait" | "type" | "fn" | "const" | "static" | "mod" => next
            .and_then(Token::ident)
            .filter(|n| !matches!(*n, "fn" | "mut" | "unsafe")),
        "macro_rules" if next.is_some_and(|t| t.is_punct('!')) => after.and_then(Token::ident),
        _ => None,
    }
}

/// The path of identifiers joined by `::` starting at `i`; the index after it.
fn path_at(toks: &[Token], mut i: usize) -> (usize, Vec<String>) {
    let mut path = Vec::new();
    while let Some(name) = toks.get(i).and_then(Token::ident) {
        path.push(name.to_string());
        i += 1;
        if toks.get(i).is_some_and(|t| t.kind == Kind::PathSep) {
            i += 1;
        } else {
            break;
        }
    }
    (i, path)
}

/// One `use` tree from `i` into `out` as (path, glob, alias); leaves `i` after it.
fn use_tree(
    toks: &[Token],
    i: &mut usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, bool, Option<String>)>,
) {
    let mut path = prefix;
    if toks.get(*i).is_some_and(|t| t.kind == Kind::PathSep) {
        path.push("::".to_string()); // `::name`: always another crate
        *i += 1;
    }
    while let Some(tok) = toks.get(*i) {
        match &tok.kind {
            Kind::Ident(name) => {
                path.push(name.clone());
                *i += 1;
                match toks.get(*i) {
                    Some(t) if t.kind == Kind::PathSep => *i += 1,
                    Some(t) if t.is_ident("as") => {
                        let alias = toks.get(*i + 1).and_then(Token::ident).map(str::to_string);
                        *i += 2;
                        out.push((path, false, alias));
                        return;
                    }
                    _ => {
                        out.push((path, false, None));
                        return;
                    }
                }
            }
            Kind::Punct('*') => {
                *i += 1;
                out.push((path, true, None));
                return;
            }
            Kind::Punct('{') => {
                *i += 1;
                while let Some(tok) = toks.get(*i) {
                    if tok.is_punct('}') {
                        *i += 1;
                        return;
                    }
                    if tok.is_punct(',') {
                        *i += 1;
                        continue;
                    }
                    let before = *i;
                    use_tree(toks, i, path.clone(), out);
                    if *i == before {
                        *i += 1; // not a tree: skip it rather than loop
                    }
                }
                return;
            }
            _ => return,
        }
    }
}
