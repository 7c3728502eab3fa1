//! The page and the package over HTTP: the content types browsers insist on (module scripts need
//! a JavaScript type, `WebAssembly.instantiateStreaming` needs `application/wasm`), and the page's
//! Content-Security-Policy (no inline scripts).

mod common;

use common::*;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A plain HTTP/1.1 GET; returns (status, lower-cased headers, body).
async fn get(addr: std::net::SocketAddr, path: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut raw))
        .await
        .expect("response within 20 s")
        .unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("end of headers");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    (status, headers, raw[split + 4..].to_vec())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[tokio::test]
async fn page_and_package_are_served_with_browser_content_types() {
    let pkg = tempfile::tempdir().unwrap();
    std::fs::write(pkg.path().join("web.js"), "export const x = 1;\n").unwrap();
    std::fs::write(pkg.path().join("ahp_wasm.js"), "export default 1;\n").unwrap();
    // The smallest valid module: magic + version.
    std::fs::write(pkg.path().join("ahp_wasm_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    let pkg_dir = pkg.path().to_path_buf();
    // The repository's own www/ (the default), with a temporary pkg/.
    let t = start_host_with(move |c| c.pkg = pkg_dir).await;
    let addr = t.host.addr;

    let (status, headers, body) = get(addr, "/").await;
    assert_eq!(status, 200);
    assert!(header(&headers, "content-type")
        .unwrap()
        .starts_with("text/html"));
    let html = String::from_utf8(body).unwrap();
    assert!(html.contains(r#"<script type="module" src="app.js"></script>"#));
    let csp = html
        .split("Content-Security-Policy\" content=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("the page declares a CSP");
    let script_src = csp
        .split(';')
        .map(str::trim)
        .find(|d| d.starts_with("script-src"))
        .expect("script-src");
    assert_eq!(script_src, "script-src 'self' 'wasm-unsafe-eval'");
    // Inline style only, for xterm.js (its renderer writes <style> elements); never script.
    for directive in csp.split(';').map(str::trim) {
        assert!(
            !directive.contains("unsafe-inline") || directive == "style-src 'self' 'unsafe-inline'",
            "{csp}"
        );
    }
    assert!(!html.contains("<script>"), "no inline script");

    for (path, want) in [
        ("/app.js", "text/javascript"),
        ("/session.js", "text/javascript"), // one of the modules app.js imports
        ("/style.css", "text/css"),
        ("/pkg/web.js", "text/javascript"),
        ("/pkg/ahp_wasm.js", "text/javascript"),
        ("/pkg/ahp_wasm_bg.wasm", "application/wasm"),
    ] {
        let (status, headers, body) = get(addr, path).await;
        assert_eq!(status, 200, "{path}");
        let ty = header(&headers, "content-type").unwrap_or_default();
        assert!(
            ty.starts_with(want),
            "{path}: content-type {ty:?}, want {want}"
        );
        assert!(!body.is_empty(), "{path}");
    }
    let (_, _, wasm) = get(addr, "/pkg/ahp_wasm_bg.wasm").await;
    assert_eq!(wasm, b"\0asm\x01\0\0\0");

    let (status, _, _) = get(addr, "/pkg/missing.js").await;
    assert_eq!(status, 404);
    let (status, _, _) = get(addr, "/pkg/../Cargo.toml").await;
    assert_ne!(status, 200, "no escape from pkg/");
}
