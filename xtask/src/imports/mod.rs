//! `cargo run -p xtask -- imports [DIR...]`: fails when the files of a directory import each
//! other in a circle, listing each circle with the lines that close it.
//!
//! A directory with a `lib.rs` or `main.rs` is a Rust crate ([`rust`]: file-level modules,
//! edges followed through re-exports to the defining file); any other is a tree of ES modules
//! ([`js`]). Without arguments it checks the SDK and the host: `src`, `js` and `host/src` (the
//! lint step of `scripts/test.sh` runs it).
//!
//! A circle is a strongly connected set of files; for each, the report lists the shortest
//! cycle through each of its files and every import between them (`file:line -> file (path)`),
//! so whoever breaks it sees which lines to move.

mod js;
mod lex;
mod rust;

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::Path;

/// What the lint step checks.
pub const DEFAULT_DIRS: &[&str] = &["src", "js", "host/src"];

/// Floors a directory's files must not import from below, checked beside the circles: (the
/// directory, the floor's prefix, the one file allowed to name it, why). The SDK's portable
/// core (`protocol/`, `reduce/`, `sync/`, `client/`) never imports the wasm bindings, so it
/// stays a crate of its own in all but name: it builds, and is tested, on every target.
pub const FLOORS: &[(&str, &str, &str, &str)] = &[(
    "src",
    "src/wasm/",
    "src/lib.rs",
    "the portable core never imports the wasm bindings",
)];

