//! Pseudo-terminals behind `createTerminal` (one shell per terminal, via `portable-pty`).
//!
//! The hub owns a [`Pty`]: it writes input, resizes and kills. Two threads per terminal carry
//! the output: one reads the pty, the other coalesces what was read (at most every
//! [`FLUSH_EVERY`] or [`FLUSH_BYTES`]) into `HubMsg::TerminalOutput`, and once the shell is
//! gone reports its exit code with `HubMsg::TerminalExited`. Sending to the hub's bounded queue
//! blocks, so a shell printing faster than the hub handles it is slowed down, not buffered; and
//! a terminal's output is held to [`MAX_OUTPUT_BYTES_PER_SEC`] the same way.
//!
//! The scrollback a terminal's state keeps is bounded by the SDK's terminal reducer
//! (`ahp_wasm::reduce::terminal::MAX_SCROLLBACK_BYTES`, 1 MiB: the oldest output is dropped).

pub mod shell;

use crate::hub::{HubMsg, HubSender};
use portable_pty::{native_pty_system, ChildKiller, CommandBuilder, MasterPty, PtySize};
use shell::{OscParser, Piece};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::mpsc as std_mpsc;
use std::time::{Duration, Instant};

/// How many terminals one host keeps at most (exited ones count until disposed).
pub const MAX_TERMINALS: usize = 16;
/// The bounds of `cols` and `rows`.
pub const MAX_DIMENSION: f64 = 1000.0;
/// Output is handed to the hub at most this often...
pub const FLUSH_EVERY: Duration = Duration::from_millis(16);
/// ...or as soon as this much is pending.
pub const FLUSH_BYTES: usize = 16 * 1024;
/// Output a terminal may send per second: a program that prints faster (`yes`, `cat` of a large
/// file) is slowed down to it (the pty's buffer fills and its writes block), so one terminal
/// cannot flood the hub and every subscriber.
pub const MAX_OUTPUT_BYTES_PER_SEC: usize = 1 << 20;
/// At most this much input is written to a pty per `terminal/input`.
pub const MAX_INPUT_BYTES: usize = 64 * 1024;
/// At most this many inputs wait to be written to a pty (so at most 1 MiB).
pub const INPUT_QUEUE: usize = 16;

/// A running (or exited) shell on a pseudo-terminal.
pub struct Pty {
    master: Box<dyn MasterPty + Send>,
    /// Input goes through a thread: a program that does not read its input fills the pty's
    /// buffer, and a blocked write must not block the hub.
    input: std_mpsc::SyncSender<Vec<u8>>,
    killer: Box<dyn ChildKiller + Send + Sync>,
    pid: Option<u32>,
    killed: bool,
    /// The shell runs with shell integration (bash): command detection will come.
    integrated: bool,
}

impl std::fmt::Debug for Pty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pty").field("pid", &self.pid).finish()
    }
}

/// The shell to run: `$SHELL` when it exists, else bash when installed, else `/bin/sh`.
fn shell_path() -> String {
    if let Ok(shell) = std::env::var("SHELL") {
        if !shell.is_empty() && Path::new(&shell).is_file() {
            return shell;
        }
    }
    if Path::new("/bin/bash").is_file() {
        return "/bin/bash".into();
    }
    "/bin/sh".into()
}

