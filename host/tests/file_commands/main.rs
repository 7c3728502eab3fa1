//! The file commands against a real host over a real WebSocket: `resourceMkdir`,
//! `resourceDelete`, `resourceCopy`, `resourceMove`, `resourceResolve`, `resourceRequest`,
//! `resourceWrite`'s `ifMatch`, and `listSessions.filter`. Every refusal is checked to leave
//! the working directory and the directory outside it exactly as they were.

#[path = "../common/mod.rs"]
mod common;

mod meta;
mod sessions;
mod tree;

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
        let (root, outside) = t.work_and_outside();
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
