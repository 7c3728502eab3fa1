//! What a session's changes are measured against: the `HEAD` commit of the git repository its
//! working directory belongs to (read with `gix`, fresh on every computation, so a commit made
//! meanwhile moves the baseline), or else a snapshot of the working directory taken when the
//! changeset was created (in memory, bounded by [`MAX_SNAPSHOT_BYTES`]).

use super::{walk, MAX_DIFF_BYTES};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Bytes of file content one snapshot keeps; files past it (and files over
/// [`MAX_DIFF_BYTES`]) are kept as their size only: their changes are seen (by size) but
/// they cannot be reverted.
pub const MAX_SNAPSHOT_BYTES: u64 = 64 << 20;

/// The baseline of one session's changeset.
#[derive(Debug, Clone)]
pub enum Baseline {
    /// `HEAD` of the repository at `repo` (its work tree, inside the host's `--workdir`).
    Git {
        /// The repository's work tree (canonical).
        repo: PathBuf,
    },
    /// The working directory as it was.
    Snapshot(Arc<Snapshot>),
}

/// Files of a snapshot, by path relative to the session's working directory.
#[derive(Debug, Default)]
pub struct Snapshot {
    files: BTreeMap<String, Stored>,
}

#[derive(Debug, Clone)]
enum Stored {
    Content(Arc<[u8]>),
    /// Too large to keep.
    Size(u64),
}

/// One baseline file.
#[derive(Debug, Clone)]
pub struct BaseFile {
    /// Its size in bytes.
    pub size: u64,
    /// Whether git records it executable.
    pub executable: bool,
    source: Source,
}

#[derive(Debug, Clone)]
enum Source {
    Blob(gix::ObjectId),
    Bytes(Arc<[u8]>),
    Unavailable,
}

/// The baseline's files for one computation, with what reading them needs.
pub struct Base {
    /// Files by path relative to the session's working directory.
    pub files: BTreeMap<String, BaseFile>,
    /// Every directory that holds a baseline file (relative; `""` is the working directory).
    pub dirs: HashSet<String>,
    /// Which baseline this is (the `HEAD` tree's id with git): what an [`super::Unchanged`]
    /// cache is valid for.
    pub identity: String,
    git: Option<Git>,
}

struct Git {
    repo: gix::Repository,
    /// The session's working directory relative to the work tree (`""` or ending in `/`).
    prefix: String,
}

impl Baseline {
    /// The baseline for a session working in `workdir` (canonical): its git repository when it
    /// has one whose work tree is inside `root` (the host's `--workdir`; a repository around
    /// it is outside the sandbox and not read), else a snapshot of `workdir` now.
    pub fn take(workdir: &Path, root: &Path) -> Baseline {
        Baseline::git(workdir, root).unwrap_or_else(|| Baseline::snapshot(workdir))
    }

    /// The git baseline, when there is a repository (quick: it reads the repository's
    /// configuration, not the tree).
    pub fn git(workdir: &Path, root: &Path) -> Option<Baseline> {
        let repo = gix::discover(workdir).ok()?;
        let tree = repo.workdir()?.canonicalize().ok()?;
        (tree.starts_with(root) && workdir.starts_with(&tree))
            .then_some(Baseline::Git { repo: tree })
    }

    /// A snapshot of `workdir` now (walks and reads the tree, within its bounds).
    pub fn snapshot(workdir: &Path) -> Baseline {
        Baseline::Snapshot(Arc::new(Snapshot::take(workdir)))
    }

    /// Reads the baseline's file list for `workdir`.
    pub fn load(&self, workdir: &Path) -> Result<Base, String> {
        let mut base = Base {
            files: BTreeMap::new(),
            dirs: HashSet::new(),
            identity: "snapshot".into(),
            git: None,
        };
        match self {
            Baseline::Snapshot(snapshot) => {
                for (rel, stored) in &snapshot.files {
                    let (size, source) = match stored {
                        Stored::Content(bytes) => {
                            (bytes.len() as u64, Source::Bytes(bytes.clone()))
                        }
                        Stored::Size(size) => (*size, Source::Unavailable),
                    };
                    base.insert(
                        rel.clone(),
                        BaseFile {
                            size,
                            executable: false,
                            source,
                        },
                    );
                }
            }
            Baseline::Git { repo } => {
                let repo =
                    gix::open(repo).map_err(|e| format!("cannot open the repository: {e}"))?;
                let tree_dir = repo
                    .workdir()
                    .and_then(|w| w.canonicalize().ok())
                    .ok_or("the repository has no work tree")?;
                let prefix = match workdir.strip_prefix(&tree_dir) {
                    Ok(p) if p.as_os_str().is_empty() => String::new(),
                    Ok(p) => format!("{}/", p.to_string_lossy()),
                    Err(_) => return Err("the working directory left the repository".into()),
                };
                // An unborn `HEAD` (no commit yet) is the empty tree: every file is new.
                if let Ok(tree) = repo.head_tree() {
                    base.identity = tree.id.to_string();
                    let entries = tree
                        .traverse()
                        .breadthfirst
                        .files()
                        .map_err(|e| format!("cannot read HEAD: {e}"))?;
                    for entry in entries {
                        // Links and submodules are not compared (the walk skips them too).
                        if !entry.mode.is_blob() {
                            continue;
                        }
                        let path = String::from_utf8_lossy(&entry.filepath).into_owned();
                        // A tree naming `.git` (git refuses to check it out) is not a baseline.
                        if super::git_path::names_git(&path) {
                            continue;
                        }
                        let Some(rel) = path.strip_prefix(&prefix) else {
                            continue;
                        };
                        let size = repo.find_header(entry.oid).map(|h| h.size()).unwrap_or(0);
                        base.insert(
                            rel.to_owned(),
                            BaseFile {
                                size,
                                executable: entry.mode.is_executable(),
                                source: Source::Blob(entry.oid),
                            },
                        );
                    }
                }
                base.git = Some(Git { repo, prefix });
            }
        }
        Ok(base)
    }
}

impl Base {
    fn insert(&mut self, rel: String, file: BaseFile) {
        let mut dir = rel.as_str();
        while let Some((parent, _)) = dir.rsplit_once('/') {
            if !self.dirs.insert(parent.to_owned()) {
                break;
            }
            dir = parent;
        }
        self.dirs.insert(String::new());
        self.files.insert(rel, file);
    }

    /// The content of a baseline file (`None`: not in the baseline, or not kept).
    pub fn read(&self, rel: &str) -> Option<Vec<u8>> {
        match &self.files.get(rel)?.source {
            Source::Bytes(bytes) => Some(bytes.to_vec()),
            Source::Blob(id) => {
                let git = self.git.as_ref()?;
                git.repo.find_blob(*id).ok().map(|b| b.data.clone())
            }
            Source::Unavailable => None,
        }
    }

    /// The repository's git directories (its own and the common one of a linked worktree),
    /// canonical: nothing is ever written inside them (empty without git).
    pub fn git_dirs(&self) -> Vec<PathBuf> {
        let Some(git) = &self.git else {
            return Vec::new();
        };
        [git.repo.git_dir(), git.repo.common_dir()]
            .iter()
            .filter_map(|d| d.canonicalize().ok())
            .collect()
    }

    /// Git's ignore rules for this work tree (`None` without git: nothing is ignored).
    pub fn excludes(&self) -> Option<Excludes<'_>> {
        let git = self.git.as_ref()?;
        let index = git.repo.index_or_empty().ok()?;
        let stack = git
            .repo
            .excludes(
                &index,
                None,
                gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
            )
            .ok()?;
        Some(Excludes {
            stack,
            prefix: &git.prefix,
        })
    }
}

