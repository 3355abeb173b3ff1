#!/usr/bin/env bash
# Peak memory of a full analysis of one large simulated log, measured with
# GNU time -v: the bounded-resources benchmark. See bench/README.md.
#
#   bench/memory.sh                       # 6M nginx lines (1.07 GB)
#   bench/memory.sh --lines 56000000      # about 10 GB
#   bench/memory.sh --format envoy-json --lines 4000000
#   bench/memory.sh --limit-mb 1024 --check   # exit 1 when peak RSS is over the limit
#   bench/memory.sh --in-memory           # no --max-memory: no spill, the whole timeline in memory
#
# The run is given --max-memory of the limit, so the events spill to a file
# in $TMPDIR (or --spill-dir DIR) and the resident set stays under it.
# It prints the lines, bytes, wall and CPU time, MB/s, lines/s, peak RSS and
# RSS per line, and keeps time -v's full report beside the log.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dir=${BENCH_DIR:-/tmp/stampede-bench}
lines=6000000
format=nginx
limit_mb=1024
check=0
in_memory=0
spill_dir=

while [ $# -gt 0 ]; do
	case $1 in
	--lines) lines=$2; shift ;;
	--format) format=$2; shift ;;
	--dir) dir=$2; shift ;;
	--limit-mb) limit_mb=$2; shift ;;
	--check) check=1 ;;
	--in-memory) in_memory=1 ;;
	--spill-dir) spill_dir=$2; shift ;;
	-h | --help) sed -n '2,16p' "$0"; exit 0 ;;
	*) echo "memory.sh: unknown flag $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ ! -x /usr/bin/time ]; then
	echo "memory.sh: needs GNU time at /usr/bin/time (apt-get install time)" >&2
	exit 2
fi

mkdir -p "$dir/bin"
(cd "$root" && go build -o "$dir/bin/stampede" ./cmd/stampede && go build -o "$dir/bin/gen" ./bench/gen)
ext=log
[ "$format" = envoy-json ] && ext=jsonl
path=$dir/$format-$lines.$ext
if [ ! -s "$path" ]; then
	echo "generating $path" >&2
	(cd "$root" && "$dir/bin/gen" -format "$format" -lines "$lines" -o "$path")
fi

report=$path.time-v.txt
budget=()
if [ "$in_memory" = 0 ]; then
	budget=(--max-memory "${limit_mb}MiB")
	[ -n "$spill_dir" ] && budget+=(--spill-dir "$spill_dir")
fi
echo "stampede analyze $path --format json ${budget[*]} > /dev/null" >&2
/usr/bin/time -v -o "$report" "$dir/bin/stampede" analyze "$path" --format json "${budget[@]}" >/dev/null
bytes=$(stat -c %s "$path")
awk -v bytes="$bytes" -v lines="$lines" -v limit="$limit_mb" -v path="$path" -v report="$report" '
	/Maximum resident set size/ { rss_kb = $NF }
	/User time/ { user = $NF }
	/System time/ { sys = $NF }
	/Elapsed \(wall clock\)/ {
		n = split($NF, p, ":"); wall = 0
		for (i = 1; i <= n; i++) wall = wall * 60 + p[i]
	}
	END {
		rss_mb = rss_kb / 1024
		printf "file        %s\n", path
		printf "size        %.0f MB, %d lines\n", bytes / 1e6, lines
		printf "wall        %.2f s (CPU %.2f s user + %.2f s sys)\n", wall, user, sys
		printf "throughput  %.0f MB/s, %.0f lines/s\n", bytes / 1e6 / wall, lines / wall
		printf "peak RSS    %.0f MB (%.0f bytes per line); limit %d MB: %s\n", rss_mb, rss_kb * 1024 / lines, limit, (rss_mb <= limit ? "within" : "over")
		printf "time -v     %s\n", report
		exit (rss_mb > limit) ? 3 : 0
	}' "$report" && status=0 || status=$?
if [ "$status" = 3 ] && [ "$check" = 1 ]; then
	exit 1
fi
