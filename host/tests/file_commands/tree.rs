//! `resourceMkdir`, `resourceDelete`, `resourceCopy` and `resourceMove`.

use super::*;

#[tokio::test]
async fn mkdir_creates_missing_parents_and_only_directories() {
    let mut f = Fixture::new().await;
    let r = f.ok("resourceMkdir", json!({"uri": f.uri("m/n/o")})).await;
    assert_eq!(r, json!({}));
    assert!(f.root.join("m/n/o").is_dir());
    // An existing directory is success and changes nothing.
    let before = tree(&f.root);
    f.ok("resourceMkdir", json!({"uri": f.uri("m/n/o")})).await;
    f.ok("resourceMkdir", json!({"uri": f.uri("sub")})).await;
    f.ok("resourceMkdir", json!({"uri": file_uri(&f.root)}))
        .await;
    assert_eq!(tree(&f.root), before);

    let e = f
        .refused_on_root(
            "resourceMkdir",
            json!({"uri": f.uri("hello.txt")}),
            errors::ALREADY_EXISTS,
        )
        .await;
    assert!(e.message.contains("file exists"), "{}", e.message);
    f.refused_on_root(
        "resourceMkdir",
        json!({"uri": f.uri("hello.txt/x")}),
        errors::INVALID_PARAMS,
    )
    .await;
    let escapes = [
        f.outside_uri("new"),
        f.uri("linkdir/new"),
        format!("{}/../escaped", file_uri(&f.root)),
    ];
    for uri in escapes {
        f.refused_on_root(
            "resourceMkdir",
            json!({"uri": uri}),
            errors::PERMISSION_DENIED,
        )
        .await;
    }
    assert!(!f.root.parent().unwrap().join("escaped").exists());
    // Deeper than the host creates in one call: refused before anything is made.
    let deep = (0..20)
        .map(|i| format!("d{i}"))
        .collect::<Vec<_>>()
        .join("/");
    f.refused_on_root(
        "resourceMkdir",
        json!({"uri": f.uri(&deep)}),
        errors::PERMISSION_DENIED,
    )
    .await;
}

#[tokio::test]
async fn delete_removes_files_links_and_directories_but_never_the_root() {
    let mut f = Fixture::new().await;
    let r = f
        .ok("resourceDelete", json!({"uri": f.uri("hello.txt")}))
        .await;
    assert_eq!(r, json!({}));
    assert!(!f.root.join("hello.txt").exists());
    // A link is removed itself, never what it points to (here: outside).
    f.ok("resourceDelete", json!({"uri": f.uri("link.txt")}))
        .await;
    assert!(std::fs::symlink_metadata(f.root.join("link.txt")).is_err());
    assert_eq!(
        std::fs::read_to_string(f.outside.path().join("secret.txt")).unwrap(),
        "secret"
    );
    f.ok("resourceDelete", json!({"uri": f.uri("linkdir")}))
        .await;
    assert!(f.outside.path().join("secret.txt").exists());
    // An empty directory needs no flag; a full one needs `recursive: true`.
    f.ok("resourceDelete", json!({"uri": f.uri("empty")})).await;
    assert!(!f.root.join("empty").exists());
    for recursive in [json!(null), json!(false)] {
        let mut params = json!({"uri": f.uri("tree")});
        if !recursive.is_null() {
            params["recursive"] = recursive;
        }
        let e = f
            .refused_on_root("resourceDelete", params, errors::INVALID_PARAMS)
            .await;
        assert!(e.message.contains("not empty"), "{}", e.message);
    }
    f.refused_on_root(
        "resourceDelete",
        json!({"uri": f.uri("tree"), "recursive": "yes"}),
        errors::INVALID_PARAMS,
    )
    .await;
    f.ok(
        "resourceDelete",
        json!({"uri": f.uri("tree"), "recursive": true}),
    )
    .await;
    assert!(!f.root.join("tree").exists());

    // The root, however it is named.
    for uri in [
        file_uri(&f.root),
        format!("{}/", file_uri(&f.root)),
        f.uri("sub/.."),
    ] {
        let e = f
            .refused_on_root(
                "resourceDelete",
                json!({"uri": uri, "recursive": true}),
                errors::PERMISSION_DENIED,
            )
            .await;
        assert!(e.message.contains("working directory"), "{}", e.message);
    }
    f.refused_on_root(
        "resourceDelete",
        json!({"uri": f.uri("nope.txt")}),
        errors::NOT_FOUND,
    )
    .await;
    symlink(f.outside.path(), &f.root.join("linkdir"));
    for uri in [
        f.outside_uri("secret.txt"),
        f.uri("linkdir/secret.txt"),
        format!("{}/../x", file_uri(&f.root)),
    ] {
        f.refused_on_root(
            "resourceDelete",
            json!({"uri": uri, "recursive": true}),
            errors::PERMISSION_DENIED,
        )
        .await;
    }
    assert!(f.t.work.path().exists());
}

