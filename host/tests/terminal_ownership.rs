//! Who may use a terminal, against a real host with real shells.
//!
//! The rule (host/README.md, "Terminals"): a terminal claimed by a client is used (typed into,
//! resized, renamed, cleared, handed on, disposed) by that client alone. A terminal claimed by a
//! session is used by the client that handed it to the session (or created it for the session)
//! alone: the session's active-client role grants nothing. A terminal the host started for the
//! agent's `/run` is typed into by no client; the session's active client may only detach it
//! (narrow its claim to the session) or dispose of it. `/run` runs only in terminals the host
//! started for it, never in one a client made.

mod common;
mod terminal_support;

use ahp_wasm::protocol::errors;
use common::*;
use serde_json::json;
use terminal_support::*;

const SESSION: &str = "ahp-session:/victim";

/// Clients `alice` and `bob`; alice has created [`SESSION`] (neither subscribes to it).
async fn alice_and_bob(t: &TestHost) -> (Client, Client) {
    let mut alice = Client::ready(&t.host, "alice").await;
    let bob = Client::ready(&t.host, "bob").await;
    alice.create_session(SESSION).await;
    (alice, bob)
}

/// Issue 30, defect 4: another client makes a shell of its own (here with `pwd` replaced by a
/// function) and hands it to the victim's session; the agent's `/run` must not run there.
#[tokio::test(flavor = "multi_thread")]
async fn run_never_uses_a_terminal_another_client_planted() {
    const PLANTED: &str = "ahp-terminal:/planted";
    let t = start_host().await;
    let mut alice = Client::ready(&t.host, "alice").await;
    let mut mallory = Client::ready(&t.host, "mallory").await;
    alice.create_session(SESSION).await;
    alice.subscribe(SESSION).await;
    mallory
        .call("createTerminal", create_params(PLANTED, "mallory"))
        .await
        .expect("createTerminal");
    wait_state(&mut mallory, PLANTED, "command detection", |s| {
        s.supports_command_detection == Some(true)
    })
    .await;
    let plant = "pwd() { echo planted-$((6*7)); }\n";
    applied(&mut mallory, PLANTED, input(plant), "mallory's input").await;
    wait_state(&mut mallory, PLANTED, "the planted function", |s| {
        commands(s)
            .iter()
            .any(|c| c.is_complete && c.command_line.starts_with("pwd()"))
    })
    .await;
    applied(
        &mut mallory,
        PLANTED,
        claim_for_session(SESSION),
        "handing the terminal to the session",
    )
    .await;

    alice.send_message(SESSION, "t1", "/run pwd").await;
    let (uri, result) = run_result(&alice.until_turn_end("t1").await);
    let out = result_text(&result);
    assert_ne!(
        uri, PLANTED,
        "/run ran in the terminal another client planted; it printed {out:?}"
    );
    assert!(!out.contains("planted-42"), "{out:?}");
    let workdir = t.work.path().canonicalize().unwrap();
    assert!(out.contains(workdir.to_str().unwrap()), "{out:?}");
    assert!(result.success, "{result:?}");
    // Nothing was typed into the planted shell.
    let planted = snapshot(&mut mallory, PLANTED).await;
    assert!(
        commands(&planted).iter().all(|c| c.command_line != "pwd"),
        "{:?}",
        text(&planted)
    );
}

