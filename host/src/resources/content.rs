//! `resourceRead`, `resourceWrite` (with `ifMatch`) and `resourceList`, and the etag they share
//! with `resourceResolve`.

use super::{invalid, io_error, nonblocking, not_a_file, uri_path, Sandbox, CONFLICT};
use crate::params::{whole_number, MAX_EXACT};
use ahp_wasm::protocol::jsonrpc::ErrorObject;
use ahp_wasm::protocol::{
    ContentEncoding, DirectoryEntry, DirectoryEntryType, ResourceListParams, ResourceListResult,
    ResourceReadParams, ResourceReadResult, ResourceWriteMode, ResourceWriteParams,
    ResourceWriteResult,
};
use base64::Engine;
use sha2::{Digest, Sha256};
use std::fs::{File, Metadata};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The version token of a regular file: `resourceResolve`'s `etag`, compared by
/// `resourceWrite`'s `ifMatch`.
///
/// A file of at most `max_hash` bytes gets the SHA-256 of its content, so every change of
/// content changes the token, however coarse the file system's clock. A larger one (which
/// `resourceRead` does not serve either) gets a token of its size, modification time and
/// inode: cheap, but only as fine as the clock. Reads from `file`'s start and leaves the
/// position anywhere.
pub(super) fn etag(file: &mut File, meta: &Metadata, max_hash: u64) -> std::io::Result<String> {
    if meta.len() > max_hash {
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(meta);
        #[cfg(not(unix))]
        let inode = 0u64;
        return Ok(format!("m-{:x}-{mtime:x}-{inode:x}", meta.len()));
    }
    file.seek(SeekFrom::Start(0))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut reader = file.take(max_hash + 1);
    loop {
        match reader.read(&mut buf)? {
            0 => break,
            n => hasher.update(&buf[..n]),
        }
    }
    let digest = hasher.finalize();
    let mut out = String::with_capacity(2 + 2 * digest.len());
    out.push_str("c-");
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    Ok(out)
}

fn conflict(msg: impl Into<String>) -> ErrorObject {
    ErrorObject::new(CONFLICT, msg)
}

impl Sandbox {
    /// `resourceRead`.
    pub fn read(&self, p: &ResourceReadParams) -> Result<ResourceReadResult, ErrorObject> {
        // Content given inline (the host's file edits, to 1.0 clients): nothing to confine.
        if p.uri.starts_with("data:") {
            let bytes = data_uri_bytes(&p.uri).ok_or_else(|| invalid("a malformed data: URI"))?;
            return Ok(read_result(bytes, p.encoding.as_ref()));
        }
        let path = self.existing(&uri_path(&p.uri)?)?;
        let file = nonblocking(std::fs::OpenOptions::new().read(true))
            .open(&path)
            .map_err(|e| io_error(e, "resource"))?;
        let meta = file.metadata().map_err(|e| io_error(e, "resource"))?;
        if !meta.is_file() {
            return Err(not_a_file());
        }
        if meta.len() > self.max_read {
            return Err(invalid("file too large to read"));
        }
        let mut data = Vec::with_capacity(meta.len() as usize);
        file.take(self.max_read)
            .read_to_end(&mut data)
            .map_err(|e| io_error(e, "resource"))?;
        Ok(read_result(data, p.encoding.as_ref()))
    }

