//! The directive syntax of the built-in agent: lines of the user message that start with `/`.
//! Every other line is prose, which the agent echoes. See host/README.md for the table.

use crate::completions::DirectiveInfo;

/// One directive, in message order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Directive {
    /// `/tool list [path]`: the server tool `list_files` (needs confirmation).
    ToolList(String),
    /// `/tool read <path>`: the server tool `read_file` (needs confirmation).
    ToolRead(String),
    /// `/client-tool <name> [json]`: a tool of the active client, completed by that client.
    ClientTool {
        /// Tool name, as in `activeClient.tools`.
        name: String,
        /// Raw tool input (JSON text, `{}` when omitted).
        input: String,
    },
    /// `/mcp <server> <tool> [json]`: a tool of a ready MCP server of the session (needs
    /// confirmation, like the other server tools).
    Mcp {
        /// The server's name (its key in `mcpServers`).
        server: String,
        /// The MCP tool name.
        tool: String,
        /// Raw arguments (a JSON object as text, `{}` when omitted).
        input: String,
    },
    /// `/write <file> <text>`: the server tool `write_file` writes `text` (`\n` is a line
    /// break, `\\` a backslash) to `file` in the working directory; no confirmation.
    Write {
        /// Path relative to the working directory.
        path: String,
        /// The content, escapes resolved.
        text: String,
    },
    /// `/ask <question>`: a `session/inputRequested` with one text question.
    Ask(String),
    /// `/fail <message>`: ends the turn with `session/error`.
    Fail(String),
    /// `/title <text>`: renames the session.
    Title(String),
    /// `/prompt`: shows the turn's system prompt (after customizations and transforms).
    Prompt,
    /// `/run [--timeout <secs>] <command>`: runs the command in a terminal of the session
    /// (see `run.rs`); `/run --background <command>` leaves it running there as the chat's
    /// background work.
    Run {
        /// The command line.
        command: String,
        /// How long to wait for it, in seconds.
        timeout_secs: u64,
        /// The call returns once the command started; it runs on as background work.
        background: bool,
    },
    /// `/annotate <file>:<line> <text>`: an annotation on line `line` (1-based) of a file of
    /// the working directory, in the session's annotations channel (`hub/annotations.rs`).
    Annotate {
        /// Path relative to the working directory.
        path: String,
        /// 1-based line.
        line: u32,
        /// The annotation's first entry.
        text: String,
    },
    /// `/canvas [--file <path>] <title>`: opens a canvas the host serves (`hub/canvases.rs`),
    /// from its built-in template or from an HTML file of the working directory.
    Canvas {
        /// The canvas's title.
        title: String,
        /// The HTML file, relative to the working directory.
        file: Option<String>,
    },
    /// `/slow`: 250 ms between chunks from here on.
    Slow,
    /// `/fast`: no delay between chunks from here on.
    Fast,
    /// `/long <n>`: streams `n` extra markdown chunks (at most 100 000).
    Long(usize),
    /// `/stream <n> [per-second]`: `n` markdown chunks (at most 100 000) `"<i> <unix µs>\n"`,
    /// each stamped with the host's clock when the agent emits it, paced at `per_second`
    /// (0 or absent: as fast as the hub takes them). For load tests: a subscriber measures the
    /// latency from emit to receipt.
    Stream {
        /// Chunks.
        count: usize,
        /// Chunks per second (0: unpaced).
        per_second: u64,
    },
}

/// The directives and the prose of a message.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Directives in order.
    pub directives: Vec<Directive>,
    /// The non-directive lines, joined.
    pub prose: String,
}

/// The largest `/long` count.
pub const MAX_LONG: usize = 100_000;

/// How long `/run` waits by default, and at most, in seconds.
pub const RUN_TIMEOUT_SECS: (u64, u64) = (60, 3600);