#[tokio::test]
async fn copy_makes_files_and_trees_and_replaces_only_when_allowed() {
    let mut f = Fixture::new().await;
    let r = f
        .ok(
            "resourceCopy",
            json!({"source": f.uri("hello.txt"), "destination": f.uri("copy.txt")}),
        )
        .await;
    assert_eq!(r, json!({}));
    assert_eq!(f.read("copy.txt"), f.read("hello.txt"));
    // A tree, with its link copied as a link.
    f.ok(
        "resourceCopy",
        json!({"source": f.uri("tree"), "destination": f.uri("sub/tree2")}),
    )
    .await;
    assert_eq!(f.read("sub/tree2/a.txt"), "a");
    assert_eq!(f.read("sub/tree2/deep/b.txt"), "b");
    assert_eq!(
        std::fs::read_link(f.root.join("sub/tree2/rel-link")).unwrap(),
        Path::new("a.txt")
    );
    assert_eq!(f.read("tree/a.txt"), "a", "the source stays");
    // A link given as the source is copied as what it points to (inside only).
    f.ok(
        "resourceCopy",
        json!({"source": f.uri("inlink"), "destination": f.uri("from-link.txt")}),
    )
    .await;
    assert!(!std::fs::symlink_metadata(f.root.join("from-link.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(f.read("from-link.txt"), f.read("hello.txt"));

    // Onto an existing target: refused with failIfExists, replaced without.
    let e = f
        .refused_on_root(
            "resourceCopy",
            json!({"source": f.uri("sub/inner.txt"), "destination": f.uri("copy.txt"),
                "failIfExists": true}),
            errors::ALREADY_EXISTS,
        )
        .await;
    assert!(e.message.contains("failIfExists"), "{}", e.message);
    f.refused_on_root(
        "resourceCopy",
        json!({"source": f.uri("sub/inner.txt"), "destination": f.uri("copy.txt"),
            "failIfExists": "no"}),
        errors::INVALID_PARAMS,
    )
    .await;
    f.ok(
        "resourceCopy",
        json!({"source": f.uri("sub/inner.txt"), "destination": f.uri("copy.txt"),
            "failIfExists": false}),
    )
    .await;
    assert_eq!(f.read("copy.txt"), "inner\n");
    // A directory replaces a file, and a file a directory.
    f.ok(
        "resourceCopy",
        json!({"source": f.uri("tree"), "destination": f.uri("copy.txt")}),
    )
    .await;
    assert_eq!(f.read("copy.txt/deep/b.txt"), "b");
    f.ok(
        "resourceCopy",
        json!({"source": f.uri("hello.txt"), "destination": f.uri("copy.txt")}),
    )
    .await;
    assert_eq!(f.read("copy.txt"), f.read("hello.txt"));
    no_leftovers(&f.root);

    let bad = [
        (
            f.uri("tree"),
            f.uri("tree/deep/again"),
            errors::INVALID_PARAMS,
        ),
        (f.uri("tree/deep"), f.uri("tree"), errors::INVALID_PARAMS),
        (
            f.uri("hello.txt"),
            f.uri("hello.txt"),
            errors::INVALID_PARAMS,
        ),
        (
            f.uri("hello.txt"),
            file_uri(&f.root),
            errors::PERMISSION_DENIED,
        ),
        (
            f.uri("hello.txt"),
            f.uri("sub/.."),
            errors::PERMISSION_DENIED,
        ),
        (f.uri("nope.txt"), f.uri("x.txt"), errors::NOT_FOUND),
        (f.uri("hello.txt"), f.uri("nodir/x.txt"), errors::NOT_FOUND),
        (
            f.outside_uri("secret.txt"),
            f.uri("stolen.txt"),
            errors::PERMISSION_DENIED,
        ),
        (
            f.uri("link.txt"),
            f.uri("stolen.txt"),
            errors::PERMISSION_DENIED,
        ),
        (
            f.uri("linkdir/secret.txt"),
            f.uri("stolen.txt"),
            errors::PERMISSION_DENIED,
        ),
        (
            f.uri("hello.txt"),
            f.outside_uri("leak.txt"),
            errors::PERMISSION_DENIED,
        ),
        (
            f.uri("hello.txt"),
            f.uri("linkdir/leak.txt"),
            errors::PERMISSION_DENIED,
        ),
        (
            f.uri("hello.txt"),
            "http://example.com/x".into(),
            errors::INVALID_PARAMS,
        ),
    ];
    for (source, destination, code) in bad {
        f.refused_on_root(
            "resourceCopy",
            json!({"source": source, "destination": destination}),
            code,
        )
        .await;
    }
    assert!(!f.outside.path().join("leak.txt").exists());
}

#[tokio::test]
async fn move_renames_entries_and_replaces_only_when_allowed() {
    let mut f = Fixture::new().await;
    let r = f
        .ok(
            "resourceMove",
            json!({"source": f.uri("hello.txt"), "destination": f.uri("moved.txt")}),
        )
        .await;
    assert_eq!(r, json!({}));
    assert!(!f.root.join("hello.txt").exists());
    assert_eq!(f.read("moved.txt"), "hello from the working directory\n");
    f.ok(
        "resourceMove",
        json!({"source": f.uri("tree"), "destination": f.uri("sub/tree")}),
    )
    .await;
    assert_eq!(f.read("sub/tree/deep/b.txt"), "b");
    assert!(!f.root.join("tree").exists());
    // A link is moved as a link, wherever it points.
    f.ok(
        "resourceMove",
        json!({"source": f.uri("link.txt"), "destination": f.uri("sub/link.txt")}),
    )
    .await;
    assert_eq!(
        std::fs::read_link(f.root.join("sub/link.txt")).unwrap(),
        f.outside.path().join("secret.txt")
    );

    // Onto an existing target.
    f.refused_on_root(
        "resourceMove",
        json!({"source": f.uri("moved.txt"), "destination": f.uri("sub/inner.txt"),
            "failIfExists": true}),
        errors::ALREADY_EXISTS,
    )
    .await;
    f.ok(
        "resourceMove",
        json!({"source": f.uri("moved.txt"), "destination": f.uri("sub/inner.txt")}),
    )
    .await;
    assert_eq!(
        f.read("sub/inner.txt"),
        "hello from the working directory\n"
    );
    assert!(!f.root.join("moved.txt").exists());
    // A directory replaces a full directory.
    std::fs::create_dir(f.root.join("full")).unwrap();
    std::fs::write(f.root.join("full/old.txt"), "old").unwrap();
    f.ok(
        "resourceMove",
        json!({"source": f.uri("sub/tree"), "destination": f.uri("full")}),
    )
    .await;
    assert_eq!(f.read("full/a.txt"), "a");
    assert!(!f.root.join("full/old.txt").exists());
    no_leftovers(&f.root);

    let bad = [
        (f.uri("full"), f.uri("full/inside"), errors::INVALID_PARAMS),
        (f.uri("full/deep"), f.uri("full"), errors::INVALID_PARAMS),
        (f.uri("full"), f.uri("full"), errors::INVALID_PARAMS),
        (
            file_uri(&f.root),
            f.uri("sub/root"),
            errors::PERMISSION_DENIED,
        ),
        (f.uri("full"), file_uri(&f.root), errors::PERMISSION_DENIED),
        (f.uri("nope"), f.uri("x"), errors::NOT_FOUND),
        (f.uri("full"), f.uri("nodir/x"), errors::NOT_FOUND),
        (
            f.outside_uri("secret.txt"),
            f.uri("stolen.txt"),
            errors::PERMISSION_DENIED,
        ),
        (
            f.uri("linkdir/secret.txt"),
            f.uri("stolen.txt"),
            errors::PERMISSION_DENIED,
        ),
        (
            f.uri("full"),
            f.outside_uri("full"),
            errors::PERMISSION_DENIED,
        ),
        (
            f.uri("full"),
            f.uri("linkdir/full"),
            errors::PERMISSION_DENIED,
        ),
    ];
    for (source, destination, code) in bad {
        f.refused_on_root(
            "resourceMove",
            json!({"source": source, "destination": destination}),
            code,
        )
        .await;
    }
}
