#!/usr/bin/env bash
# Prints ns/action from the criterion estimates of `cargo bench --bench reducers` (groups
# `session_stream` and `documented_path`) and `cargo bench --bench reducers_v1` (groups
# `v1_wire_path`, `v1_parse_only`, `chat_stream_v1`; each iteration replays one whole stream of
# 20,600 actions), then the single operations of the `mirror` group in ns.
set -euo pipefail
cd "$(dirname "$0")/.."
actions=20600
for dir in target/criterion/session_stream/*/ target/criterion/documented_path/*/ \
  target/criterion/v1_wire_path/*/ target/criterion/v1_parse_only/*/ \
  target/criterion/chat_stream_v1/*/; do
  est="$dir/new/estimates.json"
  [ -f "$est" ] || continue
  name=${dir#target/criterion/}
  name=${name#session_stream/}
  node -e '
    const e = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const per = (x) => (x / Number(process.argv[3])).toFixed(1);
    console.log(`${process.argv[2].replace(/\/$/, "").padEnd(30)} median ${per(e.median.point_estimate)} ns/action  (95% CI ${per(e.median.confidence_interval.lower_bound)}-${per(e.median.confidence_interval.upper_bound)})`);
  ' "$est" "$name" "$actions"
done
# Single operations (`mirror/first_dispatch/N`): time per iteration.
for dir in target/criterion/mirror/*/; do
  est="$dir/new/estimates.json"
  [ -f "$est" ] || continue
  name=${dir#target/criterion/}
  node -e '
    const e = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const ns = (x) => x.toFixed(0);
    console.log(`${process.argv[2].replace(/\/$/, "").padEnd(28)} median ${ns(e.median.point_estimate)} ns  (95% CI ${ns(e.median.confidence_interval.lower_bound)}-${ns(e.median.confidence_interval.upper_bound)})`);
  ' "$est" "$name"
done
