//! The native client's AHP 1.0 commands (`AhpClient::v1`) against a host over a real WebSocket
//! on localhost. The host reads every request's params as the official 1.0.0 params type
//! (`ahp-types` 1.0.0; unreadable params are answered `-32602`) and answers with a result it
//! builds as the official result type and serializes with serde: the official types are the
//! oracle of both shapes. Every 1.0 command is called with typed params; its typed result must
//! serialize to the JSON the host sent. A result of the wrong shape is a typed error and the
//! connection survives; on a 0.3.0 connection a 1.0 command is refused with nothing sent.
#![cfg(feature = "native")]

use ahp_types_v1::commands as official;
use ahp_types_v1::state as official_state;
use ahp_wasm::client::native::{AhpClient, ConnectOptions, ReconnectPolicy};
use ahp_wasm::client::transport::ws::WsTransport;
use ahp_wasm::client::transport::{recv, Transport};
use ahp_wasm::client::{ConnectionState, Error};
use ahp_wasm::protocol::v1::jsonrpc::{CommandCall, COMMANDS};
use ahp_wasm::protocol::v1::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::Duration;
use tokio::sync::mpsc;

const ROOT: &str = "ahp-root://";
/// A `moveChat` to this session is answered with a result of the wrong shape.
const BAD_ANSWER: &str = "ahp-session:/bad-answer";

/// One request as the host saw it: its method, and (`None`: it answered an error) its params
/// as it read them and the result it sent.
#[derive(Debug)]
struct Seen {
    method: String,
    answered: Option<(Value, Value)>,
}

/// Params read as the official type `P` (and written again), answered with `f`'s official
/// result.
fn with<P, R>(params: &Value, f: impl FnOnce(P) -> R) -> Answer
where
    P: DeserializeOwned + Serialize,
    R: Serialize,
{
    match serde_json::from_value::<P>(params.clone()) {
        Ok(p) => Ok((
            serde_json::to_value(&p).unwrap(),
            serde_json::to_value(f(p)).unwrap(),
        )),
        Err(e) => Err(json!({"code": -32602, "message": e.to_string()})),
    }
}

/// The params as read and the result, or an error object.
type Answer = Result<(Value, Value), Value>;

/// An official value from JSON (for the nested unions the answers carry).
fn official<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).unwrap()
}

/// The empty result of the commands 1.0 names no result type for.
fn void<P>(_: P) -> Value {
    json!({})
}

