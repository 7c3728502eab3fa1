#!/usr/bin/env bash
# Builds the npm package `ahp-wasm` in pkg/ from the Rust crate:
#   1. cargo build --release --target wasm32-unknown-unknown (LLVM inline threshold lowered)
#   2. wasm-bindgen (the CLI at the exact version locked in Cargo.lock) --target web
#   3. wasm-opt -Oz from the npm `binaryen` package (NOT Debian's binaryen, whose output fails to load)
#   4. copies the hand-written entries from js/ (node.js, web.js over api.js and mcp-channel.js;
#      common.d.ts, handles.d.ts): the default entry `ahp-wasm` (AHP 1.0) into pkg/ with its
#      reducers, names and declarations from js/v1/, the AHP 0.3.0 entry `ahp-wasm/v0.3` into
#      pkg/v0.3/ with js/reducers.js, js/protocol.js and js/index.d.ts; writes
#      generated.js (what the entries export without the WebAssembly module: the error
#      classes of the errors.js snippet, the protocol version constants) and bundles
#      the `ahp-wasm/mcp-apps` entry (js/mcp-apps.js with the official
#      @modelcontextprotocol/ext-apps AppBridge, by esbuild) beside its sandbox proxy page;
#      copies LICENSE; minifies the package's JS (white space, comments and syntax; names kept)
#   5. checks both entries load in Node and work, and prints their sizes (raw and gzip).
#   scripts/build-pkg.sh             all of it
#   scripts/build-pkg.sh --js-only   4 and 5 only, over the wasm already in pkg/ (after editing js/;
#                                    the snippets wasm-bindgen copied from js/ are refreshed too)
# Everything in pkg/ except package.json and README.md is generated (git-ignored).
# Tools: scripts/install-tools.sh installs them on a fresh machine.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

die() { echo "build-pkg: $*" >&2; exit 1; }

js_only=
case "${1:-}" in
  --js-only) js_only=1 ;;
  "") ;;
  *) die "unknown argument '$1' (--js-only)" ;;
esac
command -v node >/dev/null || die "node not found"

if [ -z "$js_only" ]; then
  # The wasm-bindgen CLI must match the library version exactly.
  want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
  [ -n "$want" ] || die "no wasm-bindgen in Cargo.lock"
  command -v wasm-bindgen >/dev/null || die "wasm-bindgen not found; run scripts/install-tools.sh"
  have=$(wasm-bindgen --version | awk '{ print $2 }')
  [ "$have" = "$want" ] || die "wasm-bindgen CLI is $have, Cargo.lock wants $want; run scripts/install-tools.sh"

  WASM_OPT=node_modules/.bin/wasm-opt
  [ -x "$WASM_OPT" ] || die "$WASM_OPT missing (npm binaryen); run scripts/install-tools.sh"

  target_dir=$(cargo metadata --format-version 1 --no-deps | node -e \
    'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).target_directory))')

  # LLVM's inliner at a third of its -O3 threshold: the serde code of the wire types stops
  # being copied into every caller (about 11% of the gzipped module) for a few percent on the
  # mirror path (pkg/README.md, "Size"). A RUSTFLAGS in the environment replaces this.
  inline_flags="-C llvm-args=-inline-threshold=60"
  # Panic locations in dependencies name their source files: under `crates/`, not under this
  # machine's cargo home (the package is the same whoever builds it, and says nothing of them).
  remap_flags="--remap-path-prefix=${CARGO_HOME:-${HOME:-}/.cargo}/registry/src=crates"
  # build_module DIR CARGO_ARGS...: the module of one protocol version into DIR (emptied first,
  # keeping the committed files of pkg/).
  build_module() {
    local dir=$1
    shift
    echo "build-pkg: cargo build --release --target wasm32-unknown-unknown $* ($inline_flags)"
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$inline_flags $remap_flags" \
      cargo build --release --target wasm32-unknown-unknown --lib -p ahp-wasm "$@"
    local wasm_in="$target_dir/wasm32-unknown-unknown/release/ahp_wasm.wasm"
    [ -f "$wasm_in" ] || die "missing $wasm_in"
    mkdir -p "$dir"
    find "$dir" -mindepth 1 -maxdepth 1 ! -name package.json ! -name README.md -exec rm -rf {} +
    echo "build-pkg: wasm-bindgen $have --target web ($dir)"
    wasm-bindgen --target web --out-dir "$dir" --out-name ahp_wasm "$wasm_in"
    echo "build-pkg: wasm-opt -Oz ($("$WASM_OPT" --version))"
    # The features rustc enables by default for wasm32-unknown-unknown.
    # --low-memory-unused: rustc puts the stack below 1 MiB and the data above it, so the low
    # 1 KiB is the stack's last kilobyte before overflow: constant offsets fold into loads and
    # stores (-2.2 KB gzip). --converge repeats -Oz while it shrinks. The producers and
    # target-features sections are for tools, not engines.
    "$WASM_OPT" -Oz --converge --low-memory-unused --strip-producers --strip-target-features \
      --enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int \
      --enable-sign-ext --enable-reference-types --enable-multivalue \
      "$dir/ahp_wasm_bg.wasm" -o "$dir/ahp_wasm_bg.opt.wasm"
    mv "$dir/ahp_wasm_bg.opt.wasm" "$dir/ahp_wasm_bg.wasm"
  }
  # The default entry `ahp-wasm`, AHP 1.0 (built with feature `v1` alone: no 0.3.0 code in
  # it), then the AHP 0.3.0 entry `ahp-wasm/v0.3` (the default features: no 1.0 code). pkg/
  # first: emptying it removes pkg/v0.3/ too.
  build_module pkg --no-default-features --features v1
  build_module pkg/v0.3

