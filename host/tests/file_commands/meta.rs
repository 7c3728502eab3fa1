//! `resourceResolve`, `resourceWrite`'s `ifMatch` and `resourceRequest`.

use super::*;

#[tokio::test]
async fn resolve_reports_metadata_canonical_uris_and_etags() {
    let mut f = Fixture::new().await;
    let file = f.resolve("sub/../hello.txt").await;
    assert_eq!(file["uri"], json!(f.uri("hello.txt")));
    assert_eq!(file["type"], "file");
    assert_eq!(file["size"], json!(33));
    let mtime = file["mtime"].as_str().expect("mtime");
    assert!(
        mtime.len() == 24 && mtime.ends_with('Z') && mtime.as_bytes()[10] == b'T',
        "ISO 8601: {mtime}"
    );
    assert!(mtime >= "2020-01-01", "{mtime}");
    let etag = file["etag"]
        .as_str()
        .expect("a file has an etag")
        .to_owned();
    assert_eq!(f.resolve("hello.txt").await["etag"], json!(etag), "stable");

    let dir = f.resolve("sub").await;
    assert_eq!(dir["type"], "directory");
    assert!(
        dir.get("etag").is_none() && dir.get("size").is_none(),
        "{dir}"
    );

    // A link: followed by default (its target's metadata and canonical URI), or itself.
    let followed = f.resolve("inlink").await;
    assert_eq!(followed["uri"], json!(f.uri("hello.txt")));
    assert_eq!(followed["etag"], json!(etag));
    let itself = f
        .ok(
            "resourceResolve",
            json!({"uri": f.uri("inlink"), "followSymlinks": false}),
        )
        .await;
    assert_eq!(itself["type"], "symlink");
    assert_eq!(itself["uri"], json!(f.uri("inlink")));
    assert!(itself.get("etag").is_none(), "{itself}");
    // A link out of the sandbox is reported as a link, never followed.
    let out = f
        .ok(
            "resourceResolve",
            json!({"uri": f.uri("link.txt"), "followSymlinks": false}),
        )
        .await;
    assert_eq!(out["type"], "symlink");
    let plain = f
        .ok(
            "resourceResolve",
            json!({"uri": f.uri("hello.txt"), "followSymlinks": false}),
        )
        .await;
    assert_eq!(plain["type"], "file");
    assert_eq!(plain["etag"], json!(etag));

    // Same size, new content: a new etag.
    std::fs::write(
        f.root.join("hello.txt"),
        "HELLO FROM THE WORKING DIRECTORY\n",
    )
    .unwrap();
    assert_ne!(f.resolve("hello.txt").await["etag"], json!(etag));

    f.refused_on_root(
        "resourceResolve",
        json!({"uri": f.uri("nope.txt")}),
        errors::NOT_FOUND,
    )
    .await;
    for uri in [
        f.outside_uri("secret.txt"),
        f.uri("link.txt"),
        f.uri("linkdir/secret.txt"),
        f.uri(".."),
    ] {
        f.refused_on_root(
            "resourceResolve",
            json!({"uri": uri}),
            errors::PERMISSION_DENIED,
        )
        .await;
    }
    f.refused_on_root(
        "resourceResolve",
        json!({"uri": f.uri("hello.txt"), "followSymlinks": "no"}),
        errors::INVALID_PARAMS,
    )
    .await;
}

