//! Project tasks. `cargo run -p xtask -- codegen` regenerates the AHP wire types in
//! `src/protocol/generated.rs` from the vendored JSON Schema, and the generated sections of the
//! npm package's hand-written files (`js/`) from the command and error class tables, and
//! `js/protocol.js` (the protocol's named values; 1.0's: `js/v1/protocol.js`), and the AHP 1.0.0 wire types in
//! `src/protocol/v1/generated.rs` (and their TypeScript declarations, `js/v1/types.d.ts`, and
//! the default entry's generated declarations, `js/v1/generated.d.ts`) from the official
//! `ahp-types` 1.0.0 definition;
//! `-- codegen --check` fails when a checked-in file is out of date (CI runs it).
//!
//! `cargo run -p xtask -- imports [--edges] [DIR...]` fails when files of a directory import
//! each other in a circle (default: `src`, `js` and `host/src`; see [`imports`]).

#![forbid(unsafe_code)]

mod bindings;
mod codegen;
mod codegen_v1;
mod copiers;
mod imports;
mod model;
mod names;
mod names_v1;
mod render;
mod syn_read;
mod ts_v1;

/// The SDK's path to `NotificationInfo`, which `src/protocol/v1/methods.rs` (read by
/// `bindings`) names.
mod protocol {
    pub mod jsonrpc {
        pub(crate) use crate::bindings::methods;
    }
}

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf();
    match args.first().map(String::as_str) {
        Some("codegen") => {
            let check = args.iter().any(|a| a == "--check");
            let result = codegen::run(&root, check)
                .and_then(|()| codegen_v1::run(&root, check))
                .and_then(|()| names::run(&root, check))
                .and_then(|()| names_v1::run(&root, check))
                .and_then(|()| bindings::run(&root, check));
            match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("codegen: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Some("imports") => {
            let edges = args.iter().any(|a| a == "--edges");
            let mut dirs: Vec<String> = args[1..]
                .iter()
                .filter(|a| !a.starts_with("--"))
                .cloned()
                .collect();
            if dirs.is_empty() {
                dirs = imports::DEFAULT_DIRS
                    .iter()
                    .map(|d| d.to_string())
                    .collect();
            }
            match imports::run(&root, &dirs, edges) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("imports: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        _ => {
            eprintln!(
                "usage: cargo run -p xtask -- codegen [--check]\n       \
                 cargo run -p xtask -- imports [--edges] [DIR...]"
            );
            ExitCode::FAILURE
        }
    }
}
