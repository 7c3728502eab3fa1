//! Our 1.0 session reducer (`reduce::v1::session_reducer`) against the official Rust one
//! (`ahp_v1::reducers::apply_action_to_session`, `ahp` 1.0.0; a test oracle only), on random
//! action sequences over every `session/*` action type: chat summaries (added twice, updated,
//! removed, reordered with duplicates, missing and unknown chats), the default chat, active
//! clients, working directories with duplicates, input-needed entries of every kind (and of an
//! unknown kind, with and without an id) with any status, customizations (plugins and
//! directories with children, MCP servers in every state, entries of an unknown kind; ids that
//! collide across levels), config with and without a schema, and actions that do not apply.
//! The driver and the policy are in `differential_v1/mod.rs`.
//!
//! Named divergence (left out of the comparison exactly where it shows): `session/
//! customizationUpdated` with an entry of an unknown kind on a session without customizations:
//! the Rust reducer creates an empty list before it finds the entry has no id; ours validates
//! first and leaves the state as it was (the rule every reducer here keeps).
//!
//! `AHP_PROPTEST_CASES=n` runs more cases.
#![cfg(not(target_arch = "wasm32"))]

mod common;
mod differential_v1;

use ahp_types_v1::state::SessionState as RefState;
use ahp_v1::reducers::apply_action_to_session;
use ahp_wasm::protocol::v1::SessionState;
use ahp_wasm::reduce::v1::session_reducer;
use differential_v1::{
    action_types, always, assert_coverage, cases, foreign, meta, pick, run_cases, text, Channel,
};
use proptest::prelude::*;
use serde_json::{json, Value};

const MAX_ACTIONS: usize = 32;

const UNKNOWN_CUSTOMIZATION_ON_NONE: &str = "customizationUpdated: unknown kind, no list yet";

/// The step is the one named divergence (see the module docs).
fn divergence(before: &Value, action: &Value) -> Option<&'static str> {
    let known = ["plugin", "directory", "mcpServer"];
    let kind = action["customization"]["type"].as_str().unwrap_or("");
    (action["type"] == "session/customizationUpdated"
        && !known.contains(&kind)
        && before.get("customizations").is_none())
    .then_some(UNKNOWN_CUSTOMIZATION_ON_NONE)
}

const CHATS: &[&str] = &["ahp-chat:/c1", "ahp-chat:/c2", "ahp-chat:/c3"];
const DIRS: &[&str] = &["file:///a", "file:///b", "file:///c"];
const CLIENTS: &[&str] = &["vscode-1", "cli-1"];
/// Ids shared by top-level customizations and children, so lookups collide across levels.
const CUSTOMIZATION_IDS: &[&str] = &["p1", "d1", "m1", "k1", "x"];

fn status() -> BoxedStrategy<u32> {
    prop_oneof![
        3 => prop::sample::select(&[1u32, 2, 8, 24, 33, 40, 56, 65, 97][..]),
        1 => 0u32..256,
    ]
    .boxed()
}

fn chat_summary() -> BoxedStrategy<Value> {
    (
        pick(CHATS),
        text(),
        status(),
        prop::option::of(text()),
        1u32..4,
    )
        .prop_map(|(resource, title, status, activity, second)| {
            json!({"resource": resource, "title": title, "status": status, "activity": activity,
                "modifiedAt": format!("1970-01-01T00:00:0{second}.000Z"),
                "origin": {"kind": "user"}})
        })
        .boxed()
}

/// Chats of distinct resources, in any order (so a reorder can name each exactly once).
fn distinct_chats() -> BoxedStrategy<Vec<Value>> {
    prop::sample::subsequence(CHATS, 0..=CHATS.len())
        .prop_shuffle()
        .prop_flat_map(|resources| {
            let n = resources.len();
            prop::collection::vec(chat_summary(), n).prop_map(move |mut chats| {
                for (chat, resource) in chats.iter_mut().zip(&resources) {
                    chat["resource"] = json!(resource);
                }
                chats
            })
        })
        .boxed()
}

