//! The revert operations: a file back to its baseline content (byte for byte, git's executable
//! bit included), a file the baseline lacks deleted. Paths are resolved with the file commands'
//! confinement ([`Sandbox::entry`], [`Sandbox::for_write`]: every link and `..` followed, the
//! last component kept) and must land strictly inside the session's working directory; the
//! write takes the sandbox's mutation lock and never follows a link in the last component.
//!
//! Nothing is ever written into a repository's `.git`: a path naming it ([`git_path`]) is
//! refused as asked, and so is one that resolves into it (through a link, or into the
//! repository's git directory wherever it is), before any directory is created.

use super::{compute, git_path, Base, Baseline};
use crate::resources::{file_uri, Sandbox};
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::ErrorObject;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

/// Rounds of `revert-all` (each reverts what one comparison lists, at most `MAX_FILES`).
const MAX_ROUNDS: usize = 64;

fn failed(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(errors::INTERNAL_ERROR, message)
}

/// What `revert-all` changed: each file written or deleted, once.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Reverted {
    /// Paths relative to the working directory.
    pub files: BTreeSet<String>,
}

impl Reverted {
    /// "Reverted N files", the operation's answer.
    pub fn message(&self) -> String {
        match self.files.len() {
            1 => "Reverted 1 file".to_owned(),
            n => format!("Reverted {n} files"),
        }
    }
}

/// Reverts the file `rel` (relative to `workdir`, canonical) to `baseline`.
pub fn revert_file(
    sandbox: &Sandbox,
    workdir: &Path,
    baseline: &Baseline,
    rel: &str,
) -> Result<(), ErrorObject> {
    let base = baseline.load(workdir).map_err(failed)?;
    revert_one(sandbox, workdir, &base, rel).map(|_| ())
}

/// Reverts every change; answers exactly the files it wrote or deleted. Runs the comparison
/// again until nothing is left (a changeset lists at most `MAX_FILES` at a time), and stops
/// when a round changes no file it had not changed already (something else keeps rewriting
/// them, or they cannot be brought back): it always ends, within [`MAX_ROUNDS`].
pub fn revert_all(
    sandbox: &Sandbox,
    workdir: &Path,
    baseline: &Baseline,
) -> Result<Reverted, ErrorObject> {
    let mut done = Reverted::default();
    for _ in 0..MAX_ROUNDS {
        let computed = compute(workdir, baseline).map_err(failed)?;
        if computed.files.is_empty() {
            break;
        }
        let base = baseline.load(workdir).map_err(failed)?;
        let mut progress = false;
        let mut last_error = None;
        for file in &computed.files {
            match revert_one(sandbox, workdir, &base, &file.rel) {
                Ok(true) => progress |= done.files.insert(file.rel.clone()),
                Ok(false) => {}
                Err(e) => last_error = Some(e),
            }
        }
        if let Some(e) = last_error {
            let n = done.files.len();
            return Err(ErrorObject::new(
                e.code,
                format!("{n} files reverted, some could not be: {}", e.message),
            ));
        }
        if !progress {
            break;
        }
    }
    Ok(done)
}

/// Reverts one file; answers whether it wrote or deleted anything.
fn revert_one(
    sandbox: &Sandbox,
    workdir: &Path,
    base: &Base,
    rel: &str,
) -> Result<bool, ErrorObject> {
    if rel.is_empty()
        || !Path::new(rel)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
    {
        return Err(ErrorObject::new(errors::INVALID_PARAMS, "not a file path"));
    }
    if git_path::names_git(rel) {
        return Err(ErrorObject::new(
            errors::INVALID_PARAMS,
            format!("`{rel}` is inside `.git`: a changeset never writes there"),
        ));
    }
    let target = workdir.join(rel);
    let git_dirs = base.git_dirs();
    let _guard = sandbox.lock();
    // Before anything is created: where the path's existing part really leads.
    not_into_git(&existing_ancestor(&target), workdir, &git_dirs, rel)?;
    match base.files.get(rel) {
        Some(file) => {
            let content = base.read(rel).ok_or_else(|| {
                failed(format!(
                    "`{rel}`: its original content was not kept (too large), it cannot be reverted"
                ))
            })?;
            let path = sandbox.for_write(&target)?;
            inside(&path, workdir)?;
            not_into_git(&path, workdir, &git_dirs, rel)?;
            let meta = std::fs::symlink_metadata(&path).ok();
            if meta.as_ref().is_some_and(|m| m.is_dir()) {
                return Err(failed(format!("`{rel}` is a directory now; not reverted")));
            }
            if meta.as_ref().is_some_and(|m| m.file_type().is_symlink()) {
                // The link itself is replaced; what it points to is not touched.
                std::fs::remove_file(&path).map_err(|e| failed(format!("`{rel}`: {e}")))?;
            }
            write_nofollow(&path, &content, file.executable)
                .map_err(|e| failed(format!("`{rel}`: {e}")))?;
            Ok(true)
        }
        None => {
            let path = sandbox.entry(&target)?;
            inside(&path, workdir)?;
            not_into_git(&path, workdir, &git_dirs, rel)?;
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_dir() => Err(failed(format!("`{rel}` is a directory; not deleted"))),
                Ok(_) => {
                    std::fs::remove_file(&path).map_err(|e| failed(format!("`{rel}`: {e}")))?;
                    Ok(true)
                }
                // Already gone: nothing to revert.
                Err(_) => Ok(false),
            }
        }
    }
}

