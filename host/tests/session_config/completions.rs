//! `completions`: `@` mentions from the session's working directory, `/` directives.

use super::*;
use ahp_host::agent::directives::CATALOGUE;
use ahp_host::resources::file_uri;
use std::path::{Path, PathBuf};

const S: &str = "ahp-session:/completions";

/// A host whose working directory holds, besides `hello.txt` and `sub/inner.txt`: `.git/config`,
/// `docs/readme.md`, `docs/Guide.md`, `many/f00.txt`..`many/f59.txt`, `inlink -> hello.txt`,
/// `out -> <outside>/secret.txt` and `outdir -> <outside>`; session `S` works in it.
struct Fixture {
    _host: TestHost,
    root: PathBuf,
    outside: tempfile::TempDir,
    c: Client,
}

impl Fixture {
    async fn new() -> Fixture {
        let t = start_host().await;
        let (root, outside) = t.work_and_outside();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "[core]").unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/readme.md"), "# readme").unwrap();
        std::fs::write(root.join("docs/Guide.md"), "# guide").unwrap();
        std::fs::create_dir_all(root.join("many")).unwrap();
        for i in 0..60 {
            std::fs::write(root.join(format!("many/f{i:02}.txt")), "x").unwrap();
        }
        let link = |target: &Path, at: &str| std::os::unix::fs::symlink(target, root.join(at));
        link(Path::new("hello.txt"), "inlink").unwrap();
        link(&outside.path().join("secret.txt"), "out").unwrap();
        link(outside.path(), "outdir").unwrap();
        let mut c = Client::ready(&t.host, "completer").await;
        c.create_session(S).await;
        Fixture {
            _host: t,
            root,
            outside,
            c,
        }
    }

    /// `completions` for `text` with the cursor at its end.
    async fn at_end(&mut self, text: &str) -> Vec<CompletionItem> {
        let offset = text.encode_utf16().count() as f64;
        self.at(S, text, offset).await.unwrap()
    }

    async fn at(
        &mut self,
        session: &str,
        text: &str,
        offset: f64,
    ) -> Result<Vec<CompletionItem>, ErrorObject> {
        let r = self
            .c
            .call(
                "completions",
                json!({"channel": session, "kind": "userMessage", "text": text, "offset": offset}),
            )
            .await?;
        let r: CompletionsResult = serde_json::from_value(r).expect("result decodes");
        Ok(r.items)
    }

    /// The inserted texts of the items for `text` (cursor at the end).
    async fn inserts(&mut self, text: &str) -> Vec<String> {
        self.at_end(text)
            .await
            .into_iter()
            .map(|i| i.insert_text)
            .collect()
    }
}

fn resource(item: &CompletionItem) -> &MessageResourceAttachment {
    match &item.attachment {
        MessageAttachment::Resource(r) => r,
        other => panic!("not a resource attachment: {other:?}"),
    }
}

#[tokio::test]
async fn at_mentions_offer_files_of_the_working_directory() {
    let mut f = Fixture::new().await;
    let items = f.at_end("see @he").await;
    assert_eq!(items.len(), 1, "{items:?}");
    let item = &items[0];
    assert_eq!(item.insert_text, "@hello.txt");
    assert_eq!((item.range_start, item.range_end), (Some(4.0), Some(7.0)));
    let r = resource(item);
    assert_eq!(r.uri, file_uri(&f.root.join("hello.txt")));
    assert_eq!(r.label, "hello.txt");
    assert_eq!(r.display_kind.as_deref(), Some("document"));
    assert_eq!(
        r.size_hint,
        Some("hello from the working directory\n".len() as f64)
    );

    // Names anywhere (shallower first), ignoring case; directories too.
    assert_eq!(f.inserts("@in").await, ["@inlink", "@sub/inner.txt"]);
    assert_eq!(f.inserts("@GUI").await, ["@docs/Guide.md"]);
    let items = f.at_end("@do").await;
    assert_eq!(items[0].insert_text, "@docs");
    assert_eq!(
        resource(&items[0]).display_kind.as_deref(),
        Some("directory")
    );
    assert_eq!(resource(&items[0]).label, "docs/");
    // With a `/`: paths from the working directory.
    assert_eq!(
        f.inserts("@docs/").await,
        ["@docs/Guide.md", "@docs/readme.md"]
    );
    assert_eq!(f.inserts("@docs/r").await, ["@docs/readme.md"]);
    assert_eq!(f.inserts("@SUB/").await, ["@sub/inner.txt"]);

    // The cursor inside a word: the query ends at the cursor, the range at the word's end.
    let items = f.at(S, "@hexyz and more", 3.0).await.unwrap();
    assert_eq!(items[0].insert_text, "@hello.txt");
    assert_eq!(
        (items[0].range_start, items[0].range_end),
        (Some(0.0), Some(6.0))
    );
    // Offsets are UTF-16 code units.
    let text = "é😀 @hel";
    let items = f.at_end(text).await;
    assert_eq!(
        (items[0].range_start, items[0].range_end),
        (Some(4.0), Some(8.0))
    );
    // Not a mention: `@` inside a word.
    assert!(f.inserts("mail@he").await.is_empty());
}