fn chat_changes() -> BoxedStrategy<Value> {
    (
        prop::option::of(text()),
        prop::option::of(status()),
        prop::option::of(text()),
        prop::option::of(Just("1970-01-01T00:00:09.000Z")),
        prop::option::of((0i64..9, 0i64..9)),
        prop::option::of(prop::collection::vec(pick(DIRS), 0..2)),
        prop::option::of(any::<bool>()),
    )
        .prop_map(
            |(title, status, activity, modified, changes, dirs, movable)| {
                json!({"title": title, "status": status, "activity": activity,
                "modifiedAt": modified,
                "changes": changes.map(|(a, d)| json!({"additions": a, "deletions": d,
                    "files": 1})),
                "origin": {"kind": "user"}, "workingDirectories": dirs, "movable": movable})
            },
        )
        .boxed()
}

fn active_client() -> BoxedStrategy<Value> {
    (pick(CLIENTS), prop::option::of(text()))
        .prop_map(|(id, name)| json!({"clientId": id, "displayName": name, "tools": []}))
        .boxed()
}

fn tool_call_for(status: &str) -> Value {
    let base = json!({"toolCallId": "call-9", "toolName": "t", "displayName": "T",
        "invocationMessage": "run"});
    let mut call = base.as_object().cloned().unwrap_or_default();
    call.insert("status".into(), json!(status));
    match status {
        "running" => {
            call.insert("confirmed".into(), json!("not-needed"));
            call.insert(
                "contributor".into(),
                json!({"kind": "client", "clientId": "vscode-1"}),
            );
        }
        "auth-required" => {
            call.insert("confirmed".into(), json!("not-needed"));
            call.insert(
                "contributor".into(),
                json!({"kind": "mcp", "customizationId": "m1"}),
            );
            call.insert(
                "auth".into(),
                json!({"reason": "insufficientScope",
                "resource": {"resource": "https://mcp.example.com"}}),
            );
        }
        _ => {}
    }
    Value::Object(call)
}

fn input_request() -> BoxedStrategy<Value> {
    let id = || pick(&["r1", "r2", "r3"]);
    prop_oneof![
        id().prop_map(
            |id| json!({"kind": "chatInput", "id": id, "chat": "ahp-chat:/c1",
            "request": {"id": "q", "message": "Which?"}})
        ),
        id().prop_map(
            |id| json!({"kind": "toolConfirmation", "id": id, "chat": "ahp-chat:/c1",
            "turnId": "t1", "toolCall": tool_call_for("pending-confirmation")})
        ),
        id().prop_map(|id| json!({"kind": "toolClientExecution", "id": id,
            "chat": "ahp-chat:/c1", "turnId": "t1", "clientId": "vscode-1",
            "toolCall": tool_call_for("running")})),
        id().prop_map(|id| json!({"kind": "toolAuthentication", "id": id,
            "chat": "ahp-chat:/c1", "turnId": "t1", "toolCall": tool_call_for("auth-required")})),
        id().prop_map(|id| json!({"kind": "futureInput", "id": id, "extra": 1})),
        Just(json!({"kind": "futureInput", "noId": true})),
    ]
    .boxed()
}

fn mcp_state() -> BoxedStrategy<Value> {
    // Mostly starting in the foreground, which `mcpServerBackgroundRequested` acts on.
    let blocking = prop_oneof![2 => Just(Some(true)), 1 => Just(Some(false)), 1 => Just(None)];
    prop_oneof![
        3 => blocking.prop_map(|b| json!({"kind": "starting", "blocking": b})),
        1 => Just(json!({"kind": "ready"})),
        1 => Just(json!({"kind": "error", "error": {"errorType": "e", "message": "m"}})),
        1 => Just(json!({"kind": "stopped"})),
    ]
    .boxed()
}

fn enablement() -> BoxedStrategy<Value> {
    let source = prop_oneof![
        any::<bool>().prop_map(|e| json!({"kind": "session", "enabled": e})),
        any::<bool>().prop_map(|e| json!({"kind": "workspace", "uri": "file:///w", "enabled": e})),
        any::<bool>().prop_map(|e| json!({"kind": "global", "enabled": e})),
    ];
    prop::collection::vec(source, 0..3)
        .prop_map(Value::from)
        .boxed()
}

fn mcp_server(id: String) -> BoxedStrategy<Value> {
    (
        mcp_state(),
        prop::option::of(pick(&["mcp://x"])),
        prop::option::of(enablement()),
    )
        .prop_map(move |(state, channel, enablement)| {
            json!({"type": "mcpServer", "id": id, "uri": "file:///mcp.json", "name": "M",
                "state": state, "channel": channel, "enablement": enablement})
        })
        .boxed()
}

