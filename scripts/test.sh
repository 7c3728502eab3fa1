#!/usr/bin/env bash
# Runs every test of the project on a fresh Debian machine: installs the tools it needs, checks
# the generated wire types are current, formatting and lints, runs the native tests (conformance
# fixtures, round trips, property tests, unit tests), builds the npm package and runs the wasm
# tests in Node and headless Chromium plus the TypeScript consumer check.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "tools"
scripts/install-tools.sh

step "generated wire types are up to date"
cargo run --quiet -p xtask -- codegen --check

step "format and lints"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
cargo clippy --workspace --all-targets --features native --quiet -- -D warnings

step "native tests (with the async client: feature native)"
cargo test --workspace --features native

step "npm package"
scripts/build-pkg.sh

step "wasm tests (Node, headless Chromium, TypeScript)"
scripts/test-wasm.sh