/// Checks `dirs` (relative to `root`); `Err` lists the circles. With `edges`, also prints every
/// import found.
pub fn run(root: &Path, dirs: &[String], edges: bool) -> Result<(), String> {
    let mut failures = Vec::new();
    for dir in dirs {
        let graph = graph(root, &root.join(dir))?;
        if edges {
            for ((from, to), evidence) in &graph.edges {
                println!(
                    "{}:{} -> {} ({})",
                    graph.nodes[*from], evidence.line, graph.nodes[*to], evidence.via
                );
            }
        }
        failures.extend(graph.floor_breaches(dir));
        let circles = graph.circles();
        if circles.is_empty() {
            println!(
                "imports: {dir}: no circles ({} files, {} imports)",
                graph.nodes.len(),
                graph.edges.len()
            );
        } else {
            failures.push(format!(
                "{dir}: {} import circle(s)\n{}",
                circles.len(),
                graph.report(&circles)
            ));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// The import graph of one directory.
pub fn graph(root: &Path, dir: &Path) -> Result<Graph, String> {
    let mut graph = Graph::default();
    if dir.join("lib.rs").is_file() || dir.join("main.rs").is_file() {
        rust::add_crates(&mut graph, root, dir)?;
    } else if dir.is_dir() {
        js::add_modules(&mut graph, root, dir)?;
    } else {
        return Err(format!("{}: not a directory", dir.display()));
    }
    Ok(graph)
}

/// `path` relative to `root`, with `/`.
fn display(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Files and which imports which.
#[derive(Debug, Default)]
pub struct Graph {
    pub nodes: Vec<String>,
    index: HashMap<String, usize>,
    /// (importer, imported) -> the first line that imports it.
    pub edges: BTreeMap<(usize, usize), Evidence>,
}

/// Where an import is: the importer's line, and the path or specifier it names.
#[derive(Debug, Clone)]
pub struct Evidence {
    pub line: usize,
    pub via: String,
}

impl Graph {
    /// The node named `name`, added if new.
    pub fn node(&mut self, name: &str) -> usize {
        if let Some(&n) = self.index.get(name) {
            return n;
        }
        self.nodes.push(name.to_string());
        self.index.insert(name.to_string(), self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    pub fn index(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// Records that `from` imports `to` (a file importing itself is no edge).
    pub fn edge(&mut self, from: usize, to: usize, line: usize, via: &str) {
        if from != to {
            self.edges.entry((from, to)).or_insert_with(|| Evidence {
                line,
                via: via.to_string(),
            });
        }
    }

    /// The imports of `dir`'s files that go up into a floor of [`FLOORS`], one line each.
    pub fn floor_breaches(&self, dir: &str) -> Vec<String> {
        let floors = FLOORS.iter().filter(|(d, ..)| *d == dir);
        floors
            .flat_map(|&(_, floor, declarer, why)| {
                self.edges
                    .iter()
                    .filter_map(move |(&(from, to), evidence)| {
                        let (from, to) = (&self.nodes[from], &self.nodes[to]);
                        let outside = !from.starts_with(floor) && from != declarer;
                        (outside && to.starts_with(floor)).then(|| {
                            format!(
                                "{dir}: {from}:{} -> {to} ({}): {why}",
                                evidence.line, evidence.via
                            )
                        })
                    })
            })
            .collect()
    }

    fn successors(&self, node: usize) -> impl Iterator<Item = usize> + '_ {
        self.edges
            .range((node, 0)..(node + 1, 0))
            .map(|(&(_, to), _)| to)
    }

    /// The strongly connected sets of more than one file (Tarjan), each sorted, in file order.
    pub fn circles(&self) -> Vec<Vec<usize>> {
        let mut tarjan = Tarjan {
            graph: self,
            index: vec![None; self.nodes.len()],
            low: vec![0; self.nodes.len()],
            on_stack: vec![false; self.nodes.len()],
            stack: Vec::new(),
            next: 0,
            found: Vec::new(),
        };
        for node in 0..self.nodes.len() {
            if tarjan.index[node].is_none() {
                tarjan.visit(node);
            }
        }
        let mut circles: Vec<Vec<usize>> = tarjan
            .found
            .into_iter()
            .filter(|set| set.len() > 1)
            .map(|mut set| {
                set.sort_by(|a, b| self.nodes[*a].cmp(&self.nodes[*b]));
                set
            })
            .collect();
        circles.sort_by(|a, b| self.nodes[a[0]].cmp(&self.nodes[b[0]]));
        circles
    }

    /// The shortest cycle from `start` back to it within `set`, as nodes (`start` first).
    fn shortest_cycle(&self, start: usize, set: &BTreeSet<usize>) -> Vec<usize> {
        let mut came_from: HashMap<usize, usize> = HashMap::new();
        let mut queue = VecDeque::from([start]);
        while let Some(node) = queue.pop_front() {
            for next in self.successors(node).filter(|n| set.contains(n)) {
                if next == start {
                    let mut path = vec![node];
                    while let Some(&previous) = came_from.get(path.last().unwrap()) {
                        path.push(previous);
                    }
                    path.reverse();
                    return path;
                }
                if let std::collections::hash_map::Entry::Vacant(e) = came_from.entry(next) {
                    e.insert(node);
                    queue.push_back(next);
                }
            }
        }
        vec![start]
    }

    /// Each circle: its cycles, and the imports between its files.
    pub fn report(&self, circles: &[Vec<usize>]) -> String {
        let mut out = String::new();
        for (number, circle) in circles.iter().enumerate() {
            let set: BTreeSet<usize> = circle.iter().copied().collect();
            let names: Vec<&str> = circle.iter().map(|&n| self.nodes[n].as_str()).collect();
            out.push_str(&format!(
                "circle {} ({} files): {}\n",
                number + 1,
                circle.len(),
                names.join(", ")
            ));
            let mut cycles = BTreeSet::new();
            for &node in circle {
                let mut cycle = self.shortest_cycle(node, &set);
                // The same cycle from another file: start it at its first file in file order.
                let first = (0..cycle.len())
                    .min_by_key(|&i| &self.nodes[cycle[i]])
                    .unwrap();
                cycle.rotate_left(first);
                cycles.insert(cycle);
            }
            for cycle in cycles {
                let mut names: Vec<&str> = cycle.iter().map(|&n| self.nodes[n].as_str()).collect();
                names.push(names[0]);
                out.push_str(&format!("  cycle: {}\n", names.join(" -> ")));
            }
            for (&(from, to), evidence) in &self.edges {
                if set.contains(&from) && set.contains(&to) {
                    out.push_str(&format!(
                        "  {}:{} -> {} ({})\n",
                        self.nodes[from], evidence.line, self.nodes[to], evidence.via
                    ));
                }
            }
        }
        out
    }
}

struct Tarjan<'g> {
    graph: &'g Graph,
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    found: Vec<Vec<usize>>,
}

impl Tarjan<'_> {
    fn visit(&mut self, node: usize) {
        self.index[node] = Some(self.next);
        self.low[node] = self.next;
        self.next += 1;
        self.stack.push(node);
        self.on_stack[node] = true;
        let successors: Vec<usize> = self.graph.successors(node).collect();
        for next in successors {
            match self.index[next] {
                None => {
                    self.visit(next);
                    self.low[node] = self.low[node].min(self.low[next]);
                }
                Some(index) if self.on_stack[next] => self.low[node] = self.low[node].min(index),
                Some(_) => {}
            }
        }
        if Some(self.low[node]) == self.index[node] {
            let mut set = Vec::new();
            while let Some(member) = self.stack.pop() {
                self.on_stack[member] = false;
                set.push(member);
                if member == node {
                    break;
                }
            }
            self.found.push(set);
        }
    }
}

#[cfg(test)]
mod tests;
