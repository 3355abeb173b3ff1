#!/usr/bin/env bash
# Long fuzzing, outside CI: every fuzz target (or those matching --only)
# for FUZZTIME each (default 10m), JOBS targets at a time (default 1), each
# target with one fuzzing worker at low priority so the machine stays
# usable. CI fuzzes each target for seconds only (.ci/run); this is the run
# that keeps the parsers honest. A crasher is written under the package's
# testdata/fuzz/ and the script exits 1.
#
#   bench/fuzz-long.sh                          # all targets, 10 min each
#   FUZZTIME=30m JOBS=2 bench/fuzz-long.sh --only 'ingest|timeline'
#
# It prints one line per target: its exit status, wall time and executions,
# and keeps each target's log under $FUZZ_LOGS (default /tmp/stampede-fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."

only=.
while [ $# -gt 0 ]; do
	case $1 in
	--only) only=$2; shift ;;
	-h | --help) sed -n '2,13p' "$0"; exit 0 ;;
	*) echo "fuzz-long.sh: unknown flag $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
fuzztime=${FUZZTIME:-10m}
jobs=${JOBS:-1}
logs=${FUZZ_LOGS:-/tmp/stampede-fuzz}
mkdir -p "$logs"

targets=()
for pkg in $(go list ./... | grep -E "$only"); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		targets+=("$pkg $target")
	done
done
echo "${#targets[@]} targets, $fuzztime each, $jobs at a time; logs in $logs"

one() {
	local pkg=$1 target=$2 start rc=0
	start=$(date +%s)
	nice -n 19 go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -parallel 1 "$pkg" >"$logs/$target.log" 2>&1 || rc=$?
	printf '%-28s exit %d  %5ds  %s\n' "$target" "$rc" $(($(date +%s) - start)) \
		"$(grep -o 'execs: [0-9]*' "$logs/$target.log" | tail -1)"
	return $rc
}

failed=0
running=0
for t in "${targets[@]}"; do
	# shellcheck disable=SC2086
	one $t &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n || failed=1
		running=$((running - 1))
	fi
done
while [ "$running" -gt 0 ]; do
	wait -n || failed=1
	running=$((running - 1))
done
exit $failed
