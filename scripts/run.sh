#!/usr/bin/env bash
# The main job: installs the tools, builds the npm package (pkg/) the page uses, builds ahp-host and
# starts it on its embedded defaults (built-in agent, SQLite under the user's state directory,
# 127.0.0.1). It prints the page URL with its access token. Extra arguments go to ahp-host
# (e.g. `scripts/run.sh --port 0`; see host/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-tools.sh
scripts/build-pkg.sh
cargo build --quiet -p ahp-host
exec target/debug/ahp-host --www www --pkg pkg "$@"
