//! MCP server declarations: the standard `mcpServers` map of a `.mcp.json` file (the session's
//! working directory) or of the `--mcp-config` file (every session).
//!
//! ```json
//! {"mcpServers": {
//!   "basic": {"command": "node", "args": ["server.js", "--stdio"], "env": {"K": "V"}},
//!   "remote": {"url": "https://example.com/mcp", "headers": {"X-Key": "..."}}
//! }}
//! ```
//!
//! A declaration that cannot be used becomes an entry with an error (shown on that server's
//! state), never a failure of the session or the host.
//!
//! Each declaration has an [`Origin`]: the operator's files (`--mcp-config`, `--plugins`) are
//! trusted as configured; the working directory's `.mcp.json` is not (the repository wrote it),
//! so its servers wait for a client's approval (`hub/mcp/trust.rs`) and never replace an
//! operator's server of the same name.

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file looked for in a session's working directory.
pub const PROJECT_FILE: &str = ".mcp.json";

/// Largest config file read.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// Most servers one session runs (project and global together).
pub const MAX_SERVERS: usize = 32;

/// How to reach one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerSpec {
    /// A child process speaking MCP over stdin/stdout.
    Stdio {
        /// Program (looked up on `PATH` when it has no `/`).
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables.
        env: BTreeMap<String, String>,
    },
    /// A streamable-HTTP MCP endpoint.
    Http {
        /// `http://` or `https://` URL.
        url: String,
        /// Extra request headers.
        headers: BTreeMap<String, String>,
    },
}

impl ServerSpec {
    /// The URL of an HTTP server.
    pub fn url(&self) -> Option<&str> {
        match self {
            ServerSpec::Http { url, .. } => Some(url),
            ServerSpec::Stdio { .. } => None,
        }
    }
}

/// Who declared a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `--mcp-config` or a `--plugins` directory: named by the operator, started as declared.
    Operator,
    /// The session's working directory: started only once a client approved the declaration.
    Project,
}

/// One declared server, usable or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// The customization id (session-unique).
    pub id: String,
    /// The server's name (the key in `mcpServers`), or the file name for a file-level error.
    pub name: String,
    /// The file it was declared in.
    pub source: PathBuf,
    /// How to run it, or why it cannot be run.
    pub spec: Result<ServerSpec, String>,
    /// Who declared it.
    pub origin: Origin,
}

/// The customization id of a server named `name`.
pub fn server_id(name: &str) -> String {
    format!("mcp/{name}")
}

/// The customization id of a working-directory server shadowed by an operator's server named
/// `name` (server names have no `/`, so it is distinct from every [`server_id`]).
pub fn shadowed_id(name: &str) -> String {
    format!("mcp/{name}/shadowed")
}

/// The servers of the `--mcp-config` file (if any) and of each `--plugins` directory's
/// `.mcp.json` (a later one replacing an earlier one of the same name), then those of
/// `workdir/.mcp.json` (if present, and not one of the operator's files): a working-directory
/// server named like an operator's one never replaces it; it is listed as shadowed (id
/// [`shadowed_id`], an error saying why, never run). At most [`MAX_SERVERS`], the operator's
/// first.
pub fn load(global: Option<&Path>, plugins: &[PathBuf], workdir: &Path) -> Vec<Declared> {
    let mut out: Vec<Declared> = Vec::new();
    let optional = |dir: &Path| {
        let file = dir.join(PROJECT_FILE);
        file.is_file().then_some((file, false))
    };
    let operator: Vec<(PathBuf, bool)> = global
        .map(|g| (g.to_path_buf(), true))
        .into_iter()
        .chain(plugins.iter().filter_map(|dir| optional(dir)))
        .collect();
    for (file, required) in &operator {
        for d in read_file(file, *required, Origin::Operator) {
            upsert(&mut out, d);
        }
    }
    let project =
        optional(workdir).filter(|(file, _)| !operator.iter().any(|(o, _)| same(o, file)));
    if let Some((file, _)) = project {
        for mut d in read_file(&file, false, Origin::Project) {
            let shadowing = out
                .iter()
                .find(|o| o.id == d.id && o.origin == Origin::Operator && o.id.starts_with("mcp/"));
            if let Some(op) = shadowing {
                d.spec = Err(format!(
                    "not used: the operator's server `{}` (declared in {}) has this name and wins; \
                     this declaration of the working directory never runs",
                    d.name,
                    op.source.display()
                ));
                d.id = shadowed_id(&d.name);
            }
            upsert(&mut out, d);
        }
    }
    out.truncate(MAX_SERVERS);
    out
}

