#!/usr/bin/env bash
# Tests of the wasm build and the npm package (run scripts/build-pkg.sh first):
#   1. the 163 conformance fixtures through the JS API, compiled to wasm, in headless Chromium,
#      the JS reducers chained over random sequences against the Rust reducers, and the 67 AHP
#      1.0 round-trip cases through `protocol::v1`
#      (wasm-bindgen-test, driven by scripts/wasm-test-runner.sh; webdriver.json configures
#      wasm-bindgen-test-runner when it is run headless by hand); and, in a build with feature
#      v1, the 299 AHP 1.0 fixtures through the 1.0 reducers' JS functions, in headless
#      Chromium (tests/wasm_reducers_v1.rs)
#   2. the wasm client (AhpClient over the browser WebSocket) in headless Chromium against a
#      real ahp-host (wasm-bindgen-test; the host's URL and token are compiled in)
#   3. a TypeScript consumer type-checked against the package's .d.ts (tsc --strict)
#   4. the built package through node's test runner: in Node 20 (the 163 fixtures, bad input,
#      errors, limits, the client classes against a scripted peer and the real ahp-host; the
#      loading contract of both entries; the `npm pack` file list) and in pages in headless
#      Chromium (the browser entry; the client against the real host, with a reconnect through a
#      cut proxy; the 1.0 entry's clients against it: chats, an automation on a schedule; the
#      package built into an app by Vite, esbuild and webpack 5)
# Builds ahp-host first (cargo build -p ahp-host; AHP_HOST_BIN points the tests at it).
#   scripts/test-wasm.sh          all of it
#   scripts/test-wasm.sh wasm     1-3 and the Node half of 4 (tests/node)
#   scripts/test-wasm.sh browser  the browser half of 4 (tests/browser)
# Runs the suites asked for and exits non-zero if any failed.
set -uo pipefail

part=${1:-all}
case "$part" in
  all | wasm | browser) ;;
  *) echo "test-wasm: unknown part '$part' (all, wasm, browser)" >&2; exit 2 ;;
esac

cd "$(dirname "${BASH_SOURCE[0]}")/.."

[ -f pkg/ahp_wasm_bg.wasm ] && [ -f pkg/node.js ] ||
  { echo "test-wasm: pkg/ is not built; run scripts/build-pkg.sh first" >&2; exit 1; }
[ -x node_modules/.bin/tsc ] ||
  { echo "test-wasm: node_modules missing; run scripts/install-tools.sh first" >&2; exit 1; }

echo "test-wasm: cargo build -p ahp-host"
cargo build -p ahp-host || { echo "test-wasm: building ahp-host failed" >&2; exit 1; }
target_dir=$(cargo metadata --format-version 1 --no-deps | node -e \
  'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).target_directory))')
export AHP_HOST_BIN="${AHP_HOST_BIN:-$target_dir/debug/ahp-host}"

failed=()
ran=0
step() {
  local name=$1 start=$SECONDS
  shift
  ran=$((ran + 1))
  echo "test-wasm: == $name"
  if "$@"; then
    echo "test-wasm: == $name: ok ($((SECONDS - start))s)"
  else
    echo "test-wasm: == $name: FAILED ($((SECONDS - start))s)"
    failed+=("$name")
  fi
}

if [ "$part" != browser ]; then
  step "wasm conformance and reducer chains in headless Chromium" \
    env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="$PWD/scripts/wasm-test-runner.sh" \
    WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-150}" \
    cargo test --target wasm32-unknown-unknown --test wasm_conformance --test wasm_reducers --test wasm_roundtrip_v1
  # The 1.0 exports are a build of their own (feature v1).
  step "wasm AHP 1.0 reducers (feature v1) in headless Chromium" \
    env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="$PWD/scripts/wasm-test-runner.sh" \
    WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-150}" \
    cargo test --target wasm32-unknown-unknown --features v1 --test wasm_reducers_v1
  step "wasm client against a real ahp-host in headless Chromium" scripts/test-wasm-client.sh
  step "TypeScript consumer (tsc --strict)" node_modules/.bin/tsc -p tests/ts
  step "package in Node" node --experimental-websocket --test tests/node/
fi
if [ "$part" != wasm ]; then
  step "package in browser pages, the page end to end" \
    node --experimental-websocket --test tests/browser/
fi

if [ ${#failed[@]} -eq 0 ]; then
  echo "test-wasm: all $ran suites passed"
else
  printf 'test-wasm: FAILED suites: %s\n' "$(IFS=';'; echo "${failed[*]}")"
  exit 1
fi
