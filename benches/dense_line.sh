#!/usr/bin/env bash
# Memory and time on one Markdown line dense with findings: a Czech sentence with a
# finding every six bytes (cs-R1 and cs-R1b after each one-letter preposition and
# conjunction, and the ellipsis), repeated to SIZES_MB megabytes on a single line. For each
# size: the run without the cache, the first run with it, and the warm run, each with its
# peak resident memory and the findings per megabyte it works out to. This is what
# docs/reliability.md's "Memory grows with the findings" figures come from.
#
#   bash benches/dense_line.sh               # 2 MB and 20 MB
#   SIZES_MB="200" bash benches/dense_line.sh  # the 200 MB line (about 4 GB and 3 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES_MB=${SIZES_MB-"2 20"}
WORK=${WORK:-/tmp/lockgraph-dense}
mkdir -p "$WORK"

cargo build --release --quiet --bin copy-audit
AUDIT=$PWD/target/release/copy-audit
SENTENCE='Jdu v lese a k poli, s ním... '

# run <label> <dir> <args…>: one run; prints the label, seconds, peak RSS and findings.
run() {
  local label=$1 dir=$2; shift 2
  # The report's head holds its totals; the rest (10 GB at 200 MB) is read and dropped.
  (cd "$dir" && /usr/bin/time -f "%e %M" -o "$WORK/time" "$AUDIT" --format json "$@" \
    2>/dev/null | { head -c 300 >"$WORK/head"; cat >/dev/null; }) || true
  read -r secs kib < <(tail -n 1 "$WORK/time")
  local findings
  findings=$(grep -o '"totalFindings": *[0-9]*' "$WORK/head" | grep -o '[0-9]*$')
  printf '%-9s %8s s %8s MB %10s findings %6s bytes a finding, all counted\n' "$label" "$secs" \
    "$(( kib / 1024 ))" "$findings" "$(( kib * 1024 / (findings > 0 ? findings : 1) ))"
}

for mb in $SIZES_MB; do
  dir="$WORK/line-$mb"
  if [ ! -f "$dir/a.md" ]; then
    mkdir -p "$dir"
    printf 'language: cs\npaths:\n  include:\n    - "**/*.md"\n' >"$dir/.copy-editor.yaml"
    # `yes` and `tr` end on the closed pipe once `head` has its bytes.
    yes "$SENTENCE" | tr -d '\n' | head -c $(( mb * 1000 * 1000 )) >"$dir/a.md" || true
  fi
  echo "one line of $mb MB:"
  rm -rf "$dir/.lockgraph"
  run "no cache" "$dir" --no-cache
  run "cold" "$dir"
  run "warm" "$dir"
done
