//! The client [`Source`]: a plugin a client published (`virtual://…` or any URI) is read back
//! from that client with `resourceList` and `resourceRead` (AHP's `resource*` commands are
//! symmetrical), never from the host's disk. Each request is bounded by a timeout; a listing
//! and a file by the bounds of the scan; names must be plain (no `/`, `.` or `..`).

use super::scan::{Entry, Failure, Listed, Source};
use crate::bus::{ConnHandle, ConnId};
use crate::peer::{PeerError, PeerRequests};
use ahp_wasm::protocol::errors;
use base64::Engine;
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// A published plugin, read through the client's connection.
pub struct ClientSource {
    /// Outstanding requests to clients.
    pub peer: Arc<PeerRequests>,
    /// The client's connection.
    pub conn: ConnId,
    /// Its queue.
    pub handle: ConnHandle,
    /// The plugin's URI (its root).
    pub base: String,
    /// How long one request may take.
    pub timeout: Duration,
}

#[derive(Deserialize)]
struct ListResult {
    entries: Vec<ListEntry>,
}

#[derive(Deserialize)]
struct ListEntry {
    name: String,
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct ReadResult {
    data: String,
    #[serde(default)]
    encoding: Option<String>,
}

/// Whether a name from a client is a plain file name.
fn plain(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
}

impl ClientSource {
    fn uri(&self, rel: &str) -> String {
        let base = self.base.trim_end_matches('/');
        if rel.is_empty() {
            base.to_owned()
        } else {
            format!("{base}/{rel}")
        }
    }

    async fn call(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<Option<String>, Failure> {
        let answer = self
            .peer
            .request(self.conn, &self.handle, method, &params, self.timeout)
            .await;
        match answer {
            Ok(result) => Ok(Some(result)),
            Err(PeerError::Rpc(e)) if e.code == errors::NOT_FOUND => Ok(None),
            Err(PeerError::Rpc(e)) => Err(Failure::Skip(format!(
                "the client answered {} ({})",
                e.code,
                super::frontmatter::clean(&e.message, 200)
            ))),
            Err(e) => Err(Failure::Fatal(format!("reading {}: {e}", self.uri("")))),
        }
    }
}

impl Source for ClientSource {
    async fn list(&self, rel: &str, max: usize) -> Result<Listed, Failure> {
        let params = json!({"channel": "ahp-root://", "uri": self.uri(rel)});
        let Some(text) = self.call("resourceList", params).await? else {
            return Ok(Listed::Missing);
        };
        let result: ListResult = serde_json::from_str(&text).map_err(|_| {
            Failure::Skip("the client's listing is not a resourceList result".into())
        })?;
        let truncated = result.entries.len() > max;
        let entries = result
            .entries
            .into_iter()
            .take(max)
            .map(|e| {
                if !plain(&e.name) {
                    let shown = super::frontmatter::clean(&e.name, 64);
                    return Entry::Skipped(shown, "not a plain file name".into());
                }
                match e.kind.as_str() {
                    "file" => Entry::File(e.name),
                    "directory" => Entry::Dir(e.name),
                    _ => Entry::Skipped(e.name, "neither a file nor a directory".into()),
                }
            })
            .collect();
        Ok(Listed::Entries { entries, truncated })
    }

    async fn read(&self, rel: &str, max_bytes: usize) -> Result<Option<String>, Failure> {
        let params = json!({"channel": "ahp-root://", "uri": self.uri(rel), "encoding": "utf-8"});
        let Some(text) = self.call("resourceRead", params).await? else {
            return Ok(None);
        };
        let result: ReadResult = serde_json::from_str(&text).map_err(|_| {
            Failure::Skip("the client's answer is not a resourceRead result".into())
        })?;
        let data = match result.encoding.as_deref() {
            Some("base64") => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(result.data.as_bytes())
                    .map_err(|_| Failure::Skip("invalid base64".into()))?;
                String::from_utf8(bytes).map_err(|_| Failure::Skip("not UTF-8 text".into()))?
            }
            _ => result.data,
        };
        if data.len() > max_bytes {
            return Err(Failure::Skip(format!(
                "{} bytes, over the limit of {max_bytes}",
                data.len()
            )));
        }
        Ok(Some(data))
    }
}
