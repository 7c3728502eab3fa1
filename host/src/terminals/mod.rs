//! Pseudo-terminals behind `createTerminal` and the agent's `/run` (one process per terminal,
//! via `portable-pty`).
//!
//! A terminal runs a [`Program`]: an interactive shell (`createTerminal`), or one command line
//! (the agent's `/run`), whose exit code is then the command's, as the process reports it.
//!
//! The hub owns a [`Pty`]: it writes input, resizes and kills. Three threads per terminal carry
//! the output: one reads the pty, one waits for the process (`waitpid`: the exit code comes
//! from the kernel, never from what the program prints), and one coalesces what was read (at
//! most every [`FLUSH_EVERY`] or [`FLUSH_BYTES`]) into `HubMsg::TerminalOutput` and, once the
//! process is gone and the output it left is forwarded, reports its exit code with
//! `HubMsg::TerminalExited` (a background job still holding the pty does not hold that back).
//! Sending to the hub's bounded queue blocks, so a shell printing faster than the hub handles
//! it is slowed down, not buffered; and a terminal's output is held to
//! [`MAX_OUTPUT_BYTES_PER_SEC`] the same way.
//!
//! No child gets the host's secrets (`crate::child_process::scrub`), nor the shell-integration
//! nonce in its environment (see [`shell`]).
//!
//! The scrollback a terminal's state keeps is bounded by the SDK's terminal reducer
//! (`ahp_wasm::reduce::terminal::MAX_SCROLLBACK_BYTES`, 1 MiB: the oldest output is dropped).

pub mod shell;

use crate::bus::{HubMsg, HubSender};
use portable_pty::{native_pty_system, ChildKiller, CommandBuilder, MasterPty, PtySize};
use shell::{OscParser, Piece};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc as std_mpsc;
use std::sync::Arc;
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
/// Once the process is gone, its exit is reported when the pty has been quiet this long (the
/// output it left is forwarded first)...
const EXIT_QUIET: Duration = Duration::from_millis(50);
/// ...or this long after it went, whatever its background jobs still print.
const EXIT_DRAIN: Duration = Duration::from_millis(500);

/// What a terminal runs.
#[derive(Debug, Clone, Copy)]
pub enum Program<'a> {
    /// An interactive shell (`$SHELL` when it exists, else bash, else `/bin/sh`), with shell
    /// integration when it is bash.
    Shell,
    /// One command line, run by `bash -m -c` (`/bin/sh` without bash): the agent's `/run`. Job
    /// control (`-m`) puts its background jobs in their own process groups, so they outlive
    /// it in the terminal, as they would in an interactive shell.
    Command(&'a str),
}

/// A running (or exited) shell on a pseudo-terminal.
pub struct Pty {
    master: Box<dyn MasterPty + Send>,
    /// Input goes through a thread: a program that does not read its input fills the pty's
    /// buffer, and a blocked write must not block the hub.
    input: std_mpsc::SyncSender<Vec<u8>>,
    killer: Box<dyn ChildKiller + Send + Sync>,
    pid: Option<u32>,
    killed: bool,
    /// The process was waited for: its pid may be another process's by now.
    reaped: Arc<AtomicBool>,
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

/// The interactive shell, with shell integration when it is bash (the parser of its
/// sequences, and whether it is integrated). The rcfile, nonce included, reaches bash in the
/// environment of a first `bash -c`, which takes it out of its environment before it `exec`s
/// the interactive shell (same pid) with the rcfile read from a pipe: the environment the
/// interactive shell starts with (the one `/proc/<pid>/environ` shows) and the one its commands
/// inherit never hold it.
fn shell_command() -> (CommandBuilder, Option<OscParser>, bool) {
    let shell = shell_path();
    let mut cmd = CommandBuilder::new(&shell);
    if !shell::is_bash(&shell) {
        return (cmd, None, false);
    }
    let nonce = shell::nonce();
    cmd.args([
        "-c",
        "rc=$AHP_SHELL_INTEGRATION; unset AHP_SHELL_INTEGRATION; \
         exec \"$0\" --rcfile <(printf '%s' \"$rc\")",
        &shell,
    ]);
    cmd.env("AHP_SHELL_INTEGRATION", shell::script(&nonce));
    (cmd, Some(OscParser::new(nonce)), true)
}

/// The shell of a [`Program::Command`]: bash when installed, else `/bin/sh`.
fn command_shell() -> &'static str {
    if Path::new("/bin/bash").is_file() {
        "/bin/bash"
    } else {
        "/bin/sh"
    }
}

