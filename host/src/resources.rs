//! `resourceRead`, `resourceWrite` and `resourceList`, confined to the sessions' working
//! directory.
//!
//! Confinement: a `file://` URI is decoded, and the path is resolved with the real file system
//! (`canonicalize`, which follows every symlink and `..`) before it is compared with the
//! canonical sandbox root; a write resolves the parent directory the same way and refuses to
//! follow a symlink in the final component (`O_NOFOLLOW`). Anything outside is `PermissionDenied`.
//! A write creates the missing directories of its path (inside only, each level checked).

use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::ErrorObject;
use ahp_wasm::protocol::{
    ContentEncoding, DirectoryEntry, DirectoryEntryType, ResourceListParams, ResourceListResult,
    ResourceReadParams, ResourceReadResult, ResourceWriteMode, ResourceWriteParams,
    ResourceWriteResult,
};
use base64::Engine;
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, CONTROLS};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};

/// A directory tree that file access is confined to.
#[derive(Debug, Clone)]
pub struct Sandbox {
    root: PathBuf,
    max_read: u64,
}

/// Most directories one `resourceWrite` creates.
const MAX_NEW_DIRS: usize = 16;

fn denied(msg: impl Into<String>) -> ErrorObject {
    ErrorObject::new(errors::PERMISSION_DENIED, msg)
}

fn outside() -> ErrorObject {
    denied("the resource is outside the working directory")
}

