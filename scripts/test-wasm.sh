#!/usr/bin/env bash
# Tests of the wasm build and the npm package (run scripts/build-pkg.sh first):
#   1. the 163 conformance fixtures through the JS API, compiled to wasm, in headless Chromium
#      (wasm-bindgen-test; browser options in webdriver.json)
#   2. a TypeScript consumer type-checked against the package's .d.ts (tsc --strict)
#   3. the built package through node's test runner: in Node 20 (the 163 fixtures, bad input,
#      errors, limits) and its browser entry (pkg/web.js) loaded by a page in headless Chromium
# Runs all three and exits non-zero if any failed.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

[ -f pkg/ahp_wasm_bg.wasm ] && [ -f pkg/node.js ] ||
  { echo "test-wasm: pkg/ is not built; run scripts/build-pkg.sh first" >&2; exit 1; }
[ -x node_modules/.bin/tsc ] ||
  { echo "test-wasm: node_modules missing; run scripts/install-tools.sh first" >&2; exit 1; }

failed=()
step() {
  local name=$1
  shift
  echo "test-wasm: == $name"
  if "$@"; then
    echo "test-wasm: == $name: ok"
  else
    echo "test-wasm: == $name: FAILED"
    failed+=("$name")
  fi
}

step "wasm conformance in headless Chromium" \
  env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-300}" \
  cargo test --target wasm32-unknown-unknown --test wasm_conformance
step "TypeScript consumer (tsc --strict)" node_modules/.bin/tsc -p tests/ts
step "package in Node and in a browser page" node --test tests/node/ tests/browser/

if [ ${#failed[@]} -eq 0 ]; then
  echo "test-wasm: all 3 suites passed"
else
  printf 'test-wasm: FAILED suites: %s\n' "$(IFS=';'; echo "${failed[*]}")"
  exit 1
fi
