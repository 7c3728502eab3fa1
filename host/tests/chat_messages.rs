//! Queued messages of AHP 1.0 chats (`chat/pendingMessageSet` with `kind: queued`,
//! `chat/queuedMessagesReordered`, `chat/pendingMessageRemoved`), dispatched by a 1.0 client:
//! while a turn runs they wait in the chat; when it ends, the host takes the first one off the
//! queue and starts its turn, in the order the client last set. In the default chat and in a
//! second chat alike; the client's mirror (the SDK's 1.0 chat reducer over the envelopes it
//! received) equals a fresh snapshot; bad input is refused to the dispatcher and changes nothing.
//! And a second chat's read and archived flags, and the title the agent gives it: kept in the
//! chat's entry of its session, across a restart.

mod common;
mod v1_raw;

use common::*;
use serde_json::{json, Value};
use v1_raw::{chat_mirror, V1};

const S: &str = "ahp-session:/queue";

fn queued(id: &str, text: &str) -> Value {
    json!({"type": "chat/pendingMessageSet", "kind": "queued", "id": id,
        "message": {"text": text, "origin": {"kind": "user"}}})
}

fn started(turn_id: &str, text: &str) -> Value {
    json!({"type": "chat/turnStarted", "turnId": turn_id,
        "startedAt": "2026-01-01T00:00:00.000Z",
        "message": {"text": text, "origin": {"kind": "user"}}})
}

/// The messages of the turns that started in `chat` (as the envelopes show them), in order.
fn started_texts(log: &[Value], chat: &str) -> Vec<String> {
    log.iter()
        .filter(|e| e["channel"] == chat && e["action"]["type"] == "chat/turnStarted")
        .filter(|e| e.get("rejectionReason").is_none())
        .map(|e| e["action"]["message"]["text"].as_str().unwrap().to_owned())
        .collect()
}

/// In chat `chat`: a long turn, two queued messages while it runs, the second moved first;
/// then both run, in that order, each its own turn, and the queue is empty.
async fn queue_in(v: &mut V1, chat: &str) {
    let snapshot = v.subscribe(chat).await;
    v.apply(chat, started("running", "/long 400")).await;
    v.apply(chat, queued("q1", "first queued")).await;
    v.apply(chat, queued("q2", "second queued")).await;
    let reorder = json!({"type": "chat/queuedMessagesReordered", "order": ["q2", "q1"]});
    v.apply(chat, reorder).await;
    let completed = std::cell::Cell::new(0);
    v.until("three turns to complete", |e| {
        if e["channel"] == chat && e["action"]["type"] == "chat/turnComplete" {
            completed.set(completed.get() + 1);
        }
        completed.get() == 3
    })
    .await;
    assert_eq!(
        started_texts(&v.log, chat),
        ["/long 400", "second queued", "first queued"]
    );
    let fresh = v.subscribe(chat).await;
    let state = &fresh["state"];
    assert_eq!(state["turns"].as_array().map(Vec::len), Some(3), "{state}");
    assert!(
        state
            .get("queuedMessages")
            .is_none_or(|q| q.as_array().is_some_and(Vec::is_empty)),
        "{state}"
    );
    assert!(
        state.get("activeTurn").is_none_or(Value::is_null),
        "{state}"
    );
    assert_eq!(
        chat_mirror(&snapshot, &v.log),
        *state,
        "the mirror is the host's chat"
    );
}

#[tokio::test]
async fn queued_messages_run_in_the_order_a_1_0_client_set_in_any_chat() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "queue-client").await;
    v.create_session(S).await;
    queue_in(&mut v, "ahp-chat:/queue/default").await;
    let second = "ahp-chat:/queue/second";
    let made = v
        .request("createChat", json!({"channel": S, "chat": second}))
        .await;
    assert!(made.get("error").is_none(), "{made}");
    queue_in(&mut v, second).await;
}

#[tokio::test]
async fn bad_queue_actions_are_refused_and_change_nothing() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "queue-strict").await;
    v.create_session(S).await;
    let chat = "ahp-chat:/queue/default";
    let before = v.subscribe(chat).await;
    let cases = [
        json!({"type": "chat/pendingMessageRemoved", "kind": "queued", "id": "nope"}),
        json!({"type": "chat/queuedMessagesReordered", "order": ["nope"]}),
    ];
    for action in cases {
        let reason = v.refused(chat, action).await;
        assert!(!reason.is_empty());
    }
    v.alive().await;
    let after = v.subscribe(chat).await;
    assert_eq!(after["state"], before["state"]);
}

