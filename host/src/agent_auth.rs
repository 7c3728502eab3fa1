//! Authentication of the built-in agent (spec/authentication.md): its protected resource and
//! the secret that unlocks it.
//!
//! With `--agent-auth-token-file FILE` the agent declares one protected resource in
//! `AgentInfo.protectedResources` (RFC 9728 metadata, `required: true`). A connection may use
//! the agent (create a session, start or queue a turn) only after `authenticate` with that
//! resource and the file's token; the unlock lasts `--agent-auth-ttl` seconds, then the
//! connection gets `auth/required` (reason `expired`) and is refused again until it
//! authenticates anew. Authentication is per connection (the spec keeps it out of the shared
//! state because "each client authenticates independently"); the hub keeps that part
//! (`hub/agent_auth.rs`).
//!
//! Why a file: a token on the command line is visible to every local user in `ps`, and one in
//! the environment reaches every child process (shells, MCP servers). The file is read once at
//! start; only the SHA-256 of the token stays in memory, and presented tokens are compared
//! digest to digest in constant time (so neither their content nor their length leaks through
//! timing). Nothing of it is logged, stored in the database or put in an error message.

use crate::security::constant_time_eq;
use ahp_wasm::protocol::ProtectedResourceMetadata;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The default resource identifier: a `.localhost` name (RFC 6761) says the resource is this
/// host itself, with the `https` scheme the schema asks of a resource identifier.
pub const DEFAULT_RESOURCE: &str = "https://ahp-host.localhost/agents/builtin";

/// How long an unlock lasts by default.
pub const DEFAULT_TTL: Duration = Duration::from_secs(3600);

/// Largest token file read.
const MAX_FILE_BYTES: u64 = 16 << 10;

/// What the flags ask for: the agent is protected by the token in `token_file`.
#[derive(Debug, Clone)]
pub struct AgentAuthConfig {
    /// `--agent-auth-token-file`.
    pub token_file: PathBuf,
    /// `--agent-auth-resource`: the resource identifier clients name in `authenticate`.
    pub resource: String,
    /// `--agent-auth-ttl`: how long one `authenticate` unlocks the agent for a connection.
    pub ttl: Duration,
}

/// The loaded lock: the token's digest and the metadata the agent declares.
pub struct AgentLock {
    digest: [u8; 32],
    /// The declared resource (`AgentInfo.protectedResources[0]`).
    pub metadata: ProtectedResourceMetadata,
    /// How long an unlock lasts.
    pub ttl: Duration,
}

impl std::fmt::Debug for AgentLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentLock")
            .field("resource", &self.metadata.resource)
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl AgentLock {
    /// Reads the token file: one line (a final newline is ignored) of at least 16 visible ASCII
    /// characters. Errors name the file, never its content.
    pub fn load(config: &AgentAuthConfig) -> Result<AgentLock, String> {
        let resource = &config.resource;
        if !resource.starts_with("https://") || resource.contains('#') || resource.len() > 2048 {
            return Err(format!(
                "--agent-auth-resource must be an https URL without a fragment (RFC 9728), \
                 got `{resource}`"
            ));
        }
        if config.ttl.is_zero() {
            return Err("--agent-auth-ttl must be at least 1 second".into());
        }
        let token = read_token(&config.token_file)?;
        warn_if_readable_by_others(&config.token_file);
        Ok(AgentLock {
            digest: Sha256::digest(token.as_bytes()).into(),
            metadata: ProtectedResourceMetadata {
                resource: resource.clone(),
                resource_name: Some("ahp-host built-in agent".into()),
                // Tokens are issued out of band by whoever runs the host (the file), not by an
                // OAuth authorization server: none is declared.
                required: Some(true),
                ..Default::default()
            },
            ttl: config.ttl,
        })
    }

    /// Whether `presented` is the token (constant time, digest against digest).
    pub fn matches(&self, presented: &str) -> bool {
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        constant_time_eq(&digest, &self.digest)
    }

    /// The declared resource identifier.
    pub fn resource(&self) -> &str {
        &self.metadata.resource
    }
}

fn read_token(path: &Path) -> Result<String, String> {
    let name = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("agent token file {name}: {e}"))?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "agent token file {name}: not a regular file of at most {MAX_FILE_BYTES} bytes"
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("agent token file {name}: cannot read it as text ({e})"))?;
    let token = text
        .strip_suffix('\n')
        .map(|t| t.strip_suffix('\r').unwrap_or(t))
        .unwrap_or(&text);
    if token.len() < 16 || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(format!(
            "agent token file {name}: the token must be one line of at least 16 visible ASCII \
             characters"
        ));
    }
    Ok(token.to_owned())
}

/// A token file others can read protects nothing: say so (the host still starts, as with an
/// `ssh` key the operator may have reasons for).
fn warn_if_readable_by_others(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path) {
            if meta.permissions().mode() & 0o077 != 0 {
                eprintln!(
                    "ahp-host: WARNING: the agent token file {} is accessible to other users \
                     (chmod 600 it)",
                    path.display()
                );
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &Path, content: &str) -> AgentAuthConfig {
        let token_file = dir.join("token");
        std::fs::write(&token_file, content).unwrap();
        AgentAuthConfig {
            token_file,
            resource: DEFAULT_RESOURCE.into(),
            ttl: DEFAULT_TTL,
        }
    }

    #[test]
    fn the_file_holds_one_line_and_only_its_digest_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let lock = AgentLock::load(&config(dir.path(), "0123456789abcdef-secret\n")).unwrap();
        assert!(lock.matches("0123456789abcdef-secret"));
        assert!(!lock.matches("0123456789abcdef-secret\n"));
        assert!(!lock.matches("0123456789abcdef-secreT"));
        assert!(!lock.matches(""));
        assert!(!format!("{lock:?}").contains("secret"));
        assert_eq!(lock.metadata.required, Some(true));
        assert_eq!(lock.resource(), DEFAULT_RESOURCE);
    }

    #[test]
    fn short_or_multi_line_tokens_and_bad_resources_are_refused_without_the_token() {
        let dir = tempfile::tempdir().unwrap();
        let short = AgentLock::load(&config(dir.path(), "tooshort")).unwrap_err();
        assert!(!short.contains("tooshort"), "{short}");
        let two = AgentLock::load(&config(dir.path(), "0123456789abcdef\nsecond-line-here\n"));
        assert!(!two.unwrap_err().contains("second-line-here"));
        let mut c = config(dir.path(), "0123456789abcdef");
        c.resource = "http://example.com".into();
        assert!(AgentLock::load(&c).is_err());
        c.resource = DEFAULT_RESOURCE.into();
        c.ttl = Duration::ZERO;
        assert!(AgentLock::load(&c).is_err());
        c.ttl = DEFAULT_TTL;
        c.token_file = dir.path().join("missing");
        assert!(AgentLock::load(&c).is_err());
    }
}