#[tokio::test]
async fn at_mentions_stay_inside_skip_git_and_are_bounded() {
    let mut f = Fixture::new().await;
    // Everything (no query): the top level first, no `.git`, no link leading outside.
    let all = f.at_end("@").await;
    let inserts: Vec<&str> = all.iter().map(|i| i.insert_text.as_str()).collect();
    assert_eq!(
        &inserts[..6],
        [
            "@docs",
            "@hello.txt",
            "@inlink",
            "@many",
            "@sub",
            "@docs/Guide.md"
        ]
    );
    assert_eq!(all.len(), 50, "the result limit");
    let inside = format!("{}/", file_uri(&f.root));
    for item in &all {
        let r = resource(item);
        assert!(r.uri.starts_with(&inside), "{}", r.uri);
        assert!(!item.insert_text.contains(".git"), "{}", item.insert_text);
        assert!(
            !item.insert_text.starts_with("@out"),
            "{}",
            item.insert_text
        );
    }
    assert!(!all.iter().any(|i| resource(i)
        .uri
        .contains(&*f.outside.path().to_string_lossy())));
    // 60 files match: 50 are answered, in name order.
    let many = f.inserts("@many/").await;
    assert_eq!(many.len(), 50);
    assert_eq!(many[0], "@many/f00.txt");
    assert_eq!(many[49], "@many/f49.txt");
    // Nothing outside or inside `.git` is reachable through the query.
    for query in [
        "@../",
        "@..",
        "@/etc/",
        "@/",
        "@./hello",
        "@.git/",
        "@.git/con",
        "@outdir/",
        "@out/",
        "@sub/../",
        "@sub/../../",
        "@con",
        "@secret",
    ] {
        assert!(f.inserts(query).await.is_empty(), "{query}");
    }
    // A link that resolves inside is offered as an entry (and as what it points to).
    let items = f.at_end("@inl").await;
    assert_eq!(resource(&items[0]).uri, file_uri(&f.root.join("inlink")));
    assert_eq!(
        resource(&items[0]).display_kind.as_deref(),
        Some("document")
    );

    // A session working in `sub` sees only `sub`.
    let sub = file_uri(&f.root.join("sub"));
    create(
        &mut f.c,
        "ahp-session:/in-sub",
        json!({"workingDirectory": sub}),
    )
    .await
    .unwrap();
    let items = f.at("ahp-session:/in-sub", "@", 1.0).await.unwrap();
    let inserts: Vec<&str> = items.iter().map(|i| i.insert_text.as_str()).collect();
    assert_eq!(inserts, ["@inner.txt"]);
    assert_eq!(
        resource(&items[0]).uri,
        file_uri(&f.root.join("sub/inner.txt"))
    );
    for query in ["@../", "@..", "@hello"] {
        let items = f.at("ahp-session:/in-sub", query, query.len() as f64).await;
        assert!(items.unwrap().is_empty(), "{query}");
    }
}