/// Adds `d`, replacing an entry of the same id.
fn upsert(out: &mut Vec<Declared>, d: Declared) {
    match out.iter_mut().find(|o| o.id == d.id) {
        Some(existing) => *existing = d,
        None => out.push(d),
    }
}

/// Whether two paths name the same file (the working directory may be a plugin directory).
fn same(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The declarations of one file; a file that cannot be used is one entry with the reason.
fn read_file(file: &Path, required: bool, origin: Origin) -> Vec<Declared> {
    let name = file
        .file_name()
        .map_or_else(|| "mcp config".into(), |n| n.to_string_lossy().into_owned());
    let file_error = |reason: String| {
        vec![Declared {
            id: format!("mcp-config/{name}"),
            name: name.clone(),
            source: file.to_path_buf(),
            spec: Err(reason),
            origin,
        }]
    };
    let text = match read_bounded(file) {
        Ok(t) => t,
        Err(e) if !required && e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => return file_error(format!("cannot read {}: {e}", file.display())),
    };
    match parse(&text) {
        Ok(servers) => servers
            .into_iter()
            .map(|(name, spec)| Declared {
                id: server_id(&name),
                name,
                source: file.to_path_buf(),
                spec,
                origin,
            })
            .collect(),
        Err(e) => file_error(format!("invalid {}: {e}", file.display())),
    }
}

fn read_bounded(file: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(file)?
        .take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "larger than {MAX_FILE_BYTES} bytes"
        )));
    }
    Ok(text)
}

/// A server's name and how to run it (or why it cannot be run).
pub type Entry = (String, Result<ServerSpec, String>);

/// Parses a config file's text: the servers in file order, each usable or with its problem.
pub fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let root: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let servers = root
        .get("mcpServers")
        .ok_or("no `mcpServers` object")?
        .as_object()
        .ok_or("`mcpServers` is not an object")?;
    Ok(servers
        .iter()
        .map(|(name, v)| {
            let spec = if valid_name(name) {
                server(v)
            } else {
                Err("a server name is 1-64 characters, without control characters or `/`".into())
            };
            (name.clone(), spec)
        })
        .collect())
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= 64
        && !name.chars().any(|c| c.is_control() || c == '/')
}

fn server(v: &Value) -> Result<ServerSpec, String> {
    let o = v.as_object().ok_or("the declaration is not an object")?;
    let kind = o
        .get("type")
        .map(|t| t.as_str().ok_or("`type` is not a string"));
    let kind = kind.transpose()?;
    match (o.get("command"), o.get("url"), kind) {
        (Some(_), Some(_), _) => Err("both `command` and `url` are set".into()),
        (Some(command), None, None | Some("stdio")) => {
            let command = command
                .as_str()
                .filter(|c| !c.trim().is_empty())
                .ok_or("`command` is not a non-empty string")?;
            let args = match o.get("args") {
                None => Vec::new(),
                Some(a) => a
                    .as_array()
                    .and_then(|a| {
                        a.iter()
                            .map(|x| x.as_str().map(str::to_owned))
                            .collect::<Option<Vec<_>>>()
                    })
                    .ok_or("`args` is not an array of strings")?,
            };
            Ok(ServerSpec::Stdio {
                command: command.to_owned(),
                args,
                env: string_map(o, "env")?,
            })
        }
        (None, Some(url), None | Some("http" | "streamable-http" | "streamableHttp")) => {
            let url = url.as_str().ok_or("`url` is not a string")?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!("`url` must be http:// or https://, not `{url}`"));
            }
            Ok(ServerSpec::Http {
                url: url.to_owned(),
                headers: string_map(o, "headers")?,
            })
        }
        (_, _, Some(other)) => Err(format!(
            "transport `{other}` is not supported (stdio and streamable HTTP are)"
        )),
        (None, None, None) => Err("neither `command` nor `url` is set".into()),
    }
}

