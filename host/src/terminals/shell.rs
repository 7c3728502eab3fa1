//! Shell integration: command detection for bash (spec/terminal-channel.md, "Command
//! detection").
//!
//! A bash terminal starts with `--rcfile` reading [`script`] from a pipe (see `Pty::spawn`:
//! no file to write or clean up). The script sources the user's own `~/.bashrc` first, then reports,
//! as OSC 633 escape sequences (the ones VS Code uses):
//!
//! - `ESC ] 633 ; E ; <command line> ; <nonce> BEL` and `ESC ] 633 ; C ; <nonce> BEL` from `PS0`
//!   (bash expands it after reading a command line, before running it);
//! - `ESC ] 633 ; D ; <exit code> ; <nonce> BEL` and `ESC ] 633 ; P ; Cwd=<dir> ; <nonce> BEL`
//!   from `PROMPT_COMMAND` (before each prompt).
//!
//! The host keeps the command state itself (a `D` without a preceding `C` is the first prompt or
//! an empty line), so the script needs no state of its own. The nonce, written into the script
//! (never into an environment: no process's `/proc/<pid>/environ` shows it), keeps a program's
//! output (`cat` of a hostile file) from faking command boundaries: sequences with a wrong nonce
//! are stripped and ignored. It does not keep a command that runs *in* the shell (a typed line,
//! a sourced script: they can read `$__ahp_nonce`) or that reads the shell's memory (same user)
//! from faking them: what shell integration reports is for display, and the host decides
//! nothing on it (the agent's `/run` takes a command's exit code from the process, see
//! `Program::Command`). [`OscParser`] strips every OSC 633 sequence from the output (the spec forbids
//! them in `terminal/data`) and reads window titles (OSC 0 and 2, kept in the output for
//! clients' own emulators). It works on bytes as they come from the pty, across reads, with a
//! bounded buffer.

use crate::bus::ShellEvent;

/// The rcfile, with `@NONCE@` for the nonce. `__ahp_nonce` is not exported: child processes do
/// not see it.
const SCRIPT: &str = r#"# ahp-host shell integration (OSC 633), then the user's own ~/.bashrc.
if [ -z "$__ahp_loaded" ]; then
__ahp_loaded=1
__ahp_nonce=@NONCE@
if [ -f "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi
__ahp_escape() {
  local s="$1"
  s="${s//\\/\\\\}"
  s="${s//;/\\x3b}"
  s="${s//$'\n'/\\x0a}"
  s="${s//$'\r'/\\x0d}"
  s="${s//$'\a'/\\x07}"
  s="${s//$'\e'/\\x1b}"
  printf '%s' "$s"
}
__ahp_ps0() {
  local line
  line="$(HISTTIMEFORMAT= builtin history 1)"
  line="${line#"${line%%[![:space:]]*}"}"
  line="${line#*[[:space:]]}"
  line="${line#"${line%%[![:space:]]*}"}"
  printf '\e]633;E;%s;%s\a\e]633;C;%s\a' "$(__ahp_escape "$line")" "$__ahp_nonce" "$__ahp_nonce"
}
__ahp_precmd() {
  local code=$?
  printf '\e]633;D;%s;%s\a\e]633;P;Cwd=%s;%s\a' "$code" "$__ahp_nonce" "$(__ahp_escape "$PWD")" "$__ahp_nonce"
  return $code
}
PS0='$(__ahp_ps0)'"$PS0"
PROMPT_COMMAND="__ahp_precmd${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
fi
"#;

/// The longest OSC 633 sequence kept (a command line); longer ones are dropped whole.
pub const MAX_SEQUENCE: usize = 16 * 1024;
/// The longest window title kept, in bytes (the rest of it is cut).
const MAX_TITLE: usize = 1024;

/// Whether `shell` is bash (the one shell the integration supports).
pub fn is_bash(shell: &str) -> bool {
    std::path::Path::new(shell)
        .file_name()
        .is_some_and(|n| n == "bash")
}

/// The rcfile of a terminal whose nonce is `nonce` (from [`nonce`]: hex, nothing to quote).
pub fn script(nonce: &str) -> String {
    debug_assert!(nonce.bytes().all(|b| b.is_ascii_hexdigit()));
    SCRIPT.replace("@NONCE@", nonce)
}

/// A fresh nonce for one terminal.
pub fn nonce() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the OS random source");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A piece of the output stream: bytes for `terminal/data`, or an event between them.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece {
    /// Output.
    Data(Vec<u8>),
    /// A shell event.
    Event(ShellEvent),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Ground,
    /// After ESC.
    Esc,
    /// After `ESC ]`, collecting the sequence in `buf`.
    Osc,
    /// ESC inside an OSC (a string terminator `ESC \` follows, or the OSC is cut short).
    OscEsc,
}

