#!/usr/bin/env bash
# tests/wasm_client.rs: the wasm client (AhpClient over the browser WebSocket) in headless
# Chromium against a real ahp-host (wasm-bindgen-test-runner serves the page,
# scripts/wasm-test-runner.sh drives it). Starts the host on a free port, allowing the test
# page's origin (scripts/wasm-test-runner.sh serves it at WASM_BINDGEN_TEST_ADDRESS), compiles
# the host's URL and token into the test, runs it, stops the host. Needs ahp-host built ($AHP_HOST_BIN, default target/debug/ahp-host).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bin=${AHP_HOST_BIN:-target/debug/ahp-host}
[ -x "$bin" ] || { echo "test-wasm-client: $bin missing; run cargo build -p ahp-host" >&2; exit 1; }

free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }
runner_port=$(free_port)
token="wasm-client-test-$(node -e 'console.log(require("crypto").randomBytes(12).toString("hex"))')"
data=$(mktemp -d)
log="$data/host.log"
"$bin" --port 0 --data-dir "$data" --workdir "$data" --token "$token" --chunk-delay-ms 10 \
  --allow-origin "http://127.0.0.1:$runner_port" >"$log" 2>&1 &
host_pid=$!
cleanup() { kill "$host_pid" 2>/dev/null || true; wait "$host_pid" 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

port=""
for _ in $(seq 1 300); do
  port=$(sed -n 's|^open: http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$log")
  [ -n "$port" ] && break
  kill -0 "$host_pid" 2>/dev/null || { cat "$log" >&2; echo "test-wasm-client: ahp-host exited" >&2; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$log" >&2; echo "test-wasm-client: ahp-host did not start" >&2; exit 1; }

AHP_TEST_HOST_URL="ws://127.0.0.1:$port/ahp" AHP_TEST_HOST_TOKEN="$token" \
  WASM_BINDGEN_TEST_ADDRESS="127.0.0.1:$runner_port" \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="$PWD/scripts/wasm-test-runner.sh" \
  WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-150}" \
  cargo test --target wasm32-unknown-unknown --test wasm_client
