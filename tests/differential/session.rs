//! The session-level part of the session vocabulary (everything outside the turn content and
//! tool calls): lifecycle, summary metadata, config, `_meta`, tools, the active client,
//! customizations, truncation, input requests and pending messages, plus the session fields
//! these act on, for the initial state. Ids come from small pools so they collide: containers
//! and their children share ids, MCP servers exist at the top level and inside containers under
//! the same id (in several containers at once), entries of unknown (newer) types carry ids from
//! the same pool (or none) and may hold children, queued and steering messages share ids (the
//! empty id among them), turns in history share ids.

use super::{foreign, pick, text, with};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Customization ids, top-level and children alike.
const CUSTOMIZATIONS: &[&str] = &["p", "m", "x"];
/// Pending message ids, queued and steering alike.
const MESSAGES: &[&str] = &["q1", "q2", "q3", "q1", "", ""];
const REQUESTS: &[&str] = &["r1", "r2"];
const QUESTIONS: &[&str] = &["a", "b"];

fn message(text: &str) -> Value {
    json!({"text": text, "origin": {"kind": "user"}})
}

fn mcp_state() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(json!({"kind": "starting"})),
        Just(json!({"kind": "ready"})),
        Just(json!({"kind": "hibernating", "future": 1})),
    ]
    .boxed()
}

fn child() -> BoxedStrategy<Value> {
    prop_oneof![
        1 => pick(CUSTOMIZATIONS).prop_map(|id| json!({"type": "agent", "id": id,
            "uri": "file:///a", "name": "A"})),
        2 => (pick(CUSTOMIZATIONS), mcp_state()).prop_map(|(id, state)| json!({
            "type": "mcpServer", "id": id, "uri": "file:///m", "name": "M", "enabled": true,
            "state": state})),
        // A child of a newer kind, with an id from the pool or none.
        1 => prop::option::of(pick(CUSTOMIZATIONS))
            .prop_map(|id| { with(json!({"type": "widget", "name": "W"}), json!({"id": id})) }),
    ]
    .boxed()
}

/// An entry of a newer type: with an id from the pool or none, maybe with children.
fn unknown_customization() -> BoxedStrategy<Value> {
    (
        prop::option::of(pick(CUSTOMIZATIONS)),
        prop::option::of(prop::collection::vec(child(), 0..3)),
        any::<bool>(),
    )
        .prop_map(|(id, children, on)| {
            with(
                json!({"type": "futureThing", "name": "F", "enabled": on}),
                json!({"id": id, "children": children}),
            )
        })
        .boxed()
}

/// A top-level customization of a known type.
fn customization() -> BoxedStrategy<Value> {
    let children = prop::option::of(prop::collection::vec(child(), 0..3));
    prop_oneof![
        3 => (pick(CUSTOMIZATIONS), any::<bool>(), children.clone()).prop_map(|(id, on, kids)| {
            json!({"type": "plugin", "id": id, "uri": "https://p", "name": "P", "enabled": on,
                "children": kids})
        }),
        1 => (pick(CUSTOMIZATIONS), any::<bool>(), children).prop_map(|(id, on, kids)| {
            json!({"type": "directory", "id": id, "uri": "file:///d", "name": "D", "enabled": on,
                "contents": "agent", "writable": false, "children": kids})
        }),
        2 => (pick(CUSTOMIZATIONS), any::<bool>(), mcp_state(), prop::option::of(Just("mcp:/1")))
            .prop_map(|(id, on, state, channel)| json!({"type": "mcpServer", "id": id,
                "uri": "file:///m", "name": "M", "enabled": on, "state": state,
                "channel": channel})),
    ]
    .boxed()
}

fn customizations() -> BoxedStrategy<Value> {
    prop::collection::vec(
        prop_oneof![6 => customization(), 2 => unknown_customization()],
        0..4,
    )
    .prop_map(Value::from)
    .boxed()
}

fn answer() -> BoxedStrategy<Value> {
    (any::<bool>(), text())
        .prop_map(|(draft, t)| {
            json!({"state": if draft { "draft" } else { "submitted" },
                "value": {"kind": "text", "value": t}})
        })
        .boxed()
}