/// The host's answer to one 1.0 request.
fn answer(method: &str, params: &Value) -> Answer {
    match method {
        "ping" if params == &json!({"channel": ROOT}) => Ok((params.clone(), json!({}))),
        "createSession" => with::<official::CreateSessionParams, _>(params, void),
        "disposeSession" => with::<official::DisposeSessionParams, _>(params, void),
        "createChat" => with::<official::CreateChatParams, _>(params, void),
        "disposeChat" => with::<official::DisposeChatParams, _>(params, void),
        "moveChat" => match &params["destination"]["session"] {
            v if v == BAD_ANSWER => Ok((params.clone(), json!({"session": 42}))),
            _ => with(params, |p: official::MoveChatParams| {
                let session = match p.destination {
                    official::ChatMoveDestination::Session(d) => d.session,
                    _ => "ahp-session:/new".into(),
                };
                official::MoveChatResult { session }
            }),
        },
        "listSessions" => with(params, |p: official::ListSessionsParams| {
            official::ListSessionsResult {
                next_cursor: p.cursor.map(|c| format!("{c}+1")),
                items: vec![official(json!({"provider": "copilot", "title": "One",
                    "status": 1, "resource": "ahp-session:/1",
                    "createdAt": "2026-01-01T00:00:00.000Z",
                    "modifiedAt": "2026-01-02T00:00:00.000Z",
                    "chats": [], "defaultChat": "ahp-chat:/1"}))],
            }
        }),
        "resourceRead" => with(params, |p: official::ResourceReadParams| {
            official::ResourceReadResult {
                data: format!("contents of {}", p.uri),
                encoding: official::ContentEncoding::Utf8,
                content_type: Some("text/plain".into()),
            }
        }),
        "resourceWrite" => with(params, |_: official::ResourceWriteParams| {
            official::ResourceWriteResult {}
        }),
        "resourceList" => with(params, |_: official::ResourceListParams| {
            official::ResourceListResult {
                entries: vec![official(json!({"name": "a.txt", "type": "file"}))],
            }
        }),
        "resourceCopy" => with(params, |_: official::ResourceCopyParams| {
            official::ResourceCopyResult {}
        }),
        "resourceDelete" => with(params, |_: official::ResourceDeleteParams| {
            official::ResourceDeleteResult {}
        }),
        "resourceMove" => with(params, |_: official::ResourceMoveParams| {
            official::ResourceMoveResult {}
        }),
        "resourceResolve" => with(params, |p: official::ResourceResolveParams| {
            official::ResourceResolveResult {
                uri: p.uri,
                r#type: official::ResourceType::File,
                size: Some(3),
                mtime: Some("2026-01-01T00:00:00.000Z".into()),
                ctime: None,
                content_type: None,
                etag: Some("e1".into()),
            }
        }),
        "resourceMkdir" => with(params, |_: official::ResourceMkdirParams| {
            official::ResourceMkdirResult {}
        }),
        "resourceRequest" => with(params, |_: official::ResourceRequestParams| {
            official::ResourceRequestResult {}
        }),
        "createResourceWatch" => with(params, |_: official::CreateResourceWatchParams| {
            official::CreateResourceWatchResult {
                channel: "ahp-resource-watch:/w1".into(),
            }
        }),
        "fetchTurns" => with(params, |_: official::FetchTurnsParams| {
            official::FetchTurnsResult {}
        }),
        "authenticate" => with(params, |_: official::AuthenticateParams| {
            official::AuthenticateResult {}
        }),
        "createTerminal" => with::<official::CreateTerminalParams, _>(params, void),
        "disposeTerminal" => with::<official::DisposeTerminalParams, _>(params, void),
        "resolveSessionConfig" => with(params, |p: official::ResolveSessionConfigParams| {
            official::ResolveSessionConfigResult {
                schema: official(json!({"type": "object", "properties": {
                    "model": {"type": "string", "title": "Model", "enumDynamic": true}}})),
                values: p.config.unwrap_or_default(),
            }
        }),
        "sessionConfigCompletions" => {
            with(params, |p: official::SessionConfigCompletionsParams| {
                official::SessionConfigCompletionsResult {
                    items: vec![official::SessionConfigValueItem {
                        value: format!("{}-1", p.query.unwrap_or_default()),
                        label: p.property,
                        description: None,
                    }],
                }
            })
        }
        "completions" => with(params, |p: official::CompletionsParams| {
            official::CompletionsResult {
                items: vec![official::CompletionItem {
                    insert_text: "@a.txt".into(),
                    range_start: Some(p.offset - 1),
                    range_end: Some(p.offset),
                    attachment: official(json!({"type": "simple", "label": "a.txt"})),
                }],
            }
        }),
        "invokeChangesetOperation" => {
            with(params, |p: official::InvokeChangesetOperationParams| {
                official::InvokeChangesetOperationResult {
                    message: Some(official(json!({"markdown": format!("**{}** done",
                        p.operation_id)}))),
                    follow_up: None,
                }
            })
        }
        "listAutomationTriggerDefinitions" => with(
            params,
            |_: official::ListAutomationTriggerDefinitionsParams| {
                official::ListAutomationTriggerDefinitionsResult {
                    items: vec![official_state::AutomationTriggerDefinition {
                        r#type: "github".into(),
                        title: "GitHub".into(),
                        description: None,
                        events: vec![official(json!({"id": "push", "title": "Push"}))],
                        config_schema: None,
                    }],
                }
            },
        ),
        "runAutomation" => with(params, |p: official::RunAutomationParams| {
            official::RunAutomationResult {
                resource: format!("ahp-automation-run:/{}", p.request_id),
            }
        }),
        "fetchAutomationRuns" => with(params, |_: official::FetchAutomationRunsParams| {
            official::FetchAutomationRunsResult {}
        }),
        _ => Err(json!({"code": -32601, "message": format!("no method {method}")})),
    }
}

