//! The turn part of the session vocabulary: response parts of every kind, tool calls in every
//! status (the six of 0.3.0 and one from a newer version) with and without their optional
//! fields, and the actions on them: streaming content, every tool-call action with and without
//! its optional fields (`toolInput`, `confirmed`, `options`, `selectedOptionId`, `reason`,
//! `reasonMessage`, `userSuggestion`, `editedToolInput`, `requiresResultConfirmation`,
//! `_meta`, ...), and every way a turn or a tool call ends (complete, denied, result denied,
//! turn complete, turn cancelled, error). Ids come from one small pool for every kind, so they
//! collide within and across kinds.

use super::{pick, text, with};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Value};

/// Every addressable part draws its id from this pool; the empty id is an id too.
pub const IDS: &[&str] = &["a", "b", ""];
/// Turn ids of the actions: mostly the active turn's.
pub const TURNS: &[&str] = &["t1", "t1", "t1", "t2"];
/// Every tool-call status: the six of 0.3.0, then one from a newer version.
pub const STATUSES: &[&str] = &[
    "streaming",
    "pending-confirmation",
    "running",
    "pending-result-confirmation",
    "completed",
    "cancelled",
    "paused-for-lunch",
];
/// Option ids a `selectedOptionId` picks from: offered ones, an unknown one, the empty one.
const OPTION_IDS: &[&str] = &["o1", "o2", "zz", ""];

fn id() -> BoxedStrategy<String> {
    prop_oneof![8 => select(&IDS[..2]), 1 => Just("")]
        .prop_map(str::to_owned)
        .boxed()
}

fn turn() -> BoxedStrategy<String> {
    pick(TURNS)
}

/// `Some(value)` or nothing, as a member to merge in (absent rather than `null`).
fn maybe(key: &'static str, value: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    prop::option::of(value)
        .prop_map(move |v| match v {
            Some(v) => json!({ key: v }),
            None => json!({}),
        })
        .boxed()
}

fn options() -> Value {
    json!([{"id": "o1", "label": "Allow", "kind": "approve"},
        {"id": "o2", "label": "Deny", "kind": "deny", "group": 1}])
}

fn option() -> BoxedStrategy<Value> {
    select(vec![options()[0].clone(), options()[1].clone()]).boxed()
}

fn confirmation() -> BoxedStrategy<Value> {
    pick(&["not-needed", "user-action", "setting"])
        .prop_map(Value::from)
        .boxed()
}

fn message() -> BoxedStrategy<Value> {
    text()
        .prop_map(|t| json!({"text": t, "origin": {"kind": "user"}}))
        .boxed()
}

fn result_content() -> BoxedStrategy<Value> {
    text()
        .prop_map(|t| json!([{"type": "text", "text": t}]))
        .boxed()
}

/// What every tool call may carry: a contributor and `_meta`.
fn call_extras() -> BoxedStrategy<Value> {
    let contributor = prop_oneof![
        Just(json!({"kind": "client", "clientId": "c1"})),
        Just(json!({"kind": "mcp", "customizationId": "m"})),
    ];
    (
        maybe("contributor", contributor.boxed()),
        maybe("_meta", Just(json!({"k": 1})).boxed()),
    )
        .prop_map(|(c, m)| with(c, m))
        .boxed()
}

