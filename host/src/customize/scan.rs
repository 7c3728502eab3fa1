//! Reading a container: the Open Plugins layout, or a directory of one child kind, through a
//! [`Source`] (the disk, or a client's `resourceList`/`resourceRead`).
//!
//! Plugin layout (default locations only; a manifest's custom paths are not followed):
//!
//! | path | child |
//! |---|---|
//! | `.plugin/plugin.json`, `.claude-plugin/plugin.json` or `plugin.json` | the plugin's `name` |
//! | `skills/<name>/SKILL.md` | skill |
//! | `commands/*.md` | skill (slash-command skills, as the schema's `SkillCustomization` says) |
//! | `agents/*.md` | agent |
//! | `prompts/*.md` | prompt |
//! | `rules/*.mdc`, `rules/*.md` | rule |
//! | `hooks/hooks.json` | one hook per event (and matcher) |
//!
//! Every read is bounded ([`Bounds`]): entries listed per directory and in all, files read,
//! bytes per file and in all, and the children one container yields (hook entries included:
//! one small `hooks.json` can list thousands). What is over a bound, and files that cannot be used (bad
//! frontmatter, too large, not UTF-8, a symbolic link out of the container), are skipped and
//! named in a `degraded` load state; a container that cannot be read at all (no such
//! directory, an unreadable manifest, the client gone) is `error`.

use super::frontmatter;
use super::{Child, ChildKind, Load, Scan};
use std::future::Future;

/// One directory entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A regular file (or a link to one inside the container).
    File(String),
    /// A directory (or a link to one inside the container).
    Dir(String),
    /// Something that cannot be used, and why (a link out of the container, a FIFO, ...).
    Skipped(String, String),
}

impl Entry {
    fn name(&self) -> &str {
        match self {
            Entry::File(n) | Entry::Dir(n) | Entry::Skipped(n, _) => n,
        }
    }
}

/// A directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listed {
    /// Nothing there.
    Missing,
    /// Up to the asked maximum of entries; `truncated` when there were more.
    Entries {
        /// The entries (any order).
        entries: Vec<Entry>,
        /// More entries than asked for.
        truncated: bool,
    },
}

/// Why something could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// This file or directory only (it is skipped).
    Skip(String),
    /// The whole container (the read stops).
    Fatal(String),
}

/// Where a container's files come from. Paths are relative to the container's root,
/// `/`-separated, `""` being the root itself.
pub trait Source: Send + Sync {
    /// The entries of directory `rel`, at most `max`.
    fn list(&self, rel: &str, max: usize) -> impl Future<Output = Result<Listed, Failure>> + Send;
    /// The text of file `rel` (`None`: no such file), at most `max_bytes` (more is a skip).
    fn read(
        &self,
        rel: &str,
        max_bytes: usize,
    ) -> impl Future<Output = Result<Option<String>, Failure>> + Send;
}

/// What one container read may cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Entries listed per directory.
    pub dir_entries: usize,
    /// Entries listed in all.
    pub entries: usize,
    /// Files read.
    pub files: usize,
    /// Bytes of one file.
    pub file_bytes: usize,
    /// Bytes of all files.
    pub total_bytes: usize,
    /// Children of the container (every kind, hooks included).
    pub children: usize,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            dir_entries: 1000,
            entries: 4000,
            files: 500,
            file_bytes: 256 * 1024,
            total_bytes: 8 * 1024 * 1024,
            children: 500,
        }
    }
}

/// What a container holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// An Open Plugins plugin (the table above).
    Plugin,
    /// A directory of one child kind: `<name>/SKILL.md` for skills, `*.md` (and `*.mdc` for
    /// rules) for the others.
    Directory(ChildKind),
}

/// How many reasons a degraded state names before "and N more".
const REASONS_SHOWN: usize = 3;

struct Scanner<'a, S: Source> {
    src: &'a S,
    bounds: Bounds,
    warnings: Vec<String>,
    children: Vec<Child>,
    dirs: Vec<String>,
    entries: usize,
    files: usize,
    bytes: usize,
    /// A bound was reached: nothing more is read.
    full: bool,
}