/// Serves one connection: `1.0.0` when offered, else `0.3.0` when offered; every request is
/// reported on the returned channel. Returns the WebSocket URL.
async fn start_host() -> (String, mpsc::UnboundedReceiver<Seen>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (seen_tx, seen) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
        let mut t = WsTransport::new(ws);
        while let Some(Ok(frame)) = recv(&mut t).await {
            let frame: Value = serde_json::from_str(&frame).unwrap();
            let (Some(method), Some(id)) = (frame["method"].as_str(), frame.get("id")) else {
                continue;
            };
            let outcome = match method {
                "initialize" => {
                    let offered = frame["params"]["protocolVersions"].as_array().unwrap();
                    let version = ["1.0.0", "0.3.0"]
                        .into_iter()
                        .find(|v| offered.iter().any(|o| o == v))
                        .unwrap();
                    let result = json!({"protocolVersion": version, "serverSeq": 0,
                        "snapshots": []});
                    Ok((frame["params"].clone(), result))
                }
                method => answer(method, &frame["params"]),
            };
            let _ = seen_tx.send(Seen {
                method: method.to_string(),
                answered: outcome.as_ref().ok().cloned(),
            });
            let answer = match outcome {
                Ok((_, result)) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
            };
            t.send(answer.to_string()).unwrap();
        }
        t.close();
    });
    (format!("ws://{addr}/ahp"), seen)
}

/// The host's reports, and the methods taken from them.
struct Host {
    rx: mpsc::UnboundedReceiver<Seen>,
    methods: BTreeSet<String>,
}

async fn connect(offer: &str) -> (AhpClient, Host) {
    let (url, mut seen) = start_host().await;
    let options = ConnectOptions {
        initial_subscriptions: vec![],
        protocol_versions: vec![offer.to_string()],
        reconnect: ReconnectPolicy::never(),
        keepalive: None,
        request_timeout: Duration::from_secs(10),
        ..Default::default()
    };
    let client = tokio::time::timeout(Duration::from_secs(10), AhpClient::connect(&url, options))
        .await
        .expect("connect settles")
        .unwrap();
    assert_eq!(seen.recv().await.unwrap().method, "initialize");
    let host = Host {
        rx: seen,
        methods: BTreeSet::new(),
    };
    (client, host)
}

/// The params the host read and the result it sent for the last request, which must be
/// `method`.
fn sent(host: &mut Host, method: &str) -> (Value, Value) {
    let seen = host.rx.try_recv().expect("the host saw the request");
    assert_eq!(seen.method, method);
    host.methods.insert(seen.method);
    seen.answered
        .unwrap_or_else(|| panic!("the host refused `{method}`"))
}

/// Whether the host answered the last request, which must be `method`, with an error.
fn sent_error(host: &mut Host, method: &str) -> bool {
    let seen = host.rx.try_recv().expect("the host saw the request");
    assert_eq!(seen.method, method);
    seen.answered.is_none()
}

/// Calls a 1.0 command: the host's official type reads its typed params as they are, and its
/// typed result serializes to what the host sent. Returns the result.
macro_rules! call {
    ($client:ident, $seen:ident, $method:literal, $call:ident($params:expr)) => {{
        let params = $params;
        let ours = serde_json::to_value(&params).unwrap();
        let result = $client.v1().$call(params).await.unwrap();
        let (read, answered) = sent(&mut $seen, $method);
        assert_eq!(read, ours, "{}: the params as the host read them", $method);
        let result_json = serde_json::to_value(&result).unwrap();
        assert_eq!(result_json, answered, "{}: the result", $method);
        result
    }};
}

/// A void command: as [`call!`], and it resolves to `()`.
macro_rules! call_void {
    ($client:ident, $seen:ident, $method:literal, $call:ident($params:expr)) => {{
        let params = $params;
        let ours = serde_json::to_value(&params).unwrap();
        let () = $client.v1().$call(params).await.unwrap();
        let (read, answered) = sent(&mut $seen, $method);
        assert_eq!(read, ours, "{}: the params as the host read them", $method);
        assert_eq!(answered, json!({}), "{}", $method);
    }};
}

fn value<T: DeserializeOwned>(json: Value) -> T {
    serde_json::from_value(json).unwrap()
}

