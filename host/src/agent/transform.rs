//! `systemMessageTransform` (our extension; `protocol/extensions/system-message-transform.json`
//! and the proposal it follows): before a turn uses its system prompt, the host asks the
//! session's active client to rewrite the sections it opted into.
//!
//! The proposal's algorithm, per render:
//! - the active client is snapshotted when the prompt is rendered (the request goes to that
//!   connection even when another client takes over meanwhile);
//! - the sections asked about are its opt-in ∩ the rendered sections ∩ not restricted;
//! - one batched request with a bounded timeout;
//! - any failure (timeout, an error answer, a malformed answer, the client gone) leaves every
//!   section as rendered; ids the client added are ignored.
//!
//! The audit log (`--debug`) carries section ids and content hashes, never the content: it is
//! model-prompt material.

use super::prompt::{self, Section};
use crate::bus::{ConnHandle, ConnId};
use crate::peer::PeerRequests;
use ahp_wasm::protocol::{
    SessionActiveClient, SystemMessageTransformParams, SystemMessageTransformResult,
    SystemMessageTransformSection,
};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// Longest rewritten section accepted; a longer one makes the answer malformed.
pub const MAX_SECTION_BYTES: usize = 64 * 1024;

/// The client a render's transform goes to, fixed when the prompt was rendered.
#[derive(Debug)]
pub struct Target {
    /// The active client at render time.
    pub client_id: String,
    /// Its connection then.
    pub conn: ConnId,
    /// That connection's outbound queue.
    pub handle: ConnHandle,
    /// The host's outstanding requests to clients.
    pub peer: Arc<PeerRequests>,
    /// How long to wait for the answer.
    pub timeout: Duration,
    /// The section ids to send, in prompt order.
    pub ids: Vec<&'static str>,
    /// Whether to print the audit line.
    pub audit: bool,
}

/// The ids to ask `client` about: its opt-in ∩ `rendered` ∩ not restricted, in prompt order.
/// Unknown ids in the opt-in are ignored (the catalogue is advertise-only).
pub fn asked(client: &SessionActiveClient, rendered: &[Section]) -> Vec<&'static str> {
    let Some(opt_in) = &client.system_message_transform else {
        return Vec::new();
    };
    rendered
        .iter()
        .map(|s| s.id)
        .filter(|id| !prompt::is_restricted(id) && opt_in.sections.iter().any(|o| o == id))
        .collect()
}

/// Runs the transform of `sections` (session `channel`) with `target`: the rewritten
/// sections, or `sections` unchanged when anything goes wrong.
pub async fn apply(channel: &str, sections: Vec<Section>, target: Target) -> Vec<Section> {
    let params = SystemMessageTransformParams {
        channel: channel.to_owned(),
        sections: sections
            .iter()
            .filter(|s| target.ids.contains(&s.id))
            .map(|s| {
                let section = SystemMessageTransformSection {
                    content: s.content.clone(),
                    extra: Default::default(),
                };
                (s.id.to_owned(), section)
            })
            .collect(),
        extra: Default::default(),
    };
    let answer = target
        .peer
        .request(
            target.conn,
            &target.handle,
            "systemMessageTransform",
            &params,
            target.timeout,
        )
        .await
        .map_err(|e| e.to_string());
    let outcome = answer.and_then(|raw| merge(&sections, &target.ids, &raw));
    if target.audit {
        eprintln!(
            "{}",
            audit_line(channel, &target.client_id, &sections, &outcome)
        );
    }
    match outcome {
        Ok(merged) => merged.sections,
        Err(_) => sections,
    }
}

/// A successful merge: the prompt's sections and what the answer held that was not used.
#[derive(Debug, PartialEq)]
pub struct Merged {
    /// The sections, the answered ones replaced.
    pub sections: Vec<Section>,
    /// Ids in the answer that were not asked about (ignored).
    pub ignored: Vec<String>,
}

/// Applies the client's answer `raw` (JSON text) to `sections`: sections in `asked` that the
/// answer has are replaced; others pass through. A malformed answer is an error.
pub fn merge(sections: &[Section], asked: &[&str], raw: &str) -> Result<Merged, String> {
    let result: SystemMessageTransformResult = serde_json::from_str(raw)
        .map_err(|e| format!("the answer is not a SystemMessageTransformResult: {e}"))?;
    if let Some((id, _)) = result
        .sections
        .iter()
        .find(|(_, s)| s.content.len() > MAX_SECTION_BYTES)
    {
        return Err(format!("section `{id}` is over {MAX_SECTION_BYTES} bytes"));
    }
    let ignored = result
        .sections
        .keys()
        .filter(|id| !asked.contains(&id.as_str()))
        .cloned()
        .collect();
    let sections = sections
        .iter()
        .map(|s| match result.sections.get(s.id) {
            Some(new) if asked.contains(&s.id) => Section {
                id: s.id,
                content: new.content.clone(),
            },
            _ => s.clone(),
        })
        .collect();
    Ok(Merged { sections, ignored })
}

