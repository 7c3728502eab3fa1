//! A session's changes: its working directory compared with a [`Baseline`] (git `HEAD`, or a
//! snapshot taken when the session's changeset was created), and the revert operations.
//!
//! Everything here is blocking file-system work; the hub runs it on the blocking pool
//! (`hub/changesets.rs`). The work is bounded so a large tree costs a bounded amount:
//!
//! - the walk reads at most [`MAX_WALK_ENTRIES`] directory entries, [`MAX_DEPTH`] levels deep;
//!   `.git` (and every other name git gives it, [`git_path`]) is skipped, links are neither
//!   followed nor compared, and with git, ignored
//!   untracked files and directories are skipped (tracked files are compared wherever they are);
//! - at most [`MAX_FILES`] changed files are listed (in path order; the rest is counted in
//!   `truncated`);
//! - files over [`MAX_DIFF_BYTES`] on either side are compared by size only and get no line
//!   counts; so do binary files (a NUL in their first 8 KiB), which are compared exactly;
//! - line diffs give up after [`DIFF_TIMEOUT`] (the counts are then an approximation);
//! - the unified diff of a file is kept up to [`MAX_UNIFIED`] bytes, and the baseline content
//!   inline (a `data:` URI) up to [`MAX_INLINE`] bytes, both within [`MAX_INLINE_TOTAL`] for the
//!   whole changeset;
//! - a file found equal to the baseline is not read again while its size and modification time
//!   stay ([`Unchanged`]), so an unchanged tree costs a walk.

mod baseline;
pub mod git_path;
mod revert;

pub use baseline::{Base, Baseline, MAX_SNAPSHOT_BYTES};
pub use revert::{revert_all, revert_file, Reverted};

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The changeset channel scheme.
pub const SCHEME: &str = "ahp-changeset:/";
/// Directory entries one walk reads.
pub const MAX_WALK_ENTRIES: usize = 20_000;
/// Directory levels one walk descends.
pub const MAX_DEPTH: usize = 32;
/// Changed files one changeset lists.
pub const MAX_FILES: usize = 500;
/// Files larger than this are compared by size and not diffed.
pub const MAX_DIFF_BYTES: u64 = 1 << 20;
/// Longest time spent diffing one file.
pub const DIFF_TIMEOUT: Duration = Duration::from_millis(200);
/// Longest unified diff kept for one file.
pub const MAX_UNIFIED: usize = 32 << 10;
/// Largest baseline content carried inline.
pub const MAX_INLINE: usize = 64 << 10;
/// Inline content and unified diffs of one changeset, in all.
pub const MAX_INLINE_TOTAL: usize = 4 << 20;

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Not in the baseline.
    Added,
    /// In both, different.
    Modified,
    /// In the baseline only.
    Deleted,
}

impl Kind {
    /// The word used in `_meta.status`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Added => "added",
            Kind::Modified => "modified",
            Kind::Deleted => "deleted",
        }
    }
}

/// One changed file.
#[derive(Debug, Clone, PartialEq)]
pub struct FileChange {
    /// Path relative to the working directory, `/`-separated.
    pub rel: String,
    /// How it changed.
    pub kind: Kind,
    /// Lines added and removed (`None`: binary or too large to diff).
    pub stats: Option<(u64, u64)>,
    /// Its current size (`0` when deleted).
    pub size: u64,
    /// Binary content on either side.
    pub binary: bool,
    /// The baseline content, when small enough to carry inline.
    pub before: Option<Vec<u8>>,
    /// A unified diff (`--- a/x`, `+++ b/x`, hunks), when small enough.
    pub unified: Option<String>,
}

/// The result of one computation.
#[derive(Debug, Default)]
pub struct Computed {
    /// Changed files in path order, at most [`MAX_FILES`].
    pub files: Vec<FileChange>,
    /// Changed files beyond [`MAX_FILES`] (not listed).
    pub truncated: usize,
    /// The walk stopped at a bound: changes beyond it are not seen.
    pub partial: bool,
    /// The directories walked (watched for changes by the hub).
    pub dirs: Vec<PathBuf>,
}

/// A regular file the walk found.
#[derive(Debug)]
pub(crate) struct Walked {
    pub path: PathBuf,
    pub size: u64,
    pub mtime: Option<SystemTime>,
}

/// Files the last comparison found equal to the baseline, with their size and modification
/// time then: the next comparison does not read them again while neither moved, so a large
/// unchanged tree costs a walk, not a read. Files modified less than [`RACY`] before the
/// comparison are not kept (a write within the same timestamp tick would go unseen: git's
/// "racy" case), and the cache is dropped when the baseline changes (a new `HEAD`).
#[derive(Debug, Default)]
pub struct Unchanged {
    identity: String,
    files: HashMap<String, (u64, SystemTime)>,
}

/// See [`Unchanged`].
pub const RACY: Duration = Duration::from_secs(2);

/// What a walk found.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    pub files: BTreeMap<String, Walked>,
    /// The directories read (the working directory first).
    pub dirs: Vec<PathBuf>,
    pub partial: bool,
}

