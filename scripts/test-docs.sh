#!/usr/bin/env bash
# test-docs.sh: `make docs` with the set-up's mdBook renders every chapter
# of docs/src/SUMMARY.md; fails naming the chapters that have no page.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/target/ringlab/docs"
cd "$ROOT"
rm -rf "$OUT"
t0="$(date +%s.%N)"
log="$ROOT/target/ringlab/test-docs.log"
mkdir -p "$(dirname "$log")"
make --no-print-directory docs >"$log" 2>&1 || { tail -n 20 "$log" >&2; echo "test-docs: FAIL: make docs failed (log: $log)" >&2; exit 1; }
secs="$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
missing=()
while IFS= read -r md; do
    [ -f "$OUT/${md%.md}.html" ] || missing+=("$md")
done < <(grep -o '([^)]*\.md)' docs/src/SUMMARY.md | tr -d '()')
[ -f "$OUT/index.html" ] || missing+=("index")
if [ ${#missing[@]} -gt 0 ]; then
    echo "test-docs: FAIL: no page for ${missing[*]} in $OUT" >&2
    exit 1
fi
echo "test-docs: ok, $(grep -c '\.md)' docs/src/SUMMARY.md) chapters rendered by $(mdbook --version) in $secs s"
