//! What the host's child processes (terminals' shells, `/run` commands, stdio MCP servers) get
//! of the host: not its secrets.
//!
//! Every child runs as the host's user, so whatever it can read of the host it can use: the
//! access token in its environment, or in the host's own `/proc/<pid>/environ` and memory,
//! would let any repository script a shell or an MCP server runs drive the host. So:
//! - every spawn goes through [`scrub`], which removes [`WITHHELD_ENV`] from the child's
//!   environment (whatever the host's environment holds);
//! - the binary drops those variables from its own environment at start, and wipes them from the
//!   copy `/proc/<pid>/environ` shows ([`forget_secrets`]);
//! - and marks itself not dumpable ([`forbid_inspection`]): `/proc/<host pid>/environ`, `mem`
//!   and `fd` then belong to root, and `ptrace` is refused, for every process of the user
//!   (children get the default back at their `exec`).

/// The environment variables a child never inherits from the host (the host's own secrets).
pub const WITHHELD_ENV: &[&str] = &["AHP_HOST_TOKEN"];

/// A command being built that can drop inherited environment variables.
pub trait RemoveEnv {
    /// Removes `key` from the environment the child will get.
    fn remove_env(&mut self, key: &str);
}

impl RemoveEnv for std::process::Command {
    fn remove_env(&mut self, key: &str) {
        self.env_remove(key);
    }
}

impl RemoveEnv for tokio::process::Command {
    fn remove_env(&mut self, key: &str) {
        self.env_remove(key);
    }
}

impl RemoveEnv for portable_pty::CommandBuilder {
    fn remove_env(&mut self, key: &str) {
        self.env_remove(key);
    }
}

/// Removes [`WITHHELD_ENV`] from a child's environment. Call it before setting the child's own
/// variables (a configured value is the configuration's, not the host's secret).
pub fn scrub(cmd: &mut impl RemoveEnv) {
    for key in WITHHELD_ENV {
        cmd.remove_env(key);
    }
}

/// Removes [`WITHHELD_ENV`] from the host's own environment, and (Linux) wipes them from the
/// environment it started with: `/proc/<pid>/environ` shows that copy, and root reads it
/// whatever [`forbid_inspection`] says. Call it once the flags are parsed and before any other
/// thread runs (the binary's `main`, before its runtime starts).
pub fn forget_secrets() {
    #[cfg(target_os = "linux")]
    wipe_start_environment();
    for key in WITHHELD_ENV {
        std::env::remove_var(key);
    }
}

/// Overwrites each `KEY=value` entry of [`WITHHELD_ENV`] in the process's environment block with
/// NULs (the entry becomes empty: no name, no value, and nothing the environment functions
/// parse as a variable).
#[cfg(target_os = "linux")]
fn wipe_start_environment() {
    extern "C" {
        static mut environ: *mut *mut libc::c_char;
    }
    // SAFETY: no other thread runs yet (see `forget_secrets`), so nothing reads or changes the
    // environment meanwhile; `environ` is the NULL-terminated array of NUL-terminated strings
    // the process was started with (writable memory), and each write stays inside its string.
    unsafe {
        let mut entry = environ;
        while !entry.is_null() && !(*entry).is_null() {
            let bytes = std::ffi::CStr::from_ptr(*entry).to_bytes();
            let withheld = WITHHELD_ENV.iter().any(|key| {
                bytes.len() > key.len()
                    && bytes.starts_with(key.as_bytes())
                    && bytes[key.len()] == b'='
            });
            if withheld {
                std::ptr::write_bytes(*entry, 0, bytes.len());
            }
            entry = entry.add(1);
        }
    }
}

/// Makes the host's process unreadable to other processes of its user, its children included
/// (Linux: `PR_SET_DUMPABLE` 0; elsewhere nothing). The cost: no core dumps.
pub fn forbid_inspection() -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `prctl(PR_SET_DUMPABLE, 0)` changes a flag of this process only.
        if unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}
