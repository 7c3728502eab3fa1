//! Customizations: `--plugins` directories, the working directory's `.agents/` directories
//! (writable, watched), bad plugins, and plugins published by a client and read back from it.

mod common;

use ahp_wasm::protocol::jsonrpc::ROOT_CHANNEL;
use ahp_wasm::protocol::*;
use common::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const S: &str = "ahp-session:/custom";

/// The customizations of a state, as JSON, by id.
fn by_id(state: &SessionState) -> BTreeMap<String, Value> {
    state
        .customizations
        .iter()
        .flatten()
        .map(|c| {
            let v = serde_json::to_value(c).unwrap();
            (v["id"].as_str().unwrap().to_owned(), v)
        })
        .collect()
}

/// Applies envelopes to `mirror` until container `id` satisfies `done`; returns it.
async fn until(
    c: &mut Client,
    mirror: &mut SessionState,
    id: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(v) = by_id(mirror).get(id).filter(|v| done(v)) {
            return v.clone();
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let Some(Some(frame)) = c.frame_within(left).await else {
            panic!("`{id}` never got there; last: {:?}", by_id(mirror).get(id));
        };
        if frame["method"] == "action" {
            let e: ActionEnvelope = serde_json::from_value(frame["params"].clone()).unwrap();
            reduce_all(mirror, &[e]);
        }
    }
}

fn loaded(v: &Value) -> bool {
    v["load"]["kind"] == "loaded"
}

fn load_is(kind: &'static str) -> impl Fn(&Value) -> bool {
    move |v| v["load"]["kind"] == kind
}

