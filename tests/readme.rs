//! The README's Rust example is the crate's first doc example (which `cargo test` compiles and
//! runs), line for line: a change to one without the other fails here.
#![cfg(not(target_arch = "wasm32"))]

/// The lines of the first fenced block that starts with `opening` in `text`.
fn first_block<'a>(text: &'a str, opening: &str) -> Vec<&'a str> {
    let start = text
        .find(opening)
        .unwrap_or_else(|| panic!("no {opening} block"));
    text[start + opening.len()..]
        .lines()
        .skip(1)
        .take_while(|line| line.trim_end() != "```")
        .collect()
}

#[test]
fn readme_rust_example_is_the_tested_doc_example() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).expect("README.md");
    let lib = std::fs::read_to_string(format!("{root}/src/lib.rs")).expect("src/lib.rs");
    let section = &readme[readme
        .find("## Using it from Rust")
        .expect("the README's Rust section")..];
    let example = first_block(section, "```rust");
    assert!(example.len() > 5, "the README's Rust example is empty");
    let doc: String = lib
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n");
    let doc_example = first_block(&doc, "```");
    for line in &example {
        assert!(
            doc_example.contains(line),
            "README line not in the doc example of src/lib.rs: {line:?}"
        );
    }
    assert!(
        example.iter().any(|l| l.contains("decode::from_text")),
        "the README shows the fast decoder"
    );
}

/// The lines of the `nth` (0-based) fenced block of `//!` doc comments in `path`.
fn doc_block(path: &str, nth: usize) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc: Vec<String> = text
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line).to_string())
        .collect();
    let mut blocks = doc.split(|line| line.starts_with("```")).skip(1).step_by(2);
    blocks
        .nth(nth)
        .unwrap_or_else(|| panic!("{path}: no doc block {nth}"))
        .to_vec()
}

#[test]
fn readme_client_example_is_the_native_clients_1_0_doc_example() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).expect("README.md");
    let section = &readme[readme
        .find("## The client (Rust)")
        .expect("the README's client section")..];
    let example = first_block(section, "```rust");
    assert!(example.len() > 10, "the README's client example is empty");
    let doc = doc_block(&format!("{root}/src/client/native/mod.rs"), 0);
    // In order: each README line is the next doc line that is not hidden or an import.
    let shown: Vec<&str> = doc
        .iter()
        .map(String::as_str)
        .filter(|l| !l.starts_with('#') && !l.starts_with("use ") && !l.is_empty())
        .collect();
    assert_eq!(
        example, shown,
        "the README's client example and the doc example differ"
    );
    for needle in ["\"1.0.0\"", "dispatch_v1", "state_v1", "NotificationV1"] {
        assert!(
            example.iter().any(|l| l.contains(needle)),
            "the README's client example shows {needle}"
        );
    }
}
