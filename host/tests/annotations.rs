//! AHP 1.0 annotations over a real WebSocket (`hub/annotations.rs`): two clients add, update
//! and remove annotations on a session's `ahp-session:/<id>/annotations` channel and their
//! mirrors (the SDK's reducer over the envelopes they received) equal a fresh snapshot; the
//! built-in agent's `/annotate` adds one; a restart keeps them and disposing of the session
//! removes them; bad input is refused with a reason, changes nothing and closes nothing. The
//! session's `annotations` summary (channel and counts) follows them in its snapshot,
//! `listSessions` and `root/sessionSummaryChanged`, and survives a restart.

mod common;
mod v1_raw;

use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::v1;
use ahp_wasm::reduce::v1::annotations_reducer;
use common::*;
use serde_json::{json, Value};
use v1_raw::{after, V1};

const S: &str = "ahp-session:/annotated";
const A: &str = "ahp-session:/annotated/annotations";

/// The annotations reduced from `snapshot` over the logged envelopes after it.
fn mirror(snapshot: &Value, log: &[Value]) -> Value {
    let mut state: v1::AnnotationsState =
        serde_json::from_value(snapshot["state"].clone()).expect("annotations");
    for action in after(snapshot, log) {
        let _ = annotations_reducer(&mut state, &action);
    }
    serde_json::to_value(state).unwrap()
}

fn annotation(id: &str, session: &str, text: Value) -> Value {
    json!({
        "id": id,
        "origin": {"session": session},
        "resource": "file:///project/src/main.rs",
        "range": {"start": {"line": 3, "character": 0}, "end": {"line": 4, "character": 0}},
        "resolved": false,
        "entries": [{"id": "e1", "text": text}],
    })
}

fn set(annotation: Value) -> Value {
    json!({"type": "annotations/set", "annotation": annotation})
}

#[tokio::test]
async fn two_clients_add_update_and_remove_annotations() {
    let t = start_host().await;
    let mut a = V1::connect(&t.host, "annot-a").await;
    let mut b = V1::connect(&t.host, "annot-b").await;
    a.create_session(S).await;
    let snap_a = a.subscribe(A).await;
    let snap_b = b.subscribe(A).await;
    assert_eq!(snap_a["state"], json!({"annotations": []}), "{snap_a}");

    a.apply(A, set(annotation("n1", S, json!("first")))).await;
    let seen = b
        .until("n1 at b", |e| e["action"]["type"] == "annotations/set")
        .await;
    assert_eq!(seen["origin"]["clientId"], "annot-a", "{seen}");
    b.apply(
        A,
        json!({"type": "annotations/entrySet", "annotationId": "n1",
               "entry": {"id": "e2", "text": {"markdown": "**second**"}}}),
    )
    .await;
    b.apply(
        A,
        json!({"type": "annotations/updated", "annotationId": "n1", "resolved": true}),
    )
    .await;
    a.apply(A, set(annotation("n2", S, json!("other")))).await;
    a.apply(
        A,
        json!({"type": "annotations/entryRemoved", "annotationId": "n1", "entryId": "e1"}),
    )
    .await;
    b.apply(
        A,
        json!({"type": "annotations/removed", "annotationId": "n2"}),
    )
    .await;
    a.until("n2 removed at a", |e| {
        e["action"]["type"] == "annotations/removed"
    })
    .await;

    let fresh = a.subscribe(A).await;
    let expected = json!({"annotations": [{
        "id": "n1",
        "origin": {"session": S},
        "resource": "file:///project/src/main.rs",
        "range": {"start": {"line": 3, "character": 0}, "end": {"line": 4, "character": 0}},
        "resolved": true,
        "entries": [{"id": "e2", "text": {"markdown": "**second**"}}],
    }]});
    assert_eq!(fresh["state"], expected);
    assert_eq!(mirror(&snap_a, &a.log), expected);
    assert_eq!(mirror(&snap_b, &b.log), expected);
    t.host.shutdown().await;
}

