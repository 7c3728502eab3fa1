//! The child processes of stdio servers: how they are spawned so they never outlive the host,
//! and how they are killed.
//!
//! Each child runs in its own process group, killed as a whole (`SIGKILL`) when its server
//! stops. That needs a living host; for a host that dies without stopping them (`SIGKILL`, a
//! crash), Linux delivers the parent-death signal: each child asks for `SIGKILL` when its
//! parent goes (`prctl(PR_SET_PDEATHSIG)`, before `exec`).
//!
//! That signal fires when the *thread* that forked the child exits, not the process. Tokio's
//! worker threads usually live as long as the runtime, but not always (`block_in_place` hands a
//! worker's role to a new thread and the old one ends up in the blocking pool, whose threads
//! exit after idling; a `current_thread` runtime's thread is whatever thread drives it). So
//! every child is spawned from one dedicated thread that is never stopped: it ends only with the
//! process, which is exactly when the children should go.
//!
//! A host that dies between `fork` and `prctl` would never send the signal: the child checks its
//! parent after arming it and exits at once if it was already orphaned. Grandchildren a server
//! starts itself are not covered (they are in its process group, which a living host kills).

use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::sync::OnceLock;

/// Work for the spawner thread.
type Job = Box<dyn FnOnce() + Send>;

/// The spawner thread's queue (`None` when the thread could not be started).
fn spawner() -> Option<&'static mpsc::Sender<Job>> {
    static SPAWNER: OnceLock<Option<mpsc::Sender<Job>>> = OnceLock::new();
    SPAWNER
        .get_or_init(|| {
            let (tx, rx) = mpsc::channel::<Job>();
            std::thread::Builder::new()
                .name("ahp-mcp-spawner".into())
                .spawn(move || {
                    for job in rx {
                        job();
                    }
                })
                .ok()
                .map(|_| tx)
        })
        .as_ref()
}

/// Spawns `cmd` in its own process group, from the spawner thread, with the parent-death
/// signal armed (Linux). Must be called within a tokio runtime (the child is registered with
/// it, as `Command::spawn` would).
pub async fn spawn(mut cmd: tokio::process::Command) -> io::Result<tokio::process::Child> {
    #[cfg(unix)]
    cmd.process_group(0);
    #[cfg(target_os = "linux")]
    die_with_host(&mut cmd);
    let runtime = tokio::runtime::Handle::current();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _runtime = runtime.enter();
        let _ = tx.send(cmd.spawn());
    });
    spawner()
        .ok_or_else(|| io::Error::other("the thread that starts MCP servers could not start"))?
        .send(job)
        .map_err(|_| io::Error::other("the thread that starts MCP servers is gone"))?;
    rx.await
        .map_err(|_| io::Error::other("the thread that starts MCP servers dropped the request"))?
}

/// Arms `SIGKILL` as the child's parent-death signal (see the module docs).
#[cfg(target_os = "linux")]
fn die_with_host(cmd: &mut tokio::process::Command) {
    // SAFETY: getpid(2) has no preconditions.
    let host = unsafe { libc::getpid() };
    // SAFETY: the closure runs in the child between fork and exec, where only
    // async-signal-safe functions may be called: prctl(2), getppid(2) and _exit(2) are, and
    // nothing is allocated (an OS error is a plain code).
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
            // The host died before the signal was armed: it will never come.
            if libc::getppid() != host {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

/// Kills the process group whose pid `slot` holds, once (the slot is emptied).
pub fn kill_slot(slot: &AtomicU32) {
    match slot.swap(0, Ordering::Relaxed) {
        0 => {}
        pid => kill_group(Some(pid)),
    }
}

/// Kills a process group at once (no-op for `None`).
pub fn kill_group(pid: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()).filter(|p| *p > 0) {
        // SAFETY: kill(2) with a negative pid signals that process group; no memory involved.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = pid;
}