#[tokio::test]
async fn slash_offers_the_agent_s_directives_at_the_start_of_a_line() {
    let mut f = Fixture::new().await;
    let all = f.at_end("/").await;
    assert_eq!(all.len(), CATALOGUE.len());
    for (item, d) in all.iter().zip(CATALOGUE) {
        let MessageAttachment::Simple(a) = &item.attachment else {
            panic!("not a simple attachment: {item:?}");
        };
        assert_eq!(a.label, d.usage());
        assert_eq!(
            a.meta.as_ref().unwrap()["description"],
            json!(d.summary),
            "{}",
            d.words
        );
        assert!(item.insert_text.starts_with(&format!("/{}", d.words)));
    }
    assert_eq!(
        f.inserts("/t").await,
        ["/tool list ", "/tool read ", "/title "]
    );
    assert_eq!(f.inserts("/tool r").await, ["/tool read "]);
    assert_eq!(f.inserts("/pro").await, ["/prompt"]);
    // The range starts at the `/` of the line.
    let items = f.at_end("first line\n  /as").await;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].insert_text, "/ask ");
    assert_eq!(
        (items[0].range_start, items[0].range_end),
        (Some(13.0), Some(16.0))
    );
    // Not at the start of a line, or past the directive's words: nothing.
    assert!(f.inserts("see /t").await.is_empty());
    assert!(f.inserts("/ask why").await.is_empty());
    assert!(f.inserts("/nothing").await.is_empty());
    // A mention inside a directive's arguments is a file.
    assert_eq!(f.inserts("/tool read @hel").await, ["@hello.txt"]);
}

#[tokio::test]
async fn completions_refuse_bad_params() {
    let mut f = Fixture::new().await;
    for offset in [-1.0, 4.0, 0.5] {
        let e = f.at(S, "@he", offset).await.unwrap_err();
        assert_eq!(e.code, errors::INVALID_PARAMS, "{offset}");
        assert!(e.message.contains("`offset`"), "{}", e.message);
    }
    // Inside a surrogate pair.
    let e = f.at(S, "😀", 1.0).await.unwrap_err();
    assert_eq!(e.code, errors::INVALID_PARAMS);
    let e = f.at("ahp-session:/none", "@", 1.0).await.unwrap_err();
    assert_eq!(e.code, errors::SESSION_NOT_FOUND);
    for params in [
        json!({"channel": S, "kind": "userMessage", "text": "@"}),
        json!({"channel": S, "kind": "userMessage", "offset": 0}),
        json!({"channel": S, "kind": 1, "text": "@", "offset": 1}),
    ] {
        let e = f.c.call("completions", params.clone()).await.unwrap_err();
        assert_eq!(e.code, errors::INVALID_PARAMS, "{params}");
    }
    // A kind this host does not know: nothing to offer.
    let r =
        f.c.call(
            "completions",
            json!({"channel": S, "kind": "symbol", "text": "@", "offset": 1}),
        )
        .await
        .unwrap();
    assert_eq!(r, json!({"items": []}));
}

/// A flood of `completions` on one connection: at most a few walk at once, the rest are refused
/// at once, every request is answered, and the connection goes on.
#[tokio::test]
async fn completions_in_flight_are_bounded_per_connection() {
    let mut f = Fixture::new().await;
    std::fs::create_dir(f.root.join("flood")).unwrap();
    for i in 0..3000 {
        std::fs::write(f.root.join(format!("flood/n{i}")), "").unwrap();
    }
    let params = json!({"channel": S, "kind": "userMessage", "text": "@zzz", "offset": 4});
    let ids: Vec<i64> = (1000..1040).collect();
    for &id in &ids {
        let text = ahp_wasm::protocol::jsonrpc::request_text(
            ahp_wasm::protocol::jsonrpc::RequestId::Number(id),
            "completions",
            &params,
        );
        f.c.send_text(text).await;
    }
    let (mut answered, mut refused) = (0, 0);
    for id in ids {
        match f.c.response(id).await {
            Ok(r) => {
                assert_eq!(r, json!({"items": []}));
                answered += 1;
            }
            Err(e) => {
                assert_eq!(e.code, errors::INVALID_REQUEST, "{e:?}");
                assert!(e.message.contains("in flight"), "{}", e.message);
                refused += 1;
            }
        }
    }
    assert!(answered >= 4, "{answered} answered");
    assert!(refused > 0, "40 at once, none refused");
    // Every walk ended: the connection is served again.
    assert_eq!(f.inserts("@he").await, ["@hello.txt"]);
}
