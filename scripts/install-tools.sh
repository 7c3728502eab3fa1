#!/usr/bin/env bash
# Installs what building and testing the wasm package needs, on a fresh Debian machine, as root.
# Idempotent: skips whatever is already there, prints nothing on success.
#   - the wasm32-unknown-unknown Rust target
#   - wasm-bindgen-cli (wasm-bindgen, wasm-bindgen-test-runner) at the exact version of the
#     wasm-bindgen crate in Cargo.lock (without --locked: the registry lacks one pinned dependency)
#   - the repository's npm dev tools (package-lock.json: binaryen's wasm-opt, typescript, esbuild;
#     @modelcontextprotocol/ext-apps for the mcp-apps entry; vite and webpack for the bundler test)
#   - Debian's chromium and chromium-driver, for the headless browser tests
# Set VERBOSE=1 to see what it does.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { if [ -n "${VERBOSE:-}" ]; then echo "install-tools: $*"; fi; }
die() { echo "install-tools: $*" >&2; exit 1; }
# Runs a command quietly; on failure shows its output and stops.
quiet() {
  local log
  log=$(mktemp)
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    die "failed: $*"
  fi
  rm -f "$log"
}

for tool in cargo rustup node npm; do
  command -v "$tool" >/dev/null || die "$tool not found (needed on the machine before this script)"
done
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || die "Node.js >= 20 needed, found $(node --version)"

# 1. The wasm target.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "rustup target add wasm32-unknown-unknown"
  quiet rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen-cli at the version locked for the wasm-bindgen crate.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$want" ] || die "no wasm-bindgen package in Cargo.lock"
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
runner=$(wasm-bindgen-test-runner --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ] || [ "$runner" != "$want" ]; then
  say "cargo install wasm-bindgen-cli --version $want (was: ${have:-none}); takes about 2 minutes"
  quiet cargo install wasm-bindgen-cli --version "$want" --force
  [ "$(wasm-bindgen --version | awk '{ print $2 }')" = "$want" ] ||
    die "wasm-bindgen on PATH is not $want after installing (is ~/.cargo/bin first on PATH?)"
fi

# 3. npm dev tools, exactly as locked. Reinstalled when package-lock.json changed since.
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -x node_modules/.bin/tsc ] || [ ! -x node_modules/.bin/esbuild ] ||
  [ ! -x node_modules/.bin/vite ] || [ ! -f node_modules/webpack/package.json ] ||
  [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  quiet npm ci --no-audit --no-fund --loglevel=error
fi

# 4. Chromium and its WebDriver for the headless browser tests.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  [ "$(id -u)" = 0 ] || die "chromium/chromium-driver missing; run as root to apt-get install them"
  say "apt-get install chromium chromium-driver"
  export DEBIAN_FRONTEND=noninteractive
  quiet apt-get update
  quiet apt-get install -y --no-install-recommends chromium chromium-driver
fi
