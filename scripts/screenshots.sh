#!/usr/bin/env bash
# Refreshes the committed screenshots of the page (docs/screenshots/, listed in its README.md):
# runs the browser tests that take them (page-e2e, annotations, provider-session, chat-sources; they
# write to target/screenshots/, which is not committed) and copies their PNGs into
# docs/screenshots/, run through `optipng` when it is installed (Debian's optipng; lossless).
# The test suite itself never writes into docs/ (CI must leave the tree clean): only this does.
# Needs what scripts/test-wasm.sh needs (pkg/ built by scripts/build-pkg.sh, node_modules).
#   scripts/screenshots.sh          run the tests, then copy
#   scripts/screenshots.sh --copy   copy what target/screenshots/ holds now
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

die() { echo "screenshots: $*" >&2; exit 1; }

case "${1:-}" in
  "") run=1 ;;
  --copy) run= ;;
  *) die "unknown argument '$1' (--copy)" ;;
esac

# The screenshots the README describes; any other PNG in target/screenshots/ is not copied.
names=(page panel-tools panel-customizations panel-mcp panel-changes panel-annotations
  panel-automations panel-terminal panel-canvases annotations-panel annotations-canvas
  provider-session chat-fork)
src=target/screenshots
dst=docs/screenshots

if [ -n "$run" ]; then
  [ -f pkg/web.js ] || die "pkg/ is not built; run scripts/build-pkg.sh first"
  rm -rf "$src"
  node --experimental-websocket --test tests/browser/page-e2e.test.mjs \
    tests/browser/annotations.test.mjs tests/browser/provider-session.test.mjs \
    tests/browser/chat-sources.test.mjs ||
    die "the browser tests failed; nothing copied"
fi

mkdir -p "$dst"
for name in "${names[@]}"; do
  [ -f "$src/$name.png" ] || die "$src/$name.png is missing (run without --copy)"
done
for name in "${names[@]}"; do
  cp "$src/$name.png" "$dst/$name.png"
  if command -v optipng >/dev/null; then optipng -quiet -o2 -strip all "$dst/$name.png"; fi
done
echo "screenshots: ${#names[@]} PNGs in $dst ($(du -ch "$dst"/*.png | awk 'END { print $1 }') in all)"