impl Pty {
    /// Starts the shell in `cwd` on a `cols`×`rows` pty. Output and exit go to the hub as
    /// messages for `(channel, id)`.
    pub fn spawn(
        cwd: &Path,
        cols: u16,
        rows: u16,
        channel: String,
        id: u64,
        hub: HubSender,
    ) -> std::io::Result<Pty> {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(std::io::Error::other)?;
        let shell = shell_path();
        let mut cmd = CommandBuilder::new(&shell);
        let integrated = shell::is_bash(&shell);
        let mut parser = None;
        if integrated {
            // The rcfile comes through a pipe (process substitution), so no file is left
            // behind; `exec` keeps the shell's pid. The script unsets both variables.
            let nonce = shell::nonce();
            cmd.args([
                "-c",
                "exec \"$0\" --rcfile <(printf '%s' \"$AHP_SHELL_INTEGRATION\")",
                &shell,
            ]);
            cmd.env("AHP_SHELL_INTEGRATION", shell::SCRIPT);
            cmd.env("AHP_SHELL_NONCE", &nonce);
            parser = Some(OscParser::new(nonce));
        }
        cmd.cwd(cwd);
        cmd.env("TERM", "xterm-256color");
        let mut child = pair
            .slave
            .spawn_command(cmd)
            .map_err(std::io::Error::other)?;
        // The child holds the only slave end now: the reader sees EOF once the shell is gone.
        drop(pair.slave);
        let killer = child.clone_killer();
        let pid = child.process_id();
        let reader = pair
            .master
            .try_clone_reader()
            .map_err(std::io::Error::other)?;
        let writer = pair.master.take_writer().map_err(std::io::Error::other)?;
        let (input, input_rx) = std_mpsc::sync_channel::<Vec<u8>>(INPUT_QUEUE);
        std::thread::Builder::new()
            .name("ahp-pty-write".into())
            .spawn(move || write_loop(writer, input_rx))?;
        let (chunks_tx, chunks_rx) = std_mpsc::sync_channel::<Vec<u8>>(4);
        std::thread::Builder::new()
            .name("ahp-pty-read".into())
            .spawn(move || read_loop(reader, chunks_tx))?;
        std::thread::Builder::new()
            .name("ahp-pty-out".into())
            .spawn(move || {
                forward_loop(chunks_rx, parser, &channel, id, &hub);
                let code = child.wait().ok().map(|s| s.exit_code());
                let _ = hub.blocking_send(HubMsg::TerminalExited {
                    channel,
                    id,
                    exit_code: code,
                });
            })?;
        Ok(Pty {
            master: pair.master,
            input,
            killer,
            pid,
            killed: false,
            integrated,
        })
    }

    /// The shell's process id.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Whether the shell reports commands (see [`shell`]).
    pub fn integrated(&self) -> bool {
        self.integrated
    }

    /// Queues input for the shell; refused when [`INPUT_QUEUE`] inputs are still unwritten
    /// (its program does not read) or the shell is gone.
    pub fn write(&mut self, data: &[u8]) -> std::io::Result<()> {
        self.input.try_send(data.to_vec()).map_err(|e| match e {
            std_mpsc::TrySendError::Full(_) => std::io::Error::other(
                "its input queue is full (the program in it is not reading its input)",
            ),
            std_mpsc::TrySendError::Disconnected(_) => std::io::Error::other("its input is closed"),
        })
    }

    /// Resizes the pty.
    pub fn resize(&self, cols: u16, rows: u16) -> std::io::Result<()> {
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(std::io::Error::other)
    }

    /// Ends the shell and everything in its session: SIGHUP to the shell (which passes it on
    /// to its jobs), then SIGKILL to every process of the session (on Linux; a process that
    /// left the session with `setsid` is not found).
    pub fn kill(&mut self) {
        if self.killed {
            return;
        }
        self.killed = true;
        let _ = self.killer.kill();
        #[cfg(unix)]
        if let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) {
            for member in session_members(pid) {
                // SAFETY: `kill` has no memory effects.
                unsafe {
                    libc::kill(member, libc::SIGKILL);
                }
            }
            // SAFETY: as above; the shell is our child, unreaped until the output thread
            // sees it exit, so the pid is still its own.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The processes of session `sid` (the pty's shell leads its own session), other than its
/// leader: read from `/proc` (empty where there is none).
#[cfg(unix)]
fn session_members(sid: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| {
        let pid: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // After the command name: state, ppid, pgrp, session.
        let (_, rest) = stat.rsplit_once(") ")?;
        let session: i32 = rest.split(' ').nth(3)?.parse().ok()?;
        (session == sid && pid != sid).then_some(pid)
    })
    .collect()
}

fn write_loop(mut writer: Box<dyn Write + Send>, input: std_mpsc::Receiver<Vec<u8>>) {
    while let Ok(data) = input.recv() {
        if writer
            .write_all(&data)
            .and_then(|_| writer.flush())
            .is_err()
        {
            return;
        }
    }
}

fn read_loop(mut reader: Box<dyn Read + Send>, chunks: std_mpsc::SyncSender<Vec<u8>>) {
    let mut buf = vec![0u8; FLUSH_BYTES];
    loop {
        match reader.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if chunks.send(buf[..n].to_vec()).is_err() {
                    return;
                }
            }
        }
    }
}

