#!/usr/bin/env bash
# Memory and report size when every line brings new values: the
# cardinality benchmark (issue 16, item 2). See bench/README.md.
#
#   bench/cardinality.sh                  # both logs, all runs
#   bench/cardinality.sh --check          # exit 1 when a figure is over its target
#   bench/cardinality.sh --only versions  # just the 1M-version log (quick)
#   bench/cardinality.sh --bin /tmp/stampede-old   # measure another build
#
# It generates, with bench/gen -distinct:
#   distinct  10M nginx lines, each with a User-Agent, a route and a task id
#             of its own (--distinct-lines N)
#   versions  1M nginx lines, each with its own OpenAI/Python SDK version
#             (--versions-lines N)
# and runs `stampede analyze` on each under /usr/bin/time -v: once per
# report format (table, json, markdown, html) without a budget, and once in
# JSON under --max-memory (--budget, default 1GiB). Reports go to standard
# output, redirected to a file. For every run it prints the peak RSS, wall
# time, exit status and report size.
#
# Targets (--check): peak RSS of the distinct log at most --rss-target-mb
# (1536) without a budget and at most the budget with one; every report of
# the versions log under --report-target-bytes (1000000).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dir=${BENCH_DIR:-/tmp/stampede-bench}
distinct_lines=10000000
versions_lines=1000000
budget=1GiB
budget_mb=1024
rss_target_mb=1536
report_target=1000000
check=0
only=
bin=

while [ $# -gt 0 ]; do
	case $1 in
	--dir) dir=$2; shift ;;
	--distinct-lines) distinct_lines=$2; shift ;;
	--versions-lines) versions_lines=$2; shift ;;
	--budget-mb) budget_mb=$2; budget=${2}MiB; shift ;;
	--rss-target-mb) rss_target_mb=$2; shift ;;
	--report-target-bytes) report_target=$2; shift ;;
	--only) only=$2; shift ;;
	--bin) bin=$2; shift ;;
	--check) check=1 ;;
	-h | --help) sed -n '2,23p' "$0"; exit 0 ;;
	*) echo "cardinality.sh: unknown flag $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ ! -x /usr/bin/time ]; then
	echo "cardinality.sh: needs GNU time at /usr/bin/time (apt-get install time)" >&2
	exit 2
fi

mkdir -p "$dir/bin" "$dir/cardinality"
(cd "$root" && go build -o "$dir/bin/gen" ./bench/gen)
if [ -z "$bin" ]; then
	(cd "$root" && go build -o "$dir/bin/stampede" ./cmd/stampede)
	bin=$dir/bin/stampede
fi

# generate NAME LINES FIELDS: the log, made once and reused.
generate() {
	local path=$dir/cardinality-$1-$2.log
	if [ ! -s "$path" ]; then
		echo "generating $path" >&2
		(cd "$root" && "$dir/bin/gen" -lines "$2" -distinct "$3" -o "$path.tmp") && mv "$path.tmp" "$path"
	fi
	echo "$path"
}

over=0
printf '%-9s %-10s %-9s %10s %9s %5s %14s\n' log budget format "RSS MB" "wall s" exit "report bytes"
# measure NAME LOG FORMAT BUDGET: one run, one row.
measure() {
	local name=$1 log=$2 format=$3 limit=$4
	local out=$dir/cardinality/$name-$limit.$format
	local report=$out.time-v.txt
	local args=(analyze "$log" --format "$format")
	[ "$limit" != none ] && args+=(--max-memory "$limit")
	local status=0
	/usr/bin/time -v -o "$report" "$bin" "${args[@]}" >"$out" 2>"$out.stderr" || status=$?
	local rss_kb wall size
	rss_kb=$(awk '/Maximum resident set size/ { print $NF }' "$report")
	wall=$(awk '/Elapsed \(wall clock\)/ { n = split($NF, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i]; print w }' "$report")
	size=$(stat -c %s "$out")
	local rss_mb=$((rss_kb / 1024))
	local verdict=
	case $name in
	distinct)
		local target=$rss_target_mb
		[ "$limit" != none ] && target=$budget_mb
		if [ "$rss_mb" -gt "$target" ]; then verdict="over $target MB"; over=1; fi
		;;
	versions)
		if [ "$size" -ge "$report_target" ]; then verdict="report over $report_target bytes"; over=1; fi
		;;
	esac
	if [ "$status" != 0 ]; then verdict="$verdict exit $status: $(tail -c 300 "$out.stderr")"; over=1; fi
	printf '%-9s %-10s %-9s %10d %9.2f %5d %14d  %s\n' "$name" "$limit" "$format" "$rss_mb" "$wall" "$status" "$size" "$verdict"
}

run_log() {
	local name=$1 log=$2
	echo "# $name: $log ($(stat -c %s "$log") bytes), $bin analyze LOG --format F > OUT" >&2
	for format in json table markdown html; do
		measure "$name" "$log" "$format" none
	done
	measure "$name" "$log" json "$budget"
}

if [ -z "$only" ] || [ "$only" = distinct ]; then
	run_log distinct "$(generate distinct "$distinct_lines" ua,route,task)"
fi
if [ -z "$only" ] || [ "$only" = versions ]; then
	run_log versions "$(generate versions "$versions_lines" sdk-version)"
fi
echo "time -v reports and the reports themselves: $dir/cardinality/" >&2
if [ "$over" = 1 ] && [ "$check" = 1 ]; then
	exit 1
fi