fn answers() -> BoxedStrategy<Option<Value>> {
    prop::option::of(
        prop::collection::btree_map(pick(QUESTIONS), answer(), 0..2).prop_map(|m| json!(m)),
    )
    .boxed()
}

fn input_request() -> BoxedStrategy<Value> {
    (pick(REQUESTS), text(), answers())
        .prop_map(|(id, m, answers)| {
            json!({"id": id, "message": m, "questions": [
                {"id": "a", "kind": "text", "message": "A?"},
                {"id": "b", "kind": "text", "message": "B?"}], "answers": answers})
        })
        .boxed()
}

fn tools() -> BoxedStrategy<Value> {
    prop::collection::vec(pick(&["bash", "edit"]), 0..3)
        .prop_map(|names| json!(names.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()))
        .boxed()
}

fn config_values() -> BoxedStrategy<Value> {
    let value = prop_oneof![
        pick(&["main", "dev"]).prop_map(Value::from),
        any::<bool>().prop_map(Value::from)
    ];
    prop::collection::btree_map(pick(&["branch", "mode", "x"]), value, 0..3)
        .prop_map(|m| json!(m))
        .boxed()
}

/// Session fields to merge into an initial state, besides the summary and the turns; queued
/// messages and input requests may share ids (a snapshot could hold them, though upserts never
/// make them). The status the caller sets must account for `inputRequests` (open requests mean
/// input is needed).
pub fn extras() -> BoxedStrategy<Value> {
    let queued = prop::collection::vec(pick(MESSAGES), 0..4).prop_map(|ids| {
        (!ids.is_empty()).then(|| {
            json!(ids
                .iter()
                .map(|id| json!({"id": id, "message": message(id)}))
                .collect::<Vec<_>>())
        })
    });
    let requests = prop::collection::vec(input_request(), 0..3)
        .prop_map(|r| (!r.is_empty()).then(|| Value::from(r)));
    (
        (
            prop::option::weighted(0.75, customizations()),
            prop::option::of(config_values()),
            prop::option::of(tools()),
            prop::option::of(tools()),
        ),
        (
            queued,
            prop::option::of(pick(MESSAGES)),
            requests,
            pick(&["ready", "ready", "creating"]),
        ),
    )
        .prop_map(
            |(
                (customizations, config, client_tools, server_tools),
                (queued, steering, requests, lifecycle),
            )| {
                let mut extra = Map::new();
                extra.insert("lifecycle".into(), json!(lifecycle));
                extra.insert("customizations".into(), json!(customizations));
                extra.insert(
                    "config".into(),
                    json!(
                        config.map(|v| json!({"schema": {"type": "object", "properties": {}},
                        "values": v}))
                    ),
                );
                extra.insert(
                    "activeClient".into(),
                    json!(client_tools.map(|t| json!({"clientId": "c1", "tools": t}))),
                );
                extra.insert("serverTools".into(), json!(server_tools));
                extra.insert("queuedMessages".into(), json!(queued));
                extra.insert(
                    "steeringMessage".into(),
                    json!(steering.map(|id| json!({"id": id, "message": message("steer")}))),
                );
                extra.insert("inputRequests".into(), json!(requests));
                Value::Object(extra)
            },
        )
        .boxed()
}