#[tokio::test]
async fn every_1_0_command_round_trips() {
    let (client, seen) = connect("1.0.0").await;
    assert_eq!(client.protocol_version(), "1.0.0");
    let seen = chats_and_sessions(&client, seen).await;
    let seen = resources_terminals_changesets_and_automations(&client, seen).await;
    // Every command of the 1.0 table (but the handshake's) was called above.
    let table: BTreeSet<String> = COMMANDS
        .iter()
        .filter(|c| c.call != CommandCall::Handshake)
        .map(|c| c.method.to_string())
        .collect();
    assert_eq!(seen.methods, table);
    client.close();
}

async fn chats_and_sessions(client: &AhpClient, mut seen: Host) -> Host {
    let () = client.v1().ping().await.unwrap();
    assert_eq!(
        sent(&mut seen, "ping"),
        (json!({"channel": ROOT}), json!({}))
    );
    let session = "ahp-session:/9";
    call_void!(
        client,
        seen,
        "createSession",
        create_session(CreateSessionParams {
            channel: session.into(),
            provider: Some("copilot".into()),
            working_directories: Some(vec!["file:///w".into()]),
            ..Default::default()
        })
    );
    call_void!(
        client,
        seen,
        "createChat",
        create_chat(CreateChatParams {
            channel: session.into(),
            chat: "ahp-chat:/2".into(),
            initial_message: Some(value(json!({"text": "hi", "origin": {"kind": "user"}}))),
            source: Some(value(
                json!({"kind": "fork", "chat": "ahp-chat:/1", "turnId": "t1"})
            )),
            ..Default::default()
        })
    );
    let moved = call!(
        client,
        seen,
        "moveChat",
        move_chat(MoveChatParams {
            channel: "ahp-chat:/2".into(),
            destination: value(json!({"kind": "session", "session": "ahp-session:/8"})),
            meta: None,
            extra: Default::default(),
        })
    );
    assert_eq!(moved.session, "ahp-session:/8");
    let listed = call!(
        client,
        seen,
        "listSessions",
        list_sessions(ListSessionsParams {
            channel: ROOT.into(),
            cursor: Some("c".into()),
            ..Default::default()
        })
    );
    assert_eq!(listed.next_cursor.as_deref(), Some("c+1"));
    assert_eq!(listed.items[0].default_chat.as_deref(), Some("ahp-chat:/1"));
    let turns = call!(
        client,
        seen,
        "fetchTurns",
        fetch_turns(FetchTurnsParams {
            channel: "ahp-chat:/2".into(),
            cursor: Some("older".into()),
            ..Default::default()
        })
    );
    assert!(turns.extra.is_empty());
    call_void!(
        client,
        seen,
        "disposeChat",
        dispose_chat(DisposeChatParams {
            channel: "ahp-chat:/2".into(),
            ..Default::default()
        })
    );
    call_void!(
        client,
        seen,
        "disposeSession",
        dispose_session(DisposeSessionParams {
            channel: session.into(),
            ..Default::default()
        })
    );
    let config = call!(
        client,
        seen,
        "resolveSessionConfig",
        resolve_session_config(ResolveSessionConfigParams {
            channel: ROOT.into(),
            config: Some(value(json!({"model": "m1"}))),
            ..Default::default()
        })
    );
    assert_eq!(config.values.get("model"), Some(&json!("m1")));
    let values = call!(
        client,
        seen,
        "sessionConfigCompletions",
        session_config_completions(SessionConfigCompletionsParams {
            channel: ROOT.into(),
            property: "model".into(),
            query: Some("gp".into()),
            ..Default::default()
        })
    );
    assert_eq!(
        (
            values.items[0].value.as_str(),
            values.items[0].label.as_str()
        ),
        ("gp-1", "model")
    );
    let items = call!(
        client,
        seen,
        "completions",
        completions(CompletionsParams {
            channel: session.into(),
            kind: value(json!("userMessage")),
            text: "see @".into(),
            offset: 5,
            meta: None,
            extra: Default::default(),
        })
    );
    assert_eq!(items.items[0].range_start, Some(4));
    seen
}