/// Reads a container.
pub async fn scan<S: Source>(src: &S, layout: Layout, bounds: Bounds) -> Scan {
    let mut s = Scanner {
        src,
        bounds,
        warnings: Vec::new(),
        children: Vec::new(),
        dirs: Vec::new(),
        entries: 0,
        files: 0,
        bytes: 0,
        full: false,
    };
    let outcome = match layout {
        Layout::Plugin => s.plugin().await,
        Layout::Directory(kind) => s.directory(kind).await,
    };
    let (name, root_exists) = match outcome {
        Ok(found) => found,
        Err(reason) => {
            return Scan {
                name: None,
                load: Load::Error(reason),
                children: Vec::new(),
                root_exists: s.dirs.iter().any(|d| d.is_empty()),
                dirs: s.dirs,
            }
        }
    };
    let load = if s.warnings.is_empty() {
        Load::Loaded
    } else {
        let more = s.warnings.len().saturating_sub(REASONS_SHOWN);
        let mut message = s.warnings[..s.warnings.len().min(REASONS_SHOWN)].join("; ");
        if more > 0 {
            message.push_str(&format!("; and {more} more"));
        }
        Load::Degraded(message)
    };
    Scan {
        name,
        load,
        children: s.children,
        dirs: s.dirs,
        root_exists,
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// A file's name without its extension(s): `a.prompt.md` → `a`.
fn stem(file: &str, suffixes: &[&str]) -> String {
    let mut s = file;
    for suffix in suffixes {
        if let Some(rest) = s.strip_suffix(suffix) {
            s = rest;
            break;
        }
    }
    for inner in [".prompt", ".instructions", ".agent"] {
        if let Some(rest) = s.strip_suffix(inner) {
            s = rest;
        }
    }
    frontmatter::clean(s, frontmatter::MAX_NAME_CHARS)
}

impl<S: Source> Scanner<'_, S> {
    fn warn(&mut self, message: String) {
        // Bounded too: a directory of bad files does not grow the message list without end.
        if self.warnings.len() < 1000 {
            self.warnings.push(message);
        }
    }

    /// Says that there are more than `limit` of `what` and stops the read.
    fn stop_at(&mut self, limit: usize, what: &str) {
        self.warn(format!("more than {limit} {what}; the rest were not read"));
        self.full = true;
    }

    /// Adds a child within [`Bounds::children`]; past it, says so and stops the read.
    fn add(&mut self, child: Child) -> bool {
        if self.children.len() >= self.bounds.children {
            if !self.full {
                self.stop_at(self.bounds.children, "children");
            }
            return false;
        }
        self.children.push(child);
        true
    }

    /// Lists a directory within the bounds; `None` when it is missing or was skipped.
    async fn list(&mut self, rel: &str) -> Result<Option<Vec<Entry>>, String> {
        if self.full {
            return Ok(None);
        }
        let left = self.bounds.entries.saturating_sub(self.entries);
        let max = self.bounds.dir_entries.min(left);
        let shown = if rel.is_empty() { "." } else { rel };
        match self.src.list(rel, max).await {
            Ok(Listed::Missing) => Ok(None),
            Ok(Listed::Entries {
                mut entries,
                truncated,
            }) => {
                self.dirs.push(rel.to_owned());
                entries.truncate(max);
                self.entries += entries.len();
                if truncated {
                    if max == self.bounds.dir_entries {
                        self.warn(format!(
                            "{shown}/: more than {max} entries; only {max} were read"
                        ));
                    } else {
                        self.stop_at(self.bounds.entries, "entries in all");
                    }
                }
                entries.sort_by(|a, b| a.name().cmp(b.name()));
                for e in &entries {
                    if let Entry::Skipped(name, why) = e {
                        let rel = join(rel, name);
                        self.warn(format!("{rel}: {why}; skipped"));
                    }
                }
                Ok(Some(entries))
            }
            Err(Failure::Skip(why)) => {
                self.warn(format!("{shown}/: {why}; skipped"));
                Ok(None)
            }
            Err(Failure::Fatal(why)) => Err(why),
        }
    }

    /// Reads a file within the bounds; `None` when it is missing or was skipped.
    async fn read(&mut self, rel: &str) -> Result<Option<String>, String> {
        if self.full {
            return Ok(None);
        }
        if self.files >= self.bounds.files {
            self.stop_at(self.bounds.files, "files");
            return Ok(None);
        }
        if self.bytes >= self.bounds.total_bytes {
            self.stop_at(self.bounds.total_bytes, "bytes in all");
            return Ok(None);
        }
        self.files += 1;
        let max = self
            .bounds
            .file_bytes
            .min(self.bounds.total_bytes - self.bytes);
        match self.src.read(rel, max).await {
            Ok(Some(text)) => {
                self.bytes += text.len();
                Ok(Some(text))
            }
            Ok(None) => Ok(None),
            Err(Failure::Skip(why)) => {
                if max < self.bounds.file_bytes {
                    self.stop_at(self.bounds.total_bytes, "bytes in all");
                } else {
                    self.warn(format!("{rel}: {why}; skipped"));
                }
                Ok(None)
            }
            Err(Failure::Fatal(why)) => Err(why),
        }
    }

    /// Reads and parses a markdown component file into a child.
    async fn component(
        &mut self,
        kind: ChildKind,
        rel: String,
        fallback_name: String,
    ) -> Result<(), String> {
        let Some(text) = self.read(&rel).await? else {
            return Ok(());
        };
        match frontmatter::parse(&text) {
            Ok(parsed) => {
                for w in &parsed.warnings {
                    self.warn(format!("{rel}: {w}"));
                }
                let name = parsed.meta.name.clone().unwrap_or(fallback_name);
                self.add(Child {
                    kind,
                    name,
                    rel,
                    body: parsed.body.to_owned(),
                    meta: parsed.meta,
                    entry: None,
                });
            }
            Err(why) => self.warn(format!("{rel}: {why}; skipped")),
        }
        Ok(())
    }

    /// The `SKILL.md` of each subdirectory of `dir`.
    async fn skill_dirs(&mut self, dir: &str) -> Result<(), String> {
        let Some(entries) = self.list(dir).await? else {
            return Ok(());
        };
        for e in entries {
            if let Entry::Dir(name) = e {
                // Watched too, so an edit of its `SKILL.md` is noticed.
                self.dirs.push(join(dir, &name));
                let rel = join(&join(dir, &name), "SKILL.md");
                let fallback = frontmatter::clean(&name, frontmatter::MAX_NAME_CHARS);
                self.component(ChildKind::Skill, rel, fallback).await?;
            }
        }
        Ok(())
    }

    /// Each markdown file of `dir` (with one of `suffixes`) as a `kind` child.
    async fn files(&mut self, dir: &str, kind: ChildKind, suffixes: &[&str]) -> Result<(), String> {
        let Some(entries) = self.list(dir).await? else {
            return Ok(());
        };
        for e in entries {
            if let Entry::File(name) = e {
                if suffixes.iter().any(|s| name.ends_with(s)) {
                    let fallback = stem(&name, suffixes);
                    self.component(kind, join(dir, &name), fallback).await?;
                }
            }
        }
        Ok(())
    }

    async fn plugin(&mut self) -> Result<(Option<String>, bool), String> {
        let Some(root) = self.list("").await? else {
            return Err("the plugin directory does not exist".into());
        };
        let has_dir = |name: &str| root.iter().any(|e| e == &Entry::Dir(name.into()));
        let has_file = |name: &str| root.iter().any(|e| e == &Entry::File(name.into()));
        let mut name = None;
        let manifests = [".plugin/plugin.json", ".claude-plugin/plugin.json"];
        let manifest = manifests
            .iter()
            .find(|m| has_dir(m.split('/').next().unwrap_or_default()))
            .copied()
            .or_else(|| has_file("plugin.json").then_some("plugin.json"));
        if let Some(manifest) = manifest {
            if let Some(text) = self.read(manifest).await? {
                name = Some(manifest_name(&text).map_err(|e| format!("{manifest}: {e}"))?);
            }
        }
        let name = name.flatten();
        if has_dir("skills") {
            self.skill_dirs("skills").await?;
        }
        let components = [
            ("commands", ChildKind::Skill, &[".md"][..]),
            ("agents", ChildKind::Agent, &[".md"][..]),
            ("prompts", ChildKind::Prompt, &[".md"][..]),
            ("rules", ChildKind::Rule, &[".mdc", ".md"][..]),
        ];
        for (dir, kind, suffixes) in components {
            if has_dir(dir) {
                self.files(dir, kind, suffixes).await?;
            }
        }
        if has_dir("hooks") {
            self.hooks("hooks/hooks.json").await?;
        }
        Ok((name, true))
    }

    async fn directory(&mut self, kind: ChildKind) -> Result<(Option<String>, bool), String> {
        match kind {
            ChildKind::Skill => self.skill_dirs("").await?,
            ChildKind::Rule => self.files("", kind, &[".mdc", ".md"]).await?,
            ChildKind::Hook => self.hooks("hooks.json").await?,
            ChildKind::Agent | ChildKind::Prompt => self.files("", kind, &[".md"]).await?,
        }
        Ok((None, self.dirs.iter().any(|d| d.is_empty())))
    }

    /// `hooks.json`: `{"hooks": {"<Event>": [{"matcher": "...", "hooks": [...]}, ...]}}` (or
    /// the event map at the top level). One child per event and matcher group.
    async fn hooks(&mut self, rel: &str) -> Result<(), String> {
        let Some(text) = self.read(rel).await? else {
            return Ok(());
        };
        let value: serde_json::Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                self.warn(format!("{rel}: invalid JSON ({e}); skipped"));
                return Ok(());
            }
        };
        let events = match value.get("hooks").filter(|h| h.is_object()) {
            Some(h) => h,
            None => &value,
        };
        let Some(events) = events.as_object() else {
            self.warn(format!("{rel}: not an object of events; skipped"));
            return Ok(());
        };
        for (event, groups) in events.iter().take(self.bounds.dir_entries) {
            if event == "$schema" || event == "description" {
                continue;
            }
            let event = frontmatter::clean(event, frontmatter::MAX_NAME_CHARS);
            let Some(groups) = groups.as_array() else {
                self.warn(format!("{rel}: `{event}` is not a list; skipped"));
                continue;
            };
            for (i, group) in groups.iter().enumerate().take(self.bounds.dir_entries) {
                let matcher = group
                    .get("matcher")
                    .and_then(|m| m.as_str())
                    .map(|m| frontmatter::clean(m, 256))
                    .filter(|m| !m.is_empty() && m != "*");
                let name = match &matcher {
                    Some(m) => format!("{event} ({m})"),
                    None => event.clone(),
                };
                let hook = Child {
                    kind: ChildKind::Hook,
                    name,
                    rel: rel.to_owned(),
                    meta: frontmatter::Meta::default(),
                    body: String::new(),
                    entry: Some(format!("{event}/{i}")),
                };
                if !self.add(hook) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// The `name` of a plugin manifest (`None` if it has none); a manifest that is not a JSON
/// object is an error.
fn manifest_name(text: &str) -> Result<Option<String>, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("invalid JSON ({e})"))?;
    let object = value.as_object().ok_or("not a JSON object")?;
    Ok(object
        .get("name")
        .and_then(|n| n.as_str())
        .map(|n| frontmatter::clean(n, frontmatter::MAX_NAME_CHARS))
        .filter(|n| !n.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// An in-memory source: `path → text`; directories are implied.
    struct Mem(BTreeMap<String, String>);

    impl Source for Mem {
        async fn list(&self, rel: &str, max: usize) -> Result<Listed, Failure> {
            let prefix = if rel.is_empty() {
                String::new()
            } else {
                format!("{rel}/")
            };
            let mut seen = BTreeMap::new();
            for path in self.0.keys() {
                if let Some(rest) = path.strip_prefix(&prefix) {
                    match rest.split_once('/') {
                        Some((d, _)) => seen.insert(d.to_owned(), true),
                        None => seen.insert(rest.to_owned(), false),
                    };
                }
            }
            if seen.is_empty() && !rel.is_empty() {
                return Ok(Listed::Missing);
            }
            let truncated = seen.len() > max;
            let entries = seen
                .into_iter()
                .take(max)
                .map(|(n, dir)| if dir { Entry::Dir(n) } else { Entry::File(n) })
                .collect();
            Ok(Listed::Entries { entries, truncated })
        }

        async fn read(&self, rel: &str, max: usize) -> Result<Option<String>, Failure> {
            match self.0.get(rel) {
                Some(t) if t.len() > max => Err(Failure::Skip("too large".into())),
                other => Ok(other.cloned()),
            }
        }
    }

    fn mem(files: &[(&str, &str)]) -> Mem {
        Mem(files
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect())
    }

    fn run(src: &Mem, layout: Layout, bounds: Bounds) -> Scan {
        futures_util::FutureExt::now_or_never(scan(src, layout, bounds))
            .expect("in-memory reads complete at once")
    }

    #[test]
    fn a_plugin_with_every_component() {
        let src = mem(&[
            (".plugin/plugin.json", r#"{"name": "Demo"}"#),
            (
                "skills/review/SKILL.md",
                "---\ndescription: Reviews.\n---\nReview it.",
            ),
            (
                "commands/deploy.md",
                "---\ndisable-model-invocation: true\n---\nDeploy.",
            ),
            (
                "agents/sec.md",
                "---\nname: security\ndescription: Audits.\n---\nYou audit.",
            ),
            ("prompts/explain.prompt.md", "Explain."),
            (
                "rules/style.mdc",
                "---\nalwaysApply: true\nglobs: ['*.rs']\n---\nUse rustfmt.",
            ),
            ("rules/notes.txt", "ignored"),
            (
                "hooks/hooks.json",
                r#"{"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": []}], "Stop": [{"hooks": []}]}}"#,
            ),
        ]);
        let s = run(&src, Layout::Plugin, Bounds::default());
        assert_eq!(s.load, Load::Loaded);
        assert_eq!(s.name.as_deref(), Some("Demo"));
        let names: Vec<(ChildKind, &str)> = s
            .children
            .iter()
            .map(|c| (c.kind, c.name.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                (ChildKind::Skill, "review"),
                (ChildKind::Skill, "deploy"),
                (ChildKind::Agent, "security"),
                (ChildKind::Prompt, "explain"),
                (ChildKind::Rule, "style"),
                (ChildKind::Hook, "PostToolUse (Write)"),
                (ChildKind::Hook, "Stop"),
            ]
        );
        assert_eq!(s.children[0].body, "Review it.");
        assert_eq!(s.children[4].meta.globs, Some(vec!["*.rs".into()]));
    }

    #[test]
    fn bad_files_degrade_and_bad_manifests_fail() {
        let src = mem(&[
            ("skills/ok/SKILL.md", "fine"),
            ("skills/bad/SKILL.md", "---\nname: [x\n---\n"),
            ("agents/big.md", &"x".repeat(300_000)),
            ("hooks/hooks.json", "{not json"),
        ]);
        let s = run(&src, Layout::Plugin, Bounds::default());
        let Load::Degraded(message) = &s.load else {
            panic!("{:?}", s.load)
        };
        assert!(message.contains("skills/bad/SKILL.md"), "{message}");
        assert!(message.contains("agents/big.md"), "{message}");
        assert!(message.contains("hooks/hooks.json"), "{message}");
        assert_eq!(s.children.len(), 1);

        let src = mem(&[("plugin.json", "[1]"), ("skills/a/SKILL.md", "x")]);
        let s = run(&src, Layout::Plugin, Bounds::default());
        assert!(
            matches!(&s.load, Load::Error(m) if m.contains("plugin.json")),
            "{:?}",
            s.load
        );
        assert!(s.children.is_empty());
    }

    #[test]
    fn bounds_hold_with_many_files() {
        let files: Vec<(String, String)> = (0..5000)
            .map(|i| (format!("rules/r{i:04}.md"), "rule".to_string()))
            .collect();
        let src = Mem(files.into_iter().collect());
        let s = run(&src, Layout::Plugin, Bounds::default());
        assert!(matches!(&s.load, Load::Degraded(m) if m.contains("more than 1000 entries")));
        assert_eq!(s.children.len(), 500, "at most `files` files are read");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Arbitrary plugin trees (component folders, odd names, bad frontmatter, junk
        /// manifests and hook files): never a panic, the bounds hold, and a container is
        /// degraded exactly when something was skipped.
        #[test]
        fn arbitrary_plugins_never_panic_and_stay_bounded(
            files in proptest::collection::vec(
                (
                    proptest::sample::select(vec![
                        "plugin.json", ".plugin/plugin.json", "hooks/hooks.json", "rules/a.mdc",
                        "rules/b.md", "agents/x.md", "commands/c.md", "prompts/p.prompt.md",
                        "skills/s/SKILL.md", "skills/t/SKILL.md", "skills/SKILL.md", "other/z.md",
                    ]),
                    r#"(---\n)?[-:a-z{}\[\]\\\n "',#&*!|>0-9]{0,80}(\n---\n)?[a-z ]{0,20}"#,
                ),
                0..12,
            ),
            small in proptest::bool::ANY,
        ) {
            let src = Mem(files.into_iter().map(|(p, t)| (p.to_string(), t)).collect());
            let bounds = if small {
                Bounds { dir_entries: 2, entries: 6, files: 3, file_bytes: 40, total_bytes: 60, children: 4 }
            } else {
                Bounds::default()
            };
            let s = run(&src, Layout::Plugin, bounds);
            proptest::prop_assert!(s.children.iter().filter(|c| c.kind != ChildKind::Hook).count() <= bounds.files);
            proptest::prop_assert!(s.children.len() <= bounds.children);
            for c in &s.children {
                proptest::prop_assert!(c.name.chars().count() <= 256 + frontmatter::MAX_NAME_CHARS + 3);
                proptest::prop_assert!(c.body.len() <= bounds.file_bytes);
            }
            if let Load::Degraded(m) | Load::Error(m) = &s.load {
                proptest::prop_assert!(!m.is_empty());
            }
            // The same tree reads the same (what the watcher relies on to stay quiet).
            proptest::prop_assert_eq!(run(&src, Layout::Plugin, bounds), s);
        }
    }

    /// One small `hooks.json` of 1,200 entries is not 1,200 children.
    #[test]
    fn hook_entries_count_against_the_children_bound() {
        let groups = vec!["{}"; 1200].join(",");
        let hooks = format!("{{\"hooks\": {{\"Stop\": [{groups}]}}}}");
        let src = mem(&[("rules/a.md", "a"), ("hooks/hooks.json", &hooks)]);
        let s = run(&src, Layout::Plugin, Bounds::default());
        assert_eq!(s.children.len(), 500);
        assert_eq!(s.children[0].kind, ChildKind::Rule);
        assert!(
            matches!(&s.load, Load::Degraded(m) if m.contains("more than 500 children")),
            "{:?}",
            s.load
        );
    }

    #[test]
    fn a_missing_directory_is_empty_not_an_error() {
        let s = run(
            &mem(&[]),
            Layout::Directory(ChildKind::Skill),
            Bounds::default(),
        );
        assert_eq!(s.load, Load::Loaded);
        assert!(s.children.is_empty());
        let s = run(
            &mem(&[("new/SKILL.md", "---\ndescription: d\n---\nbody")]),
            Layout::Directory(ChildKind::Skill),
            Bounds::default(),
        );
        assert_eq!(s.children.len(), 1);
        assert_eq!(s.children[0].rel, "new/SKILL.md");
        assert!(s.root_exists);
    }
}
