//! `completions` for a user message being typed (`CompletionItemKind.UserMessage`):
//!
//! - `@<query>` at the cursor: files and directories of the session's working directory, as
//!   `resource` attachments. A query without `/` matches entry names anywhere in the tree
//!   (shallower first); one with `/` matches paths from the working directory, walking only
//!   the directory it names. Case is ignored. The walk is bounded ([`Bounds`]), skips `.git`,
//!   never follows a link (a link is offered only when it resolves inside the working
//!   directory) and never leaves the working directory: `..`, `.` and absolute paths in the
//!   query match nothing.
//! - `/<words>` at the start of a line: the built-in agent's directives
//!   (the agent's catalogue, handed in as [`DirectiveInfo`]s) whose words start with what was
//!   typed, as `simple` attachments (`_meta.description` says what the directive does).
//!
//! Every item replaces the `@`/`/` token at the cursor (`rangeStart`..`rangeEnd`, in UTF-16
//! code units, through the end of the word the cursor is in).

use crate::resources::file_uri;
use ahp_wasm::protocol::{
    CompletionItem, JsonObject, MessageAttachment, MessageResourceAttachment,
    SimpleMessageAttachment,
};
use std::collections::VecDeque;
use std::path::{Component, Path, PathBuf};

/// How much one `@` completion may look at and answer.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Items answered at most.
    pub max_items: usize,
    /// Directory entries read at most (the walk stops there).
    pub max_entries: usize,
    /// Directory levels below the working directory walked at most.
    pub max_depth: usize,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            max_items: 50,
            max_entries: 10_000,
            max_depth: 16,
        }
    }
}

/// The byte index of a UTF-16 offset into `text`, or `None` when the offset is past the end or
/// falls inside a character.
pub fn byte_offset(text: &str, offset: f64) -> Option<usize> {
    if !(offset.is_finite() && offset >= 0.0 && offset.fract() == 0.0) {
        return None;
    }
    let target = offset as usize;
    let mut units = 0;
    for (i, c) in text.char_indices() {
        if units == target {
            return Some(i);
        }
        units += c.len_utf16();
        if units > target {
            return None;
        }
    }
    (units == target).then_some(text.len())
}

fn utf16_len(s: &str) -> f64 {
    s.encode_utf16().count() as f64
}

/// One form of a directive, as `/` completions offer it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectiveInfo {
    /// The fixed words after the `/` (`"tool list"`, `"ask"`).
    pub words: &'static str,
    /// The arguments, as shown to a user (`"<question>"`, `"[path]"`; empty: none).
    pub args: &'static str,
    /// What it does.
    pub summary: &'static str,
}

impl DirectiveInfo {
    /// `/words args`.
    pub fn usage(&self) -> String {
        if self.args.is_empty() {
            format!("/{}", self.words)
        } else {
            format!("/{} {}", self.words, self.args)
        }
    }
}

/// The completion items for `text` with the cursor at byte `cursor` (a char boundary); `/`
/// offers `directives`.
pub fn complete(
    root: &Path,
    text: &str,
    cursor: usize,
    bounds: Bounds,
    directives: &[DirectiveInfo],
) -> Vec<CompletionItem> {
    let before = &text[..cursor];
    let start = before.rfind(char::is_whitespace).map_or(0, |i| {
        i + before[i..].chars().next().map_or(1, char::len_utf8)
    });
    let end = text[cursor..]
        .find(char::is_whitespace)
        .map_or(text.len(), |i| cursor + i);
    let range = (utf16_len(&text[..start]), utf16_len(&text[..end]));
    if let Some(query) = text[start..cursor].strip_prefix('@') {
        return mentions(root, query, bounds)
            .into_iter()
            .map(|m| m.item(range))
            .collect();
    }
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = &before[line_start..];
    let Some(typed) = line.trim_start().strip_prefix('/') else {
        return Vec::new();
    };
    let slash = cursor - typed.len() - 1;
    let range = (utf16_len(&text[..slash]), range.1);
    directives
        .iter()
        .filter(|d| d.words.starts_with(typed))
        .map(|d| {
            let mut meta = JsonObject::new();
            meta.insert("description".into(), d.summary.into());
            let insert = if d.args.is_empty() {
                format!("/{}", d.words)
            } else {
                format!("/{} ", d.words)
            };
            CompletionItem {
                insert_text: insert,
                range_start: Some(range.0),
                range_end: Some(range.1),
                attachment: MessageAttachment::Simple(SimpleMessageAttachment {
                    label: d.usage(),
                    range: None,
                    display_kind: None,
                    meta: Some(meta),
                    model_representation: None,
                    extra: Default::default(),
                }),
                extra: Default::default(),
            }
        })
        .collect()
}

/// One entry offered for an `@` mention.
#[derive(Debug)]
struct Mention {
    /// Path from the working directory, `/`-separated.
    rel: String,
    path: PathBuf,
    dir: bool,
    size: Option<u64>,
}

impl Mention {
    fn item(self, (start, end): (f64, f64)) -> CompletionItem {
        let label = if self.dir {
            format!("{}/", self.rel)
        } else {
            self.rel.clone()
        };
        CompletionItem {
            insert_text: format!("@{}", self.rel),
            range_start: Some(start),
            range_end: Some(end),
            attachment: MessageAttachment::Resource(MessageResourceAttachment {
                label,
                range: None,
                display_kind: Some(if self.dir { "directory" } else { "document" }.into()),
                meta: None,
                uri: file_uri(&self.path),
                size_hint: self.size.map(|s| s as f64),
                content_type: None,
                selection: None,
                extra: Default::default(),
            }),
            extra: Default::default(),
        }
    }
}

