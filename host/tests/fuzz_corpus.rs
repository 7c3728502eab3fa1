//! Replays the fuzz targets' committed inputs on stable: every file under `fuzz/seeds/TARGET`
//! (derived from the conformance fixtures) and `fuzz/regressions/TARGET` (inputs that once
//! failed) goes through the same function the libFuzzer target calls (`fuzz/src`).

#[allow(dead_code)]
#[path = "../../fuzz/src/lib.rs"]
mod fuzz;

use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

fn inputs(kind: &str, target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = fuzz_dir().join(kind).join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, Vec<u8>)> = entries
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).expect("an input");
            (p, bytes)
        })
        .collect();
    out.sort();
    out
}

fn replay(target: &str) {
    let (_, run) = fuzz::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .expect("a target");
    let seeds = inputs("seeds", target);
    assert!(!seeds.is_empty(), "no seeds for {target}");
    for (path, bytes) in seeds.iter().chain(&inputs("regressions", target)) {
        let outcome = std::panic::catch_unwind(|| run(bytes));
        assert!(outcome.is_ok(), "{target} fails on {}", path.display());
    }
}

#[test]
fn frame_inputs() {
    replay("frame");
}

#[test]
fn reducers_inputs() {
    replay("reducers");
}

#[test]
fn mirror_inputs() {
    replay("mirror");
}

#[test]
fn host_inputs() {
    replay("host");
}

/// Rewrites `fuzz/seeds` from the conformance fixtures.
#[test]
#[ignore = "writes files: run by hand after changing the seed generator"]
fn write_seeds() {
    let fixtures =
        fuzz::seeds::fixtures(&fuzz_dir().join("../protocol/ahp-0.3.0/conformance/reducers"));
    for (target, _) in fuzz::TARGETS {
        let dir = fuzz_dir().join("seeds").join(target);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a seed directory");
        for (name, bytes) in fuzz::seeds::seeds(target, &fixtures) {
            std::fs::write(dir.join(name), bytes).expect("a seed");
        }
    }
}
