//! Session config and completions against a real host over a real WebSocket:
//! `resolveSessionConfig` and `sessionConfigCompletions` (`resolve.rs`), `completions` for `@`
//! files and `/` directives (`completions.rs`), `createSession.config`, `session/configChanged`,
//! `session/modelChanged` and the config across a restart (`sessions.rs`), and the host
//! configuration in root state (`root.rs`).

#[path = "../common/mod.rs"]
mod common;

mod completions;
mod resolve;
mod root;
mod sessions;

use ahp_wasm::protocol::jsonrpc::{ErrorObject, ROOT_CHANNEL};
use ahp_wasm::protocol::*;
use common::*;
use serde_json::{json, Value};

/// `method` on `ahp-root://` with `params`.
async fn on_root(c: &mut Client, method: &str, mut params: Value) -> Result<Value, ErrorObject> {
    params["channel"] = json!(ROOT_CHANNEL);
    c.call(method, params).await
}

/// `createSession` with raw params (`channel` set to `uri`).
async fn create(c: &mut Client, uri: &str, mut params: Value) -> Result<Value, ErrorObject> {
    params["channel"] = json!(uri);
    c.call("createSession", params).await
}

/// The session URIs `listSessions` answers.
async fn session_uris(c: &mut Client) -> Vec<String> {
    let r = on_root(c, "listSessions", json!({})).await.unwrap();
    r["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["resource"].as_str().unwrap().to_owned())
        .collect()
}

/// A session's config values as JSON.
fn values(state: &SessionState) -> Value {
    Value::Object(
        state
            .config
            .as_ref()
            .expect("the session has a config")
            .values
            .clone(),
    )
}