async fn resources_terminals_changesets_and_automations(
    client: &AhpClient,
    mut seen: Host,
) -> Host {
    let file = "file:///w/a.txt";
    let read = call!(
        client,
        seen,
        "resourceRead",
        resource_read(ResourceReadParams {
            channel: ROOT.into(),
            uri: file.into(),
            ..Default::default()
        })
    );
    assert_eq!(read.data, format!("contents of {file}"));
    call!(
        client,
        seen,
        "resourceWrite",
        resource_write(ResourceWriteParams {
            channel: ROOT.into(),
            uri: file.into(),
            data: "abc".into(),
            encoding: value(json!("utf-8")),
            content_type: None,
            create_only: Some(false),
            mode: None,
            position: None,
            if_match: Some("e1".into()),
            meta: None,
            extra: Default::default(),
        })
    );
    let listed = call!(
        client,
        seen,
        "resourceList",
        resource_list(ResourceListParams {
            channel: ROOT.into(),
            uri: "file:///w".into(),
            ..Default::default()
        })
    );
    assert_eq!(listed.entries[0].name, "a.txt");
    let two = |source: &str, destination: &str| (source.to_string(), destination.to_string());
    let (source, destination) = two(file, "file:///w/b.txt");
    call!(
        client,
        seen,
        "resourceCopy",
        resource_copy(ResourceCopyParams {
            channel: ROOT.into(),
            source: source.clone(),
            destination: destination.clone(),
            ..Default::default()
        })
    );
    call!(
        client,
        seen,
        "resourceMove",
        resource_move(ResourceMoveParams {
            channel: ROOT.into(),
            source,
            destination,
            fail_if_exists: Some(true),
            ..Default::default()
        })
    );
    call!(
        client,
        seen,
        "resourceDelete",
        resource_delete(ResourceDeleteParams {
            channel: ROOT.into(),
            uri: file.into(),
            recursive: Some(false),
            ..Default::default()
        })
    );
    let resolved = call!(
        client,
        seen,
        "resourceResolve",
        resource_resolve(ResourceResolveParams {
            channel: ROOT.into(),
            uri: file.into(),
            ..Default::default()
        })
    );
    assert_eq!((resolved.uri.as_str(), resolved.size), (file, Some(3)));
    call!(
        client,
        seen,
        "resourceMkdir",
        resource_mkdir(ResourceMkdirParams {
            channel: ROOT.into(),
            uri: "file:///w/d".into(),
            ..Default::default()
        })
    );
    call!(
        client,
        seen,
        "resourceRequest",
        resource_request(ResourceRequestParams {
            channel: ROOT.into(),
            uri: file.into(),
            read: Some(true),
            ..Default::default()
        })
    );
    let watch = call!(
        client,
        seen,
        "createResourceWatch",
        create_resource_watch(CreateResourceWatchParams {
            channel: ROOT.into(),
            uri: "file:///w".into(),
            recursive: Some(true),
            ..Default::default()
        })
    );
    assert_eq!(watch.channel, "ahp-resource-watch:/w1");
    call!(
        client,
        seen,
        "authenticate",
        authenticate(AuthenticateParams {
            channel: ROOT.into(),
            resource: "https://api.example".into(),
            token: "t".into(),
            ..Default::default()
        })
    );
    call_void!(
        client,
        seen,
        "createTerminal",
        create_terminal(CreateTerminalParams {
            channel: "ahp-terminal:/1".into(),
            claim: value(json!({"kind": "client", "clientId": "me"})),
            name: Some("build".into()),
            cwd: None,
            cols: Some(80),
            rows: None,
            meta: None,
            extra: Default::default(),
        })
    );
    call_void!(
        client,
        seen,
        "disposeTerminal",
        dispose_terminal(DisposeTerminalParams {
            channel: "ahp-terminal:/1".into(),
            ..Default::default()
        })
    );
    let invoked = call!(
        client,
        seen,
        "invokeChangesetOperation",
        invoke_changeset_operation(InvokeChangesetOperationParams {
            channel: "ahp-changeset:/1".into(),
            operation_id: "commit".into(),
            target: Some(value(json!({"kind": "resource", "resource": file}))),
            ..Default::default()
        })
    );
    assert!(invoked.message.is_some());
    let automations = "ahp-automations://";
    let triggers = call!(
        client,
        seen,
        "listAutomationTriggerDefinitions",
        list_automation_trigger_definitions(ListAutomationTriggerDefinitionsParams {
            channel: automations.into(),
            provider: Some("copilot".into()),
            ..Default::default()
        })
    );
    assert_eq!(triggers.items[0].events[0].id, "push");
    let run = call!(
        client,
        seen,
        "runAutomation",
        run_automation(RunAutomationParams {
            channel: automations.into(),
            automation: "ahp-automation:/a1".into(),
            request_id: "r1".into(),
            ..Default::default()
        })
    );
    assert_eq!(run.resource, "ahp-automation-run:/r1");
    call!(
        client,
        seen,
        "fetchAutomationRuns",
        fetch_automation_runs(FetchAutomationRunsParams {
            channel: automations.into(),
            automation: "ahp-automation:/a1".into(),
            cursor: Some("p2".into()),
            ..Default::default()
        })
    );
    seen
}

