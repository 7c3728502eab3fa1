//! MCP authorization, the host's side of guide/mcp.md "Authentication": a streamable-HTTP server
//! that refuses a request with 401 (or 403 `insufficient_scope`) and a `WWW-Authenticate: Bearer`
//! challenge is `authRequired`, carrying its RFC 9728 Protected Resource Metadata; a client then
//! pushes a token for that resource with `authenticate`.
//!
//! rmcp reports the refusal (its `AuthRequiredError` / `InsufficientScopeError` carry the
//! challenge), so no request is made twice; the metadata document is fetched here, bounded.
//! Tokens are [`BearerToken`]s: no `Display`, no `Serialize`, a redacted `Debug`.

use super::clip;
use ahp_wasm::protocol::{
    McpAuthRequiredReason, McpServerAuthRequiredState, ProtectedResourceMetadata,
};
use reqwest::Url;
use rmcp::service::{ClientInitializeError, ServiceError};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, InsufficientScopeError, StreamableHttpError,
};
use rmcp::transport::DynamicTransportError;
use std::error::Error;
use std::time::Duration;

/// Largest metadata document read.
const MAX_METADATA_BYTES: usize = 64 << 10;
/// Longest wait for one metadata request.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest token accepted (a header value; JWTs are a few KiB).
const MAX_TOKEN_BYTES: usize = 16 << 10;
/// The well-known path of RFC 9728.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// A bearer token pushed with `authenticate`. Kept in memory only: it cannot be printed,
/// serialized or logged by accident (its `Debug` is redacted).
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken(String);

impl BearerToken {
    /// Checks a token: 1 to 16 KiB of visible ASCII (a valid `Authorization` header value).
    /// The error never contains the token.
    pub fn parse(value: String) -> Result<BearerToken, String> {
        if value.is_empty() || value.len() > MAX_TOKEN_BYTES {
            return Err(format!("`token` must be 1 to {MAX_TOKEN_BYTES} bytes"));
        }
        if !value.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("`token` must be visible ASCII without spaces".into());
        }
        Ok(BearerToken(value))
    }

    /// The secret, for the one place that sends it (rmcp's `Authorization: Bearer` header).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BearerToken(<redacted>)")
    }
}

/// A request refused for authorization: the status and its `WWW-Authenticate` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denied {
    /// 401 or 403.
    pub status: u16,
    /// The challenge (absent on a bare 401).
    pub challenge: Option<String>,
}

/// Whether `initialize` failed because the server refused it for authorization.
pub fn init_denied(e: &ClientInitializeError) -> Option<Denied> {
    match e {
        ClientInitializeError::TransportError { error, .. } => transport_denied(error),
        ClientInitializeError::LegacyFallbackFailed { discover, fallback } => {
            init_denied(fallback).or_else(|| init_denied(discover))
        }
        _ => None,
    }
}

/// Whether a request to a ready server failed because the server refused it for authorization.
pub fn call_denied(e: &ServiceError) -> Option<Denied> {
    match e {
        ServiceError::TransportSend(error) => transport_denied(error),
        _ => None,
    }
}

fn transport_denied(error: &DynamicTransportError) -> Option<Denied> {
    let mut source: Option<&(dyn Error + 'static)> = Some(error.error.as_ref());
    while let Some(e) = source {
        if let Some(a) = e.downcast_ref::<AuthRequiredError>() {
            return Some(Denied {
                status: 401,
                challenge: Some(a.www_authenticate_header.clone()),
            });
        }
        if let Some(s) = e.downcast_ref::<InsufficientScopeError>() {
            return Some(Denied {
                status: 403,
                challenge: Some(s.www_authenticate_header.clone()),
            });
        }
        // rmcp reports a 401 without a challenge as an unexpected response "HTTP 401 …".
        if let Some(StreamableHttpError::<reqwest::Error>::UnexpectedServerResponse(m)) =
            e.downcast_ref()
        {
            if m.starts_with("HTTP 401") {
                return Some(Denied {
                    status: 401,
                    challenge: None,
                });
            }
        }
        source = e.source();
    }
    None
}

/// The parameters of a `Bearer` challenge (RFC 6750 §3, RFC 9728 §5.1) that matter here.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// `resource_metadata`: where the metadata document is.
    pub resource_metadata: Option<String>,
    /// `scope`: space-separated scopes this request needs.
    pub scope: Option<String>,
    /// `error`: `invalid_token`, `insufficient_scope`, ….
    pub error: Option<String>,
    /// `error_description`.
    pub error_description: Option<String>,
}

