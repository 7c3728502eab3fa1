//! The checker on small planted trees: it finds the circles there are, and only those.

use super::*;
use std::path::PathBuf;

/// A temporary project with `files` (path, text), returned with its root.
fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let root = dir.path().to_path_buf();
    (dir, root)
}

/// The circles of `dir` in `root`, as sorted file names.
fn circles(root: &Path, dir: &str) -> Vec<Vec<String>> {
    let graph = graph(root, &root.join(dir)).unwrap();
    graph
        .circles()
        .iter()
        .map(|c| c.iter().map(|&n| graph.nodes[n].clone()).collect())
        .collect()
}

/// The circles of a temporary project with `files`, in its `src` or `js` (the first file's).
fn circles_of(files: &[(&str, &str)]) -> Vec<Vec<String>> {
    let (_dir, root) = project(files);
    let dir = files[0].0.split('/').next().unwrap();
    circles(&root, dir)
}

/// Checks that the checker fails on `dir`, its report naming each of `lines`.
fn assert_reports(root: &Path, dir: &str, lines: &[&str]) {
    let error = run(root, &[dir.to_string()], false).unwrap_err();
    for line in lines {
        assert!(error.contains(line), "{line:?} not in the report:\n{error}");
    }
}

/// Whether `dir`'s graph has the edge `from -> to`.
fn has_edge(root: &Path, dir: &str, from: &str, to: &str) -> bool {
    let graph = graph(root, &root.join(dir)).unwrap();
    let (from, to) = (graph.index(from).unwrap(), graph.index(to).unwrap());
    graph.edges.contains_key(&(from, to))
}

/// What the lint step checks: the SDK's `src/` and `js/` have no import circle.
#[test]
fn the_sdk_has_no_import_circles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let dirs: Vec<String> = DEFAULT_DIRS.iter().map(|d| d.to_string()).collect();
    if let Err(circles) = run(root, &dirs, false) {
        panic!("{circles}");
    }
}

#[test]
fn a_core_file_importing_the_bindings_fails_without_a_circle() {
    let (_dir, root) = project(&[
        ("src/lib.rs", "mod wasm;\nmod reduce;\n"),
        ("src/wasm/mod.rs", "pub mod render;\n"),
        ("src/wasm/render.rs", "pub fn paint() {}\n"),
        (
            "src/reduce.rs",
            "pub fn f() {\n    crate::wasm::render::paint();\n}\n",
        ),
    ]);
    assert!(circles(&root, "src").is_empty());
    assert_reports(
        &root,
        "src",
        &[
            "src/reduce.rs:2 -> src/wasm/render.rs",
            "never imports the wasm bindings",
        ],
    );
}

#[test]
fn finds_a_planted_rust_cycle_and_names_its_lines() {
    let (_dir, root) = project(&[
        ("src/lib.rs", "mod a;\nmod b;\nmod c;\n"),
        ("src/a.rs", "use crate::b::B;\npub struct A(B);\n"),
        (
            "src/b.rs",
            "pub struct B;\nfn f() {\n    crate::c::g();\n}\n",
        ),
        (
            "src/c.rs",
            "use super::a::A;\npub fn g() -> Option<A> { None }\n",
        ),
    ]);
    assert_eq!(
        circles(&root, "src"),
        [["src/a.rs", "src/b.rs", "src/c.rs"]]
    );
    assert_reports(
        &root,
        "src",
        &[
            "cycle: src/a.rs -> src/b.rs -> src/c.rs -> src/a.rs",
            "src/b.rs:3 -> src/c.rs (crate::c::g)",
            "src/c.rs:1 -> src/a.rs (use super::a::A)",
        ],
    );
}

#[test]
fn a_parent_that_declares_and_re_exports_its_children_is_no_import() {
    let (_dir, root) = project(&[
        (
            "src/lib.rs",
            "mod config;\nmod x;\nmod y;\npub use x::X;\npub struct Options;\n",
        ),
        ("src/x.rs", "use crate::Options;\npub struct X(Options);\n"),
        ("src/y.rs", "use crate::X;\n"),
        (
            "src/config.rs",
            "pub fn read() -> crate::Options { todo!() }\n",
        ),
    ]);
    assert!(circles(&root, "src").is_empty());
    // `crate::X` is followed to the file that defines it.
    assert!(has_edge(&root, "src", "src/y.rs", "src/x.rs"));
    assert!(!has_edge(&root, "src", "src/y.rs", "src/lib.rs"));
    assert!(run(&root, &["src".to_string()], false).is_ok());
}

#[test]
fn a_re_export_the_module_also_uses_is_an_import() {
    let (_dir, root) = project(&[
        ("src/lib.rs", "mod a;\nmod x;\n"),
        (
            "src/a.rs",
            "pub use crate::x::X;\npub struct Options;\nfn make() -> X { todo!() }\n",
        ),
        ("src/x.rs", "pub struct X(crate::a::Options);\n"),
    ]);
    assert_eq!(circles(&root, "src"), [["src/a.rs", "src/x.rs"]]);

    // Only re-exported: no import.
    let (_dir, root) = project(&[
        ("src/lib.rs", "mod a;\nmod x;\n"),
        ("src/a.rs", "pub use crate::x::X;\npub struct Options;\n"),
        ("src/x.rs", "pub struct X(crate::a::Options);\n"),
    ]);
    assert!(circles(&root, "src").is_empty());
}