fn child() -> BoxedStrategy<Value> {
    let id = || pick(CUSTOMIZATION_IDS);
    prop_oneof![
        (
            pick(&["agent", "skill", "prompt", "rule", "hook"]),
            id(),
            prop::option::of(any::<bool>())
        )
            .prop_map(|(kind, id, enabled)| json!({"type": kind, "id": id,
                "uri": "file:///c", "name": "c", "enabled": enabled})),
        id().prop_flat_map(mcp_server),
        id().prop_map(|id| json!({"type": "futureChild", "id": id})),
    ]
    .boxed()
}

fn customization() -> BoxedStrategy<Value> {
    let id = || pick(CUSTOMIZATION_IDS);
    let children = || prop::option::of(prop::collection::vec(child(), 0..3));
    prop_oneof![
        (id(), children(), prop::option::of(enablement())).prop_map(|(id, children, en)| {
            json!({"type": "plugin", "id": id, "uri": "https://p", "name": "P",
                "children": children, "enablement": en})
        }),
        (id(), children(), any::<bool>()).prop_map(|(id, children, enabled)| {
            json!({"type": "directory", "id": id, "uri": "file:///d", "name": "D",
                "children": children, "enabled": enabled, "contents": "skill", "writable": true})
        }),
        id().prop_flat_map(mcp_server),
        // Mostly `m1`, the id the MCP server actions mostly name.
        mcp_id().prop_flat_map(mcp_server),
        id().prop_map(|id| json!({"type": "futureKind", "id": id})),
    ]
    .boxed()
}

fn mcp_id() -> BoxedStrategy<String> {
    pick(&["m1", "m1", "m1", "x"])
}

fn initial() -> BoxedStrategy<Value> {
    (
        (
            status(),
            pick(&["creating", "ready", "failed"]),
            prop_oneof![
                prop::collection::vec(chat_summary(), 0..4),
                distinct_chats(),
            ],
            prop::option::of(pick(CHATS)),
            prop::collection::vec(active_client(), 0..3),
        ),
        (
            prop::option::of(prop::collection::vec(pick(DIRS), 0..4)),
            prop::option::of(prop::collection::vec(input_request(), 0..3)),
            prop_oneof![
                3 => prop::collection::vec(customization(), 1..4).prop_map(Some),
                1 => Just(None),
            ],
            prop::option::of(prop::collection::btree_map(
                pick(&["a", "b"]),
                0i64..3,
                0..3,
            )),
            meta(),
        ),
    )
        .prop_map(
            |(
                (status, lifecycle, chats, default_chat, clients),
                (dirs, input, cust, config, meta),
            )| {
                let config = config.map(|values| {
                    json!({"schema": {"type": "object",
                    "properties": {}}, "values": values})
                });
                json!({"provider": "copilot", "title": "S", "status": status,
                    "lifecycle": lifecycle, "chats": chats, "defaultChat": default_chat,
                    "activeClients": clients, "workingDirectories": dirs, "inputNeeded": input,
                    "customizations": cust, "config": config, "_meta": meta})
            },
        )
        .boxed()
}