/// Parses the `Bearer` challenge out of a `WWW-Authenticate` value, which may hold several
/// challenges (`Basic realm="x", Bearer scope="a b"`); parameters of other schemes are skipped.
pub fn parse_challenge(header: &str) -> Challenge {
    let mut out = Challenge::default();
    let mut rest = header;
    let mut bearer = false;
    loop {
        rest = rest.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
        if rest.is_empty() {
            return out;
        }
        let end = rest
            .find(|c: char| c == '=' || c == ',' || c.is_whitespace())
            .unwrap_or(rest.len());
        let token = &rest[..end];
        let after = rest[end..].trim_start_matches([' ', '\t']);
        let Some(value) = after.strip_prefix('=') else {
            // A scheme name starts the next challenge.
            bearer = token.eq_ignore_ascii_case("bearer");
            rest = &rest[end..];
            continue;
        };
        let value = value.trim_start_matches([' ', '\t']);
        let (value, remaining) = match value.strip_prefix('"') {
            Some(quoted) => unquote(quoted),
            None => {
                let e = value
                    .find(|c: char| c == ',' || c.is_whitespace())
                    .unwrap_or(value.len());
                (value[..e].to_owned(), &value[e..])
            }
        };
        rest = remaining;
        if !bearer {
            continue;
        }
        let slot = match token.to_ascii_lowercase().as_str() {
            "resource_metadata" => &mut out.resource_metadata,
            "scope" => &mut out.scope,
            "error" => &mut out.error,
            "error_description" => &mut out.error_description,
            _ => continue,
        };
        slot.get_or_insert(value);
    }
}

/// A quoted-string's value (after its opening quote) and what follows its closing quote.
fn unquote(s: &str) -> (String, &str) {
    let mut value = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (value, &s[i + 1..]),
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    value.push(escaped);
                }
            }
            c => value.push(c),
        }
    }
    (value, "")
}

/// The `authRequired` state of server `server_url` after `denied`: the challenge parsed, the
/// metadata discovered (or `{resource: server_url}` when none can be used), within `timeout`.
/// `reason` is `insufficientScope` for a 403 or `error="insufficient_scope"`, else `required`
/// (the hub makes it `expired` when the refused token had worked before).
pub async fn auth_required(
    server_url: &str,
    denied: &Denied,
    timeout: Duration,
) -> McpServerAuthRequiredState {
    let challenge = denied
        .challenge
        .as_deref()
        .map(parse_challenge)
        .unwrap_or_default();
    let discovered = match Url::parse(server_url) {
        Ok(url) => tokio::time::timeout(timeout, discover(&url, &challenge))
            .await
            .ok()
            .flatten(),
        Err(_) => None,
    };
    let resource = discovered.unwrap_or_else(|| ProtectedResourceMetadata {
        resource: server_url.to_owned(),
        ..Default::default()
    });
    let insufficient =
        denied.status == 403 || challenge.error.as_deref() == Some("insufficient_scope");
    let scopes: Vec<String> = challenge
        .scope
        .iter()
        .flat_map(|s| s.split_whitespace())
        .take(64)
        .map(|s| clip(s, 200))
        .collect();
    McpServerAuthRequiredState {
        reason: if insufficient {
            McpAuthRequiredReason::InsufficientScope
        } else {
            McpAuthRequiredReason::Required
        },
        required_scopes: if scopes.is_empty() {
            resource.scopes_supported.clone()
        } else {
            Some(scopes)
        },
        resource,
        description: challenge.error_description.map(|d| clip(&d, 500)),
        extra: Default::default(),
    }
}

/// Where the metadata may be, in order (RFC 9728 §3.1 and §5): the challenge's
/// `resource_metadata`, then the well-known URI with the server's path, then without it.
fn candidates(server: &Url, challenge: &Challenge) -> Vec<Url> {
    let mut out = Vec::new();
    if let Some(url) = challenge
        .resource_metadata
        .as_deref()
        .and_then(|u| server.join(u).ok())
        // No downgrade from an https server.
        .filter(|u| u.scheme() == "https" || (u.scheme() == "http" && server.scheme() == "http"))
    {
        out.push(url);
    }
    let mut base = server.clone();
    base.set_query(None);
    base.set_fragment(None);
    let path = server.path().trim_end_matches('/');
    if !path.is_empty() {
        base.set_path(&format!("{WELL_KNOWN}{path}"));
        out.push(base.clone());
    }
    base.set_path(WELL_KNOWN);
    out.push(base);
    out.dedup();
    out
}

