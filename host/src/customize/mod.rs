//! Customizations (AHP 0.3.0 guide/customizations.md): Open Plugins containers parsed into
//! children.
//!
//! - [`frontmatter`]: the YAML frontmatter of markdown component files;
//! - [`scan`]: the layouts (a plugin; a directory of one child kind) read through a
//!   [`scan::Source`], with the bounds every container is read within;
//! - [`disk`]: the file-system source (confined to the container's directory);
//! - [`watch`]: the file-system watcher (debounced) that makes the hub read a container again;
//! - the hub side (sessions, client-published plugins, toggles) is `crate::hub::customizations`.
//!
//! Everything a client sees is built here as protocol JSON and decoded into the SDK's types, so
//! the shapes follow the schema (and its defaults) whatever fields the types grow.

pub mod client;
pub mod disk;
pub mod frontmatter;
pub mod scan;

use ahp_wasm::protocol::{ChildCustomization, Customization};
use serde_json::{json, Value};

/// The kind of a child customization.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChildKind {
    /// `agents/*.md`.
    Agent,
    /// `skills/<name>/SKILL.md`, and `commands/*.md` (slash-command skills).
    Skill,
    /// `prompts/*.md`.
    Prompt,
    /// `rules/*.md`, `rules/*.mdc`.
    Rule,
    /// One event (and matcher) of `hooks/hooks.json`.
    Hook,
}

impl ChildKind {
    /// The protocol's `type` (and a directory's `contents`).
    pub fn as_str(self) -> &'static str {
        match self {
            ChildKind::Agent => "agent",
            ChildKind::Skill => "skill",
            ChildKind::Prompt => "prompt",
            ChildKind::Rule => "rule",
            ChildKind::Hook => "hook",
        }
    }
}

/// One parsed child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Child {
    /// Its kind.
    pub kind: ChildKind,
    /// Display name (frontmatter `name`, else from the file name).
    pub name: String,
    /// Its file, relative to the container's root (`/`-separated).
    pub rel: String,
    /// Frontmatter metadata.
    pub meta: frontmatter::Meta,
    /// The markdown body (for hooks: empty; their commands stay on the host).
    pub body: String,
    /// For hooks: which entry of the file (`event` or `event: matcher`), keeping ids distinct.
    pub entry: Option<String>,
}

/// How a container's last read went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Load {
    /// Everything read.
    Loaded,
    /// Read, but some files were skipped or fields dropped: why.
    Degraded(String),
    /// Not usable: why.
    Error(String),
}

impl Load {
    /// The protocol's `CustomizationLoadState` as JSON.
    pub fn json(&self) -> Value {
        match self {
            Load::Loaded => json!({"kind": "loaded"}),
            Load::Degraded(m) => json!({"kind": "degraded", "message": m}),
            Load::Error(m) => json!({"kind": "error", "message": m}),
        }
    }
}

/// What a container read produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scan {
    /// The manifest's `name`, if it has one.
    pub name: Option<String>,
    /// Loaded, degraded or error.
    pub load: Load,
    /// The children found, in a stable order.
    pub children: Vec<Child>,
    /// Directories listed (relative, `""` = the root), for the watcher.
    pub dirs: Vec<String>,
    /// Whether the root directory exists.
    pub root_exists: bool,
}

impl Scan {
    /// A container that could not be read at all.
    pub fn error(message: impl Into<String>) -> Scan {
        Scan {
            name: None,
            load: Load::Error(message.into()),
            children: Vec::new(),
            dirs: Vec::new(),
            root_exists: true,
        }
    }
}

/// A child of an enabled container, with what the agent needs of it (see
/// [`crate::hub::Hub`]'s `active_customizations`): instructions, skills and prompts are built
/// from these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveCustomization {
    /// The container's id.
    pub container_id: String,
    /// The container's name.
    pub container: String,
    /// The child's id (as in the session state).
    pub id: String,
    /// Its kind.
    pub kind: ChildKind,
    /// Its name.
    pub name: String,
    /// Frontmatter metadata.
    pub meta: frontmatter::Meta,
    /// Its markdown body.
    pub body: String,
}

/// The id of a container's child: the container's id and the child's file (plus the hook
/// entry), unique within the session.
pub fn child_id(container_id: &str, child: &Child) -> String {
    match &child.entry {
        Some(entry) => format!("{container_id}:{}#{entry}", child.rel),
        None => format!("{container_id}:{}", child.rel),
    }
}

/// The protocol JSON of a child; `uri` is its file's URI.
pub fn child_json(container_id: &str, child: &Child, uri: String) -> Value {
    let mut v = json!({
        "type": child.kind.as_str(),
        "id": child_id(container_id, child),
        "uri": uri,
        "name": child.name,
    });
    let m = &child.meta;
    let o = v.as_object_mut().expect("an object");
    if child.kind != ChildKind::Hook {
        if let Some(d) = &m.description {
            o.insert("description".into(), json!(d));
        }
    }
    match child.kind {
        ChildKind::Skill => {
            if let Some(b) = m.disable_model_invocation {
                o.insert("disableModelInvocation".into(), json!(b));
            }
        }
        ChildKind::Rule => {
            if let Some(b) = m.always_apply {
                o.insert("alwaysApply".into(), json!(b));
            }
            if let Some(g) = &m.globs {
                o.insert("globs".into(), json!(g));
            }
        }
        _ => {}
    }
    v
}

/// Decodes protocol JSON built here into the SDK's type (it always fits the schema).
pub fn customization(value: Value) -> Customization {
    serde_json::from_value(value).expect("customization JSON built by the host fits the schema")
}

/// Decodes a child built by [`child_json`].
pub fn child(value: Value) -> ChildCustomization {
    serde_json::from_value(value).expect("child JSON built by the host fits the schema")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_decode_into_the_sdk_types() {
        let meta = frontmatter::Meta {
            name: Some("r".into()),
            description: Some("d".into()),
            disable_model_invocation: Some(true),
            always_apply: Some(true),
            globs: Some(vec!["*.rs".into()]),
        };
        for kind in [
            ChildKind::Agent,
            ChildKind::Skill,
            ChildKind::Prompt,
            ChildKind::Rule,
            ChildKind::Hook,
        ] {
            let c = Child {
                kind,
                name: "n".into(),
                rel: "x/y.md".into(),
                meta: meta.clone(),
                body: String::new(),
                entry: (kind == ChildKind::Hook).then(|| "PostToolUse".into()),
            };
            let json = child_json("plugin/p", &c, "file:///p/x/y.md".into());
            let decoded = child(json.clone());
            assert_eq!(serde_json::to_value(&decoded).unwrap(), json, "{kind:?}");
            assert!(!matches!(decoded, ChildCustomization::Unknown(_)));
        }
    }
}
