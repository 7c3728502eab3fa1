//! The `ahp-host` binary: parses flags, starts the server, prints where to find it.

use ahp_host::{Cli, Config};
use clap::{CommandFactory, FromArgMatches};
use std::process::ExitCode;

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let mut config = Config::from(cli);
    // Keys are read here, once, and their variables leave the environment before any thread
    // or child process starts.
    config.providers = match ahp_host::config::providers_from(&matches) {
        Ok(providers) => providers,
        Err(e) => {
            eprintln!("ahp-host: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Before any other thread runs: the token read from the environment leaves it, and no
    // child (shell, `/run`, MCP server) can read it from this process (see `child_process`).
    ahp_host::child_process::forget_secrets();
    if let Err(e) = ahp_host::child_process::forbid_inspection() {
        eprintln!("ahp-host: cannot hide this process from its children: {e}");
    }
    match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime.block_on(serve(config)),
        Err(e) => {
            eprintln!("ahp-host: cannot start the runtime: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(config: Config) -> ExitCode {
    #[cfg(unix)]
    if let Err(e) = ahp_host::server::raise_open_files_limit() {
        eprintln!("ahp-host: cannot raise the open files limit: {e}");
    }
    if !config.listen.is_loopback() && config.allow_remote {
        eprintln!(
            "ahp-host: WARNING: listening on {} — anyone who can reach it and knows the token \
             controls this host and its working directory",
            config.listen
        );
    }
    let host = match ahp_host::start(config).await {
        Ok(host) => host,
        Err(e) => {
            eprintln!("ahp-host: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("ahp-host listening on http://{}", host.addr);
    println!("websocket: {}", host.ws_url());
    println!("data: {}", host.data_dir.display());
    // The one place the token is shown: the URL to open.
    println!("open: {}", host.page_url());
    wait_for_stop().await;
    eprintln!("ahp-host: stopping");
    host.shutdown().await;
    ExitCode::SUCCESS
}

async fn wait_for_stop() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
