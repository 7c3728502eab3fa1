//! The small proptest strategies every differential test draws from, whatever the protocol
//! version: the case count, short text, ids from small pools and actions no channel handles;
//! and the JSON conversions of both drivers.

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::TestCaseError;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

/// The default number of cases per property; `AHP_PROPTEST_CASES=n` runs more.
pub fn cases() -> u32 {
    std::env::var("AHP_PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

/// Short text: mostly lowercase, sometimes control characters or multi-byte characters.
pub fn text() -> BoxedStrategy<String> {
    prop_oneof![4 => "[a-z]{0,3}", 1 => "[\\x00-\\x7f]{0,3}", 1 => "[é√𝄞]{1,2}"].boxed()
}

/// One string of a small pool: pools are what make ids collide.
pub fn pick(pool: &'static [&'static str]) -> BoxedStrategy<String> {
    select(pool).prop_map(str::to_owned).boxed()
}

/// A root's agents (providers collide), the same in both protocol versions.
pub fn agents() -> BoxedStrategy<Value> {
    prop::collection::vec(pick(&["copilot", "claude", "copilot"]), 0..3)
        .prop_map(|providers| {
            json!(providers
                .iter()
                .map(|p| json!({"provider": p, "displayName": p, "description": "", "models": []}))
                .collect::<Vec<_>>())
        })
        .boxed()
}

/// Values of a `root/configChanged` or `session/configChanged`: scalars and an object, under
/// colliding keys.
pub fn config_values() -> BoxedStrategy<Value> {
    let value = prop_oneof![
        (0i64..3).prop_map(Value::from),
        pick(&["x", "y"]).prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        Just(json!({"nested": [1, 2]})),
    ];
    prop::collection::btree_map(pick(&["a", "b", "c"]), value, 0..3)
        .prop_map(|m| json!(m))
        .boxed()
}

/// A root state (the same members in both protocol versions): agents, and maybe an active
/// session count, `terminals` and a config with values.
pub fn root_state(terminals: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    (
        agents(),
        prop::option::of(0i64..3),
        prop::option::of(terminals),
        prop::option::of(config_values()),
    )
        .prop_map(|(agents, active, terminals, values)| {
            let config = values.map(|v| {
                json!({"schema": {"type": "object", "properties": {}},
                "values": v})
            });
            json!({"agents": agents, "activeSessions": active, "terminals": terminals,
                "config": config})
        })
        .boxed()
}

/// The root actions, one of each type over the pools of [`root_state`], and `foreign` ones.
pub fn root_actions(
    terminals: BoxedStrategy<Value>,
    foreign: BoxedStrategy<Value>,
) -> BoxedStrategy<Value> {
    prop_oneof![
        2 => agents().prop_map(|a| json!({"type": "root/agentsChanged", "agents": a})),
        2 => (0i64..3).prop_map(|n| json!({"type": "root/activeSessionsChanged",
            "activeSessions": n})),
        2 => terminals.prop_map(|t| json!({"type": "root/terminalsChanged", "terminals": t})),
        3 => (config_values(), prop::option::of(any::<bool>())).prop_map(|(c, replace)| {
            json!({"type": "root/configChanged", "config": c, "replace": replace})
        }),
        1 => foreign,
    ]
    .boxed()
}

/// Actions `channel` does not handle: an unknown type of the channel, one of a channel newer
/// than the protocol, and `others` (well-formed actions of the other channels).
pub fn unhandled(channel: &str, others: Vec<Value>) -> BoxedStrategy<Value> {
    prop_oneof![
        Just(json!({"type": format!("{channel}/nonExistentAction"), "x": 1})),
        Just(json!({"type": "future/thing"})),
        select(others),
    ]
    .boxed()
}

/// A state's type, which the drivers read from JSON and write back to compare.
pub trait Json: DeserializeOwned + Serialize {}
impl<T: DeserializeOwned + Serialize> Json for T {}

/// `value` as a `T`, or a failed case that shows the value.
pub fn parse<T: DeserializeOwned>(what: &str, value: &Value) -> Result<T, TestCaseError> {
    serde_json::from_value(value.clone())
        .map_err(|e| TestCaseError::fail(format!("{what} does not parse: {e}\n{value}")))
}

/// `value` as JSON.
pub fn to_json<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("serialize")
}