    /// `resourceWrite`. With `ifMatch` the file must exist and its current [`etag`] must be
    /// the one given, or nothing is written (`Conflict`); nothing is created for such a write.
    pub fn write(&self, p: &ResourceWriteParams) -> Result<ResourceWriteResult, ErrorObject> {
        if p.if_match.is_some() && p.create_only == Some(true) {
            return Err(invalid(
                "createOnly (the file must not exist) and ifMatch (it must) exclude each other",
            ));
        }
        // Checked before anything is opened: a refused write creates no file either.
        let position =
            whole_number(p.position.unwrap_or(0.0), "position", 0, MAX_EXACT).map_err(invalid)?;
        let data = match p.encoding {
            ContentEncoding::Base64 => base64::engine::general_purpose::STANDARD
                .decode(&p.data)
                .map_err(|_| invalid("data is not base64"))?,
            _ => p.data.as_bytes().to_vec(),
        };
        let target = uri_path(&p.uri)?;
        let _guard = self.lock();
        let path = match p.if_match {
            Some(_) => self.entry(&target)?,
            None => self.for_write(&target)?,
        };
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true);
        if p.if_match.is_some() {
            // Opened as it is: a missing file is a failed precondition, not a new file.
        } else if p.create_only == Some(true) {
            options.create_new(true);
        } else {
            options.create(true);
        }
        let mut file =
            nonblocking(&mut options)
                .open(&path)
                .map_err(|e| match e.raw_os_error() {
                    #[cfg(unix)]
                    Some(libc::ELOOP) => super::denied("refusing to write through a symlink"),
                    // A FIFO nobody reads.
                    #[cfg(unix)]
                    Some(libc::ENXIO) => not_a_file(),
                    _ if e.kind() == std::io::ErrorKind::IsADirectory => not_a_file(),
                    _ if e.kind() == std::io::ErrorKind::NotFound && p.if_match.is_some() => {
                        conflict("ifMatch: the file does not exist (any more)")
                    }
                    _ => io_error(e, "resource"),
                })?;
        let meta = file.metadata().map_err(|e| io_error(e, "resource"))?;
        if !meta.is_file() {
            return Err(not_a_file());
        }
        let io = |e| io_error(e, "resource");
        if let Some(expected) = &p.if_match {
            let current = etag(&mut file, &meta, self.max_read).map_err(io)?;
            if current != *expected {
                return Err(conflict(
                    "ifMatch: the file changed since that etag was issued; resolve it again",
                ));
            }
        }
        let len = meta.len();
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
        if !path.is_dir() {
            return Err(invalid("not a directory"));
        }
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
fn splice(file: &mut File, at: u64, data: &[u8]) -> std::io::Result<()> {
    let mut tail = Vec::new();
    file.seek(SeekFrom::Start(at))?;
    file.read_to_end(&mut tail)?;
    file.seek(SeekFrom::Start(at))?;
    file.write_all(data)?;
    file.write_all(&tail)
}

/// The bytes a `data:` URI carries (base64 or percent-encoded), or `None` when `uri` is not
/// one or does not decode.
pub fn data_uri_bytes(uri: &str) -> Option<Vec<u8>> {
    let rest = uri.strip_prefix("data:")?;
    let (meta, payload) = rest.split_once(',')?;
    if meta.ends_with(";base64") {
        base64::engine::general_purpose::STANDARD
            .decode(payload)
            .ok()
    } else {
        Some(percent_encoding::percent_decode_str(payload).collect())
    }
}

/// `resourceRead`'s answer for `bytes`: UTF-8 text as such unless base64 was asked for, any
/// other bytes in base64.
fn read_result(bytes: Vec<u8>, encoding: Option<&ContentEncoding>) -> ResourceReadResult {
    match String::from_utf8(bytes) {
        Ok(text) if !matches!(encoding, Some(ContentEncoding::Base64)) => ResourceReadResult {
            data: text,
            encoding: ContentEncoding::Utf8,
            content_type: Some("text/plain".into()),
            extra: Default::default(),
        },
        Ok(text) => base64_result(text.into_bytes()),
        Err(e) => base64_result(e.into_bytes()),
    }
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
    fn data_uris_decode() {
        assert_eq!(data_uri_bytes("data:,a%20b%2").unwrap(), b"a b%2");
        assert_eq!(
            data_uri_bytes("data:text/plain;base64,aGk=").unwrap(),
            b"hi"
        );
        assert_eq!(data_uri_bytes("data:;base64,%%%"), None);
        assert_eq!(data_uri_bytes("file:///x"), None);
    }

    #[test]
    fn the_etag_follows_the_content_and_big_files_get_a_metadata_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let tag = |max| {
            let mut f = File::open(&path).unwrap();
            let meta = f.metadata().unwrap();
            etag(&mut f, &meta, max).unwrap()
        };
        std::fs::write(&path, "one").unwrap();
        let one = tag(1024);
        assert!(one.starts_with("c-") && one.len() == 66, "{one}");
        assert_eq!(tag(1024), one, "stable");
        std::fs::write(&path, "two").unwrap();
        assert_ne!(tag(1024), one, "same size, new content");
        assert!(tag(2).starts_with("m-3-"), "{}", tag(2));
    }
}
