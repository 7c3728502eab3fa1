//! `resourceMkdir`, `resourceDelete`, `resourceCopy` and `resourceMove`.
//!
//! Every check (confinement, the root, existing targets, a tree's size and kinds of entries)
//! happens before anything changes. A copy is made under a temporary name beside its
//! destination and renamed into place at the end, so a failed copy leaves nothing behind, and a
//! replaced target is moved aside until its replacement is in place (and put back if that
//! fails).

use super::{
    already_exists, denied, invalid, io_error, nonblocking, not_a_file, uri_path, Sandbox,
};
use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::ErrorObject;
use ahp_wasm::protocol::{
    ResourceCopyParams, ResourceCopyResult, ResourceDeleteParams, ResourceDeleteResult,
    ResourceMkdirParams, ResourceMkdirResult, ResourceMoveParams, ResourceMoveResult,
};
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// Most entries (files, directories, links) one copy makes.
pub const MAX_COPY_ENTRIES: usize = 10_000;

/// One entry of a tree to copy, by its path relative to the tree's top (empty: the top).
enum Node {
    Dir(PathBuf),
    File(PathBuf),
    /// A symbolic link, copied as a link with the same target (as `cp -R` does): every access
    /// through it is resolved and confined again, so it reaches nothing the original did not.
    Link(PathBuf, PathBuf),
}

impl Sandbox {
    /// `resourceMkdir`: `mkdir -p`; an existing directory is success, anything else in the
    /// way is `AlreadyExists`.
    pub fn mkdir(&self, p: &ResourceMkdirParams) -> Result<ResourceMkdirResult, ErrorObject> {
        let path = uri_path(&p.uri)?;
        let _guard = self.lock();
        match self.existing(&path) {
            Ok(real) if real.is_dir() => return Ok(empty()),
            Ok(_) => return Err(already_exists("a file exists at this path")),
            Err(e) if e.code == errors::NOT_FOUND => {}
            Err(e) => return Err(e),
        }
        self.create_dirs(&path)?;
        match self.existing(&path) {
            Ok(real) if real.is_dir() => Ok(empty()),
            // A link that points nowhere, say.
            _ => Err(already_exists(
                "something that is not a directory is at this path",
            )),
        }
    }

    /// `resourceDelete`: a file or link (the link itself, never what it points to), an empty
    /// directory, or with `recursive: true` a directory and everything in it. Never the root.
    pub fn delete(&self, p: &ResourceDeleteParams) -> Result<ResourceDeleteResult, ErrorObject> {
        let path = uri_path(&p.uri)?;
        let _guard = self.lock();
        let entry = self.entry(&path)?;
        if entry == self.root {
            return Err(denied("the working directory itself cannot be deleted"));
        }
        let meta = fs::symlink_metadata(&entry).map_err(|e| io_error(e, "resource"))?;
        let removed = if !meta.is_dir() {
            fs::remove_file(&entry)
        } else if p.recursive == Some(true) {
            // Does not follow links inside the tree.
            fs::remove_dir_all(&entry)
        } else {
            fs::remove_dir(&entry)
        };
        removed.map_err(|e| io_error(e, "resource"))?;
        Ok(empty())
    }

    /// `resourceCopy`: a file, or a directory with everything in it. A link given as the
    /// source is followed (it must land inside); links inside a copied tree are copied as links.
    /// The destination's parent must exist; an existing destination is replaced unless
    /// `failIfExists`.
    pub fn copy(&self, p: &ResourceCopyParams) -> Result<ResourceCopyResult, ErrorObject> {
        let (source, destination) = (uri_path(&p.source)?, uri_path(&p.destination)?);
        let _guard = self.lock();
        let source = self.existing(&source)?;
        let destination = self.entry(&destination)?;
        self.check_target(&source, &destination, p.fail_if_exists)?;
        let plan = plan(&source)?;
        copy_into_place(&source, &plan, &destination)?;
        Ok(empty())
    }