/// Every directive form, in the order completions list them. [`parse`] reads only the words
/// listed here: a `/` line whose first word is not one of them is prose.
pub const CATALOGUE: &[DirectiveInfo] = &[
    DirectiveInfo {
        words: "tool list",
        args: "[path]",
        summary: "list files with the server tool `list_files` (asks for confirmation)",
    },
    DirectiveInfo {
        words: "tool read",
        args: "<path>",
        summary: "read a file with the server tool `read_file` (asks for confirmation)",
    },
    DirectiveInfo {
        words: "client-tool",
        args: "<name> [json]",
        summary: "call a tool of the active client",
    },
    DirectiveInfo {
        words: "mcp",
        args: "<server> <tool> [json]",
        summary: "call a tool of a ready MCP server of the session (asks for confirmation)",
    },
    DirectiveInfo {
        words: "write",
        args: "<file> <text>",
        summary: "write text to a file of the working directory (`\\n` for a line break)",
    },
    DirectiveInfo {
        words: "ask",
        args: "<question>",
        summary: "ask the user a question",
    },
    DirectiveInfo {
        words: "fail",
        args: "[message]",
        summary: "end the turn with an error",
    },
    DirectiveInfo {
        words: "title",
        args: "<text>",
        summary: "rename the session",
    },
    DirectiveInfo {
        words: "prompt",
        args: "",
        summary: "show the turn's system prompt",
    },
    DirectiveInfo {
        words: "run",
        args: "[--timeout <secs>] <command>",
        summary: "run a shell command in a terminal of the session and wait for it",
    },
    DirectiveInfo {
        words: "annotate",
        args: "<file>:<line> <text>",
        summary: "annotate a line of a file of the working directory",
    },
    DirectiveInfo {
        words: "canvas",
        args: "[--file <path>] <title>",
        summary: "open a canvas (a built-in page, or an HTML file of the working directory)",
    },
    DirectiveInfo {
        words: "slow",
        args: "",
        summary: "250 ms between chunks from here on",
    },
    DirectiveInfo {
        words: "fast",
        args: "",
        summary: "no delay between chunks from here on",
    },
    DirectiveInfo {
        words: "long",
        args: "<n>",
        summary: "stream n more lines",
    },
    DirectiveInfo {
        words: "stream",
        args: "<n> [per-second]",
        summary: "stream n timestamped chunks (load tests)",
    },
];

/// Splits a message into directives and prose. Unknown or malformed `/` lines are prose.
pub fn parse(text: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let mut prose = Vec::new();
    for line in text.lines() {
        match parse_line(line.trim()) {
            Some(d) => parsed.directives.push(d),
            None => prose.push(line),
        }
    }
    parsed.prose = prose.join("\n").trim().to_owned();
    parsed
}

/// `text`'s first word and what follows the white space after it; `text` and `otherwise` for
/// a single word. (The line's argument is trimmed at the end already.)
fn first_word<'a>(text: &'a str, otherwise: &'a str) -> (&'a str, &'a str) {
    match text.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim_start()),
        None => (text, otherwise),
    }
}

