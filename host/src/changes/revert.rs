//! The revert operations: a file back to its baseline content (byte for byte, git's executable
//! bit included), a file the baseline lacks deleted. Paths are resolved with the file commands'
//! confinement ([`Sandbox::entry`], [`Sandbox::for_write`]: every link and `..` followed, the
//! last component kept) and must land strictly inside the session's working directory; the
//! write takes the sandbox's mutation lock and never follows a link in the last component.

use super::{compute, Baseline};
use crate::resources::{file_uri, Sandbox};
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::ErrorObject;
use std::io::Write;
use std::path::{Component, Path};

fn failed(message: impl Into<String>) -> ErrorObject {
    ErrorObject::new(errors::INTERNAL_ERROR, message)
}

/// Reverts the file `rel` (relative to `workdir`, canonical) to `baseline`.
pub fn revert_file(
    sandbox: &Sandbox,
    workdir: &Path,
    baseline: &Baseline,
    rel: &str,
) -> Result<(), ErrorObject> {
    let base = baseline.load(workdir).map_err(failed)?;
    revert_one(sandbox, workdir, &base, rel)
}

/// Reverts every change; answers how many files were reverted. Runs the comparison again
/// until nothing is left (a changeset lists at most `MAX_FILES` at a time), at most 64 rounds.
pub fn revert_all(
    sandbox: &Sandbox,
    workdir: &Path,
    baseline: &Baseline,
) -> Result<usize, ErrorObject> {
    let mut reverted = 0;
    for _ in 0..64 {
        let computed = compute(workdir, baseline).map_err(failed)?;
        if computed.files.is_empty() {
            return Ok(reverted);
        }
        let base = baseline.load(workdir).map_err(failed)?;
        let mut progress = false;
        let mut last_error = None;
        for file in &computed.files {
            match revert_one(sandbox, workdir, &base, &file.rel) {
                Ok(()) => {
                    reverted += 1;
                    progress = true;
                }
                Err(e) => last_error = Some(e),
            }
        }
        if let Some(e) = last_error {
            return Err(failed(format!(
                "{reverted} files reverted, some could not be: {}",
                e.message
            )));
        }
        if !progress {
            break;
        }
    }
    Ok(reverted)
}

fn revert_one(
    sandbox: &Sandbox,
    workdir: &Path,
    base: &super::Base,
    rel: &str,
) -> Result<(), ErrorObject> {
    if rel.is_empty()
        || !Path::new(rel)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
    {
        return Err(ErrorObject::new(errors::INVALID_PARAMS, "not a file path"));
    }
    let target = workdir.join(rel);
    let _guard = sandbox.lock();
    match base.files.get(rel) {
        Some(file) => {
            let content = base.read(rel).ok_or_else(|| {
                failed(format!(
                    "`{rel}`: its original content was not kept (too large), it cannot be reverted"
                ))
            })?;
            let path = sandbox.for_write(&target)?;
            inside(&path, workdir)?;
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
        }
        None => {
            let path = sandbox.entry(&target)?;
            inside(&path, workdir)?;
            match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_dir() => {
                    return Err(failed(format!("`{rel}` is a directory; not deleted")))
                }
                Ok(_) => {
                    std::fs::remove_file(&path).map_err(|e| failed(format!("`{rel}`: {e}")))?
                }
                // Already gone: nothing to revert.
                Err(_) => {}
            }
        }
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
        assert_eq!(revert_all(&sandbox, &root, &baseline).unwrap(), 1);
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
}