#[tokio::test]
async fn the_agent_annotates_and_a_restart_keeps_annotations_until_the_session_goes() {
    let t = start_host().await;
    let mut a = V1::connect(&t.host, "annot-agent").await;
    a.create_session(S).await;
    let snap = a.subscribe(A).await;
    a.apply(A, set(annotation("mine", S, json!("a client's"))))
        .await;
    a.turn(
        S,
        "t1",
        "please look\n/annotate hello.txt:1 check this line",
    )
    .await;
    // Sent while the turn ran (the helper read up to its end).
    let added = a
        .log
        .iter()
        .find(|e| {
            e["channel"] == A
                && e["action"]["type"] == "annotations/set"
                && e.get("origin").is_none()
        })
        .expect("the agent's annotation")
        .clone();
    let by_agent = &added["action"]["annotation"];
    assert_eq!(by_agent["entries"][0]["text"], "check this line", "{added}");
    assert!(
        by_agent["resource"]
            .as_str()
            .is_some_and(|r| r.starts_with("file://") && r.ends_with("/hello.txt")),
        "{added}"
    );
    assert_eq!(by_agent["range"]["start"]["line"], 0, "{added}");
    assert_eq!(by_agent["origin"]["session"], S, "{added}");
    assert_eq!(by_agent["origin"]["turnId"], "t1", "{added}");
    assert_eq!(by_agent["resolved"], false);
    // A file outside the working directory is not annotated.
    let chat = a.turn(S, "t2", "/annotate ../../etc/passwd:1 no").await;
    assert!(
        chat.to_string().contains("`/annotate` did nothing"),
        "{chat}"
    );

    let before = a.subscribe(A).await;
    assert_eq!(before["state"]["annotations"].as_array().unwrap().len(), 2);
    assert_eq!(mirror(&snap, &a.log), before["state"]);
    a.c.close().await;
    let common::TestHost { host, data, work } = t;
    host.shutdown().await;

    let host = restart(data.path(), work.path()).await;
    let mut a = V1::connect(&host, "annot-agent").await;
    let kept = a.subscribe(A).await;
    assert_eq!(kept["state"], before["state"]);
    // They go with the session, and stay gone.
    let disposed = a.request("disposeSession", json!({"channel": S})).await;
    assert!(disposed.get("error").is_none(), "{disposed}");
    let gone = a.request("subscribe", json!({"channel": A})).await;
    assert_eq!(gone["error"]["code"], errors::SESSION_NOT_FOUND, "{gone}");
    a.c.close().await;
    host.shutdown().await;
    let db = rusqlite::Connection::open(data.path().join("ahp-host.sqlite3")).unwrap();
    let rows: i64 = db
        .query_row("SELECT COUNT(*) FROM annotations", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 0);
}

