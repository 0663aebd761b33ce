#!/usr/bin/env bash
# The remote cache at scale: on the real tree of benches/real_tree.rs (N Czech Markdown
# files with the agent's lockfile), the floor, a cold local run, a cold remote run against
# a freshly started BuildGrid (the upload included), and a fresh checkout (no .lockgraph/)
# served by the warm remote cache. Medians over $RUNS runs; the counts of chunks looked up,
# served and stored are printed from LOCKGRAPH_LOG, and the ratios also as the median of
# each run's own. TOOL=soil-lock measures soil-lock
# status instead, on the generated root of N definitions (benches/gen_corpus.rs).
#
#   BGD=/path/to/venv/bin/bgd N=100000 bash benches/remote_cache.sh
#   BGD=/path/to/venv/bin/bgd TOOL=soil-lock N=50000 bash benches/remote_cache.sh
#
# BIN=<binary> measures another build of the tool on the same tree (run the script once
# per build, in turns, to compare two commits). GIT=1 measures fresh git clones of the
# tree (or root) instead, as CI runners have them: the cold runs in one clone, the served
# run in another, whose files git's index names (none is read). Each run also times a
# cold run against an address nothing listens on: the client's own part of a cold remote
# run, without a server's CPU on the same cores.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-100000}
RUNS=${RUNS:-3}
WORK=${WORK:-/tmp/lockgraph-scale}
BGD=${BGD:-bgd}
PORT=${PORT:-50998}
TOOL=${TOOL:-copy-audit}
cargo build --release --quiet --bin "$TOOL" --example floor --example real_tree --example gen_corpus
FLOOR=$PWD/target/release/examples/floor
BIN=${BIN:-$PWD/target/release/$TOOL}
if [ "$TOOL" = soil-lock ]; then
  T="$WORK/soil-$N"
  [ -f "$T/soil.toml" ] || target/release/examples/gen_corpus soil "$T" "$N" > /dev/null
  # Each run is in the directory it measures (the tree, or a clone of it).
  RUN=("$BIN" -q --root . status --json)
  EXTS=(tr lock soil)
  G="$WORK/soil-$N-git"
else
  T="$WORK/real-tree-$N/tree"
  [ -f "$WORK/real-tree-$N/states/agent.json" ] || target/release/examples/real_tree "$WORK/real-tree-$N" "$N" 2>/dev/null
  cp "$WORK/real-tree-$N/states/agent.json" "$T/.copy-editor.lock.json"
  RUN=("$BIN" -q --json)
  EXTS=(md json)
  G="$WORK/real-tree-$N/git"
fi
if [ "${GIT:-}" = 1 ]; then
  if [ ! -d "$G/repo/.git" ]; then
    rm -rf "$G"; mkdir -p "$G"; cp -r "$T" "$G/repo"; rm -rf "$G/repo/.lockgraph"
    (cd "$G/repo" && git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -q -m tree && git repack -a -d -q && git prune)
  fi
  rm -rf "$G/cold" "$G/served"
  git clone -q "$G/repo" "$G/cold"; git clone -q "$G/repo" "$G/served"
  T="$G/cold"
fi
SERVER="$WORK/buildgrid"
mkdir -p "$SERVER"
sed "s/PORT/$PORT/; s/size: 256MB/size: 2GB/" tests/data/buildgrid.yml > "$SERVER/bg.yml"
start_server() {
  pkill -f "bgd server start $SERVER" 2>/dev/null || true
  sleep 1
  (cd "$SERVER" && "$BGD" server start "$SERVER/bg.yml" > "$SERVER/log" 2>&1 &)
  for _ in $(seq 150); do (echo > "/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return; sleep 0.2; done
  echo "BuildGrid did not start" >&2; exit 1
}
ms() { local t0 t1; t0=$(date +%s%N); "$@" > /dev/null 2> "$SERVER/err" || true; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
counts() { grep -E "remote chunks|reports computed|file reads|files read|files named" "$SERVER/err" | sed 's/^timing: //; s/  */ /g' | paste -sd, -; }
url="grpc://127.0.0.1:$PORT"
nowhere="grpc://127.0.0.1:1"
floor=() cold=() remote_cold=() remote_warm=() no_server=()
cd "$T"
for r in $(seq "$RUNS"); do
  floor+=("$(ms "$FLOOR" "$T" "${EXTS[@]}")")
  rm -rf .lockgraph; cold+=("$(ms "${RUN[@]}")")
  rm -rf .lockgraph; no_server+=("$(ms "${RUN[@]}" --remote-cache "$nowhere")")
  start_server
  rm -rf .lockgraph; remote_cold+=("$(LOCKGRAPH_LOG=info ms "${RUN[@]}" --remote-cache "$url")")
  echo "run $r cold remote: $(counts)"
  [ "${GIT:-}" = 1 ] && cd "$G/served"
  rm -rf .lockgraph; remote_warm+=("$(LOCKGRAPH_LOG=info ms "${RUN[@]}" --remote-cache "$url")")
  cd "$T"
  echo "run $r warm remote: $(counts)"
done
pkill -f "bgd server start $SERVER" || true
f=$(printf '%s\n' "${floor[@]}" | median)
c=$(printf '%s\n' "${cold[@]}" | median)
rc=$(printf '%s\n' "${remote_cold[@]}" | median)
rw=$(printf '%s\n' "${remote_warm[@]}" | median)
ns=$(printf '%s\n' "${no_server[@]}" | median)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
echo "$TOOL N=$N floor $f ms | cold local $c ms | cold remote $rc ms ($(ratio "$rc" "$c")x cold local) | warm remote, fresh checkout $rw ms ($(ratio "$rw" "$f")x floor)"
# The same ratios taken within each run, then their median: on a machine whose speed moves
# from minute to minute, a run's cold remote is best set against that run's cold local.
within() { local -n num=$1 den=$2; for i in "${!num[@]}"; do ratio "${num[$i]}" "${den[$i]}"; echo; done | median; }
echo "within each run, median: cold remote $(within remote_cold cold)x cold local | warm remote $(within remote_warm floor)x floor"
echo "the client's own part: cold with no server listening $ns ms, within each run $(within no_server cold)x cold local"
