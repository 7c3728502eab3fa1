//! The file-system [`Source`]: a container's directory, with every path resolved by the file
//! system (symbolic links, `..`) and confined to a boundary (the plugin directory, or the
//! session's working directory). A link that leads out is skipped, never followed; files are
//! opened non-blocking and must be regular, so a FIFO cannot stall a read.

use super::scan::{Entry, Failure, Listed, Source};
use std::io::Read;
use std::path::{Path, PathBuf};

/// A directory on disk.
#[derive(Debug, Clone)]
pub struct DiskSource {
    /// The container's root as configured (it may not exist yet).
    root: PathBuf,
    /// Canonical: nothing outside it is read.
    boundary: PathBuf,
}

const OUTSIDE: &str = "a symbolic link pointing outside the directory";

impl DiskSource {
    /// A source for `root`, confined to `boundary` (canonicalized here; a boundary that does
    /// not resolve confines to `root` itself, lexically).
    pub fn new(root: &Path, boundary: &Path) -> DiskSource {
        let boundary = boundary
            .canonicalize()
            .unwrap_or_else(|_| boundary.to_path_buf());
        DiskSource {
            root: root.to_path_buf(),
            boundary,
        }
    }

    /// `root/rel`, resolved: `Ok(None)` when nothing is there.
    fn resolve(&self, rel: &str) -> Result<Option<PathBuf>, Failure> {
        let path = if rel.is_empty() {
            self.root.clone()
        } else {
            self.root.join(rel)
        };
        match path.canonicalize() {
            Ok(real) if real.starts_with(&self.boundary) => Ok(Some(real)),
            Ok(_) => Err(Failure::Skip(OUTSIDE.into())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // A dangling link is not "missing": say so.
                match std::fs::symlink_metadata(&path) {
                    Ok(m) if m.file_type().is_symlink() => {
                        Err(Failure::Skip("a broken symbolic link".into()))
                    }
                    _ => Ok(None),
                }
            }
            Err(e) => Err(Failure::Skip(e.to_string())),
        }
    }

    fn classify(&self, dir: &Path, entry: &std::fs::DirEntry) -> Entry {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            return Entry::Skipped(name, "unreadable".into());
        };
        let kind = if kind.is_symlink() {
            match dir.join(&name).canonicalize() {
                Ok(real) if !real.starts_with(&self.boundary) => {
                    return Entry::Skipped(name, OUTSIDE.into())
                }
                Ok(real) => match std::fs::metadata(real) {
                    Ok(m) => m.file_type(),
                    Err(e) => return Entry::Skipped(name, e.to_string()),
                },
                Err(_) => return Entry::Skipped(name, "a broken symbolic link".into()),
            }
        } else {
            kind
        };
        if kind.is_dir() {
            Entry::Dir(name)
        } else if kind.is_file() {
            Entry::File(name)
        } else {
            Entry::Skipped(name, "not a regular file".into())
        }
    }

    fn list_now(&self, rel: &str, max: usize) -> Result<Listed, Failure> {
        let Some(dir) = self.resolve(rel)? else {
            return Ok(Listed::Missing);
        };
        let reader = std::fs::read_dir(&dir).map_err(|e| Failure::Skip(e.to_string()))?;
        let mut entries = Vec::new();
        let mut truncated = false;
        for entry in reader {
            if entries.len() == max {
                truncated = true;
                break;
            }
            match entry {
                Ok(entry) => entries.push(self.classify(&dir, &entry)),
                Err(e) => return Err(Failure::Skip(e.to_string())),
            }
        }
        Ok(Listed::Entries { entries, truncated })
    }

    fn read_now(&self, rel: &str, max: usize) -> Result<Option<String>, Failure> {
        let Some(path) = self.resolve(rel)? else {
            return Ok(None);
        };
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
        }
        let file = options
            .open(&path)
            .map_err(|e| Failure::Skip(e.to_string()))?;
        let meta = file.metadata().map_err(|e| Failure::Skip(e.to_string()))?;
        if !meta.is_file() {
            return Err(Failure::Skip("not a regular file".into()));
        }
        if meta.len() > max as u64 {
            return Err(Failure::Skip(format!(
                "{} bytes, over the limit of {max}",
                meta.len()
            )));
        }
        let mut data = Vec::with_capacity(meta.len() as usize);
        file.take(max as u64 + 1)
            .read_to_end(&mut data)
            .map_err(|e| Failure::Skip(e.to_string()))?;
        if data.len() > max {
            return Err(Failure::Skip(format!("over the limit of {max} bytes")));
        }
        String::from_utf8(data)
            .map(Some)
            .map_err(|_| Failure::Skip("not UTF-8 text".into()))
    }
}

impl Source for DiskSource {
    async fn list(&self, rel: &str, max: usize) -> Result<Listed, Failure> {
        self.list_now(rel, max)
    }

    async fn read(&self, rel: &str, max_bytes: usize) -> Result<Option<String>, Failure> {
        self.read_now(rel, max_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::customize::scan::{scan, Bounds, Layout};
    use crate::customize::{ChildKind, Load};

    fn now<F: std::future::Future>(f: F) -> F::Output {
        futures_util::FutureExt::now_or_never(f).expect("disk reads complete at once")
    }

    #[cfg(unix)]
    #[test]
    fn links_out_are_skipped_and_fifos_do_not_block() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "secret").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let rules = dir.path().join("rules");
        std::fs::create_dir(&rules).unwrap();
        std::fs::write(rules.join("ok.md"), "ok").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), rules.join("evil.md"))
            .unwrap();
        std::os::unix::fs::symlink(rules.join("ok.md"), rules.join("alias.md")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("skills")).unwrap();
        let fifo = rules.join("pipe.md");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let src = DiskSource::new(dir.path(), dir.path());
        let s = now(scan(&src, Layout::Plugin, Bounds::default()));
        let Load::Degraded(m) = &s.load else {
            panic!("{:?}", s.load)
        };
        assert!(
            m.contains("rules/evil.md: a symbolic link pointing outside"),
            "{m}"
        );
        assert!(
            m.contains("skills: a symbolic link pointing outside"),
            "{m}"
        );
        assert!(m.contains("rules/pipe.md: not a regular file"), "{m}");
        let names: Vec<&str> = s.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["alias", "ok"],
            "a link inside the plugin is followed"
        );
        assert!(s.children.iter().all(|c| c.body != "secret"));
    }

    #[test]
    fn a_missing_root_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let src = DiskSource::new(&dir.path().join(".agents/skills"), dir.path());
        let s = now(scan(
            &src,
            Layout::Directory(ChildKind::Skill),
            Bounds::default(),
        ));
        assert_eq!(s.load, Load::Loaded);
        assert!(!s.root_exists);
        let src = DiskSource::new(&dir.path().join("nope"), &dir.path().join("nope"));
        let s = now(scan(&src, Layout::Plugin, Bounds::default()));
        assert!(matches!(s.load, Load::Error(_)));
    }
}