/// The audit line of one transform: ids with before/after content hashes, or why it fell back.
pub fn audit_line(
    channel: &str,
    client_id: &str,
    before: &[Section],
    outcome: &Result<Merged, String>,
) -> String {
    let mut line = format!("ahp-host: systemMessageTransform {channel} client {client_id}: ");
    match outcome {
        Err(reason) => line.push_str(&format!("fell back to the rendered sections ({reason})")),
        Ok(merged) => {
            let changed: BTreeMap<&str, String> = before
                .iter()
                .zip(&merged.sections)
                .filter(|(b, a)| b.content != a.content)
                .map(|(b, a)| (b.id, format!("{}->{}", hash(&b.content), hash(&a.content))))
                .collect();
            line.push_str(&format!("changed {changed:?}"));
            if !merged.ignored.is_empty() {
                line.push_str(&format!(", ignored ids {:?}", merged.ignored));
            }
        }
    }
    line
}

/// The first 12 hex digits of the SHA-256 of `text`.
fn hash(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .take(6)
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sections() -> Vec<Section> {
        ["identity", "tone", "safety"]
            .into_iter()
            .map(|id| Section {
                id,
                content: format!("the {id} text"),
            })
            .collect()
    }

    #[test]
    fn asked_is_opt_in_and_rendered_and_not_restricted() {
        let client: SessionActiveClient = serde_json::from_value(serde_json::json!({
            "clientId": "c", "tools": [],
            "systemMessageTransform": {"sections": ["safety", "tone", "nonexistent"]}
        }))
        .unwrap();
        assert_eq!(asked(&client, &sections()), ["tone"]);
        let none: SessionActiveClient =
            serde_json::from_value(serde_json::json!({"clientId": "c", "tools": []})).unwrap();
        assert!(asked(&none, &sections()).is_empty());
    }

    #[test]
    fn merge_replaces_answered_sections_and_ignores_extra_ids() {
        let raw = r#"{"sections": {"tone": {"content": "pirate"}, "identity": {"content": "x"},
                      "new": {"content": "y"}}}"#;
        let merged = merge(&sections(), &["tone"], raw).unwrap();
        let contents: Vec<_> = merged.sections.iter().map(|s| s.content.as_str()).collect();
        assert_eq!(contents, ["the identity text", "pirate", "the safety text"]);
        assert_eq!(merged.ignored, ["identity", "new"]);
        let omitted = merge(&sections(), &["tone"], r#"{"sections": {}}"#).unwrap();
        assert_eq!(omitted.sections, sections());
    }

    #[test]
    fn malformed_answers_are_errors() {
        for raw in [
            r#"{}"#,
            r#"{"sections": {"tone": {"content": 5}}}"#,
            r#"{"sections": {"tone": "text"}}"#,
            r#"[]"#,
        ] {
            assert!(merge(&sections(), &["tone"], raw).is_err(), "{raw}");
        }
        let huge = serde_json::json!({"sections": {"tone": {"content": "x".repeat(MAX_SECTION_BYTES + 1)}}});
        assert!(merge(&sections(), &["tone"], &huge.to_string()).is_err());
    }

    #[test]
    fn the_audit_line_has_ids_and_hashes_but_no_content() {
        let merged = merge(
            &sections(),
            &["tone"],
            r#"{"sections": {"tone": {"content": "secret pirate words"}, "x": {"content": "y"}}}"#,
        );
        let line = audit_line("ahp-session:/s", "c", &sections(), &merged);
        assert!(line.contains("\"tone\""), "{line}");
        assert!(line.contains(&hash("the tone text")), "{line}");
        assert!(line.contains(&hash("secret pirate words")), "{line}");
        assert!(line.contains("ignored ids [\"x\"]"), "{line}");
        assert!(
            !line.contains("pirate") && !line.contains("the tone text"),
            "{line}"
        );
        let failed = audit_line("s", "c", &sections(), &Err("timed out".into()));
        assert!(
            failed.contains("fell back") && failed.contains("timed out"),
            "{failed}"
        );
    }
}