#[test]
fn a_parent_and_its_children_use_each_other_freely() {
    let (_dir, root) = project(&[
        ("src/lib.rs", "mod engine;\n"),
        (
            "src/engine/mod.rs",
            "mod inbound;\nuse inbound::Batch;\npub struct Engine;\nimpl Engine {\n    fn on(&self) { inbound::handle(self) }\n}\n",
        ),
        (
            "src/engine/inbound.rs",
            "use super::Engine;\npub struct Batch;\npub fn handle(_: &Engine) {}\n",
        ),
    ]);
    assert!(circles(&root, "src").is_empty());
    assert!(has_edge(
        &root,
        "src",
        "src/engine/inbound.rs",
        "src/engine/mod.rs"
    ));
    assert!(!has_edge(
        &root,
        "src",
        "src/engine/mod.rs",
        "src/engine/inbound.rs"
    ));
}

#[test]
fn a_circle_through_a_parent_and_a_module_outside_it_counts() {
    assert_eq!(
        circles_of(&[
            ("src/lib.rs", "mod engine;\nmod other;\n"),
            (
                "src/engine/mod.rs",
                "pub mod inbound;\npub struct Engine;\nfn f() { crate::other::g() }\n",
            ),
            (
                "src/engine/inbound.rs",
                "use super::Engine;\npub struct Batch;\n",
            ),
            (
                "src/other.rs",
                "use crate::engine::inbound::Batch;\npub fn g() {}\n",
            ),
        ]),
        [["src/engine/inbound.rs", "src/engine/mod.rs", "src/other.rs"]]
    );
}

#[test]
fn test_code_is_no_import() {
    let (_dir, root) = project(&[
        ("src/lib.rs", "mod decode;\nmod encode;\n#[cfg(test)]\nmod tests;\n"),
        ("src/decode.rs", "use crate::encode::Writer;\npub fn from_text() {}\n"),
        (
            "src/encode.rs",
            "pub struct Writer;\n#[cfg(test)]\nmod tests {\n    fn round_trip() { crate::decode::from_text() }\n}\n",
        ),
        ("src/tests.rs", "use crate::decode::from_text;\n"),
    ]);
    assert!(circles(&root, "src").is_empty());
    assert!(!has_edge(&root, "src", "src/encode.rs", "src/decode.rs"));
    assert!(!has_edge(&root, "src", "src/tests.rs", "src/decode.rs"));
}

#[test]
fn glob_re_exports_are_followed_to_the_defining_file() {
    assert_eq!(
        circles_of(&[
            ("src/lib.rs", "pub mod protocol;\n"),
            (
                "src/protocol/mod.rs",
                "mod generated;\npub mod wire;\npub use generated::*;\npub use wire::Value;\n",
            ),
            (
                "src/protocol/generated.rs",
                "use super::wire::Value;\npub struct State(Value);\n",
            ),
            (
                "src/protocol/wire.rs",
                "use crate::protocol::State;\npub enum Value { A }\nfn f(_: State) {}\n",
            ),
        ]),
        [["src/protocol/generated.rs", "src/protocol/wire.rs"]]
    );
}

#[test]
fn inline_modules_path_attributes_cfg_and_other_crates() {
    let (_dir, root) = project(&[
        (
            "src/lib.rs",
            "#[cfg(target_arch = \"wasm32\")]\nmod wasm;\n#[path = \"elsewhere/named.rs\"]\nmod renamed;\npub struct Root;\n",
        ),
        // A test module inside the file: its `super::` is this file.
        (
            "src/wasm.rs",
            "use serde::Serialize;\nuse std::fmt;\npub struct W;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    fn f() { super::W; std::mem::drop(1); }\n}\nfn g() { crate::renamed::h() }\n",
        ),
        (
            "src/elsewhere/named.rs",
            "// crate::wasm::W in a comment is no import\npub fn h() { let _ = \"crate::wasm::W\"; }\n",
        ),
    ]);
    assert!(circles(&root, "src").is_empty());
    let graph = graph(&root, &root.join("src")).unwrap();
    let edges: Vec<(&str, &str)> = graph
        .edges
        .keys()
        .map(|&(from, to)| (graph.nodes[from].as_str(), graph.nodes[to].as_str()))
        .collect();
    assert_eq!(edges, [("src/wasm.rs", "src/elsewhere/named.rs")]);
}

#[test]
fn a_missing_module_file_is_an_error() {
    let (_dir, root) = project(&[("src/lib.rs", "mod gone;\n")]);
    let error = graph(&root, &root.join("src")).unwrap_err();
    assert!(error.contains("`mod gone;` has no file"), "{error}");
}

#[test]
fn finds_a_planted_js_cycle_through_a_barrel() {
    let (_dir, root) = project(&[
        (
            "js/api.js",
            "import * as wasm from './ahp_wasm.js';\nexport { helper } from './helper.js';\nexport class AhpError extends Error {}\n",
        ),
        ("js/helper.js", "import { AhpError } from './api.js';\nexport function helper() {}\n"),
        ("js/leaf.js", "import { readFileSync } from 'node:fs';\n"),
    ]);
    assert_eq!(circles(&root, "js"), [["js/api.js", "js/helper.js"]]);
    assert_reports(
        &root,
        "js",
        &[
            "js/helper.js:1 -> js/api.js (./api.js)",
            "js/api.js:2 -> js/helper.js (./helper.js)",
        ],
    );

    // The error class from a leaf module instead: no circle.
    let (_dir, root) = project(&[
        (
            "js/api.js",
            "export { helper } from './helper.js';\nexport { AhpError } from './errors.js';\n",
        ),
        (
            "js/helper.js",
            "import { AhpError } from './errors.js';\nexport function helper() {}\n",
        ),
        ("js/errors.js", "export class AhpError extends Error {}\n"),
    ]);
    assert!(circles(&root, "js").is_empty());
}
