#!/usr/bin/env bash
# Runs every fuzz target for SECONDS seconds each (default 10) from the seeded corpus,
# with the nightly toolchain and cargo-fuzz, installing them if need be; says so and
# stops without failing only if they cannot be installed.
#
#   bash fuzz/run.sh            # 10 s a target (what .ci/run does)
#   bash fuzz/run.sh 3600       # a long run
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal >/dev/null 2>&1 || {
    echo "fuzz: skipped (the nightly toolchain cannot be installed here)"
    exit 0
  }
fi
if ! command -v cargo-fuzz >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked >/dev/null 2>&1 || {
    echo "fuzz: skipped (cargo-fuzz cannot be installed here)"
    exit 0
  }
fi
bash fuzz/seed.sh
for target in $(cargo +nightly fuzz list); do
  mkdir -p "fuzz/corpus/$target"
  log=$(mktemp)
  if ! cargo +nightly fuzz run "$target" "fuzz/corpus/$target" -- \
      -max_total_time="$seconds" -rss_limit_mb=4096 -max_len=65536 >"$log" 2>&1; then
    tail -40 "$log"
    echo "fuzz: $target failed (the input is in fuzz/artifacts/$target/)"
    exit 1
  fi
  runs=$(grep -oE 'Done [0-9]+ runs' "$log" | tail -1 || true)
  echo "fuzz: $target ok (${runs:-ran} in ${seconds} s)"
  rm -f "$log"
done