/// A tool call in `status` with id `id`, with a random choice of its optional fields.
pub fn tool_call(status: &'static str, id: String) -> BoxedStrategy<Value> {
    let base = json!({"status": status, "toolCallId": id, "toolName": "bash",
        "displayName": "Bash", "invocationMessage": "run"});
    let input = || maybe("toolInput", text().prop_map(Value::from).boxed());
    let selected = || maybe("selectedOption", option());
    let outcome = || {
        (
            any::<bool>(),
            maybe("content", result_content()),
            maybe("error", Just(json!({"message": "boom"})).boxed()),
        )
            .prop_map(|(ok, c, e)| {
                with(
                    with(json!({"success": ok, "pastTenseMessage": "ran"}), c),
                    e,
                )
            })
    };
    let fields: BoxedStrategy<Value> = match status {
        "streaming" => (
            maybe("partialInput", text().prop_map(Value::from).boxed()),
            any::<bool>(),
        )
            .prop_map(|(p, has_message)| {
                // A streaming call's message is optional.
                with(
                    p,
                    if has_message {
                        json!({})
                    } else {
                        json!({"invocationMessage": null})
                    },
                )
            })
            .boxed(),
        "pending-confirmation" => (
            input(),
            maybe("confirmationTitle", Just(json!("Run?")).boxed()),
            maybe("options", Just(options()).boxed()),
            maybe("editable", any::<bool>().prop_map(Value::from).boxed()),
            maybe("edits", Just(json!({"items": "diff"})).boxed()),
        )
            .prop_map(|(a, b, c, d, e)| with(with(with(with(a, b), c), d), e))
            .boxed(),
        "running" => (
            input(),
            confirmation(),
            selected(),
            maybe("content", result_content()),
        )
            .prop_map(|(a, c, s, content)| with(with(with(a, json!({"confirmed": c})), s), content))
            .boxed(),
        "pending-result-confirmation" | "completed" => {
            (input(), confirmation(), selected(), outcome())
                .prop_map(|(a, c, s, o)| with(with(with(a, json!({"confirmed": c})), s), o))
                .boxed()
        }
        "cancelled" => (
            input(),
            pick(&["denied", "skipped", "result-denied"]),
            maybe("reasonMessage", Just(json!("no")).boxed()),
            maybe("userSuggestion", message()),
            selected(),
        )
            .prop_map(|(a, r, m, u, s)| with(with(with(with(a, json!({"reason": r})), m), u), s))
            .boxed(),
        // A newer status: the base fields plus members this version does not know.
        _ => input()
            .prop_map(|a| with(a, json!({"somethingNew": [1, 2]})))
            .boxed(),
    };
    (fields, call_extras())
        .prop_map(move |(fields, extras)| {
            let call = with(with(base.clone(), fields), extras);
            json!({"kind": "toolCall", "toolCall": super::strip_nulls(call)})
        })
        .boxed()
}

/// A tool call in any status.
pub fn any_tool_call() -> BoxedStrategy<Value> {
    (select(STATUSES), id())
        .prop_flat_map(|(status, id)| tool_call(status, id))
        .boxed()
}

/// A response part of any kind, its id (if it has one) from the pool.
pub fn part() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => (id(), text()).prop_map(|(id, c)| json!({"kind": "markdown", "id": id, "content": c})),
        2 => (id(), text()).prop_map(|(id, c)| json!({"kind": "reasoning", "id": id, "content": c})),
        5 => any_tool_call(),
        1 => text().prop_map(|c| json!({"kind": "systemNotification", "content": c})),
        1 => Just(json!({"kind": "contentRef", "uri": "file:///big", "sizeHint": 9})),
        1 => id().prop_map(|id| json!({"kind": "futurePart", "id": id})),
    ]
    .boxed()
}