/// The regular files under `dir` (relative paths), skipping `.git` (in all its names), links,
/// and whatever `skip(rel, is_dir)` says, within [`MAX_WALK_ENTRIES`] and [`MAX_DEPTH`].
pub(crate) fn walk(dir: &Path, skip: &mut dyn FnMut(&str, bool) -> bool) -> Walk {
    let mut out = Walk::default();
    let mut stack = vec![(dir.to_path_buf(), String::new(), 0usize)];
    let mut entries = 0usize;
    while let Some((path, rel, depth)) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&path) else {
            continue;
        };
        out.dirs.push(path.clone());
        for entry in read.flatten() {
            entries += 1;
            if entries > MAX_WALK_ENTRIES {
                out.partial = true;
                return out;
            }
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                continue;
            };
            if git_path::is_git_name(name) {
                continue;
            }
            let child = if rel.is_empty() {
                name.to_owned()
            } else {
                format!("{rel}/{name}")
            };
            // The entry's own type: a link is not followed.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if depth + 1 >= MAX_DEPTH {
                    out.partial = true;
                } else if !skip(&child, true) {
                    stack.push((entry.path(), child, depth + 1));
                }
            } else if kind.is_file() && !skip(&child, false) {
                let meta = entry.metadata().ok();
                out.files.insert(
                    child,
                    Walked {
                        path: entry.path(),
                        size: meta.as_ref().map_or(0, |m| m.len()),
                        mtime: meta.and_then(|m| m.modified().ok()),
                    },
                );
            }
        }
    }
    out
}

/// Compares `workdir` (canonical) with `baseline`.
pub fn compute(workdir: &Path, baseline: &Baseline) -> Result<Computed, String> {
    compute_with(workdir, baseline, &mut Unchanged::default())
}

/// [`compute`], skipping the files `unchanged` vouches for (and updating it).
pub fn compute_with(
    workdir: &Path,
    baseline: &Baseline,
    unchanged: &mut Unchanged,
) -> Result<Computed, String> {
    if !workdir.is_dir() {
        return Err("the working directory does not exist".into());
    }
    let started = SystemTime::now();
    let base = baseline.load(workdir)?;
    if unchanged.identity != base.identity {
        unchanged.identity.clone_from(&base.identity);
        unchanged.files.clear();
    }
    let mut still = HashMap::new();
    let mut excludes = base.excludes();
    // Untracked paths git ignores are skipped; a directory only when no baseline file is in it.
    let walked = walk(workdir, &mut |rel, is_dir| {
        let tracked = if is_dir {
            base.dirs.contains(rel)
        } else {
            base.files.contains_key(rel)
        };
        !tracked && excludes.as_mut().is_some_and(|e| e.ignored(rel, is_dir))
    });
    let mut out = Computed {
        partial: walked.partial,
        dirs: walked.dirs,
        ..Computed::default()
    };
    let mut inline_budget = MAX_INLINE_TOTAL;
    let mut paths: Vec<&String> = walked.files.keys().collect();
    for rel in base.files.keys() {
        if !walked.files.contains_key(rel) {
            paths.push(rel);
        }
    }
    paths.sort();
    for rel in paths {
        let now = walked.files.get(rel);
        let stamp = now.and_then(|w| Some((w.size, w.mtime?)));
        if let Some(stamp) = stamp {
            if base.files.contains_key(rel) && unchanged.files.get(rel) == Some(&stamp) {
                still.insert(rel.clone(), stamp);
                continue;
            }
        }
        let Some(change) = compare(&base, rel, now, &mut inline_budget) else {
            let settled = stamp
                .filter(|(_, mtime)| started.duration_since(*mtime).is_ok_and(|age| age >= RACY));
            if let (Some(stamp), true) = (settled, base.files.contains_key(rel)) {
                still.insert(rel.clone(), stamp);
            }
            continue;
        };
        if out.files.len() < MAX_FILES {
            out.files.push(change);
        } else {
            out.truncated += 1;
        }
    }
    // A file the walk did not reach is not "deleted": only report deletions when it was
    // complete, or when the file's directory is gone.
    if out.partial {
        out.files
            .retain(|f| f.kind != Kind::Deleted || !workdir.join(&f.rel).exists());
    }
    unchanged.files = still;
    Ok(out)
}

