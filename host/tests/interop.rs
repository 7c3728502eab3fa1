//! Interop with the official Rust client (`ahp` 0.3.0 from crates.io) as a test peer: it
//! connects through a small tokio-tungstenite transport, initializes, creates a session,
//! dispatches a turn, approves a tool call, and reduces the streamed envelopes with its own
//! reducers to the same state the host holds. It also reconnects as the spec says (its
//! `reconnect` knows nothing of `ahp-host`'s `clientSecret`): after its connection drops, after
//! a kill -9 restart, and while the host still holds a connection of its that went silent.

mod common;

use ahp::{
    Client as OfficialClient, ClientConfig, ClientEvent, ClientEventStream, SessionSubscription,
    SubscriptionEvent, Transport, TransportError, TransportMessage,
};
use ahp_types::actions::{ActionEnvelope as OfficialEnvelope, StateAction as OfficialAction};
use ahp_types::commands::ReconnectResult as OfficialReconnect;
use ahp_types::state::{SessionState as OfficialSession, SnapshotState as OfficialSnapshot};
use common::*;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{watch, Notify};
use tokio_tungstenite::tungstenite::Message as WsMessage;

/// The protocol versions the official client offers.
fn versions() -> Vec<String> {
    vec!["0.3.0".into()]
}

/// The test's hold on one connection of an official client: `partition` stops reading (frames
/// pile up unread and pings go unanswered, as behind a dead network), `cut` then drops the socket
/// without a close frame, `resume` reads again.
#[derive(Clone, Default)]
struct Link {
    held: Arc<watch::Sender<bool>>,
    parked: Arc<Notify>,
    cut: Arc<Notify>,
}

impl Link {
    /// Stops reading; returns once the transport has stopped.
    async fn partition(&self) {
        self.held.send_replace(true);
        self.parked.notified().await;
    }

    fn resume(&self) {
        self.held.send_replace(false);
    }

    /// Drops the (partitioned) socket: the TCP connection closes, no WebSocket close frame.
    fn cut(&self) {
        self.cut.notify_one();
    }
}

/// A WebSocket transport for the official client.
struct WsTransport {
    ws: Ws,
    link: Link,
}

impl Transport for WsTransport {
    async fn send(&mut self, msg: TransportMessage) -> Result<(), TransportError> {
        let text = match msg {
            TransportMessage::Text(t) => t,
            TransportMessage::Binary(b) => {
                String::from_utf8(b).map_err(|e| TransportError::Protocol(e.to_string()))?
            }
            TransportMessage::Parsed(m) => {
                serde_json::to_string(&m).map_err(|e| TransportError::Protocol(e.to_string()))?
            }
        };
        self.ws
            .send(WsMessage::text(text))
            .await
            .map_err(|e| TransportError::Protocol(e.to_string()))
    }

    async fn recv(&mut self) -> Result<Option<TransportMessage>, TransportError> {
        let mut held = self.link.held.subscribe();
        loop {
            if *held.borrow_and_update() {
                self.link.parked.notify_one();
                tokio::select! {
                    _ = self.link.cut.notified() => {
                        return Err(TransportError::Protocol("the test cut the connection".into()))
                    }
                    _ = held.changed() => continue,
                }
            }
            tokio::select! {
                biased;
                _ = held.changed() => continue,
                msg = self.ws.next() => match msg {
                    Some(Ok(WsMessage::Text(t))) => {
                        return Ok(Some(TransportMessage::Text(t.to_string())))
                    }
                    Some(Ok(WsMessage::Close(_))) | None => return Ok(None),
                    Some(Ok(_)) => continue,
                    Some(Err(e)) => return Err(TransportError::Protocol(e.to_string())),
                },
            }
        }
    }

    async fn close(&mut self) -> Result<(), TransportError> {
        let _ = self.ws.close(None).await;
        Ok(())
    }
}

