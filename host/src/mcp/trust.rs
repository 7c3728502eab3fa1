//! What a client approves when it approves a working directory's MCP server: the declaration's
//! digest (SHA-256 of its normalized JSON) and the text shown before (what would run or be
//! contacted, and from which file). The hub side (waiting, approving, remembering) is
//! `hub/mcp/trust.rs`.

use super::config::ServerSpec;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// `ErrorInfo.errorType` of a server that waits for approval.
pub const NEEDS_APPROVAL: &str = "McpServerNeedsApproval";

/// Longest message shown for a declaration (longer ones are clipped; the file has the rest).
const MAX_SHOWN_CHARS: usize = 4000;

/// The normalized declaration: every field that changes what runs or what is contacted, in a
/// fixed order (maps sorted by key).
fn normalized(spec: &ServerSpec) -> Value {
    match spec {
        ServerSpec::Stdio { command, args, env } => {
            json!({"type": "stdio", "command": command, "args": args, "env": env})
        }
        ServerSpec::Http { url, headers } => {
            json!({"type": "http", "url": url, "headers": headers})
        }
    }
}

/// Hex SHA-256 of the normalized declaration: a changed command, argument, environment
/// variable, URL or header is another digest.
pub fn digest(spec: &ServerSpec) -> String {
    let text = normalized(spec).to_string();
    crate::security::hex(&Sha256::digest(text.as_bytes()))
}

/// The canonical form of a working directory (symbolic links resolved), the key approvals are
/// remembered under.
pub fn canonical_dir(dir: &Path) -> String {
    dir.canonicalize()
        .unwrap_or_else(|_| dir.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// `s` as a JSON-style quoted string that shows every character for what it is: control and
/// invisible or direction-changing characters escaped (`\u202e`), so what is shown is what
/// runs.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || invisible(c) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Format characters that hide or reorder text (zero-width, bidirectional controls, BOM).
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{00ad}' | '\u{061c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}')
}

fn quoted_list(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|s| quoted(s)).collect();
    format!("[{}]", items.join(", "))
}

fn quoted_map(map: &BTreeMap<String, String>, values: bool) -> String {
    let items: Vec<String> = map
        .iter()
        .map(|(k, v)| match values {
            true => format!("{}: {}", quoted(k), quoted(v)),
            false => quoted(k),
        })
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// What the server would do: the command, its arguments and environment (values shown: they
/// change what runs), or the URL and the names of its headers (values hidden: they are sent,
/// not run).
pub fn describe(spec: &ServerSpec) -> String {
    match spec {
        ServerSpec::Stdio { command, args, env } => {
            let mut text = format!("runs the command {}", quoted(command));
            if !args.is_empty() {
                text.push_str(&format!(" with arguments {}", quoted_list(args)));
            }
            if !env.is_empty() {
                text.push_str(&format!(" and environment {}", quoted_map(env, true)));
            }
            text
        }
        ServerSpec::Http { url, headers } => {
            let mut text = format!("connects to {}", quoted(url));
            if !headers.is_empty() {
                let names: Vec<String> = headers.keys().cloned().collect();
                text.push_str(&format!(" sending headers {}", quoted_list(&names)));
            }
            text
        }
    }
}

/// The message of a server waiting for approval: which file declares it, what it would do, and
/// how to approve it.
pub fn awaiting_message(spec: &ServerSpec, source: &Path, workdir: &str) -> String {
    let mut what = describe(spec);
    if what.chars().count() > MAX_SHOWN_CHARS {
        what = what.chars().take(MAX_SHOWN_CHARS).collect();
        what.push_str("… (clipped; the file holds the rest)");
    }
    format!(
        "Waiting for approval: the working directory's {} declares this server; it {what} \
         (in {}). Enable it to approve this exact declaration for this directory; a changed \
         declaration waits for approval again.",
        quoted(&source.to_string_lossy()),
        quoted(workdir),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(command: &str, args: &[&str], env: &[(&str, &str)]) -> ServerSpec {
        ServerSpec::Stdio {
            command: command.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn every_field_that_changes_what_runs_changes_the_digest() {
        let base = stdio("node", &["s.js"], &[("K", "V")]);
        assert_eq!(digest(&base), digest(&base.clone()));
        assert_eq!(digest(&base).len(), 64);
        for other in [
            stdio("nodejs", &["s.js"], &[("K", "V")]),
            stdio("node", &["s.js", "-x"], &[("K", "V")]),
            stdio("node", &["s.js"], &[("K", "W")]),
            stdio("node", &["s.js"], &[("K", "V"), ("NODE_OPTIONS", "-r x")]),
            // An argument split differently is another declaration.
            stdio("node", &["s.js -x"], &[("K", "V")]),
        ] {
            assert_ne!(digest(&base), digest(&other), "{other:?}");
        }
        let http = |url: &str, h: &str| ServerSpec::Http {
            url: url.into(),
            headers: [("X".to_owned(), h.to_owned())].into(),
        };
        assert_ne!(
            digest(&http("http://a/mcp", "1")),
            digest(&http("http://b/mcp", "1"))
        );
        assert_ne!(
            digest(&http("http://a/mcp", "1")),
            digest(&http("http://a/mcp", "2"))
        );
    }

    #[test]
    fn what_is_shown_is_what_runs() {
        let spec = stdio(
            "sh",
            &["-c", "echo \"hi\"\n", "a\u{202e}b"],
            &[("NODE_OPTIONS", "--require x")],
        );
        let text = describe(&spec);
        assert_eq!(
            text,
            "runs the command \"sh\" with arguments [\"-c\", \"echo \\\"hi\\\"\\n\", \
             \"a\\u202eb\"] and environment {\"NODE_OPTIONS\": \"--require x\"}"
        );
        let http = ServerSpec::Http {
            url: "https://x.example/mcp".into(),
            headers: [("X-Key".to_owned(), "secret".to_owned())].into(),
        };
        let text = describe(&http);
        assert!(text.contains("\"https://x.example/mcp\"") && text.contains("\"X-Key\""));
        assert!(!text.contains("secret"));
        let long = stdio("x", &[&"a".repeat(10_000)], &[]);
        let message = awaiting_message(&long, Path::new("/w/.mcp.json"), "/w");
        assert!(message.len() < 5000 && message.contains("clipped"));
        assert!(message.contains("\"/w/.mcp.json\""));
    }
}