fn parse_line(line: &str) -> Option<Directive> {
    let rest = line.strip_prefix('/')?;
    let (word, arg) = first_word(rest, "");
    let arg = arg.trim_end();
    if !CATALOGUE
        .iter()
        .any(|d| d.words.split(' ').next() == Some(word))
    {
        return None;
    }
    Some(match word {
        "tool" => {
            let (sub, path) = first_word(arg, "");
            match sub {
                "list" => Directive::ToolList(if path.is_empty() {
                    ".".into()
                } else {
                    path.into()
                }),
                "read" if !path.is_empty() => Directive::ToolRead(path.into()),
                _ => return None,
            }
        }
        "client-tool" if !arg.is_empty() => {
            let (name, input) = first_word(arg, "{}");
            Directive::ClientTool {
                name: name.into(),
                input: input.into(),
            }
        }
        "mcp" => {
            let (server, rest) = arg.split_once(char::is_whitespace)?;
            let rest = rest.trim();
            let (tool, input) = first_word(rest, "{}");
            if tool.is_empty() {
                return None;
            }
            Directive::Mcp {
                server: server.into(),
                tool: tool.into(),
                input: input.into(),
            }
        }
        "write" if !arg.is_empty() => {
            let (path, text) = first_word(arg, "");
            Directive::Write {
                path: path.into(),
                text: unescape(text),
            }
        }
        "ask" if !arg.is_empty() => Directive::Ask(arg.into()),
        "fail" => Directive::Fail(if arg.is_empty() {
            "failed on request".into()
        } else {
            arg.into()
        }),
        "title" if !arg.is_empty() => Directive::Title(arg.into()),
        "prompt" if arg.is_empty() => Directive::Prompt,
        "run" => parse_run(arg)?,
        "annotate" => {
            let (place, text) = arg.split_once(char::is_whitespace)?;
            let (path, line) = place.rsplit_once(':')?;
            let line = line.parse::<u32>().ok().filter(|l| *l >= 1)?;
            let text = text.trim();
            if path.is_empty() || text.is_empty() {
                return None;
            }
            Directive::Annotate {
                path: path.into(),
                line,
                text: text.into(),
            }
        }
        "canvas" => {
            let (file, title) = match arg.strip_prefix("--file") {
                Some(rest) if rest.starts_with(char::is_whitespace) => {
                    let (path, title) = first_word(rest.trim_start(), "");
                    (Some(path.to_owned()), title)
                }
                _ => (None, arg),
            };
            if title.is_empty() {
                return None;
            }
            Directive::Canvas {
                title: title.into(),
                file,
            }
        }
        "slow" if arg.is_empty() => Directive::Slow,
        "fast" if arg.is_empty() => Directive::Fast,
        "long" => Directive::Long(arg.parse::<usize>().ok()?.min(MAX_LONG)),
        "stream" => {
            let mut words = arg.split_whitespace();
            let count = words.next()?.parse::<usize>().ok()?.min(MAX_LONG);
            let per_second = match words.next() {
                Some(rate) => rate.parse::<u64>().ok()?,
                None => 0,
            };
            if words.next().is_some() {
                return None;
            }
            Directive::Stream { count, per_second }
        }
        _ => return None,
    })
}

/// `[--timeout <secs>] <command>` or `--background <command>`.
fn parse_run(arg: &str) -> Option<Directive> {
    let flag = arg
        .strip_prefix("--background")
        .filter(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace));
    if let Some(rest) = flag {
        let command = rest.trim();
        return (!command.is_empty()).then(|| Directive::Run {
            command: command.into(),
            timeout_secs: RUN_TIMEOUT_SECS.0,
            background: true,
        });
    }
    let (timeout_secs, command) = match arg.strip_prefix("--timeout") {
        Some(rest) if rest.starts_with(char::is_whitespace) => {
            let (secs, command) = rest.trim_start().split_once(char::is_whitespace)?;
            let secs = secs.parse::<u64>().ok()?.clamp(1, RUN_TIMEOUT_SECS.1);
            (secs, command.trim())
        }
        _ => (RUN_TIMEOUT_SECS.0, arg),
    };
    if command.is_empty() {
        return None;
    }
    Some(Directive::Run {
        command: command.into(),
        timeout_secs,
        background: false,
    })
}

