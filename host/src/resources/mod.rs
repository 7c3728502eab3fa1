//! The `resource*` commands, confined to the sessions' working directory.
//!
//! Confinement: a `file://` URI is decoded, and the path is resolved with the real file system
//! (`canonicalize`, which follows every symlink and `..`) before it is compared with the
//! canonical sandbox root; a write resolves the parent directory the same way and refuses to
//! follow a symlink in the final component (`O_NOFOLLOW`). Anything outside is `PermissionDenied`.
//! A write creates the missing directories of its path (inside only, each level checked).
//! Commands that act on a directory entry itself (delete, move, `followSymlinks: false`) resolve
//! its parent and keep its name ([`Sandbox::entry`]): a link is removed or moved, never what it
//! points to.
//!
//! - `mod.rs`: URIs, errors and the confinement (`existing`, `entry`, `for_write`);
//! - `content.rs`: `resourceRead`, `resourceWrite` (`ifMatch`), `resourceList`, the etag;
//! - `tree.rs`: `resourceMkdir`, `resourceDelete`, `resourceCopy`, `resourceMove`;
//! - `meta.rs`: `resourceResolve`, `resourceRequest`.

mod content;
mod meta;
mod tree;

use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::ErrorObject;
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, CONTROLS};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

pub use content::{data_uri_bytes, list_dir};

/// `Conflict`: an `ifMatch` precondition failed. The 0.3.0 schema names the error
/// (`ResourceWriteParams.ifMatch`: "the server MUST fail with `Conflict`") but its
/// `AhpErrorCode` list stops at -32010; the protocol's next release assigns `Conflict` -32011,
/// which this host answers.
pub const CONFLICT: i64 = -32011;

/// A directory tree that file access is confined to.
#[derive(Debug, Clone)]
pub struct Sandbox {
    root: PathBuf,
    max_read: u64,
    /// Held by every command that changes the tree, so an `ifMatch` check and its write are
    /// one step for the host's own writers.
    mutations: Arc<Mutex<()>>,
}

/// Most directories one `resourceWrite` or `resourceMkdir` creates.
const MAX_NEW_DIRS: usize = 16;

fn denied(msg: impl Into<String>) -> ErrorObject {
    ErrorObject::new(errors::PERMISSION_DENIED, msg)
}

fn outside() -> ErrorObject {
    denied("the resource is outside the working directory")
}

fn invalid(msg: impl Into<String>) -> ErrorObject {
    ErrorObject::new(errors::INVALID_PARAMS, msg)
}

fn not_a_file() -> ErrorObject {
    invalid("not a regular file")
}

fn already_exists(msg: impl Into<String>) -> ErrorObject {
    ErrorObject::new(errors::ALREADY_EXISTS, msg)
}

fn not_found(what: &str) -> ErrorObject {
    ErrorObject::new(errors::NOT_FOUND, format!("{what}: not found"))
}

/// Open options that never block: opening a FIFO (or a device) must not hang the caller; the
/// file type is checked on the opened descriptor, so it cannot be swapped in between.
fn nonblocking(options: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    options
}

fn io_error(e: std::io::Error, what: &str) -> ErrorObject {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => not_found(what),
        K::AlreadyExists => already_exists(format!("{what}: already exists")),
        K::PermissionDenied => denied(format!("{what}: permission denied")),
        K::NotADirectory => invalid(format!("{what}: a parent is not a directory")),
        K::DirectoryNotEmpty => invalid(format!(
            "{what}: the directory is not empty (pass `recursive: true`)"
        )),
        _ => ErrorObject::new(errors::INTERNAL_ERROR, format!("{what}: {e}")),
    }
}

/// Characters escaped in the path of a `file://` URI.
const PATH_ESCAPES: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}');

/// The `file://` URI of an absolute path.
pub fn file_uri(path: &Path) -> String {
    format!(
        "file://{}",
        utf8_percent_encode(&path.to_string_lossy(), PATH_ESCAPES)
    )
}

/// The absolute path of a `file://` URI (empty or `localhost` authority only).
pub fn uri_path(uri: &str) -> Result<PathBuf, ErrorObject> {
    let rest = uri
        .strip_prefix("file://")
        .ok_or_else(|| invalid("only file:// URIs are served"))?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return Err(invalid("the file URI has a host"));
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let decoded = percent_decode_str(rest)
        .decode_utf8()
        .map_err(|_| invalid("the file URI is not UTF-8"))?;
    if decoded.contains('\0') {
        return Err(invalid("NUL in path"));
    }
    Ok(PathBuf::from(decoded.into_owned()))
}