/// Splits pty output into output and shell events (see the module docs). Memory is bounded by
/// [`MAX_SEQUENCE`]: a longer OSC 633 is dropped, a longer other OSC passes through unparsed.
#[derive(Debug)]
pub struct OscParser {
    nonce: String,
    state: State,
    /// The OSC being read (after `ESC ]`).
    buf: Vec<u8>,
    /// The OSC is passed through (not ours), only its title collected when it is one.
    passing: bool,
    /// An OSC 633 over the limit: dropped up to its end.
    dropping: bool,
    out: Vec<u8>,
    pieces: Vec<Piece>,
}

impl OscParser {
    /// A parser accepting events signed with `nonce`.
    pub fn new(nonce: String) -> OscParser {
        OscParser {
            nonce,
            state: State::Ground,
            buf: Vec::new(),
            passing: false,
            dropping: false,
            out: Vec::new(),
            pieces: Vec::new(),
        }
    }

    /// Feeds a chunk of output; returns what is complete. An unfinished escape sequence at the
    /// end waits for the next chunk.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Piece> {
        for &b in bytes {
            self.byte(b);
        }
        self.flush_out();
        std::mem::take(&mut self.pieces)
    }

    fn flush_out(&mut self) {
        if !self.out.is_empty() {
            self.pieces.push(Piece::Data(std::mem::take(&mut self.out)));
        }
    }

    fn byte(&mut self, b: u8) {
        match self.state {
            State::Ground => {
                if b == 0x1b {
                    self.state = State::Esc;
                } else {
                    self.out.push(b);
                }
            }
            State::Esc => {
                if b == b']' {
                    self.state = State::Osc;
                    self.buf.clear();
                    self.passing = false;
                    self.dropping = false;
                } else {
                    self.out.push(0x1b);
                    self.state = State::Ground;
                    self.byte(b);
                }
            }
            State::Osc => match b {
                0x07 => self.end_osc(b"\x07"),
                0x1b => self.state = State::OscEsc,
                // CAN and SUB cancel a sequence.
                0x18 | 0x1a => self.cancel_osc(b),
                _ => self.osc_byte(b),
            },
            State::OscEsc => {
                if b == b'\\' {
                    self.end_osc(b"\x1b\\");
                } else {
                    // Cut short by another escape sequence: the OSC ends here unterminated.
                    self.cancel_osc(0x1b);
                    self.state = State::Esc;
                    self.byte(b);
                }
            }
        }
    }

    /// A byte of an OSC body.
    fn osc_byte(&mut self, b: u8) {
        if self.passing {
            self.out.push(b);
            if self.buf.len() < MAX_TITLE {
                self.buf.push(b);
            }
            return;
        }
        if self.dropping {
            return;
        }
        self.buf.push(b);
        if self.is_ours() {
            if self.buf.len() > MAX_SEQUENCE {
                self.dropping = true;
                self.buf = Vec::new();
            }
            return;
        }
        if b"633;".starts_with(&self.buf) {
            return; // Not decided yet.
        }
        // Someone else's OSC: pass it through from its start.
        self.out.extend_from_slice(b"\x1b]");
        self.out.extend_from_slice(&self.buf);
        self.passing = true;
    }

    fn is_ours(&self) -> bool {
        self.buf.starts_with(b"633;")
    }

    fn end_osc(&mut self, terminator: &[u8]) {
        self.state = State::Ground;
        if self.passing {
            self.out.extend_from_slice(terminator);
            if let Some(title) = title(&self.buf) {
                self.flush_out();
                self.pieces.push(Piece::Event(ShellEvent::Title(title)));
            }
        } else if !self.dropping {
            if self.is_ours() {
                if let Some(event) = self.event() {
                    self.flush_out();
                    self.pieces.push(Piece::Event(event));
                }
            } else {
                // A short OSC (`ESC ] 6 BEL`, a prefix of "633;"): not ours.
                self.out.extend_from_slice(b"\x1b]");
                self.out.extend_from_slice(&self.buf);
                self.out.extend_from_slice(terminator);
            }
        }
        self.buf = Vec::new();
        self.passing = false;
        self.dropping = false;
    }

    /// The OSC is cut short by `b`: what was held back goes out, then `b` unless it is ESC
    /// (which starts the next sequence).
    fn cancel_osc(&mut self, b: u8) {
        if !self.passing && !self.dropping && !self.is_ours() {
            self.out.extend_from_slice(b"\x1b]");
            self.out.extend_from_slice(&self.buf);
        }
        if b != 0x1b {
            self.out.push(b);
        }
        self.state = State::Ground;
        self.buf = Vec::new();
        self.passing = false;
        self.dropping = false;
    }

    /// The event of a complete OSC 633 body, when its nonce is right.
    fn event(&self) -> Option<ShellEvent> {
        let body = std::str::from_utf8(&self.buf[4..]).ok()?;
        let (body, nonce) = body.rsplit_once(';')?;
        if nonce != self.nonce {
            return None;
        }
        let (kind, arg) = body.split_once(';').unwrap_or((body, ""));
        Some(match kind {
            "E" => ShellEvent::CommandLine(unescape(arg)),
            "C" => ShellEvent::Executed,
            "D" => ShellEvent::Finished(arg.parse().ok()),
            "P" => ShellEvent::Cwd(unescape(arg.strip_prefix("Cwd=")?)),
            _ => return None,
        })
    }
}

