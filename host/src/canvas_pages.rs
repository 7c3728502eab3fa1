//! The pages of AHP 1.0 canvases (`hub/canvases.rs`), served by the host on its own origin at
//! `/canvas/<instance id>/`.
//!
//! A page is a built-in template or a file of the session's working directory, both untrusted
//! as far as the browser is concerned: the page shows it in a sandboxed iframe, and the host
//! serves it with a CSP whose `sandbox` directive gives it an opaque origin even when opened
//! on its own, and which lets it load nothing from anywhere (inline script and style only).
//! The instance id is 128 random bits: the URL is the capability (it is only in the canvas
//! state, which only authenticated clients see), and it dies with the host.

use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// What a canvas page may do: run its own inline script and style, nothing else (no network,
/// no forms, no frames, not framed by another site), in an opaque origin.
pub const CANVAS_CSP: &str = "sandbox allow-scripts; default-src 'none'; \
    script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; \
    connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'self'";

/// The pages of the open canvases, by instance id; shared by the hub (which opens and closes
/// canvases) and the HTTP server.
#[derive(Clone, Default, Debug)]
pub struct CanvasPages(Arc<RwLock<HashMap<String, Arc<str>>>>);

impl CanvasPages {
    /// Serves `html` as the page of canvas `id`.
    pub fn insert(&self, id: &str, html: String) {
        self.0
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_owned(), Arc::from(html));
    }

    /// Stops serving the page of canvas `id`.
    pub fn remove(&self, id: &str) {
        self.0.write().unwrap_or_else(|p| p.into_inner()).remove(id);
    }

    fn get(&self, id: &str) -> Option<Arc<str>> {
        self.0
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }
}

/// `GET /canvas/<id>/`: the page, with [`CANVAS_CSP`]; 404 for a canvas that is not open.
pub async fn serve(State(pages): State<CanvasPages>, Path(id): Path<String>) -> Response {
    let mut response = match pages.get(&id) {
        Some(html) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            html.to_string(),
        )
            .into_response(),
        None => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "no such canvas on this host",
        )
            .into_response(),
    };
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CANVAS_CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
        (header::X_FRAME_OPTIONS, "SAMEORIGIN"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// The built-in template: the title and a line saying who opened it, escaped.
pub fn template(title: &str, session: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{title}</title>\
         <style>body{{font:15px system-ui,sans-serif;margin:2rem;color:#222}}\
         h1{{font-size:1.4rem}}p{{color:#555}}</style></head>\
         <body><h1>{title}</h1><p>A canvas the built-in agent opened in {session}.</p>\
         </body></html>\n",
        title = escape(title),
        session = escape(session),
    )
}

/// `text` safe inside HTML text and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_template_escapes_its_title() {
        let html = super::template("<script>alert(1)</script> & \"x\"", "ahp-session:/s");
        assert!(!html.contains("<script>"));
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;"));
    }
}
