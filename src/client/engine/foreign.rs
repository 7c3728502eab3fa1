//! What belongs to the protocol version a connection did not negotiate: an action type or a
//! command only the other version has. Refused with [`Error::WrongProtocolVersion`] before
//! anything is sent, rather than sent for the host to refuse (or, for an action type the
//! negotiated version does not know, kept as an unknown action and sent as it is).
//!
//! The names are strings only, so a build of one version does not link the other's types.

use crate::client::Error;

/// AHP 0.3.0.
const V0_3: &str = crate::protocol::PROTOCOL_VERSION;
/// AHP 1.0.
const V1: &str = crate::protocol::v1::PROTOCOL_VERSION;

/// The action types of 0.3.0 that 1.0 does not have (its turns moved to `chat/`). A test
/// checks the list against both versions' generated action unions.
const V0_3_ONLY_ACTIONS: &[&str] = &[
    "session/activeClientChanged",
    "session/activeClientToolsChanged",
    "session/agentChanged",
    "session/delta",
    "session/error",
    "session/inputAnswerChanged",
    "session/inputCompleted",
    "session/inputRequested",
    "session/modelChanged",
    "session/pendingMessageRemoved",
    "session/pendingMessageSet",
    "session/queuedMessagesReordered",
    "session/reasoning",
    "session/responsePart",
    "session/toolCallComplete",
    "session/toolCallConfirmed",
    "session/toolCallContentChanged",
    "session/toolCallDelta",
    "session/toolCallReady",
    "session/toolCallResultConfirmed",
    "session/toolCallStart",
    "session/truncated",
    "session/turnCancelled",
    "session/turnComplete",
    "session/turnStarted",
    "session/usage",
];

/// The channel kinds (action type prefixes) only 1.0 has: their actions are 1.0's. (1.0's
/// new actions of the kinds both have, such as `session/chatAdded`, are not told apart.)
const V1_ONLY_KINDS: &[&str] = &[
    "chat",
    "annotations",
    "automation",
    "automationRun",
    "canvas",
];

/// The version other than `negotiated` that action type `tag` belongs to, if only it has it.
pub(super) fn action_version(negotiated: &str, tag: &str) -> Option<&'static str> {
    if negotiated == V1 && V0_3_ONLY_ACTIONS.contains(&tag) {
        return Some(V0_3);
    }
    let kind = tag.split_once('/').map_or(tag, |(kind, _)| kind);
    (negotiated == V0_3 && V1_ONLY_KINDS.contains(&kind)).then_some(V1)
}

/// The version other than `negotiated` that request `method` belongs to, if only it has it.
pub(super) fn method_version(negotiated: &str, method: &str) -> Option<&'static str> {
    let v0_3 = crate::protocol::jsonrpc::REQUEST_METHODS.contains(&method);
    let v1 = crate::protocol::v1::jsonrpc::REQUEST_METHODS.contains(&method);
    match (negotiated == V1, v0_3, v1) {
        (true, true, false) => Some(V0_3),
        (false, false, true) => Some(V1),
        _ => None,
    }
}

/// The error of `attempted`, of `version`, on a connection that negotiated `negotiated`.
pub(super) fn wrong_version(negotiated: &str, version: &str, attempted: String) -> Error {
    Error::WrongProtocolVersion {
        negotiated: negotiated.to_string(),
        version: version.to_string(),
        attempted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The action types of a generated `StateAction` union (its `variant_tag` arms).
    fn tags(generated: &str) -> Vec<&str> {
        let start = generated
            .find("impl TaggedUnion for StateAction {")
            .expect("the union's impl");
        let body = &generated[start..];
        let body = &body[..body.find("\n    }\n").expect("variant_tag's end")];
        body.split("=> \"")
            .skip(1)
            .map(|rest| &rest[..rest.find('"').expect("closing quote")])
            .collect()
    }

    #[test]
    fn the_lists_match_the_generated_unions() {
        let v0_3 = tags(include_str!("../../protocol/generated.rs"));
        let v1 = tags(include_str!("../../protocol/v1/generated.rs"));
        assert!(
            v0_3.len() > 50 && v1.len() > 90,
            "{} {}",
            v0_3.len(),
            v1.len()
        );
        let mut only_v0_3: Vec<&str> = v0_3.iter().filter(|t| !v1.contains(t)).copied().collect();
        only_v0_3.sort_unstable();
        assert_eq!(only_v0_3, V0_3_ONLY_ACTIONS);
        let kind = |t: &str| {
            t.split_once('/')
                .map_or(t.to_string(), |(k, _)| k.to_string())
        };
        for t in &v0_3 {
            assert_eq!(action_version(V0_3, t), None, "{t} is 0.3.0's own");
        }
        for t in &v1 {
            assert_eq!(action_version(V1, t), None, "{t} is 1.0's own");
            let new_kind = !v0_3.iter().any(|o| kind(o) == kind(t));
            assert_eq!(action_version(V0_3, t), new_kind.then_some(V1), "{t}");
        }
        assert_eq!(action_version(V1, "session/turnStarted"), Some(V0_3));
        assert_eq!(action_version(V1, "no/such-action"), None);
    }

    #[test]
    fn only_the_other_versions_commands_are_refused() {
        assert_eq!(method_version(V0_3, "createChat"), Some(V1));
        assert_eq!(method_version(V0_3, "createSession"), None);
        assert_eq!(method_version(V1, "createChat"), None);
        assert_eq!(method_version(V1, "noSuchMethod"), None);
        assert_eq!(method_version(V0_3, "noSuchMethod"), None);
    }
}
