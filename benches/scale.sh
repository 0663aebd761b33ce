#!/usr/bin/env bash
# Scaling: for corpora of N files (copy-audit) and N definitions (soil-lock), the cold run,
# the warm run with nothing changed, the warm run after editing one file, peak RSS, and the
# floor (walk + read + SHA-256 every input, in parallel) — each time also as a multiple of
# the floor, all measured in this run on this machine. Medians over $RUNS runs.
#
# The copy corpora have typography mistakes in 0.1% of words (COPY_MISTAKES, in percent:
# an audited repository, about 0.4 findings per file); HARSH_SIZES adds rows for corpora at
# 2% (about 8 findings per file), where printing the findings is a large part of a run.
#
#   bash benches/scale.sh     # real trees 2k 100k in four states; synthetic copy 1k 10k 100k
#                             # (+100k at 2%); real ×40; soil 1k 10k 50k
#   REAL_SIZES="2000" COPY_SIZES="" HARSH_SIZES="" REAL_COPIES="" SOIL_SIZES="" bash benches/scale.sh
#
# COPY_AUDIT=<binary> (SOIL_LOCK=<binary>) measures another build of copy-audit (soil-lock)
# on the same trees.
set -euo pipefail
cd "$(dirname "$0")/.."

REAL_SIZES=${REAL_SIZES-"2000 100000"}
COPY_SIZES=${COPY_SIZES-"1000 10000 100000"}
# Copies of the real repository's three trees (benches/real_corpus.rs): 51 files and
# about 2.3 MB of lockfile each.
REAL_COPIES=${REAL_COPIES-"40"}
COPY_MISTAKES=${COPY_MISTAKES:-0.1}
HARSH_SIZES=${HARSH_SIZES-"100000"}
SOIL_SIZES=${SOIL_SIZES-"1000 10000 50000"}
RUNS=${RUNS:-5}
WORK=${WORK:-/tmp/lockgraph-scale}
mkdir -p "$WORK"

cargo build --release --quiet --bin copy-audit --bin soil-lock --example gen_corpus --example floor --example real_corpus --example real_tree
BIN=target/release
COPY_AUDIT=${COPY_AUDIT:-$PWD/$BIN/copy-audit}
SOIL_LOCK=${SOIL_LOCK:-$PWD/$BIN/soil-lock}
GEN=$PWD/$BIN/examples/gen_corpus
REAL=$PWD/$BIN/examples/real_corpus
REAL_TREE=$PWD/$BIN/examples/real_tree
FLOOR=$PWD/$BIN/examples/floor

now() { date +%s%N; }

# time_ms <cmd…>: runs once, prints "<milliseconds> <peak RSS KiB>".
time_ms() {
  local t0 t1 rss
  t0=$(now)
  /usr/bin/time -f "%M" -o "$WORK/rss" "$@" >/dev/null 2>&1 || true
  t1=$(now)
  rss=$(tail -n 1 "$WORK/rss")
  echo "$(( (t1 - t0) / 1000000 )) $rss"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# measure <label> <setup-cmd> <cmd…>: median ms and max RSS over $RUNS runs.
measure() {
  local setup=$1; shift
  local times=() rsss=()
  for _ in $(seq "$RUNS"); do
    eval "$setup"
    read -r ms rss < <(time_ms "$@")
    times+=("$ms"); rsss+=("$rss")
  done
  local m r
  m=$(printf '%s\n' "${times[@]}" | median)
  r=$(printf '%s\n' "${rsss[@]}" | sort -n | tail -n 1)
  echo "$m $r"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) b = 1; printf "%.1f×", a / b }'; }

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
echo "runs per figure: $RUNS (median time, max peak RSS)"
echo
printf '%-10s %8s | %9s | %16s | %16s | %16s | %9s\n' tool N floor cold warm "one edit" "peak RSS"
printf '%s\n' "-----------+----------+-----------+------------------+------------------+------------------+----------"

copy_rows() {
  local sizes=$1 mistakes=$2
  for n in $sizes; do
    copy_row "$n" "$mistakes"
  done
}

copy_row() {
  local n=$1 mistakes=$2
  local dir="$WORK/copy-$n-m$mistakes"
  [ -f "$dir/.copy-editor.yaml" ] || "$GEN" copy "$dir" "$n" 42 --mistakes "$mistakes"
  local edit="$dir/content/cs/000/doc1.md"
  [ -f "$edit" ] || edit=$(find "$dir/content" -name '*.md' | head -n 1)
  audit_row "copy $mistakes%" "$n" "$dir" "$edit" md json tsx
}