/// Coalesces chunks into `TerminalOutput` messages until the reader is done; with shell
/// integration, the shell's events go to the hub in between, in stream order.
fn forward_loop(
    chunks: std_mpsc::Receiver<Vec<u8>>,
    mut parser: Option<OscParser>,
    channel: &str,
    id: u64,
    hub: &HubSender,
) {
    let mut decoder = Utf8Carry::default();
    let mut window = (Instant::now(), 0usize);
    while let Ok(first) = chunks.recv() {
        // The output budget: once this second's is spent, wait for the next one.
        if window.1 >= MAX_OUTPUT_BYTES_PER_SEC {
            std::thread::sleep(
                (window.0 + Duration::from_secs(1)).saturating_duration_since(Instant::now()),
            );
        }
        if window.0.elapsed() >= Duration::from_secs(1) {
            window = (Instant::now(), 0);
        }
        let mut pending = first;
        let deadline = Instant::now() + FLUSH_EVERY;
        let mut done = false;
        while pending.len() < FLUSH_BYTES {
            let left = deadline.saturating_duration_since(Instant::now());
            match chunks.recv_timeout(left) {
                Ok(more) => pending.extend_from_slice(&more),
                Err(std_mpsc::RecvTimeoutError::Timeout) => break,
                Err(std_mpsc::RecvTimeoutError::Disconnected) => {
                    done = true;
                    break;
                }
            }
        }
        window.1 += pending.len();
        let pieces = match parser.as_mut() {
            Some(parser) => parser.feed(&pending),
            None => vec![Piece::Data(pending)],
        };
        for piece in pieces {
            let msg = match piece {
                Piece::Data(bytes) => {
                    let data = decoder.decode(&bytes, done);
                    if data.is_empty() {
                        continue;
                    }
                    HubMsg::TerminalOutput {
                        channel: channel.to_owned(),
                        id,
                        data,
                    }
                }
                Piece::Event(event) => HubMsg::TerminalShell {
                    channel: channel.to_owned(),
                    id,
                    event,
                },
            };
            if hub.blocking_send(msg).is_err() {
                return;
            }
        }
        if done {
            return;
        }
    }
}

/// UTF-8 decoding across chunk boundaries: an incomplete sequence at the end of a chunk waits
/// for the next one; invalid bytes become U+FFFD.
#[derive(Default)]
struct Utf8Carry {
    carry: Vec<u8>,
}

impl Utf8Carry {
    fn decode(&mut self, bytes: &[u8], last: bool) -> String {
        let mut all = std::mem::take(&mut self.carry);
        all.extend_from_slice(bytes);
        if !last {
            // Keep at most 3 trailing bytes of a sequence that may still complete.
            let valid_up_to = match std::str::from_utf8(&all) {
                Ok(_) => all.len(),
                Err(e) if e.error_len().is_none() => e.valid_up_to(),
                Err(_) => all.len(),
            };
            if all.len() - valid_up_to <= 3 {
                self.carry = all.split_off(valid_up_to);
            }
        }
        String::from_utf8_lossy(&all).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::Utf8Carry;

    #[test]
    fn utf8_split_across_chunks() {
        let mut d = Utf8Carry::default();
        let euro = "€".as_bytes();
        assert_eq!(d.decode(&[b'a', euro[0]], false), "a");
        assert_eq!(d.decode(&euro[1..], false), "€");
        assert_eq!(d.decode(&[0xff, b'b'], false), "\u{fffd}b");
        assert_eq!(d.decode(&[euro[0]], true), "\u{fffd}");
    }
}