else
  for dir in pkg pkg/v0.3; do
    [ -f $dir/ahp_wasm_bg.wasm ] && [ -f $dir/ahp_wasm.js ] || die "--js-only: $dir has no built wasm; run scripts/build-pkg.sh"
  done
  echo "build-pkg: --js-only: the entries from js/ over the wasm already in pkg/ and pkg/v0.3/"
  # The snippets are verbatim copies of js/ files (wasm-bindgen copies them): refresh them too.
  for snippet in pkg/snippets/*/js/*.js pkg/v0.3/snippets/*/js/*.js; do
    [ -f "js/$(basename "$snippet")" ] && cp "js/$(basename "$snippet")" "$snippet"
  done
fi

# The entries' modules, the same for both versions but the reducers, the named values
# (protocol.js) and the types.
entry_js=(js/node.js js/web.js js/api.js js/module-state.js js/error-classes.js
  js/in-memory-transport.js js/websocket.js js/mcp-channel.js js/active-client.js js/terminal.js
  js/changeset.js js/schema-check.js)
# copy_dts SRC DEST FROM TO: a declaration file whose imports of the shared declarations
# (common.d.ts, handles.d.ts) say FROM in js/ and TO where the file goes in pkg/.
copy_dts() {
  sed -e "s#'$3common\.js'#'$4common.js'#; s#'$3handles\.js'#'$4handles.js'#" "$1" >"$2"
  grep -q "'$3common\.js'\|'$3handles\.js'" "$2" && die "$2: an import of $3 left"
  return 0
}
# AHP 1.0, the default entry: the shared modules, 1.0's reducers and named values (js/v1/,
# generated), its declarations (js/v1/, beside the shared ones in js/: './' in pkg/).
cp "${entry_js[@]}" js/v1/reducers.js js/v1/protocol.js js/v1/reducers.d.ts js/v1/types.d.ts \
  js/common.d.ts js/handles.d.ts pkg/
copy_dts js/v1/index.d.ts pkg/index.d.ts ../ ./
copy_dts js/v1/generated.d.ts pkg/generated.d.ts ../ ./
# AHP 0.3.0, `ahp-wasm/v0.3`: the same modules over 0.3.0's reducers and names; its declarations
# import the shared ones from the package root.
cp "${entry_js[@]}" js/reducers.js js/protocol.js pkg/v0.3/
copy_dts js/index.d.ts pkg/v0.3/index.d.ts ./ ../

# The MCP Apps entry: our glue plus ext-apps' AppBridge (and what it imports) in one ES module;
# the package's own modules stay imports (the app's instance of the package is the one used).
ESBUILD=node_modules/.bin/esbuild
[ -x "$ESBUILD" ] || die "$ESBUILD missing; run scripts/install-tools.sh"
"$ESBUILD" js/mcp-apps.js --bundle --format=esm --platform=browser --target=es2022 --minify \
  --legal-comments=eof --external:./web.js --log-level=warning --outfile=pkg/mcp-apps.js
cp js/mcp-apps.d.ts js/mcp-app-sandbox.html pkg/
cp LICENSE pkg/LICENSE
# The page's own npm dependency (not part of the package): xterm.js for its terminal panel,
# copied to www/vendor/ (not committed), which the host serves with the page.
mkdir -p www/vendor/xterm
cp node_modules/@xterm/xterm/lib/xterm.mjs node_modules/@xterm/xterm/css/xterm.css \
  node_modules/@xterm/xterm/LICENSE www/vendor/xterm/
cp node_modules/@modelcontextprotocol/ext-apps/LICENSE pkg/LICENSE.ext-apps

# generated.js: the entries' exports that need no WebAssembly (js/api.js), so they work before
# init(). The error classes are re-exported from the very module the bindings import (the
# errors.js snippet, under a directory whose name wasm-bindgen derives from the crate), so that
# `instanceof` holds; the version constants are read from the module now.
# write_generated DIR: DIR/generated.js, from DIR's module.
write_generated() {
  local dir=$1 errors_snippet versions
  mapfile -t errors_snippet < <(cd "$dir" && find snippets -path '*/js/errors.js')
  [ ${#errors_snippet[@]} -eq 1 ] || die "expected one errors.js snippet in $dir/snippets, found ${#errors_snippet[@]}"
  versions=$(DIR="$dir" node --input-type=module -e '
    import { readFileSync } from "node:fs";
    const dir = process.env.DIR;
    const glue = await import(new URL(`${dir}/ahp_wasm.js`, "file://" + process.cwd() + "/").href);
    glue.initSync({ module: readFileSync(`${dir}/ahp_wasm_bg.wasm`) });
    const out = (name, value) => console.log(`export const ${name} = ${JSON.stringify(value)};`);
    out("PROTOCOL_VERSION", glue.__protocolVersion());
    out("SUPPORTED_PROTOCOL_VERSIONS", glue.__supportedProtocolVersions());
  ') || die "reading the protocol versions from the module in $dir failed"
  {
    echo "// Generated by scripts/build-pkg.sh: what the package exports without the WebAssembly module."
    echo "export { errorClasses } from './${errors_snippet[0]}';"
    echo "$versions"
  } >"$dir/generated.js"
}
write_generated pkg
write_generated pkg/v0.3

# The package's JS without comments and white space (esbuild's whitespace and syntax
# minification, file by file): about 40% of its gzipped size is the doc comments, which the
# .d.ts files carry for users. Names are kept (readable stack traces, error class names);
# the commented sources are js/. mcp-apps.js is minified when bundled.
mapfile -t shipped_js < <(find pkg -name '*.js' ! -name mcp-apps.js | sort)
for file in "${shipped_js[@]}"; do
  "$ESBUILD" "$file" --minify-whitespace --minify-syntax --format=esm --target=es2022 \
    --log-level=error --outfile="$file.min" && mv "$file.min" "$file" \
    || die "minifying $file failed"
done

# The optimized module must load and work (an optimizer bug shows up here, not in a user's app).
node --input-type=module -e '
  const m = await import(new URL("pkg/node.js", "file://" + process.cwd() + "/").href);
  await m.init();
  if (m.PROTOCOL_VERSION !== "1.0.0") throw new Error("ahp-wasm PROTOCOL_VERSION is " + m.PROTOCOL_VERSION);
  if (typeof m.AhpClient?.connect !== "function") throw new Error("ahp-wasm has no AhpClient.connect");
  const chat = { resource: "ahp-chat:/c", title: "", status: 1, modifiedAt: "1970-01-01T00:00:01.000Z", turns: [] };
  if (m.chatReducer(chat, { type: "no/such-action" }) !== chat) throw new Error("unknown action did not return the state");
  let threw = false;
  try { m.chatReducer({}, { type: "chat/truncated" }); } catch (e) { threw = e instanceof m.InvalidInputError; }
  if (!threw) throw new Error("bad input did not throw InvalidInputError");
  if (!m.isClientDispatchable("chat/turnStarted") || m.isClientDispatchable({ type: "chat/delta" })) {
    throw new Error("isClientDispatchable is wrong");
  }
' || die "the built default entry (pkg/, AHP 1.0) does not load in Node"
node --input-type=module -e '
  const m = await import(new URL("pkg/v0.3/node.js", "file://" + process.cwd() + "/").href);
  await m.init();
  if (m.PROTOCOL_VERSION !== "0.3.0") throw new Error("ahp-wasm/v0.3 PROTOCOL_VERSION is " + m.PROTOCOL_VERSION);
  const state = { root: "file:///w", recursive: true };
  const out = m.resourceWatchReducer(state, { type: "no/such-action" });
  if (out !== state) throw new Error("unknown action did not return the state");
  let threw = false;
  try { m.sessionReducer({}, { type: "session/ready" }); } catch (e) { threw = e instanceof m.InvalidInputError; }
  if (!threw) throw new Error("bad input did not throw InvalidInputError");
' || die "the built AHP 0.3.0 entry (pkg/v0.3) does not load in Node"

# Size: the wasm module and the JS glue (generated glue, entries and snippets), raw and gzip.
size_of() { cat "$@" | wc -c | tr -d ' '; }
gzip_of() { cat "$@" | gzip -9 | wc -c | tr -d ' '; }
# print_size LABEL DIR: DIR's wasm module and JS (generated glue, entries, snippets; not a
# nested entry's), raw and gzip.
print_size() {
  local label=$1 dir=$2 js_files
  mapfile -t js_files < <(find "$dir" -path "$dir/v0.3" -prune -o -name '*.js' ! -name mcp-apps.js -print | sort)
  printf '  %-36s %10s %10s\n' "$label: ahp_wasm_bg.wasm" "$(size_of "$dir/ahp_wasm_bg.wasm")" "$(gzip_of "$dir/ahp_wasm_bg.wasm")"
  printf '  %-36s %10s %10s\n' "$label: JS" "$(size_of "${js_files[@]}")" "$(gzip_of "${js_files[@]}")"
  printf '  %-36s %10s %10s\n' "$label: total" "$(size_of "$dir/ahp_wasm_bg.wasm" "${js_files[@]}")" \
    "$(( $(gzip_of "$dir/ahp_wasm_bg.wasm") + $(gzip_of "${js_files[@]}") ))"
}
printf 'build-pkg: pkg/ built\n'
printf '  %-36s %10s %10s\n' "" "raw" "gzip -9"
print_size "ahp-wasm (AHP 1.0)" pkg
print_size "ahp-wasm/v0.3" pkg/v0.3
printf '  %-36s %10s %10s\n' "mcp-apps.js (own entry)" "$(size_of pkg/mcp-apps.js pkg/mcp-app-sandbox.html)" \
  "$(( $(gzip_of pkg/mcp-apps.js) + $(gzip_of pkg/mcp-app-sandbox.html) ))"
