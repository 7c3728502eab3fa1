//! The host's server tools: listing and reading files in the session's working directory.

use crate::resources::{list_dir, Sandbox};
use ahp_wasm::protocol::{DirectoryEntryType, ToolAnnotations, ToolDefinition};
use std::io::Read;
use std::path::Path;

/// Largest slice of a file `read_file` returns.
const READ_LIMIT: u64 = 64 * 1024;

/// The tool list announced in `serverTools`.
pub fn definitions() -> Vec<ToolDefinition> {
    let tool = |name: &str, title: &str, description: &str| ToolDefinition {
        name: name.into(),
        title: Some(title.into()),
        description: Some(description.into()),
        annotations: Some(ToolAnnotations {
            read_only_hint: Some(true),
            ..Default::default()
        }),
        ..Default::default()
    };
    vec![
        tool(
            "list_files",
            "List files",
            "Lists a directory inside the session's working directory.",
        ),
        tool(
            "read_file",
            "Read file",
            "Reads a text file inside the session's working directory (first 64 KiB).",
        ),
    ]
}

/// What a tool run produced.
pub struct Output {
    /// Whether it worked.
    pub success: bool,
    /// One line for the tool call's `pastTenseMessage`.
    pub summary: String,
    /// The text result.
    pub text: String,
}

fn failure(summary: String) -> Output {
    Output {
        success: false,
        text: summary.clone(),
        summary,
    }
}

/// `list_files`: the entries of `rel` (relative to `workdir`), directories marked with `/`.
pub fn list_files(workdir: &Path, rel: &str) -> Output {
    let sandbox = match Sandbox::new(workdir, 0) {
        Ok(s) => s,
        Err(e) => return failure(format!("working directory unavailable: {e}")),
    };
    let path = match sandbox.existing_relative(rel) {
        Ok(p) => p,
        Err(e) => return failure(format!("cannot list `{rel}`: {}", e.message)),
    };
    match list_dir(&path) {
        Ok(entries) => Output {
            success: true,
            summary: format!("Listed {} entries in `{rel}`", entries.len()),
            text: entries
                .iter()
                .map(|e| match e.r#type {
                    DirectoryEntryType::Directory => format!("{}/", e.name),
                    _ => e.name.clone(),
                })
                .collect::<Vec<_>>()
                .join("\n"),
        },
        Err(e) => failure(format!("cannot list `{rel}`: {e}")),
    }
}

/// `read_file`: the start of a file inside `workdir`, as text.
pub fn read_file(workdir: &Path, rel: &str) -> Output {
    let sandbox = match Sandbox::new(workdir, 0) {
        Ok(s) => s,
        Err(e) => return failure(format!("working directory unavailable: {e}")),
    };
    let path = match sandbox.existing_relative(rel) {
        Ok(p) => p,
        Err(e) => return failure(format!("cannot read `{rel}`: {}", e.message)),
    };
    let mut bytes = Vec::new();
    match std::fs::File::open(&path).and_then(|f| f.take(READ_LIMIT).read_to_end(&mut bytes)) {
        Ok(n) => Output {
            success: true,
            summary: format!("Read {n} bytes of `{rel}`"),
            text: String::from_utf8_lossy(&bytes).into_owned(),
        },
        Err(e) => failure(format!("cannot read `{rel}`: {e}")),
    }
}
