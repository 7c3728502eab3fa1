#!/usr/bin/env bash
# The main job. Until the host binary lands, it builds the npm package and replays the standard
# AHP workload through the Rust wire path, printing a summary of the final session state.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-tools.sh
scripts/build-pkg.sh
cargo run --quiet --release --example replay
