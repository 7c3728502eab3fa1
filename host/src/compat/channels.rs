//! The host's other channels for AHP 1.0 clients: terminals, changesets and resource watches
//! (and the root's list of terminals). Their 0.3.0 and 1.0 shapes are the same but for:
//!
//! - numbers: 0.3.0's are floats, 1.0 has integers for sizes, codes, counts and offsets
//!   ([`integers`]);
//! - a terminal's exit: 0.3.0's `exitCode` is 1.0's `lifecycle` (`running`, or `exited` with
//!   the code);
//! - a terminal's session claim: 1.0 names the chat too. 0.3.0's leaves the default chat
//!   implicit; another chat of the session stays in the 0.3.0 claim as an extra `chat` member
//!   (the host checks that it is a chat of that session: [`claim_chat`]).
//!
//! The commands of these channels take the same params in both versions but for those claims
//! ([`create_terminal_v03`]).

use serde_json::Value;

const SESSION_PREFIX: &str = "ahp-session:/";
const CHAT_PREFIX: &str = "ahp-chat:/";
const DEFAULT_CHAT: &str = "/default";

/// The URI of a session's default chat (`ahp-chat:/<session id>/default`).
pub fn default_chat_uri(session: &str) -> String {
    let id = session.strip_prefix(SESSION_PREFIX).unwrap_or(session);
    format!("{CHAT_PREFIX}{id}{DEFAULT_CHAT}")
}

/// The session whose default chat `chat` is.
pub fn session_of_chat(chat: &str) -> Option<String> {
    let id = chat.strip_prefix(CHAT_PREFIX)?.strip_suffix(DEFAULT_CHAT)?;
    Some(format!("{SESSION_PREFIX}{id}"))
}

/// Whole numbers written as floats (0.3.0's) as integers, everywhere in `value`: 1.0's
/// integers need them so, and 1.0's floats take them as well.
pub fn integers(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15) {
                *value = (f as i64).into();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integers),
        Value::Object(members) => members.values_mut().for_each(integers),
        _ => {}
    }
}

/// A 0.3.0 terminal claim as 1.0's (in place): a session claim names the default chat.
fn claim_v1(claim: &mut Value) {
    if claim.get("kind").and_then(Value::as_str) != Some("session") {
        return;
    }
    if let Some(session) = claim.get("session").and_then(Value::as_str) {
        if claim.get("chat").is_none_or(Value::is_null) {
            claim["chat"] = default_chat_uri(session).into();
        }
    }
}

/// The chat a 0.3.0 session claim names besides its session (an extra `chat` member: a chat
/// other than the default one), which the host keys that chat's state by.
pub fn claim_chat(extra: &serde_json::Map<String, Value>) -> Option<&str> {
    extra.get("chat").and_then(Value::as_str)
}

/// A 1.0 terminal claim as 0.3.0's (in place): the session's default chat is left implicit,
/// another chat stays as `chat` (a default chat of another session is refused here; whether
/// another chat is the session's, the host checks).
fn claim_v03(claim: &mut Value) -> Result<(), String> {
    if claim.get("kind").and_then(Value::as_str) != Some("session") {
        return Ok(());
    }
    let session = claim.get("session").and_then(Value::as_str).unwrap_or("");
    let Some(chat) = claim.get("chat").and_then(Value::as_str) else {
        return Ok(());
    };
    match session_of_chat(chat) {
        Some(of) if of == session => {}
        Some(_) => {
            return Err("a session claim's `chat` must be a chat of that session".into());
        }
        None if chat.starts_with(CHAT_PREFIX) => return Ok(()),
        None => return Err("a session claim's `chat` must be a chat (ahp-chat:/...)".into()),
    }
    if let Some(members) = claim.as_object_mut() {
        members.remove("chat");
    }
    Ok(())
}

/// 0.3.0's `exitCode` of a terminal (state or root entry) as 1.0's `lifecycle` (in place).
fn lifecycle_v1(terminal: &mut Value) {
    let Some(members) = terminal.as_object_mut() else {
        return;
    };
    let lifecycle = match members.remove("exitCode") {
        Some(code) if !code.is_null() => {
            serde_json::json!({ "status": "exited", "exitCode": code })
        }
        _ => serde_json::json!({ "status": "running" }),
    };
    members.insert("lifecycle".into(), lifecycle);
    if let Some(claim) = members.get_mut("claim") {
        claim_v1(claim);
    }
}