fn string_map(o: &Map<String, Value>, key: &str) -> Result<BTreeMap<String, String>, String> {
    match o.get(key) {
        None => Ok(BTreeMap::new()),
        Some(v) => v
            .as_object()
            .and_then(|m| {
                m.iter()
                    .map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_owned())))
                    .collect::<Option<BTreeMap<_, _>>>()
            })
            .ok_or_else(|| format!("`{key}` is not an object of strings")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new directory `name` in `parent` whose project MCP file holds `json`.
    fn project_dir(parent: &Path, name: &str, json: &str) -> PathBuf {
        let dir = parent.join(name);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join(PROJECT_FILE), json).unwrap();
        dir
    }

    #[test]
    fn parses_stdio_and_http_and_reports_bad_entries() {
        let servers = parse(
            r#"{"mcpServers": {
                "a": {"command": "node", "args": ["s.js"], "env": {"K": "V"}},
                "b": {"url": "http://127.0.0.1:1/mcp", "headers": {"X": "y"}},
                "c": {"command": 3},
                "d": {"url": "ftp://x"},
                "e": {},
                "f": {"type": "sse", "url": "http://x"},
                "g/h": {"command": "x"}
            }}"#,
        )
        .unwrap();
        let get = |n: &str| servers.iter().find(|(k, _)| k == n).unwrap().1.clone();
        assert_eq!(
            get("a").unwrap(),
            ServerSpec::Stdio {
                command: "node".into(),
                args: vec!["s.js".into()],
                env: [("K".to_owned(), "V".to_owned())].into(),
            }
        );
        assert!(matches!(get("b").unwrap(), ServerSpec::Http { .. }));
        for bad in ["c", "d", "e", "f", "g/h"] {
            assert!(get(bad).is_err(), "{bad} is refused");
        }
        assert!(parse("not json").is_err());
        assert!(parse(r#"{"servers": {}}"#).is_err());
    }

    #[test]
    fn operator_servers_win_over_the_working_directory_and_file_errors_are_entries() {
        let dir = tempfile::tempdir().unwrap();
        let global = dir.path().join("global.json");
        std::fs::write(
            &global,
            r#"{"mcpServers": {"x": {"command": "a"}, "y": {"command": "b"}}}"#,
        )
        .unwrap();
        let work = project_dir(
            dir.path(),
            "w",
            r#"{"mcpServers": {"x": {"command": "c"}, "w": {"command": "d"}}}"#,
        );
        let plugin = project_dir(
            dir.path(),
            "plugin",
            r#"{"mcpServers": {"y": {"command": "p"}, "z": {"command": "q"}}}"#,
        );
        let no_plugin = dir.path().join("no-plugin-file");
        let plugins = [plugin.clone(), no_plugin];
        let all = load(Some(&global), &plugins, &work);
        let ids: Vec<&str> = all.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["mcp/x", "mcp/y", "mcp/z", "mcp/x/shadowed", "mcp/w"]);
        // The operator's `x` stays; a plugin replaces the global `y` (both the operator's).
        assert!(matches!(&all[0].spec, Ok(ServerSpec::Stdio { command, .. }) if command == "a"));
        assert_eq!(all[0].origin, Origin::Operator);
        assert!(matches!(&all[1].spec, Ok(ServerSpec::Stdio { command, .. }) if command == "p"));
        assert_eq!(all[2].source, plugin.join(PROJECT_FILE));
        // The working directory's `x` is listed, never run; its `w` is the project's.
        assert!(all[3].spec.as_ref().unwrap_err().contains("operator"));
        assert_eq!(all[3].origin, Origin::Project);
        assert_eq!(all[4].origin, Origin::Project);
        // A working directory that is a plugin directory: its file is the operator's.
        let as_plugin = load(None, std::slice::from_ref(&work), &work);
        assert!(as_plugin.iter().all(|d| d.origin == Origin::Operator));
        assert_eq!(as_plugin.len(), 2);
        std::fs::write(work.join(PROJECT_FILE), "{").unwrap();
        let all = load(None, &[], &work);
        assert_eq!(all.len(), 1);
        assert!(all[0].spec.as_ref().unwrap_err().contains("invalid"));
        assert!(load(None, &[], dir.path()).is_empty());
        let missing = load(Some(&dir.path().join("nope.json")), &[], dir.path());
        assert!(missing[0]
            .spec
            .as_ref()
            .unwrap_err()
            .contains("cannot read"));
    }
}