/// reqwest's rustls needs a process-wide crypto provider; ring is the one built in.
pub(crate) fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The first usable metadata document: one whose `resource` names this server.
async fn discover(server: &Url, challenge: &Challenge) -> Option<ProtectedResourceMetadata> {
    install_crypto_provider();
    let client = reqwest::Client::builder()
        .timeout(FETCH_TIMEOUT)
        .redirect(reqwest::redirect::Policy::limited(3))
        .build()
        .ok()?;
    for url in candidates(server, challenge) {
        if let Some(metadata) = fetch(&client, url).await {
            if names_server(server, &metadata.resource) {
                return Some(metadata);
            }
        }
    }
    None
}

/// GET one document (no credentials, no configured headers), at most [`MAX_METADATA_BYTES`].
async fn fetch(client: &reqwest::Client, url: Url) -> Option<ProtectedResourceMetadata> {
    let mut response = client
        .get(url)
        .header(http::header::ACCEPT, "application/json")
        .send()
        .await
        .ok()?;
    if !response.status().is_success()
        || response
            .content_length()
            .is_some_and(|n| n > MAX_METADATA_BYTES as u64)
    {
        return None;
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.ok()? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_METADATA_BYTES {
            return None;
        }
    }
    serde_json::from_slice(&body).ok()
}

/// Whether a metadata `resource` identifies this server: same origin, and the server's path is
/// the resource's or under it. Anything else is ignored (RFC 9728 §3.3, §7.3): otherwise a
/// server could claim another resource and be handed the tokens pushed for it.
fn names_server(server: &Url, resource: &str) -> bool {
    let Ok(r) = Url::parse(resource) else {
        return false;
    };
    let (rp, sp) = (
        r.path().trim_end_matches('/'),
        server.path().trim_end_matches('/'),
    );
    r.scheme() == server.scheme()
        && r.host_str() == server.host_str()
        && r.port_or_known_default() == server.port_or_known_default()
        && r.fragment().is_none()
        && (sp == rp || sp.starts_with(&format!("{rp}/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_bearer_challenge_among_others() {
        let c = parse_challenge(
            r#"Basic realm="x, y", Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource", scope="files:read files:write", error="insufficient_scope", error_description="needs \"write\"""#,
        );
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://a.example/.well-known/oauth-protected-resource")
        );
        assert_eq!(c.scope.as_deref(), Some("files:read files:write"));
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.error_description.as_deref(), Some(r#"needs "write""#));
        let bare = parse_challenge("Bearer error=invalid_token,scope=read");
        assert_eq!(bare.error.as_deref(), Some("invalid_token"));
        assert_eq!(bare.scope.as_deref(), Some("read"));
        assert_eq!(
            parse_challenge(r#"Basic realm="a", scope="x""#),
            Challenge::default()
        );
        assert_eq!(parse_challenge("Bearer"), Challenge::default());
    }

    #[test]
    fn metadata_candidates_follow_rfc_9728() {
        let server = Url::parse("https://a.example/tools/mcp?x=1").unwrap();
        let found = |c: &Challenge| -> Vec<String> {
            candidates(&server, c).iter().map(Url::to_string).collect()
        };
        assert_eq!(
            found(&Challenge::default()),
            [
                "https://a.example/.well-known/oauth-protected-resource/tools/mcp",
                "https://a.example/.well-known/oauth-protected-resource",
            ]
        );
        let given = Challenge {
            resource_metadata: Some("https://meta.example/prm".into()),
            ..Default::default()
        };
        assert_eq!(found(&given)[0], "https://meta.example/prm");
        let downgrade = Challenge {
            resource_metadata: Some("http://meta.example/prm".into()),
            ..Default::default()
        };
        assert_eq!(found(&downgrade).len(), 2);
    }

    #[test]
    fn metadata_must_name_this_server() {
        let server = Url::parse("https://a.example/tools/mcp").unwrap();
        assert!(names_server(&server, "https://a.example"));
        assert!(names_server(&server, "https://a.example/tools/"));
        assert!(names_server(&server, "https://a.example/tools/mcp"));
        assert!(!names_server(&server, "https://a.example/tool"));
        assert!(!names_server(&server, "https://b.example/tools/mcp"));
        assert!(!names_server(&server, "http://a.example/tools/mcp"));
        assert!(!names_server(&server, "https://a.example:8443/tools/mcp"));
        assert!(!names_server(&server, "not a url"));
    }

    #[test]
    fn tokens_are_checked_and_never_shown() {
        let t = BearerToken::parse("s3cret-token".into()).unwrap();
        assert_eq!(format!("{t:?}"), "BearerToken(<redacted>)");
        assert!(BearerToken::parse(String::new()).is_err());
        let spaced = BearerToken::parse("two words".into()).unwrap_err();
        assert!(!spaced.contains("two"));
    }
}