#[tokio::test]
async fn if_match_writes_only_over_the_version_it_saw() {
    let mut f = Fixture::new().await;
    let write = |f: &Fixture, data: &str, if_match: &str| json!({"uri": f.uri("hello.txt"), "data": data, "encoding": "utf-8", "ifMatch": if_match});
    let etag = f.resolve("hello.txt").await["etag"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = f.ok("resourceWrite", write(&f, "first", &etag)).await;
    assert_eq!(r, json!({}));
    assert_eq!(f.read("hello.txt"), "first");
    // The same etag again: the file changed since, so nothing is written.
    let e = f
        .refused_on_root("resourceWrite", write(&f, "second", &etag), CONFLICT)
        .await;
    assert!(e.message.contains("ifMatch"), "{}", e.message);
    assert_eq!(f.read("hello.txt"), "first");
    // A change made behind the host's back (same size) is caught too.
    let fresh = f.resolve("hello.txt").await["etag"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(fresh, etag);
    std::fs::write(f.root.join("hello.txt"), "FIRST").unwrap();
    f.refused_on_root("resourceWrite", write(&f, "third", &fresh), CONFLICT)
        .await;
    assert_eq!(f.read("hello.txt"), "FIRST");
    let now = f.resolve("hello.txt").await["etag"]
        .as_str()
        .unwrap()
        .to_owned();
    f.ok("resourceWrite", write(&f, "third", &now)).await;
    assert_eq!(f.read("hello.txt"), "third");

    // A missing file is a failed precondition, and is not created.
    f.refused_on_root(
        "resourceWrite",
        json!({"uri": f.uri("new.txt"), "data": "x", "encoding": "utf-8", "ifMatch": now}),
        CONFLICT,
    )
    .await;
    f.refused_on_root(
        "resourceWrite",
        json!({"uri": f.uri("nodir/new.txt"), "data": "x", "encoding": "utf-8", "ifMatch": now}),
        errors::NOT_FOUND,
    )
    .await;
    assert!(!f.root.join("nodir").exists());
    f.refused_on_root(
        "resourceWrite",
        json!({"uri": f.uri("hello.txt"), "data": "x", "encoding": "utf-8", "ifMatch": now,
            "createOnly": true}),
        errors::INVALID_PARAMS,
    )
    .await;
    f.refused_on_root(
        "resourceWrite",
        json!({"uri": f.uri("hello.txt"), "data": "x", "encoding": "utf-8", "ifMatch": 7}),
        errors::INVALID_PARAMS,
    )
    .await;
    f.refused_on_root(
        "resourceWrite",
        json!({"uri": f.uri("link.txt"), "data": "x", "encoding": "utf-8", "ifMatch": now}),
        errors::PERMISSION_DENIED,
    )
    .await;
    // Without ifMatch the write is unconditional, as before.
    f.ok(
        "resourceWrite",
        json!({"uri": f.uri("hello.txt"), "data": "last", "encoding": "utf-8"}),
    )
    .await;
    assert_eq!(f.read("hello.txt"), "last");
}

#[tokio::test]
async fn request_grants_inside_the_working_directory_only() {
    let mut f = Fixture::new().await;
    let grants = [
        json!({"uri": f.uri("hello.txt"), "read": true}),
        json!({"uri": f.uri("sub"), "read": true, "write": true}),
        json!({"uri": f.uri("not-yet.txt"), "write": true}),
        json!({"uri": file_uri(&f.root)}),
        json!({"uri": f.uri("inlink"), "read": false, "write": true}),
    ];
    for params in grants {
        let r = f.ok("resourceRequest", params.clone()).await;
        assert_eq!(r, json!({}), "{params}");
    }
    for uri in [
        f.outside_uri("secret.txt"),
        f.outside_uri("missing.txt"),
        f.uri("link.txt"),
        f.uri("linkdir/x"),
        f.uri(".."),
    ] {
        let e = f
            .refused_on_root(
                "resourceRequest",
                json!({"uri": uri, "read": true}),
                errors::PERMISSION_DENIED,
            )
            .await;
        assert!(e.message.contains("outside"), "{}", e.message);
    }
    f.refused_on_root(
        "resourceRequest",
        json!({"uri": "https://example.com/x", "read": true}),
        errors::INVALID_PARAMS,
    )
    .await;
    f.refused_on_root(
        "resourceRequest",
        json!({"uri": f.uri("hello.txt"), "write": "please"}),
        errors::INVALID_PARAMS,
    )
    .await;
}