fn action() -> BoxedStrategy<Value> {
    let id = || pick(&["p1", "d1", "m1", "k1", "x", "zz"]);
    let metadata = prop_oneof![
        Just(json!({"type": "session/ready"})),
        Just(json!({"type": "session/creationFailed",
            "error": {"errorType": "init", "message": "m"}})),
        text().prop_map(|t| json!({"type": "session/titleChanged", "title": t})),
        any::<bool>().prop_map(|b| json!({"type": "session/isReadChanged", "isRead": b})),
        any::<bool>().prop_map(|b| json!({"type": "session/isArchivedChanged", "isArchived": b})),
        prop::option::of(text()).prop_map(|a| json!({"type": "session/activityChanged",
            "activity": a})),
        prop::option::of(Just(json!([{"label": "L", "uriTemplate": "x:/c",
            "changeKind": "session"}])))
        .prop_map(|c| json!({"type": "session/changesetsChanged", "changesets": c})),
        (
            prop::collection::btree_map(pick(&["a", "b", "c"]), 0i64..3, 0..3),
            prop::option::of(any::<bool>())
        )
            .prop_map(
                |(c, r)| json!({"type": "session/configChanged", "config": c,
                "replace": r})
            ),
        meta().prop_map(|m| json!({"type": "session/metaChanged", "_meta": m})),
        pick(&["bash", "grep"]).prop_map(|n| json!({"type": "session/serverToolsChanged",
            "tools": [{"name": n, "description": "d"}]})),
    ];
    let chats = prop_oneof![
        2 => chat_summary().prop_map(|s| json!({"type": "session/chatAdded", "summary": s})),
        1 => pick(CHATS).prop_map(|c| json!({"type": "session/chatRemoved", "chat": c})),
        2 => (pick(CHATS), chat_changes()).prop_map(|(c, ch)| {
            json!({"type": "session/chatUpdated", "chat": c, "changes": ch})
        }),
        1 => prop::collection::vec(pick(CHATS), 0..4)
            .prop_map(|c| json!({"type": "session/chatsReordered", "chats": c})),
        2 => prop::sample::subsequence(CHATS, 0..=CHATS.len())
            .prop_shuffle()
            .prop_map(|c| json!({"type": "session/chatsReordered", "chats": c})),
        1 => prop::option::of(pick(CHATS))
            .prop_map(|c| json!({"type": "session/defaultChatChanged", "defaultChat": c})),
    ];
    let clients = prop_oneof![
        active_client().prop_map(|c| json!({"type": "session/activeClientSet",
            "activeClient": c})),
        pick(CLIENTS).prop_map(|c| json!({"type": "session/activeClientRemoved",
            "clientId": c})),
    ];
    let dirs = prop_oneof![
        pick(DIRS).prop_map(|d| json!({"type": "session/workingDirectorySet", "directory": d})),
        pick(DIRS).prop_map(|d| json!({"type": "session/workingDirectoryRemoved",
            "directory": d})),
        (pick(DIRS), pick(DIRS)).prop_map(|(d, r)| json!({
            "type": "session/workingDirectoryReplaced", "directory": d, "replacement": r})),
    ];
    let input = prop_oneof![
        input_request().prop_map(|r| json!({"type": "session/inputNeededSet", "request": r})),
        pick(&["r1", "r2", "r9"]).prop_map(|id| json!({"type": "session/inputNeededRemoved",
            "id": id})),
    ];
    let customizations = prop_oneof![
        1 => prop::collection::vec(customization(), 0..3)
            .prop_map(|c| json!({"type": "session/customizationsChanged", "customizations": c})),
        2 => (id(), enablement()).prop_map(|(id, e)| {
            json!({"type": "session/customizationToggled", "id": id, "enablement": e})
        }),
        2 => customization().prop_map(|c| json!({"type": "session/customizationUpdated",
            "customization": c})),
        1 => id().prop_map(|id| json!({"type": "session/customizationRemoved", "id": id})),
        2 => (mcp_id(), mcp_state(), prop::option::of(pick(&["mcp://y"]))).prop_map(|(id, s, c)| {
            json!({"type": "session/mcpServerStateChanged", "id": id, "state": s, "channel": c})
        }),
        1 => mcp_id().prop_map(|id| json!({"type": "session/mcpServerStartRequested",
            "id": id})),
        1 => mcp_id().prop_map(|id| json!({"type": "session/mcpServerStopRequested",
            "id": id})),
        6 => mcp_id().prop_map(|id| json!({"type": "session/mcpServerBackgroundRequested",
            "id": id})),
    ];
    prop_oneof![
        3 => metadata,
        4 => chats,
        1 => clients,
        2 => dirs,
        2 => input,
        7 => customizations,
        1 => foreign("session"),
    ]
    .boxed()
}

#[test]
fn session_matches_the_official_reducer() {
    let channel = Channel::<SessionState, RefState> {
        ours: |s, a| session_reducer(s, a).is_applied(),
        reference: |s, a| {
            apply_action_to_session(s, a);
        },
        divergence,
        faithful: always,
    };
    let tally = run_cases(
        "session",
        &channel,
        (initial(), action()),
        MAX_ACTIONS,
        cases(),
    );
    assert_coverage(
        &tally,
        &action_types("session"),
        &[],
        &[UNKNOWN_CUSTOMIZATION_ON_NONE],
    );
}