/// `.gitignore` and the repository's other exclude files.
pub struct Excludes<'a> {
    stack: gix::AttributeStack<'a>,
    prefix: &'a str,
}

impl Excludes<'_> {
    /// Whether git ignores the path `rel` (relative to the session's working directory).
    pub fn ignored(&mut self, rel: &str, is_dir: bool) -> bool {
        let path = format!("{}{rel}", self.prefix);
        let mode = is_dir.then_some(gix::index::entry::Mode::DIR);
        self.stack
            .at_entry(path.as_str(), mode)
            .is_ok_and(|p| p.is_excluded())
    }
}

impl Snapshot {
    /// The regular files of `workdir` (the same walk and bounds as a computation).
    fn take(workdir: &Path) -> Snapshot {
        let mut snapshot = Snapshot::default();
        let mut kept = 0u64;
        let walked = walk(workdir, &mut |_, _| false);
        for (rel, file) in walked.files {
            let stored = if file.size <= MAX_DIFF_BYTES && kept + file.size <= MAX_SNAPSHOT_BYTES {
                match std::fs::read(&file.path) {
                    Ok(bytes) => {
                        kept += bytes.len() as u64;
                        Stored::Content(bytes.into())
                    }
                    Err(_) => continue,
                }
            } else {
                Stored::Size(file.size)
            };
            snapshot.files.insert(rel, stored);
        }
        snapshot
    }
}