# audit_row <label> <N> <dir> <file to edit> <extensions…>: one row of copy-audit runs.
audit_row() {
  local label=$1 n=$2 dir=$3 edit=$4; shift 4
  local floor cold rss_cold warm rss_warm edited rss_edit rss
  read -r floor _ < <(measure ":" "$FLOOR" "$dir" "$@")
  cd "$dir"
  read -r cold rss_cold < <(measure "rm -rf .lockgraph" "$COPY_AUDIT" --json)
  "$COPY_AUDIT" --json >/dev/null || true
  read -r warm rss_warm < <(measure ":" "$COPY_AUDIT" --json)
  read -r edited rss_edit < <(measure "echo 'Doplněná věta číslo '\$RANDOM'.' >> '$edit'" "$COPY_AUDIT" --json)
  cd - >/dev/null
  rss=$(printf '%s\n' "$rss_cold" "$rss_warm" "$rss_edit" | sort -n | tail -n 1)
  printf '%-10s %8s | %6s ms | %6s ms %7s | %6s ms %7s | %6s ms %7s | %6s MB\n' "$label" "$n" "$floor" \
    "$cold" "$(ratio "$cold" "$floor")" "$warm" "$(ratio "$warm" "$floor")" \
    "$edited" "$(ratio "$edited" "$floor")" "$(( rss / 1024 ))"
}

# The real trees (benches/real_tree.rs): N Czech Markdown files of the real repository
# with unique footers and its bilingual agenda.json, in each state a repository is in.
# One tree per N; each state is its lockfile swapped in: none (every repository starts
# there), the agent's fresh entries, every entry stale, and --offline's entries.
real_rows() {
  local n=$1 dir="$WORK/real-tree-$n/tree" states="$WORK/real-tree-$n/states"
  [ -f "$states/agent.json" ] || "$REAL_TREE" "$WORK/real-tree-$n" "$n" 2>/dev/null
  local edit="$dir/md/000/000/0000000-deck.md"
  [ -f "$states/edit.orig" ] || cp "$edit" "$states/edit.orig"
  # --offline's entries are this binary's: written anew each time.
  (cd "$dir" && rm -rf .copy-editor.lock.json .lockgraph && "$COPY_AUDIT" --offline --json >/dev/null 2>&1 || true)
  mv "$dir/.copy-editor.lock.json" "$states/offline.json"
  for state in none agent stale offline; do
    rm -f "$dir/.copy-editor.lock.json"
    [ "$state" = none ] || cp "$states/$state.json" "$dir/.copy-editor.lock.json"
    audit_row "real $state" "$n" "$dir" "$edit" md json
    cp "$states/edit.orig" "$edit"
  done
  rm -f "$dir/.copy-editor.lock.json"
}

for n in $REAL_SIZES; do
  real_rows "$n"
done

copy_rows "$COPY_SIZES" "$COPY_MISTAKES"
copy_rows "$HARSH_SIZES" 2

for n in $REAL_COPIES; do
  dir="$WORK/real-$n"
  [ -f "$dir/.copy-editor.yaml" ] || "$REAL" "$dir" "$n" 2>/dev/null
  audit_row "real ×$n" "$(( n * 51 ))" "$dir" "$dir/copies/0000/b14f4c7/content/talks/codex-demo-script.md" md json
done

for n in $SOIL_SIZES; do
  dir="$WORK/soil-$n"
  [ -f "$dir/soil.toml" ] || "$GEN" soil "$dir" "$n"
  edit="$dir/m000/d1.tr"
  read -r floor _ < <(measure ":" "$FLOOR" "$dir" tr lock soil)
  read -r cold rss_cold < <(measure "rm -rf '$dir/.lockgraph'" "$SOIL_LOCK" --root "$dir" status --json)
  "$SOIL_LOCK" --root "$dir" status --json >/dev/null || true
  read -r warm rss_warm < <(measure ":" "$SOIL_LOCK" --root "$dir" status --json)
  read -r edited rss_edit < <(measure "echo 'More prose '\$RANDOM'.' >> '$edit'" "$SOIL_LOCK" --root "$dir" status --json)
  rss=$(printf '%s\n' "$rss_cold" "$rss_warm" "$rss_edit" | sort -n | tail -n 1)
  printf '%-10s %8s | %6s ms | %6s ms %7s | %6s ms %7s | %6s ms %7s | %6s MB\n' soil-lock "$n" "$floor" \
    "$cold" "$(ratio "$cold" "$floor")" "$warm" "$(ratio "$warm" "$floor")" \
    "$edited" "$(ratio "$edited" "$floor")" "$(( rss / 1024 ))"
done
