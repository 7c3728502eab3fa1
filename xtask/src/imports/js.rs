//! The import graph of a directory of ES modules (`.js`, `.mjs`), between its files.
//!
//! An edge is a static `import ... from './x.js'`, `import './x.js'` or `export ... from
//! './x.js'` (a re-export loads its module too, so a barrel is part of every circle through
//! it). Statements start at the beginning of a line, as the project's code is formatted. A
//! specifier that is not relative (a package), or names a file not in the directory (one the
//! build writes, like `./ahp_wasm.js`), is not an edge. A dynamic `import()` is not an edge:
//! it runs after the modules have loaded.

use super::Graph;
use std::path::{Component, Path, PathBuf};

/// Adds the modules under `dir` and their imports to `graph`, naming files by their path
/// relative to `root`.
pub fn add_modules(graph: &mut Graph, root: &Path, dir: &Path) -> Result<(), String> {
    let mut files = Vec::new();
    collect(dir, &mut files)?;
    files.sort();
    let name = |path: &Path| super::display(root, path);
    for file in &files {
        graph.node(&name(file));
    }
    for file in &files {
        let source = std::fs::read_to_string(file)
            .map_err(|e| format!("reading {}: {e}", file.display()))?;
        let from = graph.node(&name(file));
        for (line, specifier) in imports(&source) {
            if !specifier.starts_with("./") && !specifier.starts_with("../") {
                continue;
            }
            let target = normalize(&file.parent().unwrap_or(Path::new(".")).join(&specifier));
            if let Some(to) = graph.index(&name(&target)) {
                graph.edge(from, to, line, &specifier);
            }
        }
    }
    Ok(())
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "node_modules") {
                collect(&path, out)?;
            }
        } else if path.extension().is_some_and(|e| e == "js" || e == "mjs") {
            out.push(path);
        }
    }
    Ok(())
}

/// `a/./b/../c` as `a/c`.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The static imports and re-exports of a module: (line, specifier).
pub fn imports(source: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if !starts_import(line) {
            continue;
        }
        // The statement, up to its `;` (or its specifier, when it has no `;`).
        let mut statement = String::new();
        for next in &lines[index..] {
            statement.push_str(next);
            statement.push('\n');
            if next.trim_end().ends_with(';') || specifier(&statement).is_some() {
                break;
            }
        }
        if let Some(specifier) = specifier(&statement) {
            out.push((index + 1, specifier));
        }
    }
    out
}

/// `import x from`, `import {`, `import * as`, `import '...'`, `export {...} from`,
/// `export * from` at the start of a line (not `import(` nor `import.meta`).
fn starts_import(line: &str) -> bool {
    let rest = |keyword: &str| line.strip_prefix(keyword).map(str::trim_start);
    if let Some(rest) = line.strip_prefix("import") {
        let first = rest.chars().next();
        return first.is_some_and(|c| c.is_whitespace() || matches!(c, '{' | '*' | '\'' | '"'));
    }
    rest("export").is_some_and(|rest| {
        rest.starts_with('{') || rest.starts_with('*') || rest.starts_with("type {")
    })
}

/// The module specifier of a complete statement: the string after `from`, or of a bare
/// `import '...'`.
fn specifier(statement: &str) -> Option<String> {
    let after = match statement.rfind("from") {
        Some(at) => &statement[at + 4..],
        None => statement.trim_start().strip_prefix("import")?,
    };
    let after = after.trim_start();
    let quote = after.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let body = &after[1..];
    body.find(quote).map(|end| body[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_static_imports_and_re_exports_only() {
        let source = "import { a } from './a.js';\n\
                      import * as b from \"./b.js\";\n\
                      import './c.js';\n\
                      import {\n  d,\n  e,\n} from './de.js';\n\
                      export { f } from './f.js';\n\
                      export * from './g.js';\n\
                      export function h() { return import('./dynamic.js'); }\n\
                      export { a };\n\
                      const url = new URL('./x.wasm', import.meta.url);\n\
                      // import { z } from './comment.js';\n";
        let found: Vec<(usize, String)> = imports(source);
        let expected = [
            (1, "./a.js"),
            (2, "./b.js"),
            (3, "./c.js"),
            (4, "./de.js"),
            (8, "./f.js"),
            (9, "./g.js"),
        ];
        let expected: Vec<(usize, String)> =
            expected.iter().map(|(l, s)| (*l, s.to_string())).collect();
        assert_eq!(found, expected);
    }
}
