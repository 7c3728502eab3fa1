//! The built-in agent's system prompt: named sections rendered from the session state at the
//! start of every turn (a "render"), published as `AgentInfo.systemMessageSections` so an active
//! client can opt into rewriting some of them with `systemMessageTransform` (our extension; see
//! `protocol/extensions/`). The agent has no model: the `/prompt` directive shows the final
//! prompt, so people and tests can see what customizations and transforms did.

use crate::customize::{ActiveCustomization, ChildKind};
use ahp_wasm::protocol::{SessionState, SystemMessageSection};

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
                extra: Default::default(),
            },
        )
        .collect()
}

/// Whether the host refuses transforms of section `id`.
pub fn is_restricted(id: &str) -> bool {
    SECTIONS.iter().any(|&(s, _, _, r)| s == id && r)
}

/// Renders the sections for a turn of the session in `state` (working directory `workdir`,
/// the children of its enabled customization containers `customizations`).
pub fn render(
    state: &SessionState,
    workdir: &str,
    customizations: &[ActiveCustomization],
) -> Vec<Section> {
    let mut out = Vec::with_capacity(SECTIONS.len());
    let mut push = |id: &'static str, content: String| {
        if !content.is_empty() {
            out.push(Section { id, content });
        }
    };
    let identity = if state.summary.provider == super::PROVIDER {
        "You are the built-in agent of ahp-host: you echo the user's message and follow its \
         directives."
            .to_owned()
    } else {
        "You are a coding assistant working in ahp-host, through the model provider `".to_owned()
            + &state.summary.provider
            + "`. Use the tools to look at and change the files of the working directory; the \
               user confirms each call."
    };
    push("identity", identity);
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
    push("custom_instructions", custom_instructions(customizations));
    out
}

/// Longest rule body put in the prompt (a longer one is cut).
const MAX_RULE_BYTES: usize = 4 * 1024;
/// Longest `custom_instructions` section (later children are left out).
const MAX_CUSTOM_BYTES: usize = 32 * 1024;

/// The children of the session's enabled containers that carry instructions: a rule with its
/// body (the agent follows it every turn), a skill, agent or prompt as one line with its
/// description (loaded when asked for). Hooks add nothing.
fn custom_instructions(customizations: &[ActiveCustomization]) -> String {
    let mut out = String::new();
    for c in customizations {
        let entry = match c.kind {
            ChildKind::Hook => continue,
            ChildKind::Rule => {
                let mut text = format!("- rule {} (from {})", c.name, c.container);
                let body = cut(c.body.trim(), MAX_RULE_BYTES);
                for line in body.lines() {
                    text.push_str("\n  ");
                    text.push_str(line);
                }
                text
            }
            kind => match c.meta.description.as_deref().filter(|d| !d.is_empty()) {
                Some(d) => format!("- {} {}: {d}", kind.as_str(), c.name),
                None => format!("- {} {}", kind.as_str(), c.name),
            },
        };
        if out.len() + entry.len() + 1 > MAX_CUSTOM_BYTES {
            out.push_str("\n(more customizations left out: the section is full)");
            break;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&entry);
    }
    out
}

/// `text` cut to at most `max` bytes at a character boundary, marked when cut.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
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

    fn child(
        kind: ChildKind,
        name: &str,
        description: Option<&str>,
        body: &str,
    ) -> ActiveCustomization {
        ActiveCustomization {
            container_id: "p".into(),
            container: "P".into(),
            id: format!("p:{name}"),
            kind,
            name: name.into(),
            meta: crate::customize::frontmatter::Meta {
                description: description.map(Into::into),
                ..Default::default()
            },
            body: body.into(),
        }
    }

    #[test]
    fn sections_render_from_state_and_safety_is_restricted() {
        let state: SessionState = serde_json::from_value(serde_json::json!({
            "summary": {"resource": "ahp-session:/s", "provider": "builtin", "title": "t",
                "status": 1, "createdAt": 0, "modifiedAt": 0},
            "lifecycle": "ready",
            "serverTools": [{"name": "read_file"}],
            "activeClient": {"clientId": "c", "displayName": "IDE", "tools": [{"name": "clock"}]},
            "turns": []
        }))
        .unwrap();
        let customizations = [
            child(
                ChildKind::Rule,
                "tests-first",
                Some("ignored"),
                "Write the test first.\nThen the code.",
            ),
            child(
                ChildKind::Skill,
                "pdf",
                Some("Reads PDF files"),
                "long skill body",
            ),
            child(ChildKind::Hook, "PreToolUse", None, "hook"),
        ];
        let sections = render(&state, "/w", &customizations);
        let ids: Vec<_> = sections.iter().map(|s| s.id).collect();
        assert_eq!(ids, SECTIONS.map(|s| s.0));
        let text = assemble(&sections);
        assert!(
            text.contains("- read_file (host)\n- clock (client IDE)"),
            "{text}"
        );
        assert!(
            text.contains("- rule tests-first (from P)\n  Write the test first.\n  Then the code.\n- skill pdf: Reads PDF files"),
            "{text}"
        );
        assert!(
            !text.contains("long skill body") && !text.contains("PreToolUse"),
            "{text}"
        );
        assert!(is_restricted("safety") && !is_restricted("tone"));
        assert_eq!(catalogue()[2].restricted, Some(true));
        let none = render(&state, "/w", &[]);
        assert!(
            none.iter().all(|s| s.id != "custom_instructions"),
            "an empty section is left out"
        );
    }

    #[test]
    fn custom_instructions_are_bounded() {
        let huge = "é".repeat(MAX_RULE_BYTES);
        let one = custom_instructions(&[child(ChildKind::Rule, "big", None, &huge)]);
        assert!(
            one.len() < MAX_RULE_BYTES + 64 && one.ends_with('…'),
            "{}",
            one.len()
        );
        let many: Vec<_> = (0..100)
            .map(|i| child(ChildKind::Rule, &format!("r{i}"), None, &huge))
            .collect();
        let all = custom_instructions(&many);
        assert!(all.len() <= MAX_CUSTOM_BYTES + 64, "{}", all.len());
        assert!(all.ends_with("the section is full)"), "{all}");
    }
}