impl Pty {
    /// Starts `program` in `cwd` on a `cols`×`rows` pty. Output and exit go to the hub as
    /// messages for `(channel, id)`.
    pub fn spawn(
        cwd: &Path,
        (cols, rows): (u16, u16),
        program: Program<'_>,
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
        let (mut cmd, parser, integrated) = match program {
            Program::Shell => shell_command(),
            Program::Command(line) => {
                let mut cmd = CommandBuilder::new(command_shell());
                cmd.args(["-m", "-c", line]);
                // Shell integration is not used, but a sequence the command prints is stripped
                // all the same: the parser's nonce is one nobody has.
                (cmd, Some(OscParser::new(shell::nonce())), false)
            }
        };
        crate::child_process::scrub(&mut cmd);
        cmd.cwd(cwd);
        cmd.env("TERM", "xterm-256color");
        let child = pair
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
        let (out_tx, out_rx) = std_mpsc::sync_channel::<Out>(4);
        let reaped = Arc::new(AtomicBool::new(false));
        {
            let (out_tx, reaped) = (out_tx.clone(), reaped.clone());
            std::thread::Builder::new()
                .name("ahp-pty-wait".into())
                .spawn(move || {
                    let code = wait_exit(child, &reaped);
                    let _ = out_tx.send(Out::Exited(code));
                })?;
        }
        std::thread::Builder::new()
            .name("ahp-pty-read".into())
            .spawn(move || read_loop(reader, out_tx))?;
        std::thread::Builder::new()
            .name("ahp-pty-out".into())
            .spawn(move || forward_loop(out_rx, parser, &channel, id, &hub))?;
        Ok(Pty {
            master: pair.master,
            input,
            killer,
            pid,
            killed: false,
            reaped,
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
    /// left the session with `setsid` is not found). A shell already waited for is not
    /// signalled (its pid may be reused); what is left of its session still is.
    pub fn kill(&mut self) {
        if self.killed {
            return;
        }
        self.killed = true;
        let reaped = self.reaped.load(Ordering::Acquire);
        if !reaped {
            let _ = self.killer.kill();
        }
        #[cfg(unix)]
        if let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) {
            for member in session_members(pid) {
                // SAFETY: `kill` has no memory effects.
                unsafe {
                    libc::kill(member, libc::SIGKILL);
                }
            }
            if !reaped {
                // SAFETY: as above; the shell is our child, not reaped yet, so the pid is
                // still its own.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
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

/// What the forwarder gets: output read from the pty, or the exit code of its process.
enum Out {
    Data(Vec<u8>),
    Exited(Option<u32>),
}

/// Waits for the process and returns its exit code: its status, or 128 + the signal that
/// killed it (as shells report it). Marks it `reaped` once waited for.
fn wait_exit(
    mut child: Box<dyn portable_pty::Child + Send + Sync>,
    reaped: &AtomicBool,
) -> Option<u32> {
    #[cfg(unix)]
    if let Some(pid) = child.process_id().and_then(|p| i32::try_from(p).ok()) {
        let mut status = 0;
        loop {
            // SAFETY: waits for our own child; `status` is a valid place for its status.
            let r = unsafe { libc::waitpid(pid, &mut status, 0) };
            if r == pid {
                break;
            }
            if r == -1 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
            {
                continue;
            }
            return None;
        }
        reaped.store(true, Ordering::Release);
        return if libc::WIFEXITED(status) {
            Some(libc::WEXITSTATUS(status) as u32)
        } else if libc::WIFSIGNALED(status) {
            Some(128 + libc::WTERMSIG(status) as u32)
        } else {
            None
        };
    }
    let code = child.wait().ok().map(|s| s.exit_code());
    reaped.store(true, Ordering::Release);
    code
}

fn read_loop(mut reader: Box<dyn Read + Send>, out: std_mpsc::SyncSender<Out>) {
    let mut buf = vec![0u8; FLUSH_BYTES];
    loop {
        match reader.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if out.send(Out::Data(buf[..n].to_vec())).is_err() {
                    return;
                }
            }
        }
    }
}

/// Coalesces output into `TerminalOutput` messages until the reader and the waiter are done;
/// with shell integration, the shell's events go to the hub in between, in stream order. The
/// exit goes once the output the process left is forwarded (see [`EXIT_QUIET`]).
fn forward_loop(
    out: std_mpsc::Receiver<Out>,
    mut parser: Option<OscParser>,
    channel: &str,
    id: u64,
    hub: &HubSender,
) {
    let mut decoder = Utf8Carry::default();
    let mut window = (Instant::now(), 0usize);
    // The process is gone: its exit code, and when to report it at the latest.
    let mut exit: Option<(Option<u32>, Instant)> = None;
    let report = |code: Option<u32>| {
        let msg = HubMsg::TerminalExited {
            channel: channel.to_owned(),
            id,
            exit_code: code,
        };
        hub.blocking_send(msg).is_ok()
    };
    loop {
        let first = match exit {
            None => match out.recv() {
                Ok(Out::Data(data)) => data,
                Ok(Out::Exited(code)) => {
                    exit = Some((code, Instant::now() + EXIT_DRAIN));
                    continue;
                }
                Err(_) => return,
            },
            Some((code, by)) => {
                let quiet = EXIT_QUIET.min(by.saturating_duration_since(Instant::now()));
                match out.recv_timeout(quiet) {
                    Ok(Out::Data(data)) => data,
                    Ok(Out::Exited(_)) => continue,
                    Err(e) => {
                        exit = None;
                        if !report(code) || e == std_mpsc::RecvTimeoutError::Disconnected {
                            return;
                        }
                        continue;
                    }
                }
            }
        };
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
            match out.recv_timeout(left) {
                Ok(Out::Data(more)) => pending.extend_from_slice(&more),
                Ok(Out::Exited(code)) => exit = Some((code, Instant::now() + EXIT_DRAIN)),
                Err(std_mpsc::RecvTimeoutError::Timeout) => break,
                Err(std_mpsc::RecvTimeoutError::Disconnected) => {
                    done = true;
                    break;
                }
            }
        }
        window.1 += pending.len();
        if !forward(
            &mut decoder,
            parser.as_mut(),
            pending,
            done,
            channel,
            id,
            hub,
        ) {
            return;
        }
        match exit {
            Some((code, _)) if done => {
                report(code);
                return;
            }
            Some((code, by)) if Instant::now() >= by => {
                exit = None;
                if !report(code) {
                    return;
                }
            }
            _ if done => return,
            _ => {}
        }
    }
}

/// Hands `pending` to the hub: output and, with shell integration, the shell's events in
/// between. `false` once the hub is gone.
fn forward(
    decoder: &mut Utf8Carry,
    parser: Option<&mut OscParser>,
    pending: Vec<u8>,
    last: bool,
    channel: &str,
    id: u64,
    hub: &HubSender,
) -> bool {
    let pieces = match parser {
        Some(parser) => parser.feed(&pending),
        None => vec![Piece::Data(pending)],
    };
    for piece in pieces {
        let msg = match piece {
            Piece::Data(bytes) => {
                let data = decoder.decode(&bytes, last);
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
            return false;
        }
    }
    true
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