/// Whether a file changed, and how.
fn compare(
    base: &Base,
    rel: &str,
    now: Option<&Walked>,
    inline_budget: &mut usize,
) -> Option<FileChange> {
    let then = base.files.get(rel);
    let (kind, size) = match (then, now) {
        (None, None) => return None,
        (None, Some(w)) => (Kind::Added, w.size),
        (Some(_), None) => (Kind::Deleted, 0),
        (Some(_), Some(w)) => (Kind::Modified, w.size),
    };
    let too_large = size > MAX_DIFF_BYTES || then.is_some_and(|b| b.size > MAX_DIFF_BYTES);
    if too_large {
        if kind == Kind::Modified && then.is_some_and(|b| b.size == size) {
            return None;
        }
        return Some(FileChange {
            rel: rel.to_owned(),
            kind,
            stats: None,
            size,
            binary: false,
            before: None,
            unified: None,
        });
    }
    let old = if then.is_some() {
        match base.read(rel) {
            Some(bytes) => bytes,
            // Kept by size only (an over-full snapshot): compare sizes.
            None if kind == Kind::Modified && then.is_some_and(|b| b.size == size) => return None,
            None => Vec::new(),
        }
    } else {
        Vec::new()
    };
    let new = match now {
        Some(w) => std::fs::read(&w.path).ok()?,
        None => Vec::new(),
    };
    if kind == Kind::Modified && old == new {
        return None;
    }
    let binary = is_binary(&old) || is_binary(&new);
    let (stats, unified) = if binary {
        (None, None)
    } else {
        let (a, b) = (String::from_utf8_lossy(&old), String::from_utf8_lossy(&new));
        let diff = similar::TextDiff::configure()
            .timeout(DIFF_TIMEOUT)
            .diff_lines(a.as_ref(), b.as_ref());
        let (mut added, mut removed) = (0u64, 0u64);
        for op in diff.ops() {
            for change in diff.iter_changes(op) {
                match change.tag() {
                    similar::ChangeTag::Insert => added += 1,
                    similar::ChangeTag::Delete => removed += 1,
                    similar::ChangeTag::Equal => {}
                }
            }
        }
        let (from, to) = match kind {
            Kind::Added => ("/dev/null".to_owned(), format!("b/{rel}")),
            Kind::Deleted => (format!("a/{rel}"), "/dev/null".to_owned()),
            Kind::Modified => (format!("a/{rel}"), format!("b/{rel}")),
        };
        let text = diff
            .unified_diff()
            .context_radius(3)
            .header(&from, &to)
            .to_string();
        let unified = (text.len() <= MAX_UNIFIED && text.len() <= *inline_budget).then(|| {
            *inline_budget -= text.len();
            text
        });
        (Some((added, removed)), unified)
    };
    let before =
        (then.is_some() && old.len() <= MAX_INLINE && old.len() <= *inline_budget).then(|| {
            *inline_budget -= old.len();
            old
        });
    Some(FileChange {
        rel: rel.to_owned(),
        kind,
        stats,
        size,
        binary,
        before,
        unified,
    })
}

/// Git's rule: a NUL byte in the first 8 KiB.
fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8000)].contains(&0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_baseline_sees_adds_edits_and_deletes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("keep.txt"), "a\nb\n").unwrap();
        std::fs::write(root.join("edit.txt"), "one\ntwo\nthree\n").unwrap();
        std::fs::write(root.join("gone.txt"), "x\n").unwrap();
        let baseline = Baseline::take(&root, &root);
        assert!(matches!(baseline, Baseline::Snapshot(_)));
        assert!(compute(&root, &baseline).unwrap().files.is_empty());
        std::fs::write(root.join("edit.txt"), "one\n2\nthree\nfour\n").unwrap();
        std::fs::remove_file(root.join("gone.txt")).unwrap();
        std::fs::create_dir(root.join("new")).unwrap();
        std::fs::write(root.join("new/file.bin"), b"\0\x01").unwrap();
        let c = compute(&root, &baseline).unwrap();
        let got: Vec<_> = c
            .files
            .iter()
            .map(|f| (f.rel.as_str(), f.kind, f.stats))
            .collect();
        assert_eq!(
            got,
            vec![
                ("edit.txt", Kind::Modified, Some((2, 1))),
                ("gone.txt", Kind::Deleted, Some((0, 1))),
                ("new/file.bin", Kind::Added, None),
            ]
        );
        let edit = &c.files[0];
        assert_eq!(edit.before.as_deref(), Some(&b"one\ntwo\nthree\n"[..]));
        let unified = edit.unified.as_deref().unwrap();
        assert!(
            unified.starts_with("--- a/edit.txt\n+++ b/edit.txt\n@@"),
            "{unified}"
        );
        assert!(unified.contains("-two\n") && unified.contains("+four\n"));
    }

    #[test]
    fn unchanged_files_are_not_read_again_until_they_move() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let old = SystemTime::now() - Duration::from_secs(60);
        for name in ["old.txt", "new.txt"] {
            std::fs::write(root.join(name), "same\n").unwrap();
        }
        let f = std::fs::File::options()
            .write(true)
            .open(root.join("old.txt"))
            .unwrap();
        f.set_modified(old).unwrap();
        let baseline = Baseline::take(&root, &root);
        let mut cache = Unchanged::default();
        assert!(compute_with(&root, &baseline, &mut cache)
            .unwrap()
            .files
            .is_empty());
        // Only the settled file is vouched for; the fresh one is read every time.
        assert_eq!(cache.files.keys().collect::<Vec<_>>(), ["old.txt"]);
        std::fs::write(root.join("old.txt"), "diff\n").unwrap();
        let c = compute_with(&root, &baseline, &mut cache).unwrap();
        assert_eq!(
            c.files.iter().map(|f| f.rel.as_str()).collect::<Vec<_>>(),
            ["old.txt"]
        );
        assert!(cache.files.is_empty());
    }
}