fn not_a_file() -> ErrorObject {
    ErrorObject::new(errors::INVALID_PARAMS, "not a regular file")
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
    match e.kind() {
        std::io::ErrorKind::NotFound => {
            ErrorObject::new(errors::NOT_FOUND, format!("{what}: not found"))
        }
        std::io::ErrorKind::AlreadyExists => {
            ErrorObject::new(errors::ALREADY_EXISTS, format!("{what}: already exists"))
        }
        std::io::ErrorKind::PermissionDenied => denied(format!("{what}: permission denied")),
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
        .ok_or_else(|| ErrorObject::new(errors::INVALID_PARAMS, "only file:// URIs are served"))?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return Err(ErrorObject::new(
            errors::INVALID_PARAMS,
            "the file URI has a host",
        ));
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let decoded = percent_decode_str(rest)
        .decode_utf8()
        .map_err(|_| ErrorObject::new(errors::INVALID_PARAMS, "the file URI is not UTF-8"))?;
    if decoded.contains('\0') {
        return Err(ErrorObject::new(errors::INVALID_PARAMS, "NUL in path"));
    }
    Ok(PathBuf::from(decoded.into_owned()))
}

impl Sandbox {
    /// A sandbox rooted at `root` (which must exist).
    pub fn new(root: &Path, max_read: u64) -> std::io::Result<Sandbox> {
        Ok(Sandbox {
            root: root.canonicalize()?,
            max_read,
        })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
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
    /// level at a time from its deepest existing ancestor, at most [`MAX_NEW_DIRS`] of them.
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

    /// `resourceRead`.
    pub fn read(&self, p: &ResourceReadParams) -> Result<ResourceReadResult, ErrorObject> {
        let path = self.existing(&uri_path(&p.uri)?)?;
        let file = nonblocking(std::fs::OpenOptions::new().read(true))
            .open(&path)
            .map_err(|e| io_error(e, "resource"))?;
        let meta = file.metadata().map_err(|e| io_error(e, "resource"))?;
        if !meta.is_file() {
            return Err(not_a_file());
        }
        if meta.len() > self.max_read {
            return Err(ErrorObject::new(
                errors::INVALID_PARAMS,
                "file too large to read",
            ));
        }
        let mut data = Vec::with_capacity(meta.len() as usize);
        file.take(self.max_read)
            .read_to_end(&mut data)
            .map_err(|e| io_error(e, "resource"))?;
        let want_base64 = matches!(p.encoding, Some(ContentEncoding::Base64));
        Ok(match String::from_utf8(data) {
            Ok(text) if !want_base64 => ResourceReadResult {
                data: text,
                encoding: ContentEncoding::Utf8,
                content_type: Some("text/plain".into()),
                extra: Default::default(),
            },
            Ok(text) => base64_result(text.into_bytes()),
            Err(e) => base64_result(e.into_bytes()),
        })
    }

    /// `resourceWrite`.
    pub fn write(&self, p: &ResourceWriteParams) -> Result<ResourceWriteResult, ErrorObject> {
        if p.if_match.is_some() {
            return Err(ErrorObject::new(
                errors::INVALID_PARAMS,
                "ifMatch is not supported",
            ));
        }
        let data = match p.encoding {
            ContentEncoding::Base64 => base64::engine::general_purpose::STANDARD
                .decode(&p.data)
                .map_err(|_| ErrorObject::new(errors::INVALID_PARAMS, "data is not base64"))?,
            _ => p.data.as_bytes().to_vec(),
        };
        let path = self.for_write(&uri_path(&p.uri)?)?;
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true);
        if p.create_only == Some(true) {
            options.create_new(true);
        } else {
            options.create(true);
        }
        let mut file =
            nonblocking(&mut options)
                .open(&path)
                .map_err(|e| match e.raw_os_error() {
                    #[cfg(unix)]
                    Some(libc::ELOOP) => denied("refusing to write through a symlink"),
                    // A FIFO nobody reads.
                    #[cfg(unix)]
                    Some(libc::ENXIO) => not_a_file(),
                    _ => io_error(e, "resource"),
                })?;
        let meta = file.metadata().map_err(|e| io_error(e, "resource"))?;
        if !meta.is_file() {
            return Err(not_a_file());
        }
        let len = meta.len();
        let position = p.position.unwrap_or(0.0).max(0.0) as u64;
        let io = |e| io_error(e, "resource");
        match p.mode.clone().unwrap_or(ResourceWriteMode::Truncate) {
            ResourceWriteMode::Append => {
                let at = len.saturating_sub(position);
                splice(&mut file, at, &data).map_err(io)?;
            }
            ResourceWriteMode::Insert => {
                splice(&mut file, position.min(len), &data).map_err(io)?;
            }
            _ => {
                let at = position.min(len);
                file.set_len(at).map_err(io)?;
                file.seek(SeekFrom::Start(at)).map_err(io)?;
                file.write_all(&data).map_err(io)?;
            }
        }
        Ok(ResourceWriteResult {
            extra: Default::default(),
        })
    }

    /// `resourceList`.
    pub fn list(&self, p: &ResourceListParams) -> Result<ResourceListResult, ErrorObject> {
        let path = self.existing(&uri_path(&p.uri)?)?;
        Ok(ResourceListResult {
            entries: list_dir(&path).map_err(|e| io_error(e, "directory"))?,
            extra: Default::default(),
        })
    }
}

/// The entries of a directory, sorted by name (symlinks are reported as what they point to).
pub fn list_dir(path: &Path) -> std::io::Result<Vec<DirectoryEntry>> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(path)? {
        let entry = entry?;
        let is_dir = std::fs::metadata(entry.path())
            .map(|m| m.is_dir())
            .unwrap_or(false);
        entries.push(DirectoryEntry {
            name: entry.file_name().to_string_lossy().into_owned(),
            r#type: if is_dir {
                DirectoryEntryType::Directory
            } else {
                DirectoryEntryType::File
            },
            extra: Default::default(),
        });
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(entries)
}

/// Writes `data` at `at`, keeping the bytes that were there after it.
fn splice(file: &mut std::fs::File, at: u64, data: &[u8]) -> std::io::Result<()> {
    let mut tail = Vec::new();
    file.seek(SeekFrom::Start(at))?;
    file.read_to_end(&mut tail)?;
    file.seek(SeekFrom::Start(at))?;
    file.write_all(data)?;
    file.write_all(&tail)
}

fn base64_result(bytes: Vec<u8>) -> ResourceReadResult {
    ResourceReadResult {
        data: base64::engine::general_purpose::STANDARD.encode(bytes),
        encoding: ContentEncoding::Base64,
        content_type: Some("application/octet-stream".into()),
        extra: Default::default(),
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
}