/// The title of an OSC 0 or 2 body.
fn title(body: &[u8]) -> Option<String> {
    let rest = body
        .strip_prefix(b"0;")
        .or_else(|| body.strip_prefix(b"2;"))?;
    let text = String::from_utf8_lossy(rest);
    Some(text.chars().filter(|c| !c.is_control()).take(256).collect())
}

/// Undoes the script's escaping: `\\` and `\xNN`.
fn unescape(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len());
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'\\') {
            out.push(b'\\');
            i += 2;
        } else if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'x') {
            match s
                .get(i + 2..i + 4)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                Some(v) => {
                    out.push(v);
                    i += 4;
                }
                None => {
                    out.push(b'\\');
                    i += 1;
                }
            }
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(parser: &mut OscParser, chunks: &[&[u8]]) -> (Vec<u8>, Vec<ShellEvent>) {
        let (mut data, mut events) = (Vec::new(), Vec::new());
        for chunk in chunks {
            for piece in parser.feed(chunk) {
                match piece {
                    Piece::Data(d) => data.extend(d),
                    Piece::Event(e) => events.push(e),
                }
            }
        }
        (data, events)
    }

    const STREAM: &[u8] = b"$ \x1b]633;E;echo a\\x3bb \\\\ c;N\x07\x1b]633;C;N\x07a;b\r\n\
        \x1b]633;D;7;N\x07\x1b]633;P;Cwd=/tmp/x\\x3by;N\x1b\\\x1b]0;me@box: ~\x07$ ";

    #[test]
    fn strips_633_and_reads_events_whole_or_byte_by_byte() {
        let expected_data = b"$ a;b\r\n\x1b]0;me@box: ~\x07$ ".to_vec();
        let expected_events = vec![
            ShellEvent::CommandLine("echo a;b \\ c".into()),
            ShellEvent::Executed,
            ShellEvent::Finished(Some(7)),
            ShellEvent::Cwd("/tmp/x;y".into()),
            ShellEvent::Title("me@box: ~".into()),
        ];
        let mut p = OscParser::new("N".into());
        assert_eq!(
            all(&mut p, &[STREAM]),
            (expected_data.clone(), expected_events.clone())
        );
        let mut p = OscParser::new("N".into());
        let bytes: Vec<&[u8]> = STREAM.chunks(1).collect();
        assert_eq!(all(&mut p, &bytes), (expected_data, expected_events));
    }

    #[test]
    fn a_wrong_nonce_is_stripped_and_ignored() {
        let mut p = OscParser::new("N".into());
        let (data, events) = all(&mut p, &[b"x\x1b]633;D;0;forged\x07y"]);
        assert_eq!((data, events), (b"xy".to_vec(), vec![]));
    }

    #[test]
    fn other_sequences_pass_through() {
        let mut p = OscParser::new("N".into());
        let input: &[u8] =
            b"\x1b[31mred\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1b]6\x07 \x1b";
        let (data, events) = all(&mut p, &[input]);
        // The last ESC waits for the next chunk.
        assert_eq!(data, input[..input.len() - 1].to_vec());
        assert!(events.is_empty());
        let (data, _) = all(&mut p, &[b"[0m"]);
        assert_eq!(data, b"\x1b[0m");
    }

    #[test]
    fn an_endless_sequence_stays_bounded() {
        let mut p = OscParser::new("N".into());
        let junk = vec![b'a'; 1024 * 1024];
        let (_, events) = all(&mut p, &[b"\x1b]633;E;", &junk, &junk]);
        assert!(events.is_empty());
        assert!(p.buf.len() <= MAX_SEQUENCE + 1);
        // It ends; what follows is output again.
        let (data, _) = all(&mut p, &[b"\x07after"]);
        assert_eq!(data, b"after");
        // A foreign endless OSC passes through without being kept.
        let (data, _) = all(&mut p, &[b"\x1b]2;", &junk]);
        assert_eq!(data.len(), junk.len() + 4);
        assert!(p.buf.len() <= MAX_TITLE);
    }

    #[test]
    fn an_osc_cut_short_by_escape() {
        let mut p = OscParser::new("N".into());
        let (data, events) = all(&mut p, &[b"\x1b]63\x1b[1mB"]);
        assert_eq!(data, b"\x1b]63\x1b[1mB");
        assert!(events.is_empty());
    }
}
