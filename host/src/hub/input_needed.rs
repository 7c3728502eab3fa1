//! The session's `inputNeeded` roll-up (AHP 1.0, session channel, "Aggregated input requests"):
//! every outstanding block in the session's chats (an input request without a response, a tool
//! call awaiting confirmation or a token, a client's tool running) mirrored into
//! `SessionState.inputNeeded` with `session/inputNeededSet` / `session/inputNeededRemoved`, so
//! a client that watches only the session finds them and answers on the entry's chat.
//!
//! An entry lives in the chat's active turn, so the roll-up is taken again from that turn after
//! every change of the chat ([`sync`]) and compared with the session's entries of that chat:
//! a chat with no active turn and no entries costs nothing, and a streaming turn costs one
//! look at each of its parts. Entries are keyed `<chat>#<request id>` (input requests) or
//! `<chat>#<turn id>/<tool call id>` (tool calls): opaque to clients, unique in the session.

use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::session_reducer;
use serde_json::{json, Value};

/// The `inputNeeded` entries chat `chat_uri` asks for now, as JSON (`SessionInputRequest`).
fn wanted(chat_uri: &str, chat: &v1::ChatState) -> Vec<(String, Value)> {
    let Some(turn) = &chat.active_turn else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for part in &turn.response_parts {
        let entry = match part {
            v1::ResponsePart::InputRequest(p) if p.response.is_none() => {
                let id = format!("{chat_uri}#{}", p.request.id);
                json!({"kind": "chatInput", "id": id, "chat": chat_uri, "request": p.request})
            }
            v1::ResponsePart::ToolCall(p) => {
                let Some(kind) = tool_call_kind(&p.tool_call) else {
                    continue;
                };
                let call = tool_call_id(&p.tool_call);
                let id = format!("{chat_uri}#{}/{call}", turn.id);
                let mut entry = json!({"kind": kind, "id": id, "chat": chat_uri,
                    "turnId": turn.id, "toolCall": p.tool_call});
                if let v1::ToolCallState::Running(running) = &p.tool_call {
                    entry["clientId"] = client_of(running).into();
                }
                entry
            }
            _ => continue,
        };
        let id = entry["id"].as_str().unwrap_or_default().to_owned();
        out.push((id, entry));
    }
    out
}

/// The roll-up kind of a tool call that blocks on somebody, if it does.
fn tool_call_kind(call: &v1::ToolCallState) -> Option<&'static str> {
    match call {
        v1::ToolCallState::PendingConfirmation(_)
        | v1::ToolCallState::PendingResultConfirmation(_) => Some("toolConfirmation"),
        v1::ToolCallState::AuthRequired(_) => Some("toolAuthentication"),
        v1::ToolCallState::Running(running) if !client_of(running).is_empty() => {
            Some("toolClientExecution")
        }
        _ => None,
    }
}

/// The client a running tool call is delegated to ("" when it is not a client's tool).
fn client_of(running: &v1::ToolCallRunningState) -> &str {
    match &running.contributor {
        Some(v1::ToolCallContributor::Client(c)) => &c.client_id,
        _ => "",
    }
}

fn tool_call_id(call: &v1::ToolCallState) -> &str {
    match call {
        v1::ToolCallState::PendingConfirmation(c) => &c.tool_call_id,
        v1::ToolCallState::PendingResultConfirmation(c) => &c.tool_call_id,
        v1::ToolCallState::AuthRequired(c) => &c.tool_call_id,
        v1::ToolCallState::Running(c) => &c.tool_call_id,
        _ => "",
    }
}

/// The id and chat of an entry.
fn key(entry: &v1::SessionInputRequest) -> Option<(&str, &str)> {
    Some(match entry {
        v1::SessionInputRequest::ChatInput(r) => (&r.id, &r.chat),
        v1::SessionInputRequest::ToolConfirmation(r) => (&r.id, &r.chat),
        v1::SessionInputRequest::ToolClientExecution(r) => (&r.id, &r.chat),
        v1::SessionInputRequest::ToolAuthentication(r) => (&r.id, &r.chat),
        v1::SessionInputRequest::Unknown(_) => return None,
    })
}

/// The session's entries of chat `chat_uri`, by id.
fn entries_of<'a>(
    session: &'a v1::SessionState,
    chat_uri: &'a str,
) -> impl Iterator<Item = (&'a str, &'a v1::SessionInputRequest)> + 'a {
    let entries = session.input_needed.as_deref().unwrap_or_default();
    entries.iter().filter_map(move |e| {
        key(e)
            .filter(|(_, c)| *c == chat_uri)
            .map(|(id, _)| (id, e))
    })
}

/// The actions that make `session`'s entries of chat `chat_uri` what its state asks for now,
/// not applied (a chat's view sends them to its parent session, which applies them).
pub(super) fn changes(
    session: &v1::SessionState,
    chat_uri: &str,
    chat: Option<&v1::ChatState>,
) -> Vec<Value> {
    let wanted = chat.map(|c| wanted(chat_uri, c)).unwrap_or_default();
    let mut out = Vec::new();
    for (id, entry) in entries_of(session, chat_uri) {
        if !wanted.iter().any(|(w, _)| w == id) {
            out.push(json!({"type": "session/inputNeededRemoved", "id": id}));
        } else if let Some((_, new)) = wanted.iter().find(|(w, _)| w == id) {
            if serde_json::to_value(entry).ok().as_ref() != Some(new) {
                out.push(json!({"type": "session/inputNeededSet", "request": new}));
            }
        }
    }
    for (id, new) in wanted {
        if entries_of(session, chat_uri).all(|(have, _)| have != id) {
            out.push(json!({"type": "session/inputNeededSet", "request": new}));
        }
    }
    out
}

