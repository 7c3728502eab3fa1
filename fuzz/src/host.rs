//! `host`: the host's message handling, for real. One host runs in-process (started on first
//! use, on its own tokio runtime, with temporary data and working directories); each input is
//! a sequence of frames sent over a fresh loopback WebSocket connection.
//!
//! Input: frames separated by `\n`; a frame that is valid UTF-8 goes as a text frame, any
//! other as a binary frame. After the frames, two probes: `initialize` (answered by the hub,
//! with a result or "already initialized": the hub handled everything before it and is alive)
//! and `ping` (answered by the connection's reader).
//!
//! Properties: both probes are answered on the same connection (it survived; the only allowed
//! close is the one the spec asks for after an unsupported protocol version), every frame the
//! host sends is a valid JSON-RPC message, and nothing panics (a panic anywhere in the host,
//! hub thread included, aborts the fuzzer).

use ahp_wasm::protocol::errors;
use ahp_wasm::protocol::jsonrpc::{Incoming, RequestId};
use futures_util::{SinkExt, StreamExt};
use std::sync::OnceLock;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// Longest wait for the probes' answers.
const WAIT: Duration = Duration::from_secs(20);

const PROBE_INIT: &str = "fuzz-probe-initialize";
const PROBE_PING: &str = "fuzz-probe-ping";

struct Host {
    runtime: tokio::runtime::Runtime,
    url: String,
    _host: ahp_host::RunningHost,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

fn host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let data = tempfile::tempdir().expect("a data directory");
        let work = tempfile::tempdir().expect("a working directory");
        std::fs::write(work.path().join("hello.txt"), "hello\n").expect("a file");
        std::fs::create_dir(work.path().join("sub")).expect("a directory");
        let mut config = ahp_host::Config::local(data.path(), work.path());
        config.chunk_delay = Duration::from_millis(1);
        let host = runtime
            .block_on(ahp_host::start(config))
            .expect("the host starts");
        let url = format!("{}?tkn={}", host.ws_url(), host.token().expose());
        Host {
            runtime,
            url,
            _host: host,
            _dirs: (data, work),
        }
    })
}

/// The host target.
pub fn run(data: &[u8]) {
    let host = host();
    host.runtime.block_on(drive(&host.url, data));
}

async fn drive(url: &str, data: &[u8]) {
    let (mut ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .expect("the upgrade succeeds");
    for frame in data.split(|&b| b == b'\n') {
        let message = match std::str::from_utf8(frame) {
            Ok(text) => Message::text(text.to_string()),
            Err(_) => Message::binary(frame.to_vec()),
        };
        if ws.send(message).await.is_err() {
            break; // the host closed; judged below
        }
    }
    let probes = [
        format!(
            r#"{{"jsonrpc":"2.0","id":"{PROBE_INIT}","method":"initialize","params":{{"protocolVersions":["0.3.0"],"clientId":"fuzz-probe"}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":"{PROBE_PING}","method":"ping","params":{{"channel":"ahp-root://"}}}}"#
        ),
    ];
    for probe in probes {
        if ws.send(Message::text(probe)).await.is_err() {
            break;
        }
    }
    let mut answered = (false, false);
    let mut unsupported_version = false;
    let outcome = tokio::time::timeout(WAIT, async {
        while let Some(message) = ws.next().await {
            let text = match message {
                Ok(Message::Text(text)) => text,
                Ok(Message::Close(_)) | Err(_) => break,
                Ok(_) => continue,
            };
            let incoming = Incoming::parse(text.as_str())
                .unwrap_or_else(|e| panic!("the host sent an invalid frame ({e}): {text}"));
            if let Incoming::Response { id, outcome } = incoming {
                if let Err(error) = &outcome {
                    unsupported_version |= error.code == errors::UNSUPPORTED_PROTOCOL_VERSION;
                }
                match id {
                    Some(RequestId::String(s)) if s == PROBE_INIT => answered.0 = true,
                    Some(RequestId::String(s)) if s == PROBE_PING => answered.1 = true,
                    _ => {}
                }
            }
            if answered == (true, true) {
                return true;
            }
        }
        false
    })
    .await;
    match outcome {
        Ok(true) => {
            let _ = ws.close(None).await;
        }
        // Closed: allowed only after an unsupported-version error, as the spec asks.
        Ok(false) => assert!(
            unsupported_version,
            "the host closed the connection (probes answered: {answered:?})"
        ),
        Err(_) => panic!("no answer to the probes within {WAIT:?} (answered: {answered:?})"),
    }
}
