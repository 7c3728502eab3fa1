#!/usr/bin/env bash
# Runs every test of the project on a fresh Debian machine: installs the tools it needs, checks
# the generated wire types are current, formatting and lints, runs the native tests (conformance
# fixtures, round trips, property tests, unit tests), the host's tests, builds the npm package and
# runs the wasm tests in Node and headless Chromium plus the TypeScript consumer check.
#
#   scripts/test.sh                 everything (what CI runs)
#   scripts/test.sh PART [PART...]  only those parts, in this order:
#     lint     generated wire types, import circles (src/, js/, host/src/), rustfmt, clippy (native,
#              feature native, wasm32 without and with feature v1: the only builds that compile
#              the bindings, src/wasm)
#     native   the SDK crate's and xtask's tests (feature native)
#     host     ahp-host's tests (real WebSockets, SQLite, the binary killed with SIGKILL)
#     wasm     the npm package: fixtures in Chromium, the wasm client vs the host, tsc, Node tests
#     browser  the npm package in browser pages and the page end to end, in headless Chromium
#
# Prints how long each step took at the end (also when a step fails).
set -euo pipefail
cd "$(dirname "$0")/.."

all_parts=(lint native host wasm browser)
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=("${all_parts[@]}")
for p in "${parts[@]}"; do
  case " ${all_parts[*]} " in
    *" $p "*) ;;
    *) echo "test.sh: unknown part '$p' (parts: ${all_parts[*]})" >&2; exit 2 ;;
  esac
done
wants() { case " ${parts[*]} " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# A one-off run (CI, a fresh clone) gains nothing from incremental caches, which take gigabytes.
if [ -n "${CI:-}" ]; then export CARGO_INCREMENTAL=0; fi

timings=()
report() {
  local status=$?
  if [ ${#timings[@]} -gt 0 ]; then
    printf '\n== time per step\n'
    printf '  %s\n' "${timings[@]}"
    printf '  total: %ss\n' "$SECONDS"
  fi
  exit "$status"
}
trap report EXIT

# step NAME COMMAND...: runs a step, recording its duration (and, on failure, that it failed).
step() {
  local name=$1 start=$SECONDS
  shift
  printf '\n== %s\n' "$name"
  if "$@"; then
    timings+=("$(printf '%5ss  %s' $((SECONDS - start)) "$name")")
  else
    local status=$?
    timings+=("$(printf '%5ss  %s (FAILED)' $((SECONDS - start)) "$name")")
    return "$status"
  fi
}

# Chained with && : `set -e` does not apply inside a function run as an `if` condition.
lint() {
  cargo run --quiet -p xtask -- codegen --check &&
    cargo run --quiet -p xtask -- imports &&
    cargo fmt --all -- --check &&
    cargo clippy --workspace --all-targets --quiet -- -D warnings &&
    cargo clippy --workspace --all-targets --features native --quiet -- -D warnings &&
    cargo clippy --target wasm32-unknown-unknown --lib --test wasm_conformance --test wasm_client \
      --test wasm_fixture_index --test wasm_reducers --test wasm_roundtrip_v1 --quiet -- -D warnings &&
    cargo clippy --target wasm32-unknown-unknown --lib --features v1 --test wasm_reducers_v1 \
      --quiet -- -D warnings &&
    cargo clippy --target wasm32-unknown-unknown --lib --no-default-features --features v1 \
      --quiet -- -D warnings &&
    cargo clippy --lib --no-default-features --features v1 --quiet -- -D warnings
}

step "tools" scripts/install-tools.sh
wants lint && step "lint: generated wire types, import circles, fmt, clippy (native and wasm32)" lint
wants native && step "native tests (with the async client: feature native)" \
  cargo test --workspace --exclude ahp-host --features native
wants host && step "ahp-host tests" cargo test -p ahp-host
if wants wasm || wants browser; then
  step "npm package" scripts/build-pkg.sh
fi
wants wasm && step "wasm tests (Chromium, Node, TypeScript)" scripts/test-wasm.sh wasm
wants browser && step "browser tests (package in pages, the page end to end)" \
  scripts/test-wasm.sh browser
true