#[tokio::test]
async fn a_result_of_the_wrong_shape_is_a_typed_error_and_the_connection_survives() {
    let (client, mut seen) = connect("1.0.0").await;
    let error = client
        .v1()
        .move_chat(MoveChatParams {
            channel: "ahp-chat:/2".into(),
            destination: value(json!({"kind": "session", "session": BAD_ANSWER})),
            meta: None,
            extra: Default::default(),
        })
        .await
        .unwrap_err();
    let Error::InvalidResponse { method, message } = &error else {
        panic!("expected InvalidResponse, got {error:?}");
    };
    assert_eq!(method, "moveChat");
    assert!(message.contains("session"), "{message}");
    assert_eq!(sent(&mut seen, "moveChat").1, json!({"session": 42}));
    // The connection is still up and answers the next command.
    assert_eq!(client.connection_state(), ConnectionState::Connected);
    let run = client
        .v1()
        .run_automation(RunAutomationParams {
            channel: "ahp-automations://".into(),
            automation: "ahp-automation:/a1".into(),
            request_id: "r2".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(run.resource, "ahp-automation-run:/r2");
    sent(&mut seen, "runAutomation");
    // Params the host cannot read (a terminal claim of a kind it does not know: the official
    // union is closed, ours open) are its `-32602`, typed as an RPC error.
    let error = client
        .v1()
        .create_terminal(CreateTerminalParams {
            channel: "ahp-terminal:/1".into(),
            claim: value(json!({"kind": "later"})),
            name: None,
            cwd: None,
            cols: None,
            rows: None,
            meta: None,
            extra: Default::default(),
        })
        .await
        .unwrap_err();
    assert!(
        matches!(error, Error::Rpc { code: -32602, .. }),
        "{error:?}"
    );
    assert!(sent_error(&mut seen, "createTerminal"));
    client.close();
}

#[tokio::test]
async fn a_1_0_command_on_a_0_3_0_connection_is_refused_with_nothing_sent() {
    let (client, mut seen) = connect("0.3.0").await;
    assert_eq!(client.protocol_version(), "0.3.0");
    let error = client
        .v1()
        .create_chat(CreateChatParams {
            channel: "ahp-session:/9".into(),
            chat: "ahp-chat:/2".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    let Error::WrongProtocolVersion {
        negotiated,
        version,
        attempted,
    } = &error
    else {
        panic!("expected WrongProtocolVersion, got {error:?}");
    };
    assert_eq!((negotiated.as_str(), version.as_str()), ("0.3.0", "1.0.0"));
    assert_eq!(attempted, "the command `createChat`");
    assert_eq!(
        error.to_string(),
        "the command `createChat` is AHP 1.0.0, but this connection negotiated AHP 0.3.0: \
         nothing was sent"
    );
    assert_eq!(error.kind(), "wrongProtocolVersion");
    assert!(matches!(
        client.v1().ping().await,
        Err(Error::WrongProtocolVersion { .. })
    ));
    // Through the version-free `request`: the engine refuses it the same way.
    let raw = client
        .request::<ahp_wasm::protocol::v1::jsonrpc::CreateChat>(CreateChatParams {
            channel: "ahp-session:/9".into(),
            chat: "ahp-chat:/2".into(),
            ..Default::default()
        })
        .await;
    assert!(
        matches!(&raw, Err(Error::WrongProtocolVersion { attempted, .. }) if attempted.contains("createChat")),
        "{raw:?}"
    );
    // The 0.3.0 command goes out; the host saw it and nothing before it.
    client.ping().await.unwrap();
    assert_eq!(seen.rx.try_recv().unwrap().method, "ping");
    assert!(seen.rx.try_recv().is_err());
    client.close();
}
