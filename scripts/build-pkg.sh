#!/usr/bin/env bash
# Builds the npm package `ahp-wasm` in pkg/ from the Rust crate:
#   1. cargo build --release --target wasm32-unknown-unknown
#   2. wasm-bindgen (the CLI at the exact version locked in Cargo.lock) --target web
#   3. wasm-opt -Oz from the npm `binaryen` package (NOT Debian's binaryen, whose output fails to load)
#   4. copies the hand-written entries from js/ (node.js, web.js over api.js and mcp-channel.js;
#      index.d.ts) and bundles the `ahp-wasm/mcp-apps` entry (js/mcp-apps.js with the official
#      @modelcontextprotocol/ext-apps AppBridge, by esbuild) beside its sandbox proxy page
#   5. checks the package loads in Node and works, and prints its size (raw and gzip).
# Everything in pkg/ except package.json and README.md is generated (git-ignored).
# Tools: scripts/install-tools.sh installs them on a fresh machine.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

die() { echo "build-pkg: $*" >&2; exit 1; }

# The wasm-bindgen CLI must match the library version exactly.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[ -n "$want" ] || die "no wasm-bindgen in Cargo.lock"
command -v wasm-bindgen >/dev/null || die "wasm-bindgen not found; run scripts/install-tools.sh"
have=$(wasm-bindgen --version | awk '{ print $2 }')
[ "$have" = "$want" ] || die "wasm-bindgen CLI is $have, Cargo.lock wants $want; run scripts/install-tools.sh"

WASM_OPT=node_modules/.bin/wasm-opt
[ -x "$WASM_OPT" ] || die "$WASM_OPT missing (npm binaryen); run scripts/install-tools.sh"
command -v node >/dev/null || die "node not found"

target_dir=$(cargo metadata --format-version 1 --no-deps | node -e \
  'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).target_directory))')

echo "build-pkg: cargo build --release --target wasm32-unknown-unknown"
cargo build --release --target wasm32-unknown-unknown --lib -p ahp-wasm
wasm_in="$target_dir/wasm32-unknown-unknown/release/ahp_wasm.wasm"
[ -f "$wasm_in" ] || die "missing $wasm_in"

# Remove the previous generated output, keeping the committed files.
mkdir -p pkg
find pkg -mindepth 1 -maxdepth 1 ! -name package.json ! -name README.md -exec rm -rf {} +

echo "build-pkg: wasm-bindgen $have --target web"
wasm-bindgen --target web --out-dir pkg --out-name ahp_wasm "$wasm_in"

echo "build-pkg: wasm-opt -Oz ($("$WASM_OPT" --version))"
# The features rustc enables by default for wasm32-unknown-unknown.
"$WASM_OPT" -Oz \
  --enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-reference-types --enable-multivalue \
  pkg/ahp_wasm_bg.wasm -o pkg/ahp_wasm_bg.opt.wasm
mv pkg/ahp_wasm_bg.opt.wasm pkg/ahp_wasm_bg.wasm

cp js/node.js js/web.js js/api.js js/mcp-channel.js js/active-client.js js/schema-check.js js/index.d.ts pkg/

# The MCP Apps entry: our glue plus ext-apps' AppBridge (and what it imports) in one ES module;
# the package's own modules stay imports (the app's instance of the package is the one used).
ESBUILD=node_modules/.bin/esbuild
[ -x "$ESBUILD" ] || die "$ESBUILD missing; run scripts/install-tools.sh"
"$ESBUILD" js/mcp-apps.js --bundle --format=esm --platform=browser --target=es2022 --minify \
  --legal-comments=eof --external:./web.js --log-level=warning --outfile=pkg/mcp-apps.js
cp js/mcp-apps.d.ts js/mcp-app-sandbox.html pkg/
cp node_modules/@modelcontextprotocol/ext-apps/LICENSE pkg/LICENSE.ext-apps

# The optimized module must load and work (an optimizer bug shows up here, not in a user's app).
node --input-type=module -e '
  const m = await import(new URL("pkg/node.js", "file://" + process.cwd() + "/").href);
  if (m.PROTOCOL_VERSION !== "0.3.0") throw new Error("PROTOCOL_VERSION is " + m.PROTOCOL_VERSION);
  const state = { root: "file:///w", recursive: true };
  const out = m.resourceWatchReducer(state, { type: "no/such-action" });
  if (out !== state) throw new Error("unknown action did not return the state");
  let threw = false;
  try { m.sessionReducer({}, { type: "session/ready" }); } catch (e) { threw = e instanceof m.InvalidInputError; }
  if (!threw) throw new Error("bad input did not throw InvalidInputError");
' || die "the built package does not load in Node"

# Size: the wasm module and the JS glue (generated glue, entries and snippets), raw and gzip.
size_of() { cat "$@" | wc -c | tr -d ' '; }
gzip_of() { cat "$@" | gzip -9 | wc -c | tr -d ' '; }
mapfile -t js_files < <(find pkg -name '*.js' ! -name mcp-apps.js | sort)
printf 'build-pkg: pkg/ built\n'
printf '  %-28s %10s %10s\n' "" "raw" "gzip -9"
printf '  %-28s %10s %10s\n' "ahp_wasm_bg.wasm" "$(size_of pkg/ahp_wasm_bg.wasm)" "$(gzip_of pkg/ahp_wasm_bg.wasm)"
printf '  %-28s %10s %10s\n' "JS (glue, entries, snippets)" "$(size_of "${js_files[@]}")" "$(gzip_of "${js_files[@]}")"
printf '  %-28s %10s %10s\n' "total" "$(size_of pkg/ahp_wasm_bg.wasm "${js_files[@]}")" \
  "$(( $(gzip_of pkg/ahp_wasm_bg.wasm) + $(gzip_of "${js_files[@]}") ))"
printf '  %-28s %10s %10s\n' "mcp-apps.js (own entry)" "$(size_of pkg/mcp-apps.js pkg/mcp-app-sandbox.html)" \
  "$(( $(gzip_of pkg/mcp-apps.js) + $(gzip_of pkg/mcp-app-sandbox.html) ))"
