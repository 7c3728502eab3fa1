//! API keys: a [`Secret`] that never prints, and where a provider's key comes from
//! ([`KeySource`]).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Longest key file read: a key is a line, not a document.
pub const MAX_KEY_FILE_BYTES: u64 = 16 << 10;

/// An API key. `Debug` and `Display` print `[redacted]`; only [`Secret::expose`] gives the
/// text, for the one header that carries it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(Arc<str>);

impl Secret {
    /// A key given at runtime (e.g. by a client's `authenticate`); surrounding whitespace is
    /// dropped. `None` when nothing is left.
    pub fn new(key: impl AsRef<str>) -> Option<Secret> {
        let key = key.as_ref().trim();
        (!key.is_empty()).then(|| Secret(Arc::from(key)))
    }

    /// The key itself.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced by `[redacted]` (an error body that
    /// echoes the key must not carry it further).
    pub fn scrub(&self, text: &str) -> String {
        text.replace(&*self.0, "[redacted]")
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Where a provider's key comes from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum KeySource {
    /// No key (a local server); a key given at runtime is still used.
    #[default]
    None,
    /// The host's environment variable of this name, read once at start.
    Env(String),
    /// The first line of this file, read once at start.
    File(PathBuf),
    /// None configured: each client gives its own (`authenticate`), and a turn without one
    /// is refused before any request.
    Client,
}

/// Why a key could not be read. Never holds the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyError {
    /// The variable is unset, empty or not Unicode.
    EnvMissing(String),
    /// The file cannot be read, is too large, or holds no key.
    File { path: PathBuf, reason: String },
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::EnvMissing(var) => {
                write!(f, "the API key variable {var} is unset or empty")
            }
            KeyError::File { path, reason } => {
                write!(
                    f,
                    "cannot read the API key file {}: {reason}",
                    path.display()
                )
            }
        }
    }
}

impl std::error::Error for KeyError {}

impl KeySource {
    /// Reads the key: `Ok(None)` for [`KeySource::None`].
    pub fn resolve(&self) -> Result<Option<Secret>, KeyError> {
        match self {
            KeySource::None | KeySource::Client => Ok(None),
            KeySource::Env(var) => std::env::var(var)
                .ok()
                .and_then(Secret::new)
                .map(Some)
                .ok_or_else(|| KeyError::EnvMissing(var.clone())),
            KeySource::File(path) => read_key_file(path).map(Some),
        }
    }
}

fn read_key_file(path: &Path) -> Result<Secret, KeyError> {
    let fail = |reason: String| KeyError::File {
        path: path.to_path_buf(),
        reason,
    };
    let meta = std::fs::metadata(path).map_err(|e| fail(e.kind().to_string()))?;
    if meta.len() > MAX_KEY_FILE_BYTES {
        return Err(fail(format!("larger than {MAX_KEY_FILE_BYTES} bytes")));
    }
    let text = std::fs::read_to_string(path).map_err(|e| fail(e.kind().to_string()))?;
    text.lines()
        .next()
        .and_then(Secret::new)
        .ok_or_else(|| fail("it is empty".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_redact() {
        let key = Secret::new("  sk-very-secret-123\n").unwrap();
        assert_eq!(key.expose(), "sk-very-secret-123");
        assert!(!format!("{key:?} {key} {:?}", Some(&key)).contains("very-secret"));
        assert_eq!(
            key.scrub("bad key sk-very-secret-123!"),
            "bad key [redacted]!"
        );
        assert!(Secret::new(" \n").is_none());
    }

    #[test]
    fn keys_come_from_files_and_variables() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("key");
        std::fs::write(&file, "sk-from-file\nsecond line\n").unwrap();
        let key = KeySource::File(file.clone()).resolve().unwrap().unwrap();
        assert_eq!(key.expose(), "sk-from-file");
        std::fs::write(&file, "\n").unwrap();
        let err = KeySource::File(file.clone()).resolve().unwrap_err();
        assert!(err.to_string().contains("empty"), "{err}");
        std::fs::write(&file, vec![b'k'; MAX_KEY_FILE_BYTES as usize + 1]).unwrap();
        assert!(KeySource::File(file).resolve().is_err());
        let missing = KeySource::File(dir.path().join("nope")).resolve();
        assert!(matches!(missing, Err(KeyError::File { .. })));
        let unset = KeySource::Env("AHP_HOST_TEST_SURELY_UNSET_KEY_VAR".into()).resolve();
        assert_eq!(
            unset,
            Err(KeyError::EnvMissing(
                "AHP_HOST_TEST_SURELY_UNSET_KEY_VAR".into()
            ))
        );
        assert_eq!(KeySource::None.resolve(), Ok(None));
    }
}