/// Issue 30, defect 5: `disposeTerminal` from a client that holds nothing is refused
/// (`PermissionDenied`) for a client's terminal and for one it handed to a session (even when
/// the refused client took the session's active-client role); the terminals live on.
#[tokio::test(flavor = "multi_thread")]
async fn dispose_is_refused_to_a_client_that_does_not_hold_the_terminal() {
    const MINE: &str = "ahp-terminal:/mine";
    const SHARED: &str = "ahp-terminal:/shared";
    let t = start_host().await;
    let (mut alice, mut bob) = alice_and_bob(&t).await;
    alice
        .call("createTerminal", create_params(MINE, "alice"))
        .await
        .expect("createTerminal for alice");
    alice
        .call("createTerminal", create_for_session(SHARED, SESSION))
        .await
        .expect("createTerminal for the session");
    bob.subscribe(SESSION).await;
    applied(&mut bob, SESSION, become_active("bob"), "bob's active role").await;

    for uri in [MINE, SHARED] {
        let refused = bob
            .call("disposeTerminal", json!({ "channel": uri }))
            .await
            .expect_err(&format!("bob disposed {uri}, which alice holds"));
        assert_eq!(refused.code, errors::PERMISSION_DENIED, "{refused:?}");
    }
    // Both shells live on; bob's connection too.
    assert_eq!(root_terminals(&mut bob).await, vec![MINE, SHARED]);
    run_line(&mut alice, MINE, "echo mine-$((1+1))", "mine-2").await;
    ping(&mut bob).await;
    // An unknown terminal is still NotFound (no permission oracle on top).
    let unknown = bob
        .call(
            "disposeTerminal",
            json!({ "channel": "ahp-terminal:/none" }),
        )
        .await
        .expect_err("no such terminal");
    assert_eq!(unknown.code, errors::NOT_FOUND);
    // Alice disposes of her own.
    for uri in [MINE, SHARED] {
        alice
            .call("disposeTerminal", json!({ "channel": uri }))
            .await
            .unwrap_or_else(|e| panic!("alice disposes {uri}: {e:?}"));
    }
    assert!(root_terminals(&mut alice).await.is_empty());
}

/// Issue 30, defect 6: taking a session's free active-client role grants nothing on the
/// session's terminals: not typing into the one a client handed to the session (its client
/// keeps it), nor into the one the agent's `/run` runs in (nobody types there).
#[tokio::test(flavor = "multi_thread")]
async fn the_active_client_role_grants_no_session_terminal() {
    const SHARED: &str = "ahp-terminal:/shared";
    let t = start_host().await;
    let (mut alice, mut bob) = alice_and_bob(&t).await;
    alice
        .call("createTerminal", create_params(SHARED, "alice"))
        .await
        .expect("createTerminal");
    applied(
        &mut alice,
        SHARED,
        claim_for_session(SESSION),
        "alice hands her terminal to the session",
    )
    .await;
    bob.subscribe(SESSION).await;
    applied(&mut bob, SESSION, become_active("bob"), "bob's active role").await;

    let why = rejected(
        &mut bob,
        SHARED,
        input("echo bob-$((2+3))\n"),
        "bob, the session's active client, typed into alice's terminal",
    )
    .await;
    assert!(why.contains("claim"), "{why}");
    rejected(
        &mut bob,
        SHARED,
        claim_for_client("bob"),
        "bob took alice's terminal",
    )
    .await;
    // Alice, who handed it to the session, still uses it.
    let state = run_line(&mut alice, SHARED, "echo alice-$((3+4))", "alice-7").await;
    assert!(!text(&state).contains("bob-5"), "{:?}", text(&state));

    // The agent's own terminal: not even the active client types into it.
    alice.subscribe(SESSION).await;
    alice
        .send_message(
            SESSION,
            "t1",
            "/run --timeout 30 sleep 2; echo run-$((4+5))",
        )
        .await;
    let run = run_terminal(&mut alice).await;
    rejected(
        &mut bob,
        &run,
        input("echo typed-by-bob\n"),
        "bob typed into the agent's terminal",
    )
    .await;
    rejected(
        &mut bob,
        &run,
        claim_for_client("bob"),
        "bob took the agent's terminal",
    )
    .await;
    let (uri, result) = run_result(&alice.until_turn_end("t1").await);
    assert_eq!(uri, run);
    let out = result_text(&result);
    assert!(
        out.contains("run-9") && !out.contains("typed-by-bob"),
        "{out:?}"
    );
    assert!(result.success, "{result:?}");
    // Only the session's active client (bob now) disposes of the agent's terminal.
    let refused = alice
        .call("disposeTerminal", json!({ "channel": run }))
        .await
        .expect_err("alice, not the active client, disposed the agent's terminal");
    assert_eq!(refused.code, errors::PERMISSION_DENIED, "{refused:?}");
    bob.call("disposeTerminal", json!({ "channel": run }))
        .await
        .expect("the active client disposes of the agent's terminal");
}