/// The entries under `root` matching `query` (see the module docs), breadth first, each
/// directory's entries by name.
fn mentions(root: &Path, query: &str, bounds: Bounds) -> Vec<Mention> {
    let Ok(root) = root.canonicalize() else {
        return Vec::new();
    };
    let query = query.to_lowercase();
    // A query with `/` names a directory to start from: plain names only, each a real
    // directory (not a link).
    let (start_rel, by_path) = match query.rsplit_once('/') {
        None => (String::new(), false),
        Some((dir, _)) => {
            let mut at = root.clone();
            let mut rel = Vec::new();
            for part in Path::new(dir).components() {
                let Component::Normal(name) = part else {
                    return Vec::new();
                };
                // Case is ignored: find the entry whose lowercase name is this part.
                let Some(found) = child_named(&at, &name.to_string_lossy()) else {
                    return Vec::new();
                };
                at.push(&found);
                rel.push(found);
            }
            if rel.is_empty() && !dir.is_empty() {
                return Vec::new();
            }
            (rel.join("/"), true)
        }
    };
    let mut out = Vec::new();
    let mut read = 0;
    let mut queue = VecDeque::from([(start_rel, 0usize)]);
    while let Some((dir_rel, depth)) = queue.pop_front() {
        let dir = if dir_rel.is_empty() {
            root.clone()
        } else {
            root.join(&dir_rel)
        };
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut names = Vec::new();
        for entry in entries.flatten() {
            read += 1;
            if read > bounds.max_entries {
                break;
            }
            names.push(entry);
        }
        names.sort_by_key(|e| e.file_name());
        for entry in names {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == ".git" {
                continue;
            }
            let rel = if dir_rel.is_empty() {
                name.clone()
            } else {
                format!("{dir_rel}/{name}")
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            let (dir, size) = if kind.is_symlink() {
                match path.canonicalize() {
                    Ok(target) if target.starts_with(&root) => {
                        let meta = std::fs::metadata(&target).ok();
                        (
                            meta.as_ref().is_some_and(|m| m.is_dir()),
                            meta.filter(|m| m.is_file()).map(|m| m.len()),
                        )
                    }
                    _ => continue,
                }
            } else {
                let size = kind
                    .is_file()
                    .then(|| entry.metadata().ok().map(|m| m.len()))
                    .flatten();
                (kind.is_dir(), size)
            };
            let lower = rel.to_lowercase();
            let matches = if by_path {
                lower.starts_with(&query)
            } else {
                name.to_lowercase().starts_with(&query)
            };
            // Links are offered, never walked into.
            let walk = kind.is_dir() && depth < bounds.max_depth && (!by_path || matches);
            if walk {
                queue.push_back((rel.clone(), depth + 1));
            }
            if matches {
                out.push(Mention {
                    rel,
                    path,
                    dir,
                    size,
                });
                if out.len() >= bounds.max_items {
                    return out;
                }
            }
        }
        if read > bounds.max_entries {
            break;
        }
    }
    out
}

/// The name of the real directory (not a link) in `dir` whose name is `lower` ignoring case.
fn child_named(dir: &Path, lower: &str) -> Option<String> {
    if lower == ".git" {
        return None;
    }
    let exact = dir.join(lower);
    let is_dir = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    if is_dir(&exact) {
        return Some(lower.to_owned());
    }
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .take(Bounds::default().max_entries)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".git" && n.to_lowercase() == lower)
        .find(|n| is_dir(&dir.join(n)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::directives::CATALOGUE;

    #[test]
    fn utf16_offsets() {
        let text = "a😀b";
        assert_eq!(byte_offset(text, 0.0), Some(0));
        assert_eq!(byte_offset(text, 1.0), Some(1));
        assert_eq!(byte_offset(text, 2.0), None, "inside the surrogate pair");
        assert_eq!(byte_offset(text, 3.0), Some(5));
        assert_eq!(byte_offset(text, 4.0), Some(6));
        assert_eq!(byte_offset(text, 5.0), None);
        assert_eq!(byte_offset(text, 0.5), None);
        assert_eq!(byte_offset(text, -1.0), None);
        assert_eq!(byte_offset("", 0.0), Some(0));
    }

    fn tree(n: usize) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..n {
            let sub = dir.path().join(format!("d{i}"));
            std::fs::create_dir(&sub).unwrap();
            std::fs::write(sub.join("f.txt"), "x").unwrap();
        }
        dir
    }

    #[test]
    fn the_walk_stops_at_its_entry_bound() {
        let dir = tree(30);
        let all = Bounds {
            max_items: 1000,
            max_entries: 1000,
            max_depth: 4,
        };
        assert_eq!(mentions(dir.path(), "f", all).len(), 30);
        let few = Bounds {
            max_entries: 40,
            ..all
        };
        // 30 entries at the top, then 10 of the directories are read.
        assert_eq!(mentions(dir.path(), "f", few).len(), 10);
        let shallow = Bounds {
            max_depth: 0,
            ..all
        };
        assert!(mentions(dir.path(), "f", shallow).is_empty());
    }

    #[test]
    fn directives_complete_at_the_start_of_a_line_only() {
        let root = Path::new("/nonexistent");
        let words = |text: &str| -> Vec<String> {
            complete(root, text, text.len(), Bounds::default(), CATALOGUE)
                .into_iter()
                .map(|i| i.insert_text)
                .collect()
        };
        assert_eq!(words("/to"), ["/tool list ", "/tool read "]);
        assert_eq!(words("hi\n  /tool r"), ["/tool read "]);
        assert_eq!(words("/pro"), ["/prompt"]);
        assert!(words("see a/b").is_empty());
        assert!(words("x /ask").is_empty());
        assert!(words("/ask why").is_empty());
        assert_eq!(words("/").len(), CATALOGUE.len());
    }
}