impl Sandbox {
    /// A sandbox rooted at `root` (which must exist).
    pub fn new(root: &Path, max_read: u64) -> std::io::Result<Sandbox> {
        Ok(Sandbox {
            root: root.canonicalize()?,
            max_read,
            mutations: Arc::default(),
        })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Taken by the commands that change the tree (a poisoned lock guards nothing in memory,
    /// so it is still taken).
    pub(crate) fn lock(&self) -> MutexGuard<'_, ()> {
        self.mutations
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Resolves an existing path inside the sandbox (after following every link).
    ///
    /// A path outside gets the same answer whether or not anything exists there, so the
    /// sandbox is no oracle for the rest of the file system.
    pub fn existing(&self, path: &Path) -> Result<PathBuf, ErrorObject> {
        match path.canonicalize() {
            Ok(real) if real.starts_with(&self.root) => Ok(real),
            Ok(_) => Err(outside()),
            Err(e) if self.would_be_inside(path) => Err(io_error(e, "resource")),
            Err(_) => Err(outside()),
        }
    }

    /// Whether a path that does not resolve would land inside the sandbox: its deepest existing
    /// ancestor resolved with the real file system, the rest applied lexically.
    fn would_be_inside(&self, path: &Path) -> bool {
        let components: Vec<Component> = path.components().collect();
        for split in (1..=components.len()).rev() {
            let prefix: PathBuf = components[..split].iter().collect();
            let Ok(mut resolved) = prefix.canonicalize() else {
                continue;
            };
            for c in &components[split..] {
                match c {
                    Component::ParentDir => {
                        resolved.pop();
                    }
                    Component::Normal(name) => resolved.push(name),
                    _ => {}
                }
            }
            return resolved.starts_with(&self.root);
        }
        false
    }

    /// Resolves a path relative to the root (`..` and absolute paths are resolved the same way
    /// and must still land inside).
    pub fn existing_relative(&self, rel: &str) -> Result<PathBuf, ErrorObject> {
        self.existing(&self.root.join(rel))
    }

    /// The directory entry `path` names, without following a link in its last component: its
    /// parent resolved inside the sandbox (it must exist), its name kept. The entry itself need
    /// not exist. A path that resolves to the root is the root (callers refuse to remove or
    /// replace it); any other result is strictly inside.
    pub fn entry(&self, path: &Path) -> Result<PathBuf, ErrorObject> {
        let (Some(Component::Normal(name)), Some(parent)) =
            (path.components().next_back(), path.parent())
        else {
            // Ends in `..` or is `/`: there is no name to keep.
            return self.existing(path);
        };
        match self.existing(parent) {
            Ok(dir) => Ok(dir.join(name)),
            // The root named through its parent (which is outside).
            Err(_) if path.canonicalize().is_ok_and(|real| real == self.root) => {
                Ok(self.root.clone())
            }
            Err(e) => Err(e),
        }
    }

    /// Resolves a path that may not exist yet for writing: its parent must exist inside the
    /// sandbox and its last component must be a plain name.
    pub fn for_write(&self, path: &Path) -> Result<PathBuf, ErrorObject> {
        let name = match path.components().next_back() {
            Some(Component::Normal(name)) => name.to_owned(),
            _ => return Err(denied("not a writable file path")),
        };
        let parent = path.parent().ok_or_else(|| denied("no parent directory"))?;
        match self.existing(parent) {
            Ok(dir) => Ok(dir.join(name)),
            // Missing directories inside the sandbox are created (a new skill's folder in a
            // writable customization directory, say); the result is checked again.
            Err(e) if e.code == errors::NOT_FOUND => {
                self.create_dirs(parent)?;
                Ok(self.existing(parent)?.join(name))
            }
            Err(e) => Err(e),
        }
    }

    /// Creates the missing directories of `dir` (which would land inside the sandbox), one
    /// level at a time from its deepest existing ancestor, at most [`MAX_NEW_DIRS`] of them
    /// (counted before anything is created).
    fn create_dirs(&self, dir: &Path) -> Result<(), ErrorObject> {
        let mut missing = Vec::new();
        let mut at = Some(dir);
        while let Some(d) = at {
            if std::fs::symlink_metadata(d).is_ok() {
                break;
            }
            missing.push(d);
            if missing.len() > MAX_NEW_DIRS {
                return Err(denied("too many directories to create"));
            }
            at = d.parent();
        }
        for d in missing.into_iter().rev() {
            // Each level is checked before it is made: nothing is created outside.
            if !self.would_be_inside(d) {
                return Err(outside());
            }
            match std::fs::create_dir(d) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(io_error(e, "directory")),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip() {
        let p = Path::new("/tmp/a b/c#d.txt");
        let uri = file_uri(p);
        assert_eq!(uri, "file:///tmp/a%20b/c%23d.txt");
        assert_eq!(uri_path(&uri).unwrap(), p);
        assert_eq!(uri_path("file://localhost/x").unwrap(), Path::new("/x"));
        assert!(uri_path("http://x/y").is_err());
        assert!(uri_path("file://evil/x").is_err());
        assert!(uri_path("file:///a%00b").is_err());
    }

    #[test]
    fn entries_keep_their_name_and_the_root_is_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        let sandbox = Sandbox::new(&root, 1024).unwrap();
        assert_eq!(sandbox.entry(&root).unwrap(), root);
        assert_eq!(sandbox.entry(&root.join("sub/..")).unwrap(), root);
        assert_eq!(
            sandbox.entry(&root.join("sub/../x")).unwrap(),
            root.join("x")
        );
        assert_eq!(
            sandbox.entry(&root.join("..")).unwrap_err().code,
            errors::PERMISSION_DENIED
        );
        assert_eq!(
            sandbox.entry(&root.join("nodir/x")).unwrap_err().code,
            errors::NOT_FOUND
        );
    }
}