/// The deepest existing ancestor of `path`, resolved (links followed).
fn existing_ancestor(path: &Path) -> PathBuf {
    let mut at = path.parent();
    while let Some(dir) = at {
        if let Ok(real) = dir.canonicalize() {
            return real;
        }
        at = dir.parent();
    }
    PathBuf::from("/")
}

/// Refuses a resolved path that lands in `.git`: a component naming it below the working
/// directory, or inside the repository's git directory.
fn not_into_git(
    resolved: &Path,
    workdir: &Path,
    git_dirs: &[PathBuf],
    rel: &str,
) -> Result<(), ErrorObject> {
    let below = resolved.strip_prefix(workdir).unwrap_or(resolved);
    if git_path::path_names_git(below) || git_dirs.iter().any(|d| resolved.starts_with(d)) {
        return Err(ErrorObject::new(
            errors::PERMISSION_DENIED,
            format!("`{rel}` leads into the repository's `.git`: a changeset never writes there"),
        ));
    }
    Ok(())
}

/// Strictly inside the session's working directory (the host's sandbox may be larger).
fn inside(path: &Path, workdir: &Path) -> Result<(), ErrorObject> {
    if path != workdir && path.starts_with(workdir) {
        Ok(())
    } else {
        Err(ErrorObject::new(
            errors::PERMISSION_DENIED,
            format!(
                "{} is outside the session's working directory",
                file_uri(path)
            ),
        ))
    }
}

fn write_nofollow(path: &Path, content: &[u8], executable: bool) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let mut file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    file.write_all(content)?;
    #[cfg(unix)]
    if executable {
        use std::os::unix::fs::PermissionsExt;
        let mut perms = file.metadata()?.permissions();
        perms.set_mode(perms.mode() | 0o111);
        file.set_permissions(perms)?;
    }
    #[cfg(not(unix))]
    let _ = executable;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::Kind;
    use super::*;

    #[test]
    fn reverts_restore_bytes_and_delete_added_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "original\r\nbytes").unwrap();
        let baseline = Baseline::take(&root, &root);
        let sandbox = Sandbox::new(&root, 1 << 20).unwrap();
        std::fs::write(root.join("a.txt"), "changed").unwrap();
        std::fs::write(root.join("new.txt"), "new").unwrap();
        revert_file(&sandbox, &root, &baseline, "a.txt").unwrap();
        assert_eq!(
            std::fs::read(root.join("a.txt")).unwrap(),
            b"original\r\nbytes"
        );
        assert!(revert_file(&sandbox, &root, &baseline, "../x").is_err());
        assert_eq!(
            revert_all(&sandbox, &root, &baseline).unwrap().files.len(),
            1
        );
        assert!(!root.join("new.txt").exists());
        assert_eq!(
            compute(&root, &baseline)
                .unwrap()
                .files
                .iter()
                .map(|f| f.kind)
                .collect::<Vec<Kind>>(),
            vec![]
        );
    }

    /// Runs git in `dir` with `input` on its stdin; answers its stdout, trimmed.
    fn git(dir: &Path, args: &[&str], input: &str) -> String {
        let mut child = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("git runs");
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    /// A `HEAD` tree naming `.git/config` and `link/config` (a directory in the tree; a link to
    /// `.git` in the working tree): neither is ever written, whichever way it is asked for.
    #[test]
    fn paths_inside_git_are_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        git(&root, &["init", "-q"], "");
        std::fs::write(root.join("a.txt"), "a\n").unwrap();
        git(&root, &["add", "."], "");
        git(&root, &["commit", "-q", "-m", "init"], "");
        let evil = git(
            &root,
            &["hash-object", "-w", "--stdin"],
            "[core]\n\tfsmonitor = touch pwned\n",
        );
        let inner = git(&root, &["mktree"], &format!("100644 blob {evil}\tconfig\n"));
        let a = git(&root, &["rev-parse", "HEAD:a.txt"], "");
        let listing = format!(
            "040000 tree {inner}\t.git\n040000 tree {inner}\tlink\n100644 blob {a}\ta.txt\n"
        );
        let top = git(&root, &["mktree"], &listing);
        let commit = git(
            &root,
            &["commit-tree", &top, "-p", "HEAD", "-m", "evil"],
            "",
        );
        git(&root, &["update-ref", "HEAD", &commit], "");
        std::os::unix::fs::symlink(".git", root.join("link")).unwrap();
        let config = std::fs::read(root.join(".git/config")).unwrap();

        let baseline = Baseline::take(&root, &root);
        assert!(matches!(baseline, Baseline::Git { .. }));
        let sandbox = Sandbox::new(&root, 1 << 20).unwrap();
        for rel in [".git/config", ".GIT/config", "link/config", "git~1/config"] {
            let e = revert_file(&sandbox, &root, &baseline, rel)
                .expect_err(&format!("{rel} is refused"));
            assert!(e.message.contains(".git"), "{rel}: {}", e.message);
        }
        let all = revert_all(&sandbox, &root, &baseline);
        assert!(all.is_err(), "link/config is listed and refused: {all:?}");
        assert_eq!(std::fs::read(root.join(".git/config")).unwrap(), config);
        assert!(!root.join(".GIT").exists() && !root.join("git~1").exists());
    }
}
