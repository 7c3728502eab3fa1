//! The built-in agent's system prompt: named sections rendered from the session state at the
//! start of every turn (a "render"), published as `AgentInfo.systemMessageSections` so an active
//! client can opt into rewriting some of them with `systemMessageTransform` (our extension; see
//! `protocol/extensions/`). The agent has no model: the `/prompt` directive shows the final
//! prompt, so people and tests can see what customizations and transforms did.

use ahp_wasm::protocol::{Customization, SessionState, SystemMessageSection};

/// One rendered section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Its id (see [`catalogue`]).
    pub id: &'static str,
    /// Its text.
    pub content: String,
}

/// The sections, in prompt order: id, label, description, restricted.
const SECTIONS: [(&str, &str, &str, bool); 6] = [
    ("identity", "Identity", "Who the agent is.", false),
    ("tone", "Tone", "How the agent writes.", false),
    (
        "safety",
        "Safety",
        "Rules the host does not let clients rewrite.",
        true,
    ),
    (
        "environment_context",
        "Environment",
        "The working directory and the model.",
        false,
    ),
    (
        "tool_instructions",
        "Tools",
        "The tools the agent may call this turn.",
        false,
    ),
    (
        "custom_instructions",
        "Custom instructions",
        "From the session's enabled rules, prompts and skills.",
        false,
    ),
];

/// The catalogue for `AgentInfo.systemMessageSections`.
pub fn catalogue() -> Vec<SystemMessageSection> {
    SECTIONS
        .iter()
        .map(
            |&(id, label, description, restricted)| SystemMessageSection {
                id: id.into(),
                label: label.into(),
                description: Some(description.into()),
                restricted: restricted.then_some(true),
            },
        )
        .collect()
}

/// Whether the host refuses transforms of section `id`.
pub fn is_restricted(id: &str) -> bool {
    SECTIONS.iter().any(|&(s, _, _, r)| s == id && r)
}

/// Renders the sections for a turn of the session in `state` (working directory `workdir`).
pub fn render(state: &SessionState, workdir: &str) -> Vec<Section> {
    let mut out = Vec::with_capacity(SECTIONS.len());
    let mut push = |id: &'static str, content: String| {
        if !content.is_empty() {
            out.push(Section { id, content });
        }
    };
    push(
        "identity",
        "You are the built-in agent of ahp-host: you echo the user's message and follow its \
         directives."
            .into(),
    );
    push(
        "tone",
        "Write plainly and briefly, in the user's language.".into(),
    );
    push(
        "safety",
        "Never read or write outside the session's working directory. Ask before running a \
         tool that changes anything."
            .into(),
    );
    let model = state
        .summary
        .model
        .as_ref()
        .map_or("echo", |m| m.id.as_str());
    push(
        "environment_context",
        format!("Working directory: {workdir}\nModel: {model}"),
    );
    let mut tools: Vec<String> = state
        .server_tools
        .iter()
        .flatten()
        .map(|t| format!("- {} (host)", t.name))
        .collect();
    if let Some(client) = &state.active_client {
        let who = client.display_name.as_deref().unwrap_or(&client.client_id);
        tools.extend(
            client
                .tools
                .iter()
                .map(|t| format!("- {} (client {who})", t.name)),
        );
    }
    push("tool_instructions", tools.join("\n"));
    push(
        "custom_instructions",
        custom_instructions(state.customizations.as_deref().unwrap_or_default()),
    );
    out
}

/// One line per child of an enabled container that carries instructions (rules, prompts,
/// skills, agents): its kind, name and description.
fn custom_instructions(customizations: &[Customization]) -> String {
    let mut lines = Vec::new();
    for c in customizations {
        let (enabled, children) = match c {
            Customization::Plugin(p) => (p.enabled, p.children.as_deref()),
            Customization::Directory(d) => (d.enabled, d.children.as_deref()),
            _ => continue,
        };
        if !enabled {
            continue;
        }
        for child in children.unwrap_or_default() {
            let value = serde_json::to_value(child).unwrap_or_default();
            let kind = value.get("type").and_then(|v| v.as_str()).unwrap_or("");
            if !matches!(kind, "rule" | "prompt" | "skill" | "agent") {
                continue;
            }
            let name = value.get("name").and_then(|v| v.as_str()).unwrap_or("");
            let description = value
                .get("description")
                .and_then(|v| v.as_str())
                .unwrap_or("");
            lines.push(
                format!("- {kind} {name}: {description}")
                    .trim_end()
                    .to_owned(),
            );
        }
    }
    lines.join("\n")
}

/// The final prompt: the sections under their ids.
pub fn assemble(sections: &[Section]) -> String {
    sections
        .iter()
        .map(|s| format!("## {}\n{}", s.id, s.content))
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_render_from_state_and_safety_is_restricted() {
        let state: SessionState = serde_json::from_value(serde_json::json!({
            "summary": {"resource": "ahp-session:/s", "provider": "builtin", "title": "t",
                "status": 1, "createdAt": 0, "modifiedAt": 0},
            "lifecycle": "ready",
            "serverTools": [{"name": "read_file"}],
            "activeClient": {"clientId": "c", "displayName": "IDE", "tools": [{"name": "clock"}]},
            "turns": [],
            "customizations": [{"type": "plugin", "id": "p", "uri": "file:///p", "name": "P",
                "enabled": true, "children": [
                    {"type": "rule", "id": "r", "uri": "file:///p/rules/a.md", "name": "tests-first",
                     "description": "Write the test first"}]},
                {"type": "plugin", "id": "q", "uri": "file:///q", "name": "Q", "enabled": false,
                 "children": [{"type": "rule", "id": "r2", "uri": "file:///q/r.md", "name": "off"}]}]
        }))
        .unwrap();
        let sections = render(&state, "/w");
        let ids: Vec<_> = sections.iter().map(|s| s.id).collect();
        assert_eq!(ids, SECTIONS.map(|s| s.0));
        let text = assemble(&sections);
        assert!(
            text.contains("- read_file (host)\n- clock (client IDE)"),
            "{text}"
        );
        assert!(
            text.contains("- rule tests-first: Write the test first"),
            "{text}"
        );
        assert!(
            !text.contains("off"),
            "a disabled container adds nothing: {text}"
        );
        assert!(is_restricted("safety") && !is_restricted("tone"));
        assert_eq!(catalogue()[2].restricted, Some(true));
    }
}
