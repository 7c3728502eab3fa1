//! Git's rule for the paths it never tracks (`verify_path`, with `core.protectNTFS` and
//! `core.protectHFS` on, as git's own checkout has them): no component may name the
//! repository's `.git`. A changeset never lists such a path and never writes one, whatever
//! `HEAD` lists: a hostile tree naming `.git/hooks/pre-commit` (what a clone leaves in `HEAD`
//! after "invalid path") would otherwise become a hook that the next `git commit` runs.

use std::path::{Component, Path};

/// Whether one path component names `.git` on some file system: `.git` in any case, followed
/// by dots or spaces (NTFS drops them) or by an NTFS stream (`.git::$INDEX_ALLOCATION`); its
/// NTFS 8.3 short name `git~1` likewise; and both with the characters HFS+ ignores
/// (`.g\u{200c}it`).
pub fn is_git_name(name: &str) -> bool {
    let folded: String = name.chars().filter(|c| !hfs_ignored(*c)).collect();
    let bytes = folded.as_bytes();
    let rest = if bytes.len() >= 4 && bytes[..4].eq_ignore_ascii_case(b".git") {
        &bytes[4..]
    } else if bytes.len() >= 5 && bytes[..5].eq_ignore_ascii_case(b"git~1") {
        &bytes[5..]
    } else {
        return false;
    };
    for &c in rest {
        match c {
            b':' => return true,
            b'.' | b' ' => {}
            _ => return false,
        }
    }
    true
}

/// The code points HFS+ ignores in names (git's `next_hfs_char`).
fn hfs_ignored(c: char) -> bool {
    matches!(
        c,
        '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}'
    )
}

/// Whether a relative path names `.git` in any component (`/`-separated; a `\` separates too,
/// as on Windows).
pub fn names_git(rel: &str) -> bool {
    rel.split(['/', '\\']).any(is_git_name)
}

/// [`names_git`] for a path on disk.
pub fn path_names_git(path: &Path) -> bool {
    path.components().any(|c| match c {
        Component::Normal(name) => names_git(&name.to_string_lossy()),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_names_follow_gits_verify_path() {
        for name in [
            ".git",
            ".GIT",
            ".Git",
            ".git.",
            ".git ",
            ".git. .",
            ".git::$INDEX_ALLOCATION",
            ".git:stream",
            "git~1",
            "GIT~1",
            "git~1.",
            ".g\u{200c}it",
            "\u{feff}.git",
        ] {
            assert!(is_git_name(name), "{name:?}");
        }
        for name in [
            "",
            ".",
            "..",
            "git",
            ".gitignore",
            ".gitmodules",
            ".git-x",
            ".gi",
            "git~2",
            "git~10",
            ".github",
            "x.git",
            "a.git.",
        ] {
            assert!(!is_git_name(name), "{name:?}");
        }
        assert!(names_git("sub/.git/x"));
        assert!(names_git("a\\.git\\x"));
        assert!(names_git(".GIT/config"));
        assert!(!names_git("src/git/x.rs"));
        assert!(path_names_git(Path::new("sub/git~1/hooks")));
        assert!(!path_names_git(Path::new("sub/.github/workflows")));
    }
}