/// An action on the turn's content or its tool calls, or one that ends the turn.
pub fn action() -> BoxedStrategy<Value> {
    let call = |ty: &'static str| {
        (turn(), id(), maybe("_meta", Just(json!({"m": 2})).boxed()))
            .prop_map(move |(t, c, m)| with(json!({"type": ty, "turnId": t, "toolCallId": c}), m))
    };
    let content = prop_oneof![
        6 => (turn(), id(), text()).prop_map(|(t, p, c)| {
            json!({"type": "session/delta", "turnId": t, "partId": p, "content": c})
        }),
        3 => (turn(), id(), text()).prop_map(|(t, p, c)| {
            json!({"type": "session/reasoning", "turnId": t, "partId": p, "content": c})
        }),
        3 => (turn(), part())
            .prop_map(|(t, p)| json!({"type": "session/responsePart", "turnId": t, "part": p})),
        1 => (turn(), 0u32..100).prop_map(|(t, n)| {
            json!({"type": "session/usage", "turnId": t, "usage": {"outputTokens": n}})
        }),
        1 => text().prop_map(|t| json!({"type": "session/titleChanged", "title": t})),
        1 => turn().prop_map(|t| json!({"type": "session/turnStarted", "turnId": t,
            "message": {"text": "go", "origin": {"kind": "user"}}})),
    ];
    let tool_calls = prop_oneof![
        (call("session/toolCallStart"), call_extras()).prop_map(|(a, e)| with(
            with(a, json!({"toolName": "bash", "displayName": "Bash"})),
            e
        )),
        (
            call("session/toolCallDelta"),
            text(),
            maybe("invocationMessage", text().prop_map(Value::from).boxed())
        )
            .prop_map(|(a, c, m)| with(with(a, json!({"content": c})), m)),
        (
            call("session/toolCallReady"),
            maybe("toolInput", text().prop_map(Value::from).boxed()),
            maybe("confirmed", confirmation()),
            maybe("options", Just(options()).boxed()),
            (
                maybe("confirmationTitle", Just(json!("Run?")).boxed()),
                maybe("editable", any::<bool>().prop_map(Value::from).boxed()),
                maybe("edits", Just(json!({"items": "diff"})).boxed()),
            ),
        )
            .prop_map(|(a, input, confirmed, options, (title, editable, edits))| {
                let a = with(
                    with(with(a, json!({"invocationMessage": "go"})), input),
                    confirmed,
                );
                with(with(with(with(a, options), title), editable), edits)
            }),
        (
            call("session/toolCallConfirmed"),
            confirmation(),
            maybe("editedToolInput", text().prop_map(Value::from).boxed()),
            maybe(
                "selectedOptionId",
                pick(OPTION_IDS).prop_map(Value::from).boxed()
            ),
        )
            .prop_map(|(a, confirmed, edited, option)| {
                with(
                    with(
                        with(a, json!({"approved": true, "confirmed": confirmed})),
                        edited,
                    ),
                    option,
                )
            }),
        (
            call("session/toolCallConfirmed"),
            pick(&["denied", "skipped"]),
            maybe("reasonMessage", Just(json!("no")).boxed()),
            maybe("userSuggestion", message()),
            maybe(
                "selectedOptionId",
                pick(OPTION_IDS).prop_map(Value::from).boxed()
            ),
        )
            .prop_map(|(a, reason, m, u, option)| {
                with(
                    with(
                        with(with(a, json!({"approved": false, "reason": reason})), m),
                        u,
                    ),
                    option,
                )
            }),
        (
            call("session/toolCallComplete"),
            any::<bool>(),
            maybe(
                "requiresResultConfirmation",
                any::<bool>().prop_map(Value::from).boxed()
            ),
            maybe("content", result_content()),
            maybe("structuredContent", Just(json!({"n": 1})).boxed()),
            maybe(
                "error",
                Just(json!({"message": "boom", "code": "E"})).boxed()
            ),
        )
            .prop_map(|(a, ok, review, content, structured, error)| {
                let result = with(
                    with(
                        with(json!({"success": ok, "pastTenseMessage": "did"}), content),
                        structured,
                    ),
                    error,
                );
                with(with(a, json!({"result": result})), review)
            }),
        (call("session/toolCallResultConfirmed"), any::<bool>())
            .prop_map(|(a, ok)| with(a, json!({"approved": ok}))),
        (call("session/toolCallContentChanged"), result_content())
            .prop_map(|(a, c)| with(a, json!({"content": c}))),
        // Twice as often: a call needs to be running for it to apply.
        (call("session/toolCallContentChanged"), result_content())
            .prop_map(|(a, c)| with(a, json!({"content": c}))),
    ];
    let ends = prop_oneof![
        turn().prop_map(|t| json!({"type": "session/turnComplete", "turnId": t})),
        turn().prop_map(|t| json!({"type": "session/turnCancelled", "turnId": t})),
        turn().prop_map(|t| json!({"type": "session/error", "turnId": t,
            "error": {"errorType": "e", "message": "m"}})),
    ];
    prop_oneof![12 => content, 10 => tool_calls, 1 => ends].boxed()
}
