//! The host's server tools: listing, reading and writing files in the session's working
//! directory.

use crate::resources::{file_uri, list_dir, Sandbox};
use ahp_wasm::protocol::{
    ContentEncoding, DirectoryEntryType, FileEditDiff, ResourceWriteParams, ToolAnnotations,
    ToolDefinition, ToolResultFileEditContent, ToolResultFileEditContentAfter,
    ToolResultFileEditContentBefore,
};
use std::io::Read;
use std::path::{Path, PathBuf};

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
        ToolDefinition {
            annotations: Some(ToolAnnotations {
                read_only_hint: Some(false),
                destructive_hint: Some(true),
                ..Default::default()
            }),
            ..tool(
                "write_file",
                "Write file",
                "Writes text to a file inside the session's working directory.",
            )
        },
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

/// The existing path `rel` names inside `workdir`, or the failed output of a tool that would
/// `verb` it.
fn existing_path(workdir: &Path, rel: &str, verb: &str) -> Result<PathBuf, Output> {
    let sandbox = Sandbox::new(workdir, 0)
        .map_err(|e| failure(format!("working directory unavailable: {e}")))?;
    sandbox
        .existing_relative(rel)
        .map_err(|e| failure(format!("cannot {verb} `{rel}`: {}", e.message)))
}

/// `list_files`: the entries of `rel` (relative to `workdir`), directories marked with `/`.
pub fn list_files(workdir: &Path, rel: &str) -> Output {
    let path = match existing_path(workdir, rel, "list") {
        Ok(path) => path,
        Err(failed) => return failed,
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
    let path = match existing_path(workdir, rel, "read") {
        Ok(path) => path,
        Err(failed) => return failed,
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

/// Largest file content carried inline in a `write_file` result (`before` and `after`).
const EDIT_INLINE_LIMIT: usize = 64 * 1024;

/// `write_file`: writes `text` to `rel` inside `workdir` with the file commands' confinement
/// (missing directories created, a link in the last component refused); answers the outcome
/// and, on success, the edit (`before` absent for a new file; contents inline up to 64 KiB).
pub fn write_file(
    workdir: &Path,
    rel: &str,
    text: &str,
) -> (Output, Option<ToolResultFileEditContent>) {
    let sandbox = match Sandbox::new(workdir, 0) {
        Ok(s) => s,
        Err(e) => return (failure(format!("working directory unavailable: {e}")), None),
    };
    let target = workdir.join(rel);
    let uri = file_uri(&target);
    let before = sandbox
        .existing(&target)
        .ok()
        .and_then(|p| std::fs::read(p).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    let params = ResourceWriteParams {
        channel: ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL.into(),
        uri: uri.clone(),
        data: text.into(),
        encoding: ContentEncoding::Utf8,
        content_type: None,
        create_only: None,
        mode: None,
        position: None,
        if_match: None,
        extra: Default::default(),
    };
    if let Err(e) = sandbox.write(&params) {
        return (
            failure(format!("cannot write `{rel}`: {}", e.message)),
            None,
        );
    }
    let old = before.as_deref().unwrap_or("");
    let diff = similar::TextDiff::from_lines(old, text);
    let (mut added, mut removed) = (0u64, 0u64);
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    let inline = |s: &str| (s.len() <= EDIT_INLINE_LIMIT).then(|| s.to_owned());
    let edit = ToolResultFileEditContent {
        before: before
            .as_deref()
            .and_then(inline)
            .map(|content| ToolResultFileEditContentBefore {
                uri: uri.clone(),
                content,
                extra: Default::default(),
            }),
        after: inline(text).map(|content| ToolResultFileEditContentAfter {
            uri: uri.clone(),
            content,
            extra: Default::default(),
        }),
        diff: Some(FileEditDiff {
            added: Some(added as f64),
            removed: Some(removed as f64),
            extra: Default::default(),
        }),
        extra: Default::default(),
    };
    let verb = if before.is_some() { "Wrote" } else { "Created" };
    let output = Output {
        success: true,
        summary: format!("{verb} `{rel}` (+{added} -{removed})"),
        text: format!("{} bytes written to `{rel}`", text.len()),
    };
    (output, Some(edit))
}