#[tokio::test]
async fn bad_annotations_are_refused_and_change_nothing() {
    let t = start_host().await;
    let mut a = V1::connect(&t.host, "annot-bad").await;
    let mut b = V1::connect(&t.host, "annot-watch").await;
    a.create_session(S).await;
    a.create_session("ahp-session:/other").await;
    a.subscribe(A).await;
    let watched = b.subscribe(A).await;
    a.apply(A, set(annotation("n1", S, json!("kept")))).await;
    let before = a.subscribe(A).await;

    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"type": "annotations/updated", "annotationId": "nope", "resolved": true}),
            "no annotation nope",
        ),
        (
            json!({"type": "annotations/removed", "annotationId": "nope"}),
            "no annotation nope",
        ),
        (
            json!({"type": "annotations/entryRemoved", "annotationId": "n1", "entryId": "zz"}),
            "no such entry",
        ),
        (
            json!({"type": "annotations/entryRemoved", "annotationId": "n1", "entryId": "e1"}),
            "at least one entry",
        ),
        (
            set(annotation("big", S, json!("x".repeat(20_000)))),
            "more than 8192",
        ),
        (
            set(annotation(
                "elsewhere",
                "ahp-session:/other",
                json!("wrong"),
            )),
            "origin.session",
        ),
        (
            json!({"type": "annotations/set", "annotation": {"id": "empty",
                   "origin": {"session": S}, "resource": "file:///x", "resolved": false,
                   "entries": []}}),
            "1 to 64 entries",
        ),
        (
            json!({"type": "session/titleChanged", "title": "not here"}),
            "only annotations/*",
        ),
    ];
    for (action, why) in cases {
        let reason = a.refused(A, action.clone()).await;
        assert!(reason.contains(why), "{action}: {reason}");
    }
    // The annotations channel of a session that does not exist.
    let missing = "ahp-session:/missing/annotations";
    let reason = a
        .refused(
            missing,
            set(annotation("n", "ahp-session:/missing", json!("x"))),
        )
        .await;
    assert!(reason.contains("no session"), "{reason}");
    let answer = a.request("subscribe", json!({"channel": missing})).await;
    assert_eq!(
        answer["error"]["code"],
        errors::SESSION_NOT_FOUND,
        "{answer}"
    );
    // Too many: the 257th is refused.
    for i in 1..256 {
        a.apply(A, set(annotation(&format!("m{i}"), S, json!("m"))))
            .await;
    }
    let reason = a.refused(A, set(annotation("m256", S, json!("m")))).await;
    assert!(reason.contains("256 annotations"), "{reason}");

    a.alive().await;
    b.alive().await;
    let after_all = a.subscribe(A).await;
    let annotations = after_all["state"]["annotations"].as_array().unwrap();
    assert_eq!(annotations.len(), 256);
    assert_eq!(annotations[0], before["state"]["annotations"][0]);
    // The watcher saw none of the refusals, and its mirror is the state.
    assert!(b.log.iter().all(|e| e.get("rejectionReason").is_none()));
    assert_eq!(mirror(&watched, &b.log), after_all["state"]);
    t.host.shutdown().await;
}

#[tokio::test]
async fn annotations_a_client_saw_applied_survive_a_kill_9() {
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let token = "annotations-kill-token-0123456789";
    let host = HostProcess::spawn(data.path(), work.path(), token, &[]);
    let mut a = V1::connect_url(&host.url(), "annot-kill").await;
    a.create_session(S).await;
    a.subscribe(A).await;
    for i in 0..20 {
        a.apply(
            A,
            set(annotation(&format!("k{i}"), S, json!(format!("note {i}")))),
        )
        .await;
    }
    a.apply(
        A,
        json!({"type": "annotations/updated", "annotationId": "k3", "resolved": true}),
    )
    .await;
    a.apply(
        A,
        json!({"type": "annotations/removed", "annotationId": "k7"}),
    )
    .await;
    // Every echo above was sent after its transaction committed.
    let seen = a.subscribe(A).await;
    host.kill_9();

    let host = HostProcess::spawn(data.path(), work.path(), token, &[]);
    let mut a = V1::connect_url(&host.url(), "annot-kill-2").await;
    let kept = a.subscribe(A).await;
    assert_eq!(kept["state"], seen["state"]);
    assert_eq!(kept["state"]["annotations"].as_array().unwrap().len(), 19);
    assert!(
        kept["fromSeq"].as_u64() >= seen["fromSeq"].as_u64(),
        "{kept}"
    );
    // The host goes on from there.
    a.apply(A, set(annotation("after", S, json!("after the kill"))))
        .await;
}

/// `(annotationCount, entryCount)` of an `annotations` summary, checked to name `A`.
fn counts(summary: &Value) -> (i64, i64) {
    assert_eq!(summary["resource"], A, "{summary}");
    (
        summary["annotationCount"].as_i64().unwrap(),
        summary["entryCount"].as_i64().unwrap(),
    )
}

/// The summary `listSessions` gives session `S`.
async fn listed(a: &mut V1) -> Value {
    let list = a
        .request("listSessions", json!({"channel": ROOT_CHANNEL}))
        .await;
    let _: ahp_types_v1::commands::ListSessionsResult =
        serde_json::from_value(list["result"].clone()).expect("an official listSessions result");
    list["result"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["resource"] == S)
        .cloned()
        .expect("S is listed")
}