/// A session-level action (see the module doc), or one no session reducer handles.
pub fn action() -> BoxedStrategy<Value> {
    let lifecycle = prop_oneof![
        Just(json!({"type": "session/ready"})),
        Just(json!({"type": "session/creationFailed",
            "error": {"errorType": "init", "message": "no"}})),
        (pick(&["t1", "t2", "t3"]), prop::option::of(pick(MESSAGES))).prop_map(|(t, q)| {
            json!({"type": "session/turnStarted", "turnId": t, "message": message("go"),
                "queuedMessageId": q})
        }),
        prop::option::of(pick(&["t0", "t1", "t2"]))
            .prop_map(|t| json!({"type": "session/truncated", "turnId": t})),
    ];
    let summary = prop_oneof![
        pick(&["gpt", "claude"])
            .prop_map(|m| json!({"type": "session/modelChanged", "model": {"id": m}})),
        prop::option::of(pick(&["file:///a.md", "file:///b.md"])).prop_map(|a| {
            json!({"type": "session/agentChanged", "agent": a.map(|uri| json!({"uri": uri}))})
        }),
        any::<bool>().prop_map(|b| json!({"type": "session/isReadChanged", "isRead": b})),
        any::<bool>().prop_map(|b| json!({"type": "session/isArchivedChanged", "isArchived": b})),
        prop::option::of(text())
            .prop_map(|a| json!({"type": "session/activityChanged", "activity": a})),
        prop::option::of(pick(&["Session", "Branch"])).prop_map(|l| {
            json!({"type": "session/changesetsChanged", "changesets": l.map(|label| json!([{
                "label": label, "uriTemplate": "copilot:/s/changeset/{id}",
                "changeKind": "session"}]))})
        }),
        (config_values(), prop::option::of(any::<bool>())).prop_map(|(c, r)| {
            json!({"type": "session/configChanged", "config": c, "replace": r})
        }),
        pick(&["main", "dev"])
            .prop_map(|b| json!({"type": "session/metaChanged", "_meta": {"git": {"branch": b}}})),
        tools().prop_map(|t| json!({"type": "session/serverToolsChanged", "tools": t})),
        prop::option::of((pick(&["c1", "c2"]), tools())).prop_map(|c| {
            json!({"type": "session/activeClientChanged",
                "activeClient": c.map(|(id, t)| json!({"clientId": id, "tools": t}))})
        }),
        tools().prop_map(|t| json!({"type": "session/activeClientToolsChanged", "tools": t})),
    ];
    let customizing = prop_oneof![
        customizations()
            .prop_map(|c| json!({"type": "session/customizationsChanged", "customizations": c})),
        (pick(CUSTOMIZATIONS), any::<bool>()).prop_map(|(id, on)| {
            json!({"type": "session/customizationToggled", "id": id, "enabled": on})
        }),
        prop_oneof![3 => customization(), 1 => unknown_customization()]
            .prop_map(|c| { json!({"type": "session/customizationUpdated", "customization": c}) }),
        pick(CUSTOMIZATIONS)
            .prop_map(|id| json!({"type": "session/customizationRemoved", "id": id})),
        (
            pick(CUSTOMIZATIONS),
            mcp_state(),
            prop::option::of(Just("mcp:/2"))
        )
            .prop_map(
                |(id, state, channel)| json!({"type": "session/mcpServerStateChanged",
                "id": id, "state": state, "channel": channel})
            ),
    ];
    let input = prop_oneof![
        input_request().prop_map(|r| json!({"type": "session/inputRequested", "request": r})),
        (pick(REQUESTS), pick(QUESTIONS), prop::option::of(answer())).prop_map(|(r, q, a)| {
            json!({"type": "session/inputAnswerChanged", "requestId": r, "questionId": q,
                "answer": a})
        }),
        (pick(REQUESTS), pick(&["accept", "decline", "cancel"])).prop_map(|(r, response)| {
            json!({"type": "session/inputCompleted", "requestId": r, "response": response})
        }),
    ];
    let pending = prop_oneof![
        (pick(&["steering", "queued"]), pick(MESSAGES), text()).prop_map(|(kind, id, t)| {
            json!({"type": "session/pendingMessageSet", "kind": kind, "id": id,
                "message": message(&t)})
        }),
        (pick(&["steering", "queued"]), pick(MESSAGES)).prop_map(|(kind, id)| {
            json!({"type": "session/pendingMessageRemoved", "kind": kind, "id": id})
        }),
        prop::collection::vec(prop_oneof![pick(MESSAGES), Just("zz".to_owned())], 0..4)
            .prop_map(|order| json!({"type": "session/queuedMessagesReordered",
                "order": order})),
    ];
    prop_oneof![
        3 => lifecycle,
        3 => summary,
        4 => customizing,
        2 => input,
        3 => pending,
        1 => foreign("session"),
    ]
    .boxed()
}