#[tokio::test]
async fn a_second_chats_read_and_archived_flags_are_kept_across_a_restart() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "flags-client").await;
    v.create_session(S).await;
    let chat = "ahp-chat:/queue/flagged";
    let made = v
        .request("createChat", json!({"channel": S, "chat": chat}))
        .await;
    assert!(made.get("error").is_none(), "{made}");
    v.subscribe(S).await;
    v.subscribe(chat).await;
    v.apply(chat, json!({"type": "chat/isReadChanged", "isRead": true}))
        .await;
    v.apply(
        chat,
        json!({"type": "chat/isArchivedChanged", "isArchived": true}),
    )
    .await;
    // The session hears it in the chat's entry.
    v.until("the chat's entry to say archived", |e| {
        e["channel"] == S
            && e["action"]["type"] == "session/chatUpdated"
            && e["action"]["chat"] == chat
            && e["action"]["changes"]["status"]
                .as_u64()
                .is_some_and(|x| x & 64 != 0)
    })
    .await;
    let entry_status = |session: &Value| {
        let chats = session["state"]["chats"].as_array().expect("chats").clone();
        let entry = chats
            .iter()
            .find(|c| c["resource"] == chat)
            .expect("listed");
        entry["status"].as_u64().expect("a status")
    };
    let session = v.subscribe(S).await;
    assert_eq!(entry_status(&session) & (32 | 64), 32 | 64, "{session}");
    let chat_state = v.subscribe(chat).await["state"].clone();
    v.c.close().await;

    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let mut v = V1::connect(&host, "flags-client-2").await;
    let session = v.subscribe(S).await;
    assert_eq!(entry_status(&session) & (32 | 64), 32 | 64, "{session}");
    assert_eq!(v.subscribe(chat).await["state"], chat_state);
}

#[tokio::test]
async fn the_agents_title_in_a_second_chat_names_that_chat_not_the_session() {
    let t = start_host().await;
    let mut v = V1::connect(&t.host, "title-client").await;
    v.create_session(S).await;
    let chat = "ahp-chat:/queue/titled";
    let made = v
        .request("createChat", json!({"channel": S, "chat": chat}))
        .await;
    assert!(made.get("error").is_none(), "{made}");
    let before = v.subscribe(S).await;
    v.turn_in(chat, "t1", "/title Release notes").await;
    // (The rename came while the turn ran: it is in the log.)
    let renamed = v.log.iter().any(|e| {
        e["channel"] == S
            && e["action"]["type"] == "session/chatUpdated"
            && e["action"]["chat"] == chat
            && e["action"]["changes"]["title"] == "Release notes"
    });
    assert!(
        renamed,
        "the session's subscribers heard the chat's new title"
    );
    let titles = |session: &Value| -> Vec<(String, String)> {
        let chats = session["state"]["chats"].as_array().expect("chats").clone();
        chats
            .iter()
            .map(|c| {
                (
                    c["resource"].as_str().unwrap().to_owned(),
                    c["title"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let session = v.subscribe(S).await;
    let named: Vec<_> = titles(&session)
        .into_iter()
        .filter(|(r, _)| r == chat)
        .collect();
    assert_eq!(named, [(chat.to_owned(), "Release notes".to_owned())]);
    // The session and its default chat keep their titles.
    assert_eq!(session["state"]["title"], before["state"]["title"]);
    let default = "ahp-chat:/queue/default";
    let title_of = |s: &Value, c: &str| titles(s).into_iter().find(|(r, _)| r == c).map(|(_, t)| t);
    assert_eq!(title_of(&session, default), title_of(&before, default));
    v.c.close().await;

    let common::TestHost { host, data, work } = t;
    host.shutdown().await;
    let host = restart(data.path(), work.path()).await;
    let mut v = V1::connect(&host, "title-client-2").await;
    let after = v.subscribe(S).await;
    assert_eq!(title_of(&after, chat).as_deref(), Some("Release notes"));
}