    /// `resourceMove`: renames the entry (a link is moved as a link). The destination's parent
    /// must exist; an existing destination is replaced unless `failIfExists`. Across file
    /// systems it is a copy and a delete.
    pub fn rename(&self, p: &ResourceMoveParams) -> Result<ResourceMoveResult, ErrorObject> {
        let (source, destination) = (uri_path(&p.source)?, uri_path(&p.destination)?);
        let _guard = self.lock();
        let source = self.entry(&source)?;
        if source == self.root {
            return Err(denied("the working directory itself cannot be moved"));
        }
        fs::symlink_metadata(&source).map_err(|e| io_error(e, "source"))?;
        let destination = self.entry(&destination)?;
        self.check_target(&source, &destination, p.fail_if_exists)?;
        match install(&source, &destination) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::CrossesDevices => {
                let plan = plan(&source)?;
                copy_into_place(&source, &plan, &destination)?;
                remove_any(&source).map_err(|e| io_error(e, "source"))?;
            }
            Err(e) => return Err(io_error(e, "resource")),
        }
        Ok(empty())
    }

    /// Whether `source` may be copied or moved to `destination` (an entry, see
    /// [`Sandbox::entry`]).
    fn check_target(
        &self,
        source: &Path,
        destination: &Path,
        fail_if_exists: Option<bool>,
    ) -> Result<(), ErrorObject> {
        if destination == self.root {
            return Err(denied("the working directory itself cannot be replaced"));
        }
        if source == destination {
            return Err(invalid("the source and the destination are the same"));
        }
        if destination.starts_with(source) {
            return Err(invalid("the destination is inside the source"));
        }
        if source.starts_with(destination) {
            return Err(invalid(
                "the destination contains the source: replacing it would remove the source",
            ));
        }
        match fs::symlink_metadata(destination) {
            Ok(_) if fail_if_exists == Some(true) => {
                Err(already_exists("the destination exists (failIfExists)"))
            }
            Ok(_) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io_error(e, "destination")),
        }
    }
}

fn empty<T: Default>() -> T {
    T::default()
}

/// `rel` under `base`; the empty `rel` is `base` itself (`join` would add a `/`, which a file
/// does not take).
fn under(base: &Path, rel: &Path) -> PathBuf {
    if rel.as_os_str().is_empty() {
        base.to_path_buf()
    } else {
        base.join(rel)
    }
}

/// The entries of the tree at `top` (not following links), checked: at most
/// [`MAX_COPY_ENTRIES`], and only directories, regular files and links.
fn plan(top: &Path) -> Result<Vec<Node>, ErrorObject> {
    let mut nodes = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        if nodes.len() >= MAX_COPY_ENTRIES {
            return Err(invalid(format!(
                "more than {MAX_COPY_ENTRIES} entries to copy"
            )));
        }
        let path = under(top, &rel);
        let meta = fs::symlink_metadata(&path).map_err(|e| io_error(e, "source"))?;
        let kind = meta.file_type();
        if kind.is_symlink() {
            let target = fs::read_link(&path).map_err(|e| io_error(e, "source"))?;
            nodes.push(Node::Link(rel, target));
        } else if kind.is_file() {
            nodes.push(Node::File(rel));
        } else if kind.is_dir() {
            let mut children = Vec::new();
            for child in fs::read_dir(&path).map_err(|e| io_error(e, "source"))? {
                let child = child.map_err(|e| io_error(e, "source"))?;
                children.push(rel.join(child.file_name()));
            }
            pending.extend(children);
            nodes.push(Node::Dir(rel));
        } else {
            let shown = if rel.as_os_str().is_empty() {
                "the source".to_owned()
            } else {
                format!("`{}`", rel.display())
            };
            return Err(invalid(format!(
                "{shown} is not a regular file, directory or link"
            )));
        }
    }
    Ok(nodes)
}

