#!/usr/bin/env bash
# The cargo runner for the wasm32 tests in headless Chromium. wasm-bindgen-test-runner serves the
# test page (its NO_HEADLESS mode) and scripts/wasm-test-page.mjs runs it in Debian's headless
# Chromium through playwright-core, the driver the page tests use, behind a proxy that gives
# every request its own connection: with ChromeDriver straight to the runner's server, the
# page's navigation often never completed on this kind of machine. A run in which the harness
# never reported a result (the page did not load) is tried again, at most 3 more times; any run
# that reports a result, passed or failed, is final: a failing test is never retried.
#
# WASM_BINDGEN_TEST_ADDRESS (host:port) fixes the page's (the proxy's) address (tests/wasm_client.rs needs a
# known origin); WASM_BINDGEN_TEST_TIMEOUT (seconds, default 150) bounds one run.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }

status=3
for attempt in 1 2 3 4; do
  page_address=${WASM_BINDGEN_TEST_ADDRESS:-127.0.0.1:$(free_port)}
  log=$(mktemp)
  NO_HEADLESS=1 WASM_BINDGEN_TEST_ADDRESS="127.0.0.1:$(free_port)" wasm-bindgen-test-runner "$@" >"$log" 2>&1 &
  server=$!
  url=""
  for _ in $(seq 1 1200); do
    url=$(sed -n 's|^Interactive browsers tests are now available at \(http://[^ ]*\).*|\1|p' "$log")
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    cat "$log" >&2
    kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
    rm -f "$log"
    echo "wasm-test-runner: wasm-bindgen-test-runner did not serve the test page" >&2
    exit 1
  fi
  node scripts/wasm-test-page.mjs "$url" "$page_address" "${WASM_BINDGEN_TEST_TIMEOUT:-150}"
  status=$?
  kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
  rm -f "$log"
  [ "$status" -ne 3 ] && exit "$status"
  echo "wasm-test-runner: the harness never reported a result (attempt $attempt of 4)" >&2
done
exit 1