/// The entries of chat `chat_uri` in `session`, as `session/inputNeededSet` actions (to show
/// them in another session, where a moved chat goes).
pub(super) fn sets(session: &v1::SessionState, chat_uri: &str) -> Vec<Value> {
    entries_of(session, chat_uri)
        .filter_map(|(_, e)| serde_json::to_value(e).ok())
        .map(|request| json!({"type": "session/inputNeededSet", "request": request}))
        .collect()
}

/// Brings `session`'s entries of chat `chat_uri` up to date with `chat`: the actions applied.
pub(super) fn sync(
    session: &mut v1::SessionState,
    chat_uri: &str,
    chat: &v1::ChatState,
) -> Vec<Value> {
    // The common case, answered without a look at the parts' contents.
    if chat.active_turn.is_none() && entries_of(session, chat_uri).next().is_none() {
        return Vec::new();
    }
    let mut applied = changes(session, chat_uri, Some(chat));
    applied.retain(|json| {
        serde_json::from_value::<v1::StateAction>(json.clone())
            .is_ok_and(|typed| session_reducer(session, &typed).is_applied())
    });
    applied
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHAT: &str = "ahp-chat:/s/default";

    fn chat(parts: Value) -> v1::ChatState {
        serde_json::from_value(json!({
            "resource": CHAT, "title": "", "status": 8, "modifiedAt": "2026-01-01T00:00:00Z",
            "turns": [],
            "activeTurn": {"id": "t1", "startedAt": "2026-01-01T00:00:00Z",
                "message": {"text": "hi", "origin": {"kind": "user"}}, "responseParts": parts},
        }))
        .expect("a chat state")
    }

    fn session() -> v1::SessionState {
        serde_json::from_value(json!({
            "resource": "ahp-session:/s", "provider": "builtin", "title": "", "status": 8,
            "createdAt": "2026-01-01T00:00:00Z", "modifiedAt": "2026-01-01T00:00:00Z",
            "lifecycle": "ready", "chats": [], "activeClients": [],
        }))
        .expect("a session state")
    }

    fn input(answered: bool) -> Value {
        let mut part = json!({"kind": "inputRequest", "request": {"id": "q1", "message": "Name?"}});
        if answered {
            part["response"] = json!("accept");
        }
        part
    }

    fn tool(status: &str, contributor: Option<Value>) -> Value {
        let mut call = json!({"status": status, "toolCallId": "c1", "toolName": "read_file",
            "displayName": "Read", "invocationMessage": "Reading"});
        if let Some(c) = contributor {
            call["contributor"] = c;
            call["confirmed"] = json!("not-needed");
        }
        json!({"kind": "toolCall", "toolCall": call})
    }

    fn kinds(session: &v1::SessionState) -> Vec<String> {
        let entries = serde_json::to_value(&session.input_needed).unwrap();
        let list = entries.as_array().cloned().unwrap_or_default();
        list.iter()
            .map(|e| {
                format!(
                    "{} {}",
                    e["kind"].as_str().unwrap(),
                    e["id"].as_str().unwrap()
                )
            })
            .collect()
    }

    #[test]
    fn entries_follow_the_active_turn_and_raise_input_needed() {
        let mut s = session();
        let applied = sync(&mut s, CHAT, &chat(json!([input(false)])));
        assert_eq!(applied.len(), 1, "{applied:?}");
        assert_eq!(kinds(&s), [format!("chatInput {CHAT}#q1")]);
        let input_needed = v1::SessionStatus::InputNeeded.bits();
        assert_eq!(
            s.status & input_needed,
            input_needed,
            "the status bit is raised"
        );
        // Unchanged: nothing sent again.
        assert!(sync(&mut s, CHAT, &chat(json!([input(false)]))).is_empty());
        // Answered, and a tool call awaiting confirmation beside it.
        let pending = tool("pending-confirmation", None);
        let applied = sync(&mut s, CHAT, &chat(json!([input(true), pending])));
        let types: Vec<&str> = applied
            .iter()
            .map(|a| a["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            types,
            ["session/inputNeededRemoved", "session/inputNeededSet"]
        );
        assert_eq!(kinds(&s), [format!("toolConfirmation {CHAT}#t1/c1")]);
        // Running for a client: kept (upserted), no longer blocking the session's status.
        let client = json!({"kind": "client", "clientId": "c-1"});
        let running = tool("running", Some(client));
        assert_eq!(
            sync(&mut s, CHAT, &chat(json!([input(true), running]))).len(),
            1
        );
        assert_eq!(kinds(&s), [format!("toolClientExecution {CHAT}#t1/c1")]);
        let in_progress = v1::SessionStatus::InProgress.bits();
        assert_eq!(s.status & input_needed, in_progress, "{}", s.status);
        // The turn over: nothing left.
        let mut done = chat(json!([]));
        done.active_turn = None;
        assert_eq!(sync(&mut s, CHAT, &done).len(), 1);
        assert!(s.input_needed.is_none(), "{:?}", s.input_needed);
    }

    #[test]
    fn another_chats_entries_are_left_alone_and_a_moved_chat_takes_its_own() {
        let mut s = session();
        sync(&mut s, CHAT, &chat(json!([input(false)])));
        let other = "ahp-chat:/other";
        let mut theirs = chat(json!([input(false)]));
        theirs.resource = other.into();
        sync(&mut s, other, &theirs);
        assert_eq!(kinds(&s).len(), 2);
        let gone = changes(&s, other, None);
        assert_eq!(
            gone,
            [json!({"type": "session/inputNeededRemoved", "id": format!("{other}#q1")})]
        );
        let moved = sets(&s, other);
        assert_eq!(moved.len(), 1);
        assert_eq!(moved[0]["request"]["chat"], other);
    }
}