/// `\n` → line break, `\\` → `\`; any other backslash stays as it is.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalogue and the parser agree: every form parses (with sample arguments), and a
    /// word the catalogue leaves out is prose.
    #[test]
    fn the_catalogue_lists_what_parses() {
        let sample = |args: &str| {
            args.split(' ')
                .filter(|a| !a.is_empty())
                .map(|a| match a {
                    "<n>" => "3",
                    "[per-second]" => "10",
                    "[json]" => "{}",
                    "[--timeout" => "--timeout",
                    "<secs>]" => "5",
                    "<file>:<line>" => "a.txt:3",
                    "[--file" => "--file",
                    "<path>]" => "page.html",
                    _ => "x",
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        for d in CATALOGUE {
            let line = format!("/{} {}", d.words, sample(d.args));
            assert_eq!(parse(&line).directives.len(), 1, "{line}");
            assert!(d.usage().starts_with(&format!("/{}", d.words)));
        }
        assert_eq!(CATALOGUE.len(), 16);
        assert!(parse("/frobnicate now").directives.is_empty());
    }

    #[test]
    fn parses_every_directive_and_keeps_prose() {
        let p = parse(
            "Hello there\n/tool list\n/tool list src\n/tool read a b.txt\n/client-tool pick {\"n\":1}\n\
             /client-tool ping\n/ask Your name?\n/fail boom\n/fail\n/title New name\n/slow\n/fast\n\
             /long 3\n/long lots\n/stream 5\n/stream 7 100\n/stream 1 fast\n/unknown thing\nBye",
        );
        use Directive::*;
        assert_eq!(
            p.directives,
            vec![
                ToolList(".".into()),
                ToolList("src".into()),
                ToolRead("a b.txt".into()),
                ClientTool {
                    name: "pick".into(),
                    input: "{\"n\":1}".into()
                },
                ClientTool {
                    name: "ping".into(),
                    input: "{}".into()
                },
                Ask("Your name?".into()),
                Fail("boom".into()),
                Fail("failed on request".into()),
                Title("New name".into()),
                Slow,
                Fast,
                Long(3),
                Stream {
                    count: 5,
                    per_second: 0
                },
                Stream {
                    count: 7,
                    per_second: 100
                },
            ]
        );
        assert_eq!(
            p.prose,
            "Hello there\n/long lots\n/stream 1 fast\n/unknown thing\nBye"
        );
        assert_eq!(parse("/long 99999999").directives, vec![Long(MAX_LONG)]);
        assert_eq!(
            parse("/write a.txt one\\ntwo \\\\n\\x\n/write empty.txt\n/write").directives,
            vec![
                Write {
                    path: "a.txt".into(),
                    text: "one\ntwo \\n\\x".into()
                },
                Write {
                    path: "empty.txt".into(),
                    text: String::new()
                },
            ]
        );
        assert_eq!(parse("/tool read").directives, vec![]);
        assert_eq!(
            parse("/annotate src/a.rs:12 look here\n/annotate a.rs:0 x\n/annotate a.rs nope\n/annotate a.rs:2")
                .directives,
            vec![Annotate {
                path: "src/a.rs".into(),
                line: 12,
                text: "look here".into()
            }]
        );
        assert_eq!(
            parse("/canvas My board\n/canvas --file web/p.html Board\n/canvas").directives,
            vec![
                Canvas {
                    title: "My board".into(),
                    file: None
                },
                Canvas {
                    title: "Board".into(),
                    file: Some("web/p.html".into())
                },
            ]
        );
        assert_eq!(
            parse(
                "/run echo hi\n/run --timeout 2 sleep 9\n/run\n/run --timeout x y\n\
                 /run --background sleep 5\n/run --background\n/run --backgroundx"
            )
            .directives,
            vec![
                Run {
                    command: "echo hi".into(),
                    timeout_secs: RUN_TIMEOUT_SECS.0,
                    background: false,
                },
                Run {
                    command: "sleep 9".into(),
                    timeout_secs: 2,
                    background: false,
                },
                Run {
                    command: "sleep 5".into(),
                    timeout_secs: RUN_TIMEOUT_SECS.0,
                    background: true,
                },
                Run {
                    command: "--backgroundx".into(),
                    timeout_secs: RUN_TIMEOUT_SECS.0,
                    background: false,
                },
            ]
        );
        assert_eq!(
            parse("/mcp basic get-time\n/mcp s t {\"a\": 1}\n/mcp lonely").directives,
            vec![
                Mcp {
                    server: "basic".into(),
                    tool: "get-time".into(),
                    input: "{}".into()
                },
                Mcp {
                    server: "s".into(),
                    tool: "t".into(),
                    input: "{\"a\": 1}".into()
                },
            ]
        );
    }
}