/// The 1.0 form of the 0.3.0 state of a terminal (`terminal`), changeset or resource watch
/// (in place).
pub fn channel_state_v1(state: &mut Value, terminal: bool) {
    if terminal {
        lifecycle_v1(state);
    }
    integers(state);
}

/// The 1.0 form of a 0.3.0 terminal, changeset or resource watch action (in place).
pub fn channel_action_v1(action: &mut Value) {
    if action.get("type").and_then(Value::as_str) == Some("terminal/claimed") {
        if let Some(claim) = action.get_mut("claim") {
            claim_v1(claim);
        }
    }
    integers(action);
}

/// The 1.0 form of the 0.3.0 root state or a root action (in place): the root's list of
/// terminals has 1.0's terminal entries.
pub fn root_v1(root: &mut Value) {
    if let Some(terminals) = root.get_mut("terminals").and_then(Value::as_array_mut) {
        terminals.iter_mut().for_each(lifecycle_v1);
    }
    integers(root);
}

/// The 0.3.0 form of a 1.0 client's action on a terminal, changeset or resource watch (in
/// place); why it has none.
pub fn channel_action_v03(action: &mut Value) -> Result<(), String> {
    if action.get("type").and_then(Value::as_str) == Some("terminal/claimed") {
        if let Some(claim) = action.get_mut("claim") {
            claim_v03(claim)?;
        }
    }
    Ok(())
}

/// The 0.3.0 params of a 1.0 `createTerminal` (in place); why they have none.
pub fn create_terminal_v03(params: &mut Value) -> Result<(), String> {
    match params.get_mut("claim") {
        Some(claim) => claim_v03(claim),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn terminal_state_gets_lifecycle_and_chat() {
        let mut state = json!({
            "title": "t", "cols": 80.0, "rows": 24.0, "content": [], "exitCode": 2.0,
            "claim": { "kind": "session", "session": "ahp-session:/s1" },
        });
        channel_state_v1(&mut state, true);
        assert_eq!(
            state["lifecycle"],
            json!({ "status": "exited", "exitCode": 2 })
        );
        assert!(state.get("exitCode").is_none());
        assert_eq!(state["claim"]["chat"], "ahp-chat:/s1/default");
        assert_eq!(state["cols"].as_i64(), Some(80));
        let mut running =
            json!({ "title": "t", "content": [], "claim": { "kind": "client", "clientId": "c" } });
        channel_state_v1(&mut running, true);
        assert_eq!(running["lifecycle"], json!({ "status": "running" }));
        assert!(running["claim"].get("chat").is_none());
    }

    #[test]
    fn claims_keep_a_chat_other_than_the_default_one() {
        let mut ok = json!({ "type": "terminal/claimed", "claim": {
            "kind": "session", "session": "ahp-session:/s1", "chat": "ahp-chat:/s1/default" } });
        channel_action_v03(&mut ok).unwrap();
        assert!(ok["claim"].get("chat").is_none());
        let mut other = json!({ "type": "terminal/claimed", "claim": {
            "kind": "session", "session": "ahp-session:/s1", "chat": "ahp-chat:/s1/other" } });
        channel_action_v03(&mut other).unwrap();
        assert_eq!(other["claim"]["chat"], "ahp-chat:/s1/other");
        // Back in 1.0 it is the same claim.
        channel_action_v1(&mut other);
        assert_eq!(other["claim"]["session"], "ahp-session:/s1");
        assert_eq!(other["claim"]["chat"], "ahp-chat:/s1/other");
        for bad in ["ahp-chat:/s2/default", "ahp-session:/s1"] {
            let mut elsewhere = json!({ "claim": {
                "kind": "session", "session": "ahp-session:/s1", "chat": bad } });
            assert!(create_terminal_v03(&mut elsewhere).is_err(), "{bad}");
        }
    }

    #[test]
    fn integers_leave_fractions() {
        let mut v = json!({ "a": [1.0, 1.5, -3.0], "b": "2.0" });
        integers(&mut v);
        assert_eq!(v.to_string(), r#"{"a":[1,1.5,-3],"b":"2.0"}"#);
    }
}