/// An official client connected to `url` (not yet initialized), and the hold on its connection.
async fn official(url: &str) -> (OfficialClient, Link) {
    let (ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let link = Link::default();
    let transport = WsTransport {
        ws,
        link: link.clone(),
    };
    let client = OfficialClient::connect(transport, ClientConfig::default())
        .await
        .unwrap();
    (client, link)
}

/// The next action envelope the official client received (on any channel).
async fn next_envelope(events: &mut ClientEventStream) -> OfficialEnvelope {
    loop {
        let event = tokio::time::timeout(WAIT, events.recv())
            .await
            .expect("an event within the timeout")
            .expect("the client is connected");
        if let ClientEvent {
            event: SubscriptionEvent::Action(env),
            ..
        } = event
        {
            return env;
        }
    }
}

fn session_of(state: OfficialSnapshot) -> OfficialSession {
    match state {
        OfficialSnapshot::Session(state) => *state,
        other => panic!("session snapshot expected, got {other:?}"),
    }
}

/// Creates session `uri` through the official client and subscribes to it: the session's
/// snapshot state and the subscription.
async fn official_session(
    client: &OfficialClient,
    uri: &str,
) -> (OfficialSession, SessionSubscription) {
    let _: Value = client
        .request("createSession", json!({"channel": uri}))
        .await
        .expect("createSession");
    let (result, sub) = client.subscribe(uri.into()).await.expect("subscribe");
    (session_of(result.snapshot.expect("snapshot").state), sub)
}

fn ends_official_turn(env: &OfficialEnvelope, turn: &str) -> bool {
    let v = serde_json::to_value(&env.action).unwrap();
    matches!(
        v["type"].as_str(),
        Some("session/turnComplete" | "session/turnCancelled")
    ) && v["turnId"] == turn
}

fn is_echo_of(env: &OfficialEnvelope, client_id: &str, client_seq: i64) -> bool {
    env.origin
        .as_ref()
        .is_some_and(|o| o.client_id == client_id && o.client_seq == client_seq)
}

fn official_turn(turn: &str, text: &str) -> OfficialAction {
    official_action(json!({"type": "session/turnStarted", "turnId": turn,
        "message": {"text": text, "origin": {"kind": "user"}}}))
}

/// JSON without nulls, with the clock-stamped `summary.modifiedAt` zeroed (each peer stamps it
/// with its own clock).
fn normalized(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.retain(|_, x| !x.is_null());
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v["summary"]["modifiedAt"] = json!(0);
    v
}

fn official_action(v: Value) -> OfficialAction {
    serde_json::from_value(v).expect("the official types parse the action")
}

#[tokio::test]
async fn the_official_client_reduces_to_the_hosts_state() {
    let t = start_host().await;
    let (client, _link) = official(&url_with_token(&t.host)).await;
    let init = client
        .initialize(
            "official".into(),
            vec!["0.3.0".into()],
            vec!["ahp-root://".into()],
        )
        .await
        .expect("initialize");
    assert_eq!(init.protocol_version, "0.3.0");
    assert_eq!(init.snapshots.len(), 1);

    let s = "ahp-session:/interop";
    let (mut state, mut sub) = official_session(&client, s).await;

    client
        .dispatch(
            s.into(),
            official_action(json!({"type": "session/turnStarted", "turnId": "t1",
                "message": {"text": "Hi from the official client\n/title Interop\n/tool list",
                            "origin": {"kind": "user"}}})),
        )
        .await
        .unwrap();

    let mut applied = 0;
    let mut own_echo = false;
    loop {
        let event = tokio::time::timeout(WAIT, sub.recv())
            .await
            .expect("event")
            .expect("open");
        let SubscriptionEvent::Action(env) = event else {
            continue;
        };
        assert!(env.rejection_reason.is_none(), "{env:?}");
        let action_json = serde_json::to_value(&env.action).unwrap();
        if env
            .origin
            .as_ref()
            .is_some_and(|o| o.client_id == "official")
        {
            own_echo = true;
        }
        ahp::apply_action_to_session(&mut state, &env.action);
        applied += 1;
        if action_json["type"] == "session/toolCallReady" {
            client
                .dispatch(
                    s.into(),
                    official_action(json!({"type": "session/toolCallConfirmed", "turnId": "t1",
                        "toolCallId": action_json["toolCallId"], "approved": true,
                        "confirmed": "user-action"})),
                )
                .await
                .unwrap();
        }
        if action_json["type"] == "session/turnComplete" {
            break;
        }
    }
    assert!(own_echo, "the official client saw its own echo");
    assert!(applied > 10);

    let host = host_state(&t.host, s).await;
    let ours = normalized(serde_json::to_value(&host).unwrap());
    let theirs = normalized(serde_json::to_value(&state).unwrap());
    assert_eq!(ours["summary"]["title"], "Interop");
    assert_eq!(theirs, ours, "official reducers disagree with the host");
    client.shutdown().await;
}

const S: &str = "ahp-session:/official-reconnect";

/// The official client's `reconnect` after its connection dropped, with nothing but the spec's
/// params: the missed envelopes are replayed (its own echo among them) and it carries on.
#[tokio::test]
async fn the_official_client_reconnects_after_its_connection_drops() {
    let t = start_host_with(|c| c.chunk_delay = Duration::from_millis(3)).await;
    let url = url_with_token(&t.host);
    let id = "official-rc";
    let (client, link) = official(&url).await;
    let mut events = client.events();
    client
        .initialize(id.into(), versions(), vec![])
        .await
        .expect("initialize");
    let (mut mirror, _sub) = official_session(&client, S).await;
    let mut observer = Client::ready(&t.host, "observer").await;
    observer.subscribe(S).await;

    client
        .dispatch(S.into(), official_turn("t1", "/long 60"))
        .await
        .unwrap();
    let mut last_seen = 0;
    for _ in 0..15 {
        let env = next_envelope(&mut events).await;
        assert_eq!(env.channel, S);
        ahp::apply_action_to_session(&mut mirror, &env.action);
        last_seen = env.server_seq;
    }
    // The network goes away: nothing more is read, while the client still sends an action
    // whose echo it will not see...
    link.partition().await;
    let pending = client
        .dispatch(
            S.into(),
            official_action(json!({"type": "session/activeClientChanged",
                "activeClient": {"clientId": id, "tools": [{"name": "pick_color"}]}})),
        )
        .await
        .unwrap();
    observer
        .envelopes_until(|e| {
            e.origin
                .as_ref()
                .is_some_and(|o| o.client_id == id && o.client_seq as i64 == pending.client_seq)
        })
        .await;
    // ...and the socket is gone.
    link.cut();
    drop(client);

    let (again, _link) = official(&url).await;
    let mut events = again.events();
    let result = again
        .reconnect(id.into(), last_seen as i64, vec![S.into()])
        .await
        .expect("the official client's reconnect is accepted");
    let OfficialReconnect::Replay(replay) = result else {
        panic!("replay expected: the gap is in the buffer")
    };
    assert!(replay.missing.is_empty(), "{:?}", replay.missing);
    assert_eq!(
        replay.actions[0].server_seq,
        last_seen + 1,
        "no gap, no duplicate"
    );
    assert!(
        replay
            .actions
            .iter()
            .any(|e| is_echo_of(e, id, pending.client_seq)),
        "the echo of its pending action is replayed"
    );
    let mut last = last_seen;
    let mut done = false;
    for env in &replay.actions {
        assert!(env.server_seq > last);
        last = env.server_seq;
        ahp::apply_action_to_session(&mut mirror, &env.action);
        done |= ends_official_turn(env, "t1");
    }
    while !done {
        let env = next_envelope(&mut events).await;
        assert!(
            env.server_seq > last,
            "live envelopes continue after the replay"
        );
        last = env.server_seq;
        ahp::apply_action_to_session(&mut mirror, &env.action);
        done = ends_official_turn(&env, "t1");
    }
    let host = host_state(&t.host, S).await;
    assert!(markdown(&host.turns[0].response_parts).contains("Line 60 of 60"));
    let ours = normalized(serde_json::to_value(&host).unwrap());
    let theirs = normalized(serde_json::to_value(&mirror).unwrap());
    assert_eq!(theirs, ours, "the reconnected mirror is the host's state");
    again.shutdown().await;
}

/// A session's state as a fresh subscriber at `url` gets it.
async fn state_at(url: &str, uri: &str) -> Value {
    let mut c = Client::connect_url(url, "state-reader").await;
    c.initialize(&[]).await;
    let state = session_state(&c.subscribe(uri).await);
    c.close().await;
    normalized(serde_json::to_value(&state).unwrap())
}

/// The official client across a kill -9 restart of the host binary: from the last `serverSeq`
/// it saw, `reconnect` replays; from before the buffer, it gets snapshots; `initialize` with a
/// known id works too (what the official host runtime falls back to).
#[tokio::test]
async fn the_official_client_reconnects_across_a_kill_9_restart() {
    const TOKEN: &str = "official-restart-token-0123456789";
    let data = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let args = ["--chunk-delay-ms", "1"];
    let host = HostProcess::spawn(data.path(), work.path(), TOKEN, &args);
    let url = host.url();

    // Two clients that will be gone before the turn: one to reconnect from an old serverSeq,
    // one to initialize again.
    let mut old_seen = 0;
    for id in ["official-old", "official-init"] {
        let (c, _) = official(&url).await;
        let init = c.initialize(id.into(), versions(), vec![]).await.unwrap();
        old_seen = init.server_seq;
        c.shutdown().await;
    }

    let id = "official-k9";
    let (client, link) = official(&url).await;
    let mut events = client.events();
    client
        .initialize(id.into(), versions(), vec!["ahp-root://".into()])
        .await
        .expect("initialize");
    let (mut mirror, _sub) = official_session(&client, S).await;
    client
        .dispatch(S.into(), official_turn("t1", "/long 20"))
        .await
        .unwrap();
    let mut last_seen = 0;
    let mut done = false;
    while !done {
        let env = next_envelope(&mut events).await;
        last_seen = last_seen.max(env.server_seq);
        if env.channel == S {
            ahp::apply_action_to_session(&mut mirror, &env.action);
            done = ends_official_turn(&env, "t1");
        }
    }
    // Everything the host sent the client has reached it: the stream went quiet. (Not "every
    // number the host handed out": the 1.0 view's own envelopes have numbers a 0.3.0 client
    // never sees, gaps as another session's envelopes make.)
    while let Ok(Some(event)) =
        tokio::time::timeout(Duration::from_millis(500), events.recv()).await
    {
        if let SubscriptionEvent::Action(env) = event.event {
            last_seen = last_seen.max(env.server_seq);
        }
    }

    host.kill_9();
    link.cut();
    drop(client);
    let host = HostProcess::spawn(data.path(), work.path(), TOKEN, &args);
    let url = host.url();

    // From the last serverSeq seen: a replay (of what the restart itself did, if anything).
    let (again, _) = official(&url).await;
    let mut events = again.events();
    let result = again
        .reconnect(
            id.into(),
            last_seen as i64,
            vec!["ahp-root://".into(), S.into()],
        )
        .await
        .expect("the official client's reconnect after a kill -9 is accepted");
    let OfficialReconnect::Replay(replay) = result else {
        panic!("replay expected: nothing was missed")
    };
    assert!(replay.missing.is_empty(), "{:?}", replay.missing);
    for env in replay.actions.iter().filter(|e| e.channel == S) {
        assert!(env.server_seq > last_seen);
        ahp::apply_action_to_session(&mut mirror, &env.action);
    }
    assert_eq!(
        normalized(serde_json::to_value(&mirror).unwrap()),
        state_at(&url, S).await,
        "the mirror plus the replay is the restarted host's state"
    );
    // It is initialized and subscribed again: a new turn, its own echo.
    let sent = again
        .dispatch(S.into(), official_turn("t2", "after the restart"))
        .await
        .unwrap();
    let mut echoed = false;
    loop {
        let env = next_envelope(&mut events).await;
        echoed |= is_echo_of(&env, id, sent.client_seq);
        if env.channel == S && ends_official_turn(&env, "t2") {
            break;
        }
    }
    assert!(echoed, "its turn was echoed to it");

    // From before the buffer: snapshots.
    let (old, _) = official(&url).await;
    let result = old
        .reconnect("official-old".into(), old_seen, vec![S.into()])
        .await
        .expect("the official client's reconnect from an old serverSeq is accepted");
    let OfficialReconnect::Snapshot(snap) = result else {
        panic!("snapshots expected: the gap is beyond the restarted host's buffer")
    };
    assert_eq!(snap.snapshots.len(), 1);
    let state = session_of(snap.snapshots[0].state.clone());
    assert_eq!(state.turns.len(), 2);
    assert_eq!(
        normalized(serde_json::to_value(&state).unwrap()),
        state_at(&url, S).await
    );

    // `initialize` again with a known id.
    let (init, _) = official(&url).await;
    let result = init
        .initialize("official-init".into(), versions(), vec![S.into()])
        .await
        .expect("initialize with a known id, without a secret, while no one holds it");
    assert_eq!(result.snapshots.len(), 1);
    for c in [again, old, init] {
        c.shutdown().await;
    }
    host.kill_9();
}

/// A connection that went silent (its peer's network died without a TCP close) still holds
/// the id at the host; the client's reconnect on a new connection gets it: the host pings the
/// silent connection, drops it when no pong comes, and accepts the reconnect.
#[tokio::test]
async fn a_silent_connection_gives_its_id_up_to_the_clients_reconnect() {
    let t = start_host().await;
    let url = url_with_token(&t.host);
    let id = "official-silent";
    let (client, link) = official(&url).await;
    let mut old_events = client.events();
    let init = client
        .initialize(id.into(), versions(), vec!["ahp-root://".into()])
        .await
        .expect("initialize");
    link.partition().await;

    let (again, _) = official(&url).await;
    let begin = Instant::now();
    let result = again
        .reconnect(id.into(), init.server_seq, vec!["ahp-root://".into()])
        .await
        .expect("the reconnect is accepted once the silent connection failed its ping");
    assert!(matches!(result, OfficialReconnect::Replay(_)), "{result:?}");
    eprintln!(
        "the silent connection was given up after {:?}",
        begin.elapsed()
    );
    // The host closed the silent connection: read again, and it ends.
    link.resume();
    let ended =
        tokio::time::timeout(WAIT, async { while old_events.recv().await.is_some() {} }).await;
    assert!(ended.is_ok(), "the host closed the silent connection");
    // The new connection is served.
    let _: Value = again
        .request("listSessions", json!({"channel": "ahp-root://"}))
        .await
        .expect("the reconnected client is served");
    again.shutdown().await;
}
