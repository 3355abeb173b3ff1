#!/usr/bin/env bash
# Cost per input file: one analysis of a directory of N one-line nginx logs
# (a rotated-log directory taken to the extreme), measured with GNU time -v.
# See bench/README.md.
#
#   bench/manyfiles.sh                          # 20,000 files
#   bench/manyfiles.sh --files 100000
#   bench/manyfiles.sh --files 25000 --max-memory 200MiB --runs 8
#   bench/manyfiles.sh --bin /tmp/old-stampede  # a build to compare with
#
# Each file holds one combined-format line a second after the previous
# file's, so that no two files repeat each other. The report goes to
# standard output, redirected to /dev/null. Every run prints its exit
# status, wall and CPU time and peak RSS; with --runs, a tally of the exit
# statuses follows.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dir=${BENCH_DIR:-/tmp/stampede-bench}
files=20000
runs=1
bin=
limit=()

while [ $# -gt 0 ]; do
	case $1 in
	--files) files=$2; shift ;;
	--runs) runs=$2; shift ;;
	--dir) dir=$2; shift ;;
	--bin) bin=$2; shift ;;
	--max-memory) limit=(--max-memory "$2"); shift ;;
	-h | --help) sed -n '2,16p' "$0"; exit 0 ;;
	*) echo "manyfiles.sh: unknown flag $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ ! -x /usr/bin/time ]; then
	echo "manyfiles.sh: needs GNU time at /usr/bin/time (apt-get install time)" >&2
	exit 2
fi
if [ "$files" -gt 2500000 ]; then
	echo "manyfiles.sh: at most 2500000 files (one a second within November)" >&2
	exit 2
fi

mkdir -p "$dir/bin"
if [ -z "$bin" ]; then
	(cd "$root" && go build -o "$dir/bin/stampede" ./cmd/stampede)
	bin=$dir/bin/stampede
fi
logs=$dir/many-$files
if [ ! -f "$logs/.complete" ]; then
	echo "writing $files files to $logs" >&2
	rm -rf "$logs"
	mkdir -p "$logs"
	awk -v n="$files" -v dir="$logs" 'BEGIN {
		for (i = 0; i < n; i++) {
			f = sprintf("%s/access-%07d.log", dir, i)
			printf "10.0.%d.%d - - [%02d/Nov/2026:%02d:%02d:%02d +0000] \"GET /v1/chat HTTP/1.1\" %d 0 \"-\" \"curl/8.0\"\n",
				int(i / 250) % 250, i % 250, 1 + int(i / 86400), int(i / 3600) % 24, int(i / 60) % 60, i % 60,
				(i % 3 ? 429 : 200) > f
			close(f)
		}
	}'
	touch "$logs/.complete"
fi

declare -A tally
for run in $(seq 1 "$runs"); do
	report=$dir/many-$files.time-v.txt
	status=0
	/usr/bin/time -v -o "$report" "$bin" analyze "$logs" "${limit[@]}" >/dev/null 2>"$dir/many-$files.stderr" || status=$?
	tally[$status]=$((${tally[$status]:-0} + 1))
	awk -v run="$run" -v status="$status" -v files="$files" '
		/Maximum resident set size/ { rss_kb = $NF }
		/User time/ { user = $NF }
		/System time/ { sys = $NF }
		/Elapsed \(wall clock\)/ {
			n = split($NF, p, ":"); wall = 0
			for (i = 1; i <= n; i++) wall = wall * 60 + p[i]
		}
		END {
			printf "run %d: exit %d, %d files, wall %.2f s, CPU %.2f s (%.2f user + %.2f sys), %.0f us CPU per file, peak RSS %.0f MB\n",
				run, status, files, wall, user + sys, user, sys, (user + sys) * 1e6 / files, rss_kb / 1024
		}' "$report"
	if [ "$status" != 0 ]; then
		sed 's/^/  stderr: /' "$dir/many-$files.stderr" | head -3
	fi
done
if [ "$runs" -gt 1 ]; then
	printf "exit statuses over %d runs:" "$runs"
	for s in "${!tally[@]}"; do printf " %s×%d" "$s" "${tally[$s]}"; done
	echo
fi
