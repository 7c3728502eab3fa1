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
