//! The file commands against a real host over a real WebSocket: `resourceMkdir`,
//! `resourceDelete`, `resourceCopy`, `resourceMove`, `resourceResolve`, `resourceRequest`,
//! `resourceWrite`'s `ifMatch`, and `listSessions.filter`. Every refusal is checked to leave
//! the working directory and the directory outside it exactly as they were.

mod common;

use ahp_host::resources::{file_uri, CONFLICT};
use ahp_wasm::protocol::jsonrpc::{ErrorObject, ROOT_CHANNEL};
use ahp_wasm::protocol::*;
use common::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A host whose working directory holds, besides `hello.txt` and `sub/inner.txt`:
/// `tree/a.txt`, `tree/deep/b.txt`, `tree/rel-link -> a.txt`, an empty `empty/`,
/// `inlink -> hello.txt`, `link.txt -> <outside>/secret.txt` and `linkdir -> <outside>`.
struct Fixture {
    t: TestHost,
    root: PathBuf,
    outside: tempfile::TempDir,
    c: Client,
}

impl Fixture {
    async fn new() -> Fixture {
        let t = start_host().await;
        let root = t.work.path().canonicalize().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
        std::fs::create_dir_all(root.join("tree/deep")).unwrap();
        std::fs::write(root.join("tree/a.txt"), "a").unwrap();
        std::fs::write(root.join("tree/deep/b.txt"), "b").unwrap();
        std::fs::create_dir(root.join("empty")).unwrap();
        symlink("a.txt", &root.join("tree/rel-link"));
        symlink("hello.txt", &root.join("inlink"));
        symlink(outside.path().join("secret.txt"), &root.join("link.txt"));
        symlink(outside.path(), &root.join("linkdir"));
        let c = Client::ready(&t.host, "files").await;
        Fixture {
            t,
            root,
            outside,
            c,
        }
    }

    fn uri(&self, rel: &str) -> String {
        file_uri(&self.root.join(rel))
    }

    fn outside_uri(&self, rel: &str) -> String {
        file_uri(&self.outside.path().join(rel))
    }

    async fn ok(&mut self, method: &str, params: Value) -> Value {
        self.c
            .call(method, with_channel(params.clone()))
            .await
            .unwrap_or_else(|e| panic!("{method} {params}: {e:?}"))
    }

    /// Calls `method`, expects error `code`, and checks that nothing changed inside or outside.
    async fn refused(&mut self, method: &str, params: Value, code: i64) -> ErrorObject {
        let (inside, outside) = (tree(&self.root), tree(self.outside.path()));
        let e = self
            .c
            .call(method, params.clone())
            .await
            .expect_err(&format!("{method} {params} is refused"));
        assert_eq!(e.code, code, "{method} {params}: {e:?}");
        assert!(!e.message.is_empty());
        assert_eq!(
            tree(&self.root),
            inside,
            "{method} {params} changed the tree"
        );
        assert_eq!(
            tree(self.outside.path()),
            outside,
            "{method} {params} changed the outside"
        );
        e
    }

    /// [`Fixture::refused`] with `channel` added.
    async fn refused_on_root(&mut self, method: &str, params: Value, code: i64) -> ErrorObject {
        self.refused(method, with_channel(params), code).await
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    async fn resolve(&mut self, rel: &str) -> Value {
        self.ok("resourceResolve", json!({"uri": self.uri(rel)}))
            .await
    }
}

fn with_channel(mut params: Value) -> Value {
    params["channel"] = json!(ROOT_CHANNEL);
    params
}

fn symlink(target: impl AsRef<Path>, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// Every entry under `dir` (links not followed): `dir`, `file <content>` or `link -> <target>`.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    fn walk(base: &Path, at: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(at).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let what = if meta.file_type().is_symlink() {
                format!("link -> {}", std::fs::read_link(&path).unwrap().display())
            } else if meta.is_dir() {
                walk(base, &path, out);
                "dir".to_owned()
            } else {
                format!(
                    "file {}",
                    String::from_utf8_lossy(&std::fs::read(&path).unwrap())
                )
            };
            out.insert(rel, what);
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// No temporary copy or moved-aside entry was left anywhere.
fn no_leftovers(root: &Path) {
    let left: Vec<String> = tree(root)
        .into_keys()
        .filter(|k| k.contains(".ahp-"))
        .collect();
    assert!(left.is_empty(), "leftovers: {left:?}");
}

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
    let e = c
        .call("listSessions", json!({"channel": "ahp-session:/alpha"}))
        .await
        .unwrap_err();
    assert_eq!(e.code, errors::INVALID_PARAMS);
    // Nothing was changed by the refused calls.
    assert_eq!(list(&mut c, json!(null)).await.unwrap().len(), 4);
}
