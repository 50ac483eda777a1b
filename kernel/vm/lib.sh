# Sourced by the kernel/vm scripts: die (messages prefixed with $TAG),
# and wall-clock seconds for their timing lines.
die() { echo "$TAG: $*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