/// The `annotations` of the last `root/sessionSummaryChanged` about `S` received (after the
/// answer to a request the hub answers, so every notification it sent before is in; `ping` is
/// answered by the connection itself and may overtake them).
async fn last_notified(a: &mut V1) -> Value {
    let barrier = a
        .request("listSessions", json!({"channel": ROOT_CHANNEL}))
        .await;
    assert!(barrier.get("error").is_none(), "{barrier}");
    let note = a
        .notes
        .iter()
        .rev()
        .find(|n| {
            n["method"] == "root/sessionSummaryChanged"
                && n["params"]["session"] == S
                && n["params"]["changes"].get("annotations").is_some()
        })
        .expect("a summary change")
        .clone();
    let _: ahp_types_v1::notifications::SessionSummaryChangedParams =
        serde_json::from_value(note["params"].clone()).expect("official params");
    note["params"]["changes"]["annotations"].clone()
}

#[tokio::test]
async fn the_sessions_annotations_summary_follows_its_annotations() {
    let t = start_host().await;
    let mut a = V1::connect(&t.host, "annot-summary").await;
    a.subscribe(ROOT_CHANNEL).await;
    a.create_session(S).await;
    assert_eq!(
        counts(&a.subscribe(S).await["state"]["annotations"]),
        (0, 0)
    );
    assert_eq!(counts(&listed(&mut a).await["annotations"]), (0, 0));
    a.subscribe(A).await;

    let steps: Vec<(Value, (i64, i64))> = vec![
        (set(annotation("n1", S, json!("first"))), (1, 1)),
        (
            json!({"type": "annotations/entrySet", "annotationId": "n1",
                   "entry": {"id": "e2", "text": "second"}}),
            (1, 2),
        ),
        (set(annotation("n2", S, json!("other"))), (2, 3)),
        (
            json!({"type": "annotations/updated", "annotationId": "n2", "resolved": true}),
            (2, 3),
        ),
        (
            json!({"type": "annotations/removed", "annotationId": "n1"}),
            (1, 1),
        ),
    ];
    for (action, expected) in steps {
        a.apply(A, action.clone()).await;
        assert_eq!(counts(&last_notified(&mut a).await), expected, "{action}");
        assert_eq!(
            counts(&a.subscribe(S).await["state"]["annotations"]),
            expected
        );
        assert_eq!(counts(&listed(&mut a).await["annotations"]), expected);
    }
    // A refused action changes no count and announces nothing.
    let notes = a.notes.len();
    a.refused(
        A,
        json!({"type": "annotations/removed", "annotationId": "n1"}),
    )
    .await;
    a.alive().await;
    assert_eq!(a.notes.len(), notes);

    // The agent's `/annotate` in a second chat annotates the session, from that chat.
    let chat = "ahp-chat:/annotated/second";
    let created = a
        .request("createChat", json!({"channel": S, "chat": chat}))
        .await;
    assert!(created.get("error").is_none(), "{created}");
    a.turn_in(chat, "c1", "/annotate hello.txt:1 from the second chat")
        .await;
    assert_eq!(counts(&last_notified(&mut a).await), (2, 2));
    let state = a.subscribe(A).await["state"].clone();
    let by_agent = state["annotations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] != "n2")
        .expect("the agent's annotation")
        .clone();
    assert_eq!(by_agent["origin"]["session"], S, "{by_agent}");
    assert_eq!(by_agent["origin"]["chat"], chat, "{by_agent}");
    assert_eq!(by_agent["origin"]["turnId"], "c1", "{by_agent}");
    a.c.close().await;
    let common::TestHost { host, data, work } = t;
    host.shutdown().await;

    let host = restart(data.path(), work.path()).await;
    let mut a = V1::connect(&host, "annot-summary").await;
    assert_eq!(counts(&listed(&mut a).await["annotations"]), (2, 2));
    assert_eq!(
        counts(&a.subscribe(S).await["state"]["annotations"]),
        (2, 2)
    );
    a.c.close().await;
    host.shutdown().await;
}
