#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seeds from the fixtures and, when it is beside the
# clone, ../shared/conformance/: real lockfiles, configs, content files, specs, sidecars
# and Soil. Seeds of two-part inputs start with the selecting byte (the extractor's
# format, or whether a Soil file is a `_private.soil`).
set -euo pipefail
cd "$(dirname "$0")/.."
out=fuzz/corpus
mkdir -p "$out"/{lockfile,config,extract,tr,sidecar,soil}
shared=../shared/conformance
roots=(fixtures)
[ -d "$shared" ] && roots+=("$shared")

n=0
seed() { # seed <target> <file> [prefix byte, octal]
  n=$((n + 1))
  local dest="$out/$1/seed-$n"
  if [ $# -ge 3 ]; then
    { printf "\\$3"; head -c 65536 "$2"; } > "$dest"
  else
    head -c 65536 "$2" > "$dest"
  fi
}

while IFS= read -r -d '' f; do
  case "$f" in
    *.lock.json) seed lockfile "$f" ;;
    *.copy-editor.yaml) seed config "$f" ;;
    *.md) seed extract "$f" 000 ;;
    *.mdx) seed extract "$f" 001 ;;
    *.json) seed extract "$f" 002 ;;
    *.yaml | *.yml) seed extract "$f" 003 ;;
    *.ts | *.tsx | *.js | *.jsx) seed extract "$f" 004 ;;
    *.tr) seed tr "$f" ;;
    *.lock) seed sidecar "$f" ;;
    */_private.soil) seed soil "$f" 001 ;;
    *.soil) seed soil "$f" 000 ;;
  esac
done < <(find "${roots[@]}" -type f -size -1000k -print0)
echo "fuzz corpus: $(find "$out" -type f | wc -l) seeds"