/// Copies the planned tree of `source` to a temporary sibling of `destination`, then puts it
/// in place. On failure the temporary copy is removed and `destination` is as it was.
fn copy_into_place(source: &Path, plan: &[Node], destination: &Path) -> Result<(), ErrorObject> {
    let temp = temp_sibling(destination)?;
    let done = copy_plan(source, plan, &temp)
        .map_err(|e| io_error(e, "copy"))
        .and_then(|()| install(&temp, destination).map_err(|e| io_error(e, "copy")));
    if done.is_err() {
        let _ = remove_any(&temp);
    }
    done
}

/// Makes the planned tree of `source` at `to` (which does not exist). Directories come before
/// their entries in the plan; they get their permissions once everything is in them (a
/// read-only one could not be filled).
fn copy_plan(source: &Path, plan: &[Node], to: &Path) -> std::io::Result<()> {
    let mut dirs = Vec::new();
    for node in plan {
        match node {
            Node::Dir(rel) => {
                fs::create_dir(under(to, rel))?;
                dirs.push((rel, fs::metadata(under(source, rel))?.permissions()));
            }
            Node::File(rel) => copy_file(&under(source, rel), &under(to, rel))?,
            Node::Link(rel, target) => {
                #[cfg(unix)]
                std::os::unix::fs::symlink(target, under(to, rel))?;
                #[cfg(not(unix))]
                return Err(std::io::Error::other(format!(
                    "cannot copy the link {} to {}",
                    rel.display(),
                    target.display()
                )));
            }
        }
    }
    for (rel, perms) in dirs.into_iter().rev() {
        fs::set_permissions(under(to, rel), perms)?;
    }
    Ok(())
}

/// Copies one regular file (opened without following a link or blocking on a FIFO that was
/// swapped in since the plan), with its permissions, to a new file.
fn copy_file(from: &Path, to: &Path) -> std::io::Result<()> {
    let mut src = nonblocking(fs::OpenOptions::new().read(true)).open(from)?;
    let meta = src.metadata()?;
    if !meta.is_file() {
        let e = not_a_file();
        return Err(std::io::Error::other(e.message));
    }
    let mut dst = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(to)?;
    std::io::copy(&mut src, &mut dst)?;
    dst.set_permissions(meta.permissions())
}

/// Puts `from` at `to`, replacing whatever is there: in one `rename` when neither is a
/// directory; otherwise the old entry is moved aside first, put back if the rename fails, and
/// removed once it succeeded.
fn install(from: &Path, to: &Path) -> std::io::Result<()> {
    let old = match fs::symlink_metadata(to) {
        Ok(meta) => meta,
        Err(e) if e.kind() == ErrorKind::NotFound => return fs::rename(from, to),
        Err(e) => return Err(e),
    };
    if !old.is_dir() && !fs::symlink_metadata(from)?.is_dir() {
        return fs::rename(from, to);
    }
    let aside = temp_sibling(to).map_err(|e| std::io::Error::other(e.message))?;
    fs::rename(to, &aside)?;
    if let Err(e) = fs::rename(from, to) {
        let _ = fs::rename(&aside, to);
        return Err(e);
    }
    // The replacement is in place; what it replaced goes (a leftover is only clutter).
    let _ = remove_any(&aside);
    Ok(())
}

/// A fresh hidden name beside `path`.
fn temp_sibling(path: &Path) -> Result<PathBuf, ErrorObject> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes)
        .map_err(|e| ErrorObject::new(errors::INTERNAL_ERROR, format!("randomness: {e}")))?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    // Short enough for any file system's name limit.
    let name: String = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .chars()
        .take(64)
        .collect();
    Ok(path.with_file_name(format!(".{name}.ahp-{hex}")))
}

/// Removes a file, link or directory tree (links inside are not followed).
fn remove_any(path: &Path) -> std::io::Result<()> {
    if fs::symlink_metadata(path)?.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    }
}
