//! The fan-out's AHP 1.0 subscribers: native clients offering 1.0.0, subscribed to the session's
//! default chat (`ahp-chat:/<id>/default`). They read their chunks out of the chat's mirror,
//! borrowed (`Subscription::with_mirror_v1`), as the 0.3.0 ones read the session's.

use ahp_wasm::client::native::Subscription;
use ahp_wasm::protocol::v1::{ChatState, ResponsePart};

/// The default chat of session `uri` on ahp-host.
pub fn default_chat(session: &str) -> String {
    format!(
        "ahp-chat:/{}/default",
        session.strip_prefix("ahp-session:/").unwrap_or(session)
    )
}

/// Runs `f` on the markdown streamed into the chat's turn after its `turns_before` completed
/// ones (active or just completed), if that turn has begun.
pub fn read_stream(sub: &Subscription, turns_before: usize, f: &mut dyn FnMut(&str)) {
    sub.with_mirror_v1(|m| {
        let Some(chat) = m.typed::<ChatState>().map(|m| m.state()) else {
            return;
        };
        let parts = match &chat.active_turn {
            Some(t) if chat.turns.len() == turns_before => &t.response_parts,
            None if chat.turns.len() == turns_before + 1 => {
                &chat.turns[turns_before].response_parts
            }
            _ => return,
        };
        let text = parts.iter().rev().find_map(|p| match p {
            ResponsePart::Markdown(m) => Some(m.content.as_str()),
            _ => None,
        });
        if let Some(text) = text {
            f(text);
        }
    });
}
