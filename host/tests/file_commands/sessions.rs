//! Malformed params for every file command, and `listSessions.filter`.

use super::*;

#[tokio::test]
async fn malformed_params_are_refused_and_change_nothing() {
    let mut f = Fixture::new().await;
    let (file, dir) = (f.uri("hello.txt"), f.uri("tree"));
    let cases = [
        ("resourceMkdir", json!(null)),
        ("resourceMkdir", json!({"channel": ROOT_CHANNEL})),
        ("resourceMkdir", json!({"channel": ROOT_CHANNEL, "uri": 5})),
        (
            "resourceMkdir",
            json!({"channel": "ahp-session:/x", "uri": f.uri("new")}),
        ),
        ("resourceDelete", json!({"channel": ROOT_CHANNEL})),
        (
            "resourceDelete",
            json!({"channel": ROOT_CHANNEL, "uri": [file]}),
        ),
        (
            "resourceDelete",
            json!({"channel": ROOT_CHANNEL, "uri": dir, "recursive": 1}),
        ),
        ("resourceDelete", json!({"uri": file})),
        (
            "resourceDelete",
            json!({"channel": ROOT_CHANNEL, "uri": "relative/path"}),
        ),
        (
            "resourceCopy",
            json!({"channel": ROOT_CHANNEL, "source": file}),
        ),
        (
            "resourceCopy",
            json!({"channel": ROOT_CHANNEL, "destination": f.uri("x")}),
        ),
        (
            "resourceCopy",
            json!({"channel": ROOT_CHANNEL, "source": file, "destination": null}),
        ),
        (
            "resourceCopy",
            json!({"channel": 7, "source": file, "destination": f.uri("x")}),
        ),
        (
            "resourceMove",
            json!({"channel": ROOT_CHANNEL, "source": file}),
        ),
        (
            "resourceMove",
            json!({"channel": ROOT_CHANNEL, "source": file,
            "destination": f.uri("x"), "failIfExists": "true"}),
        ),
        (
            "resourceMove",
            json!({"channel": ROOT_CHANNEL, "source": file,
            "destination": "file://elsewhere/x"}),
        ),
        ("resourceResolve", json!({"channel": ROOT_CHANNEL})),
        (
            "resourceResolve",
            json!({"channel": ROOT_CHANNEL, "uri": {"path": file}}),
        ),
        (
            "resourceRequest",
            json!({"channel": ROOT_CHANNEL, "read": true}),
        ),
        ("resourceRequest", json!([file])),
    ];
    for (method, params) in cases {
        let e = f
            .refused(method, params.clone(), errors::INVALID_PARAMS)
            .await;
        assert!(
            e.message.contains("invalid params") || e.message.contains("URI"),
            "{method} {params}: {}",
            e.message
        );
    }
    ping(&mut f.c).await;
}

/// Not served before: every command answers something other than "method not found".
#[tokio::test]
async fn every_file_command_is_served() {
    let mut f = Fixture::new().await;
    for method in [
        "resourceCopy",
        "resourceDelete",
        "resourceMove",
        "resourceMkdir",
        "resourceResolve",
        "resourceRequest",
    ] {
        let e = f
            .refused_on_root(method, json!({}), errors::INVALID_PARAMS)
            .await;
        assert_ne!(e.code, errors::METHOD_NOT_FOUND, "{method}");
    }
}

/// `listSessions` with `filter` (none when null), by session URI.
async fn list(
    c: &mut Client,
    filter: Value,
) -> Result<BTreeMap<String, SessionSummary>, ErrorObject> {
    let params = if filter.is_null() {
        json!({"channel": ROOT_CHANNEL})
    } else {
        json!({"channel": ROOT_CHANNEL, "filter": filter})
    };
    let r = c.call("listSessions", params).await?;
    let items: ListSessionsResult = serde_json::from_value(r).unwrap();
    Ok(items
        .items
        .into_iter()
        .map(|s| (s.resource.clone(), s))
        .collect())
}

