//! Shared by `benches/reducers.rs` and `examples/engine_path.rs` (included with `#[path]`).

use ahp_wasm::client::engine::{Engine, EngineConfig};
use ahp_wasm::protocol::SessionState;

/// An engine past its handshake, subscribed to the workload's session at serverSeq 0.
pub fn connected_engine(initial: &SessionState) -> Engine {
    let uri = initial.summary.resource.clone();
    let mut config = EngineConfig::new("bench");
    config.initial_subscriptions = vec![uri.clone()];
    config.keepalive_ms = None;
    let mut engine = Engine::new(config);
    engine.on_open(0.0);
    let init: serde_json::Value =
        serde_json::from_str(&engine.poll_transmit().expect("initialize")).expect("frame");
    let reply = serde_json::json!({"jsonrpc": "2.0", "id": init["id"], "result": {
        "protocolVersion": "0.3.0", "serverSeq": 0,
        "snapshots": [{"resource": uri, "state": initial, "fromSeq": 0}]}});
    engine.handle_frame(&reply.to_string(), 0.5);
    while engine.poll_event().is_some() {}
    assert!(engine.is_subscribed(&initial.summary.resource));
    engine
}
