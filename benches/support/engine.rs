//! Shared by `benches/reducers.rs` and `examples/engine_path.rs` (included with `#[path]`).

// Each binary that includes this uses a part of it.
#![allow(dead_code)]

use ahp_wasm::client::engine::{Engine, EngineConfig};
use ahp_wasm::protocol::SessionState;

/// An engine past its handshake, subscribed to the workload's session at serverSeq 0.
pub fn connected_engine(initial: &SessionState) -> Engine {
    let state = serde_json::to_value(initial).expect("state");
    connected_engine_at(&initial.summary.resource, "0.3.0", state)
}

/// An engine past its handshake with a host that chose `protocol_version`, subscribed to
/// `uri` (whose snapshot is `state`) at serverSeq 0.
pub fn connected_engine_at(uri: &str, protocol_version: &str, state: serde_json::Value) -> Engine {
    let uri = uri.to_string();
    let mut config = EngineConfig::new("bench");
    config.initial_subscriptions = vec![uri.clone()];
    config.keepalive_ms = None;
    config.protocol_versions = vec![protocol_version.to_string()];
    let mut engine = Engine::new(config);
    engine.on_open(0.0);
    let init: serde_json::Value =
        serde_json::from_str(&engine.poll_transmit().expect("initialize")).expect("frame");
    let reply = serde_json::json!({"jsonrpc": "2.0", "id": init["id"], "result": {
        "protocolVersion": protocol_version, "serverSeq": 0,
        "snapshots": [{"resource": uri, "state": state, "fromSeq": 0}]}});
    engine.handle_frame(&reply.to_string(), 0.5);
    while engine.poll_event().is_some() {}
    assert!(engine.is_subscribed(&uri), "not subscribed to {uri}");
    engine
}