/// (type, name) of a container's children.
fn kids(v: &Value) -> Vec<(String, String)> {
    v["children"]
        .as_array()
        .unwrap_or_else(|| panic!("children: {v}"))
        .iter()
        .map(|c| {
            (
                c["type"].as_str().unwrap().to_owned(),
                c["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn child<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no child {name}: {v}"))
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A client on a new session, subscribed, with its mirror.
async fn session(t: &TestHost, client_id: &str) -> (Client, SessionState) {
    let mut c = Client::ready(&t.host, client_id).await;
    c.create_session(S).await;
    let snap = c.subscribe(S).await;
    (c, session_state(&snap))
}

fn demo_plugin(root: &Path) {
    write(
        &root.join(".plugin/plugin.json"),
        r#"{"name": "Demo Tools", "version": "1.0.0"}"#,
    );
    write(
        &root.join("skills/review/SKILL.md"),
        "---\nname: review\ndescription: Reviews a change.\ndisable-model-invocation: true\n---\nReview carefully.\n",
    );
    write(
        &root.join("commands/deploy.md"),
        "---\ndescription: Deploys.\n---\nDeploy it.\n",
    );
    write(
        &root.join("agents/security.md"),
        "---\nname: security-reviewer\ndescription: Audits code.\n---\nYou audit code.\n",
    );
    write(
        &root.join("prompts/explain.md"),
        "---\ndescription: Explains code.\n---\nExplain the selection.\n",
    );
    write(
        &root.join("rules/style.mdc"),
        "---\ndescription: House style.\nalwaysApply: true\nglobs: \"**/*.rs, **/*.toml\"\n---\nUse rustfmt.\n",
    );
    write(
        &root.join("hooks/hooks.json"),
        r#"{"hooks": {"PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "fmt"}]}]}}"#,
    );
    write(
        &root.join(".mcp.json"),
        r#"{"mcpServers": {"demo-server": {"command": "/nonexistent/demo-mcp"}}}"#,
    );
}

#[tokio::test]
async fn a_plugin_directory_shows_its_children_with_their_metadata() {
    let plugins = tempfile::tempdir().unwrap();
    let root = plugins.path().join("demo");
    demo_plugin(&root);
    let dir = root.clone();
    let t = start_host_with(move |c| c.plugins = vec![dir]).await;
    let (mut c, mut mirror) = session(&t, "a").await;

    let plugin = until(&mut c, &mut mirror, "plugin/demo", loaded).await;
    assert_eq!(plugin["type"], "plugin");
    assert_eq!(plugin["name"], "Demo Tools");
    assert_eq!(plugin["enabled"], true);
    assert!(plugin.get("clientId").is_none());
    let uri = plugin["uri"].as_str().unwrap();
    assert!(
        uri.starts_with("file://") && uri.ends_with("/demo"),
        "{uri}"
    );
    assert_eq!(
        kids(&plugin),
        [
            ("skill", "review"),
            ("skill", "deploy"),
            ("agent", "security-reviewer"),
            ("prompt", "explain"),
            ("rule", "style"),
            ("hook", "PostToolUse (Write|Edit)"),
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
    let review = child(&plugin, "review");
    assert_eq!(review["description"], "Reviews a change.");
    assert_eq!(review["disableModelInvocation"], true);
    assert_eq!(review["id"], "plugin/demo:skills/review/SKILL.md");
    assert!(review["uri"]
        .as_str()
        .unwrap()
        .ends_with("/demo/skills/review/SKILL.md"));
    assert_eq!(
        child(&plugin, "security-reviewer")["description"],
        "Audits code."
    );
    assert_eq!(child(&plugin, "explain")["description"], "Explains code.");
    let style = child(&plugin, "style");
    assert_eq!(style["alwaysApply"], true);
    assert_eq!(style["globs"], json!(["**/*.rs", "**/*.toml"]));
    // The hook's command stays on the host.
    assert!(!child(&plugin, "PostToolUse (Write|Edit)")
        .to_string()
        .contains("fmt"));

    // Its MCP server is the top-level `mcp/demo-server`, declared in the plugin's `.mcp.json`.
    let server = until(&mut c, &mut mirror, "mcp/demo-server", |v| {
        v["state"]["kind"] == "error"
    })
    .await;
    assert!(server["uri"].as_str().unwrap().ends_with("/demo/.mcp.json"));

    // The working directory's containers: writable directories, one child kind each.
    let all = by_id(&mirror);
    for (id, contents) in [
        ("dir/skills", "skill"),
        ("dir/agents", "agent"),
        ("dir/prompts", "prompt"),
        ("dir/rules", "rule"),
    ] {
        let d = &all[id];
        assert_eq!(d["type"], "directory", "{d}");
        assert_eq!(d["contents"], contents);
        assert_eq!(d["writable"], true);
        assert_eq!(d["load"]["kind"], "loaded");
        assert_eq!(d["children"], json!([]));
    }

    // A fresh subscriber sees the same.
    let host = host_state(&t.host, S).await;
    assert_eq!(comparable(&mirror), comparable(&host));
}

#[tokio::test]
async fn bad_plugins_end_degraded_or_in_error_with_a_reason_and_bounded_work() {
    let plugins = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    write(
        &outside.path().join("secret.md"),
        "---\ndescription: secret\n---\nsecret\n",
    );
    let p = |name: &str| plugins.path().join(name);

    write(
        &p("badfm/skills/ok/SKILL.md"),
        "---\ndescription: fine\n---\nok\n",
    );
    write(
        &p("badfm/skills/broken/SKILL.md"),
        "---\nname: [unclosed\n---\nbody\n",
    );
    write(&p("huge/agents/small.md"), "small\n");
    write(&p("huge/agents/big.md"), &"x".repeat(300 * 1024));
    write(&p("links/rules/ok.md"), "fine\n");
    std::os::unix::fs::symlink(outside.path().join("secret.md"), p("links/rules/secret.md"))
        .unwrap();
    for i in 0..5000 {
        write(&p(&format!("many/rules/r{i:04}.md")), "rule\n");
    }
    write(&p("manifest/plugin.json"), "{not json");
    write(&p("manifest/skills/a/SKILL.md"), "a\n");
    let dirs: Vec<PathBuf> = ["badfm", "huge", "links", "many", "manifest", "absent"]
        .iter()
        .map(|n| p(n))
        .collect();
    let t = start_host_with(move |c| c.plugins = dirs).await;
    let started = Instant::now();
    let (mut c, mut mirror) = session(&t, "a").await;

    let badfm = until(&mut c, &mut mirror, "plugin/badfm", load_is("degraded")).await;
    let why = badfm["load"]["message"].as_str().unwrap();
    assert!(
        why.contains("skills/broken/SKILL.md") && why.contains("YAML"),
        "{why}"
    );
    assert_eq!(kids(&badfm), [("skill".to_owned(), "ok".to_owned())]);

    let huge = until(&mut c, &mut mirror, "plugin/huge", load_is("degraded")).await;
    let why = huge["load"]["message"].as_str().unwrap();
    assert!(
        why.contains("agents/big.md") && why.contains("over the limit"),
        "{why}"
    );
    assert_eq!(kids(&huge), [("agent".to_owned(), "small".to_owned())]);

    let links = until(&mut c, &mut mirror, "plugin/links", load_is("degraded")).await;
    let why = links["load"]["message"].as_str().unwrap();
    assert!(
        why.contains("rules/secret.md") && why.contains("outside"),
        "{why}"
    );
    assert_eq!(kids(&links), [("rule".to_owned(), "ok".to_owned())]);

    let many = until(&mut c, &mut mirror, "plugin/many", load_is("degraded")).await;
    let why = many["load"]["message"].as_str().unwrap();
    assert!(why.contains("more than 1000 entries"), "{why}");
    let n = many["children"].as_array().unwrap().len();
    assert!(n <= 500, "bounded: {n} children");

    let manifest = until(&mut c, &mut mirror, "plugin/manifest", load_is("error")).await;
    let why = manifest["load"]["message"].as_str().unwrap();
    assert!(
        why.contains("plugin.json") && why.contains("invalid JSON"),
        "{why}"
    );
    assert_eq!(manifest["children"], json!([]));

    let absent = until(&mut c, &mut mirror, "plugin/absent", load_is("error")).await;
    assert!(absent["load"]["message"]
        .as_str()
        .unwrap()
        .contains("does not exist"));

    assert!(
        started.elapsed() < Duration::from_secs(15),
        "bounded work: {:?}",
        started.elapsed()
    );
    // The host is fine.
    ping(&mut c).await;
}

#[tokio::test]
async fn the_working_directory_is_a_writable_watched_directory() {
    let t = start_host().await;
    let (mut c, mut mirror) = session(&t, "a").await;
    let work = t.work.path().canonicalize().unwrap();

    // A client saves a new skill with `resourceWrite` (its folders are created): it appears.
    let skill = work.join(".agents/skills/new-skill/SKILL.md");
    c.call(
        "resourceWrite",
        json!({"channel": ROOT_CHANNEL, "uri": format!("file://{}", skill.display()),
               "data": "---\ndescription: Saved from a client.\n---\nDo the new thing.\n",
               "encoding": "utf-8", "createOnly": true}),
    )
    .await
    .expect("resourceWrite");
    let skills = until(&mut c, &mut mirror, "dir/skills", |v| {
        v["children"].as_array().is_some_and(|k| !k.is_empty())
    })
    .await;
    assert_eq!(
        kids(&skills),
        [("skill".to_owned(), "new-skill".to_owned())]
    );
    assert_eq!(
        child(&skills, "new-skill")["description"],
        "Saved from a client."
    );
    assert_eq!(skills["load"]["kind"], "loaded");

    // A rule written and then edited on disk is followed.
    let rule = work.join(".agents/rules/tabs.md");
    write(&rule, "---\ndescription: first\n---\nUse tabs.\n");
    let rules = until(&mut c, &mut mirror, "dir/rules", |v| {
        v["children"][0]["description"] == "first"
    })
    .await;
    assert_eq!(kids(&rules), [("rule".to_owned(), "tabs".to_owned())]);
    write(
        &rule,
        "---\ndescription: second\nalwaysApply: true\n---\nUse spaces.\n",
    );
    let rules = until(&mut c, &mut mirror, "dir/rules", |v| {
        v["children"][0]["description"] == "second"
    })
    .await;
    assert_eq!(rules["children"][0]["alwaysApply"], true);

    // Toggling a container flips `enabled`; it stays off across later reads.
    c.dispatch(
        S,
        serde_json::from_value(
            json!({"type": "session/customizationToggled", "id": "dir/rules", "enabled": false}),
        )
        .unwrap(),
    )
    .await;
    until(&mut c, &mut mirror, "dir/rules", |v| v["enabled"] == false).await;
    write(&rule, "---\ndescription: third\n---\nUse spaces.\n");
    let rules = until(&mut c, &mut mirror, "dir/rules", |v| {
        v["children"][0]["description"] == "third"
    })
    .await;
    assert_eq!(rules["enabled"], false);

    // A bad edit degrades it, with the reason; removing the file empties it.
    write(&rule, "---\ndescription: [oops\n---\n");
    let rules = until(&mut c, &mut mirror, "dir/rules", load_is("degraded")).await;
    assert!(rules["load"]["message"]
        .as_str()
        .unwrap()
        .contains("tabs.md"));
    std::fs::remove_file(&rule).unwrap();
    let rules = until(&mut c, &mut mirror, "dir/rules", loaded).await;
    assert_eq!(rules["children"], json!([]));

    let host = host_state(&t.host, S).await;
    assert_eq!(comparable(&mirror), comparable(&host));
}

/// A client's in-memory plugin files, answered as the SDK does (`js/active-client.js`).
struct Files(BTreeMap<String, String>);

impl Files {
    fn answer(&self, method: &str, params: &Value) -> Result<Value, Value> {
        let uri = params["uri"].as_str().unwrap_or_default();
        let not_found = json!({"code": -32008, "message": format!("no file {uri}")});
        match method {
            "resourceRead" => match self.0.get(uri) {
                Some(data) => {
                    Ok(json!({"data": data, "encoding": "utf-8", "contentType": "text/markdown"}))
                }
                None => Err(not_found),
            },
            "resourceList" => {
                let base = format!("{}/", uri.trim_end_matches('/'));
                let mut names = BTreeMap::new();
                for file in self.0.keys() {
                    if let Some(rest) = file.strip_prefix(&base) {
                        match rest.split_once('/') {
                            Some((d, _)) => names.insert(d.to_owned(), "directory"),
                            None => names.insert(rest.to_owned(), "file"),
                        };
                    }
                }
                if names.is_empty() {
                    return Err(not_found);
                }
                let entries: Vec<Value> = names
                    .into_iter()
                    .map(|(name, kind)| json!({"name": name, "type": kind}))
                    .collect();
                Ok(json!({"entries": entries}))
            }
            _ => Err(json!({"code": -32601, "message": "no"})),
        }
    }
}

/// Reads `c`'s frames, answering the host's requests from `files` (when given) and applying
/// envelopes, until container `id` satisfies `done`. Returns it and the requests seen.
async fn serve_until(
    c: &mut Client,
    mirror: &mut SessionState,
    files: Option<&Files>,
    id: &str,
    done: impl Fn(Option<&Value>) -> bool,
) -> (Option<Value>, Vec<(String, String)>) {
    let deadline = Instant::now() + WAIT;
    let mut requests = Vec::new();
    loop {
        let current = by_id(mirror).get(id).cloned();
        if done(current.as_ref()) {
            return (current, requests);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let Some(Some(frame)) = c.frame_within(left).await else {
            panic!("`{id}` never got there; last: {current:?}");
        };
        match (frame.get("id"), frame["method"].as_str()) {
            (Some(rid), Some(method)) => {
                requests.push((
                    method.to_owned(),
                    frame["params"]["uri"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                ));
                if let Some(files) = files {
                    let reply = match files.answer(method, &frame["params"]) {
                        Ok(result) => json!({"jsonrpc": "2.0", "id": rid, "result": result}),
                        Err(error) => json!({"jsonrpc": "2.0", "id": rid, "error": error}),
                    };
                    c.send_text(reply.to_string()).await;
                }
            }
            (None, Some("action")) => {
                let e: ActionEnvelope = serde_json::from_value(frame["params"].clone()).unwrap();
                reduce_all(mirror, &[e]);
            }
            _ => {}
        }
    }
}

fn claim(client_id: &str, plugins: Value) -> StateAction {
    claim_as(client_id, "Test", plugins)
}

fn claim_as(client_id: &str, display_name: &str, plugins: Value) -> StateAction {
    serde_json::from_value(json!({"type": "session/activeClientChanged",
        "activeClient": {"clientId": client_id, "displayName": display_name, "tools": [],
                         "customizations": plugins}}))
    .unwrap()
}

fn release() -> StateAction {
    serde_json::from_value(json!({"type": "session/activeClientChanged", "activeClient": null}))
        .unwrap()
}

fn client_files(version: &str) -> Files {
    let root = "virtual://a/page-skills";
    Files(
        [
            (
                format!("{root}/skills/greet/SKILL.md"),
                format!("---\ndescription: Greets ({version}).\n---\nSay hello.\n"),
            ),
            (
                format!("{root}/rules/polite.md"),
                "---\nalwaysApply: true\n---\nBe polite.\n".to_owned(),
            ),
        ]
        .into_iter()
        .collect(),
    )
}

fn published(nonce: &str) -> Value {
    json!([{"type": "plugin", "id": "page-skills", "uri": "virtual://a/page-skills",
            "name": "Skills from the page", "enabled": true, "nonce": nonce}])
}

#[tokio::test]
async fn client_plugins_are_read_from_the_client_and_go_with_it() {
    let t = start_host().await;
    let (mut a, mut mirror) = session(&t, "a").await;
    let mut b = Client::ready(&t.host, "b").await;
    let mut observed = session_state(&b.subscribe(S).await);

    // Published: the host reads it back with resourceList/resourceRead and shows it with
    // `clientId`.
    a.dispatch(S, claim("a", published("n1"))).await;
    let v1 = client_files("v1");
    let (plugin, requests) = serve_until(&mut a, &mut mirror, Some(&v1), "page-skills", |v| {
        v.is_some_and(loaded)
    })
    .await;
    let plugin = plugin.unwrap();
    assert_eq!(plugin["clientId"], "a");
    assert_eq!(plugin["name"], "Skills from the page");
    assert!(plugin.get("nonce").is_none());
    assert_eq!(
        kids(&plugin),
        [("skill", "greet"), ("rule", "polite")].map(|(a, b)| (a.to_owned(), b.to_owned()))
    );
    assert_eq!(child(&plugin, "greet")["description"], "Greets (v1).");
    assert_eq!(
        child(&plugin, "greet")["uri"],
        "virtual://a/page-skills/skills/greet/SKILL.md"
    );
    assert!(requests.contains(&("resourceList".into(), "virtual://a/page-skills".into())));
    assert!(requests.contains(&(
        "resourceRead".into(),
        "virtual://a/page-skills/skills/greet/SKILL.md".into()
    )));

    // Published again (another display name) with the same nonce: nothing is read. A new
    // nonce: read again.
    a.dispatch(S, claim_as("a", "Renamed", published("n1")))
        .await;
    let mut quiet = Vec::new();
    while let Some(Some(frame)) = a.frame_within(Duration::from_millis(500)).await {
        quiet.push(frame);
    }
    assert!(
        quiet.iter().all(|f| f.get("id").is_none()),
        "no request for an unchanged nonce: {quiet:?}"
    );
    for f in quiet.into_iter().filter(|f| f["method"] == "action") {
        reduce_all(
            &mut mirror,
            &[serde_json::from_value(f["params"].clone()).unwrap()],
        );
    }
    a.dispatch(S, claim("a", published("n2"))).await;
    let v2 = client_files("v2");
    let (plugin, requests) = serve_until(&mut a, &mut mirror, Some(&v2), "page-skills", |v| {
        v.is_some_and(|v| loaded(v) && child(v, "greet")["description"] == "Greets (v2).")
    })
    .await;
    assert!(!requests.is_empty());
    assert_eq!(plugin.unwrap()["clientId"], "a");

    // Releasing the role removes it.
    a.dispatch(S, release()).await;
    let (gone, _) = serve_until(&mut a, &mut mirror, None, "page-skills", |v| v.is_none()).await;
    assert!(gone.is_none());

    // Claimed again, then the client disconnects: removed too.
    a.dispatch(S, claim("a", published("n3"))).await;
    serve_until(&mut a, &mut mirror, Some(&v2), "page-skills", |v| {
        v.is_some_and(loaded)
    })
    .await;
    a.close().await;
    let (gone, _) = serve_until(&mut b, &mut observed, None, "page-skills", |v| v.is_none()).await;
    assert!(gone.is_none());
    assert!(observed.active_client.is_none());
    let host = host_state(&t.host, S).await;
    assert!(!by_id(&host).contains_key("page-skills"));
}

#[tokio::test]
async fn a_client_that_does_not_answer_leaves_its_plugin_in_error_not_hanging() {
    let t = start_host_with(|c| c.client_request_timeout = Duration::from_millis(300)).await;
    let (mut a, mut mirror) = session(&t, "a").await;
    a.dispatch(S, claim("a", published("n1"))).await;
    let started = Instant::now();
    let (plugin, requests) = serve_until(&mut a, &mut mirror, None, "page-skills", |v| {
        v.is_some_and(load_is("error"))
    })
    .await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        requests.len(),
        1,
        "the read stops at the first unanswered request"
    );
    let why = plugin.unwrap()["load"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(why.contains("did not answer within 300 ms"), "{why}");

    // A client may not publish under the host's ids.
    let seq = a
        .dispatch(
            S,
            claim(
                "a",
                json!([{"type": "plugin", "id": "dir/skills", "uri": "virtual://x", "name": "x", "enabled": true}]),
            ),
        )
        .await;
    let rejected = loop {
        let e = a.envelope().await;
        if e.origin.as_ref().is_some_and(|o| o.client_seq == seq) {
            break e;
        }
    };
    assert!(rejected
        .rejection_reason
        .unwrap_or_default()
        .contains("host's"));
}

#[tokio::test]
async fn after_a_restart_containers_are_read_again_and_client_plugins_wait_for_their_client() {
    let t = start_host().await;
    let (data, work) = (t.data.path().to_path_buf(), t.work.path().to_path_buf());
    let (mut a, mut mirror) = session(&t, "a").await;
    a.dispatch(S, claim("a", published("n1"))).await;
    let files = client_files("v1");
    serve_until(&mut a, &mut mirror, Some(&files), "page-skills", |v| {
        v.is_some_and(loaded)
    })
    .await;
    // The host stops with the client still active; a rule is added while it is down.
    t.host.shutdown().await;
    write(&work.join(".agents/rules/while-down.md"), "Be brief.\n");
    let host = restart(&data, &work).await;

    // Used again: the directory is read again; the plugin waits for its client.
    let mut b = Client::ready(&host, "b").await;
    let mut observed = session_state(&b.subscribe(S).await);
    let rules = until(&mut b, &mut observed, "dir/rules", |v| {
        v["children"].as_array().is_some_and(|k| k.len() == 1)
    })
    .await;
    assert_eq!(kids(&rules), [("rule".to_owned(), "while-down".to_owned())]);
    let waiting = until(&mut b, &mut observed, "page-skills", load_is("error")).await;
    assert!(waiting["load"]["message"]
        .as_str()
        .unwrap()
        .contains("not connected"));

    // The client is back: its plugin is read from it again.
    let mut a = Client::ready(&host, "a").await;
    let mut mirror = session_state(&a.subscribe(S).await);
    let (plugin, requests) = serve_until(&mut a, &mut mirror, Some(&files), "page-skills", |v| {
        v.is_some_and(loaded)
    })
    .await;
    assert!(!requests.is_empty());
    assert_eq!(plugin.unwrap()["clientId"], "a");
    host.shutdown().await;
}

/// A published plugin (`id`, `uri`) under the given nonce.
fn plugin_at(id: &str, uri: &str, nonce: &str) -> Value {
    json!([{"type": "plugin", "id": id, "uri": uri, "name": id, "enabled": true, "nonce": nonce}])
}

/// A client plugin at `root` whose `hooks/hooks.json` holds `entries` matcher groups of one
/// event (3 bytes each: `{},`).
fn hook_files(root: &str, entries: usize) -> Files {
    let groups = vec!["{}"; entries].join(",");
    let text = format!("{{\"hooks\": {{\"Stop\": [{groups}]}}}}");
    Files(
        [(format!("{root}/hooks/hooks.json"), text)]
            .into_iter()
            .collect(),
    )
}

fn read_or_degraded(v: Option<&Value>) -> bool {
    v.is_some_and(|v| loaded(v) || load_is("degraded")(v))
}

/// The issue's amplification: a 32 KiB `uri` repeated in every child, and a 3.6 KiB
/// `hooks.json` of 1,200 entries becoming 1,200 children.
#[tokio::test]
async fn a_client_plugin_cannot_amplify_its_uri_and_hooks_into_a_huge_state() {
    let t = start_host().await;
    let (mut a, mut mirror) = session(&t, "a").await;

    // A 32 KiB uri (or id) is refused with the claim, with the reason; nothing is read.
    let long_uri = format!("virtual://a/{}", "u".repeat(32 << 10));
    let long_id = "i".repeat(4096);
    for (what, published) in [
        ("uri", plugin_at("big", &long_uri, "n1")),
        ("id", plugin_at(&long_id, "virtual://a/p", "n1")),
    ] {
        let seq = a.dispatch(S, claim("a", published)).await;
        let reason = a
            .echo_of(seq)
            .await
            .rejection_reason
            .unwrap_or_else(|| panic!("a 32 KiB {what} was accepted"));
        assert!(
            reason.contains(what) && reason.contains("longer than"),
            "{reason}"
        );
    }
    let host = host_state(&t.host, S).await;
    assert!(host.active_client.is_none() && !by_id(&host).contains_key("big"));

    // 1,200 hook entries: at most 500 children, degraded with the reason.
    let root = "virtual://a/hooks-plugin";
    a.dispatch(S, claim("a", plugin_at("hooks", root, "n1")))
        .await;
    let files = hook_files(root, 1200);
    let (plugin, _) =
        serve_until(&mut a, &mut mirror, Some(&files), "hooks", read_or_degraded).await;
    let plugin = plugin.unwrap();
    let children = plugin["children"].as_array().unwrap().len();
    assert!(children <= 500, "{children} children from one hooks.json");
    assert_eq!(children, 500);
    let why = plugin["load"]["message"].as_str().unwrap_or_default();
    assert!(
        plugin["load"]["kind"] == "degraded" && why.contains("more than 500 children"),
        "{}",
        plugin["load"]
    );
}

/// The bytes one client's customizations add to a session are bounded (1 MiB by default): a
/// plugin of 120 rules with long descriptions and globs (1.6 MiB of children) is shown
/// degraded with what fits; the session stays subscribable, and publishing it again and again
/// does not grow the database without end.
#[tokio::test]
async fn a_client_plugin_over_its_byte_budget_is_degraded_and_the_database_stays_bounded() {
    let t = start_host().await;
    let (mut a, mut mirror) = session(&t, "a").await;
    let root = "virtual://a/fat";
    let globs: Vec<String> = (0..50)
        .map(|i| format!("{i:03}{}", "g".repeat(246)))
        .collect();
    let rule = format!(
        "---\ndescription: {}\nglobs: [{}]\n---\nA rule.\n",
        "d".repeat(1000),
        globs.join(", ")
    );
    let files = Files(
        (0..120)
            .map(|i| (format!("{root}/rules/r{i:03}.md"), rule.clone()))
            .collect(),
    );
    let published = |nonce: &str| plugin_at("fat", root, nonce);
    a.dispatch(S, claim("a", published("n0"))).await;
    let (plugin, _) = serve_until(&mut a, &mut mirror, Some(&files), "fat", read_or_degraded).await;
    let plugin = plugin.unwrap();
    let bytes = plugin.to_string().len();
    assert!(bytes <= 1 << 20, "the plugin's entry takes {bytes} bytes");
    let why = plugin["load"]["message"].as_str().unwrap_or_default();
    assert!(
        plugin["load"]["kind"] == "degraded" && why.contains("bytes"),
        "{}",
        plugin["load"]
    );
    let shown = plugin["children"].as_array().unwrap().len();
    assert!(shown > 0 && shown < 120, "{shown} children shown");

    // Another client subscribes and sees the same.
    let mut b = Client::ready(&t.host, "b").await;
    let observed = session_state(&b.subscribe(S).await);
    assert_eq!(by_id(&observed)["fat"], plugin);

    // Published again twelve times: each read is logged, but the log is folded into the
    // session's head as it grows.
    for n in 1..=12 {
        a.dispatch(S, claim("a", published(&format!("n{n}")))).await;
        let reloading = std::cell::Cell::new(false);
        serve_until(&mut a, &mut mirror, Some(&files), "fat", |v| {
            if v.is_some_and(load_is("loading")) {
                reloading.set(true);
            }
            reloading.get() && read_or_degraded(v)
        })
        .await;
    }
    drop(b);
    a.close().await;
    let data = t.data.path().to_path_buf();
    t.host.shutdown().await;
    let db = rusqlite::Connection::open(data.join("ahp-host.sqlite3")).unwrap();
    let logged: i64 = db
        .query_row(
            "SELECT COALESCE(SUM(LENGTH(envelope)), 0) FROM actions WHERE uri = ?1",
            [S],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        logged < 6 << 20,
        "{logged} bytes of actions logged for the session"
    );
}