#[tokio::test]
async fn list_sessions_honours_the_filter() {
    let t = start_host().await;
    let root = t.work.path().canonicalize().unwrap();
    let mut c = Client::ready(&t.host, "lister").await;
    for name in ["alpha", "beta", "gamma"] {
        c.create_session(&format!("ahp-session:/{name}")).await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    c.request::<ahp_wasm::protocol::jsonrpc::CreateSession>(CreateSessionParams {
        channel: "ahp-session:/in-sub".into(),
        working_directory: Some(file_uri(&root.join("sub"))),
        ..Default::default()
    })
    .await
    .expect("createSession in sub");
    let title: StateAction =
        serde_json::from_value(json!({"type": "session/titleChanged", "title": "Fix the Parser"}))
            .unwrap();
    c.dispatch("ahp-session:/beta", title).await;
    let archive: StateAction =
        serde_json::from_value(json!({"type": "session/isArchivedChanged", "isArchived": true}))
            .unwrap();
    c.dispatch("ahp-session:/gamma", archive).await;

    let names = |m: &BTreeMap<String, SessionSummary>| -> Vec<String> {
        m.keys()
            .map(|k| k.trim_start_matches("ahp-session:/").to_owned())
            .collect()
    };
    let all = list(&mut c, json!(null)).await.unwrap();
    assert_eq!(names(&all), ["alpha", "beta", "gamma", "in-sub"]);
    assert_eq!(names(&list(&mut c, json!({})).await.unwrap()), names(&all));
    assert_eq!(
        names(
            &list(&mut c, json!({"titleContains": "parser"}))
                .await
                .unwrap()
        ),
        ["beta"]
    );
    assert_eq!(
        names(&list(&mut c, json!({"status": 64})).await.unwrap()),
        ["gamma"]
    );
    assert_eq!(
        names(&list(&mut c, json!({"excludeStatus": 64})).await.unwrap()),
        ["alpha", "beta", "in-sub"]
    );
    assert_eq!(
        names(
            &list(
                &mut c,
                json!({"status": 1, "excludeStatus": 64, "titleContains": "new"})
            )
            .await
            .unwrap()
        ),
        ["alpha", "in-sub"]
    );
    assert_eq!(
        names(
            &list(
                &mut c,
                json!({"workingDirectory": file_uri(&root.join("sub"))})
            )
            .await
            .unwrap()
        ),
        ["in-sub"]
    );
    assert_eq!(
        names(
            &list(&mut c, json!({"workingDirectory": file_uri(&root)}))
                .await
                .unwrap()
        )
        .len(),
        3
    );
    let provider = all["ahp-session:/alpha"].provider.clone();
    assert_eq!(
        names(&list(&mut c, json!({"provider": provider})).await.unwrap()).len(),
        4
    );
    assert!(list(&mut c, json!({"provider": "someone-else"}))
        .await
        .unwrap()
        .is_empty());
    let alpha_created = all["ahp-session:/alpha"].created_at;
    assert_eq!(
        names(
            &list(&mut c, json!({"createdAfter": alpha_created}))
                .await
                .unwrap()
        ),
        ["beta", "gamma", "in-sub"]
    );
    let newest = all.values().map(|s| s.modified_at).fold(0.0, f64::max);
    assert!(list(&mut c, json!({"modifiedAfter": newest}))
        .await
        .unwrap()
        .is_empty());

    for bad in [
        json!({"archived": true}),
        json!({"status": "idle"}),
        json!({"excludeStatus": -64}),
        json!({"titleContains": 3}),
        json!({"createdAfter": "2024-01-01"}),
        json!("alpha"),
    ] {
        let e = list(&mut c, bad.clone()).await.expect_err(&bad.to_string());
        assert_eq!(e.code, errors::INVALID_PARAMS, "{bad}: {e:?}");
    }
    c.expect_error(
        "listSessions",
        json!({"channel": "ahp-session:/alpha"}),
        errors::INVALID_PARAMS,
    )
    .await;
    // Nothing was changed by the refused calls.
    assert_eq!(list(&mut c, json!(null)).await.unwrap().len(), 4);
}
