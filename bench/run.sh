#!/usr/bin/env bash
# Benchmarks stampede end to end on large simulated logs, beside the usual
# log tools when they are installed. See bench/README.md.
#
#   bench/run.sh                          # 500k and 5M lines, nginx and JSON lines
#   bench/run.sh --sizes "500000 5000000 20000000" --formats nginx
#   bench/run.sh --gzip                   # also a gzip of 1 GB+ of log
#   bench/run.sh --install-peers          # apt-get install goaccess lnav mawk jq first
#   bench/run.sh --peer-max-lines 500000  # goaccess and lnav only on files up to 500k lines
#   bench/run.sh --baseline /tmp/old-stampede  # also time another build, e.g. of the last commit
#   bench/run.sh --budget 300MiB          # also time analyze under --max-memory (the default; "" skips it)
#
# Every command runs --runs times (default 3), the commands interleaved
# within each round so that a slow moment of a shared machine hits all of
# them alike; the table shows medians.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dir=${BENCH_DIR:-/tmp/stampede-bench}
sizes="500000 5000000"
formats="nginx envoy-json"
runs=3
install=0
gzip_big=0
peers=1
peer_max=0 # 0: run the slow peers (goaccess, lnav) on every file
baseline=""
budget=300MiB

while [ $# -gt 0 ]; do
	case $1 in
	--sizes) sizes=$2; shift ;;
	--formats) formats=$2; shift ;;
	--runs) runs=$2; shift ;;
	--dir) dir=$2; shift ;;
	--gzip) gzip_big=1 ;;
	--install-peers) install=1 ;;
	--no-peers) peers=0 ;;
	--peer-max-lines) peer_max=$2; shift ;;
	--baseline) baseline=$2; shift ;;
	--budget) budget=$2; shift ;;
	-h | --help) sed -n '2,16p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown flag $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done

if [ "$install" = 1 ]; then
	apt-get update -qq && apt-get install -y -qq goaccess lnav mawk jq >/dev/null
fi
if [ ! -x /usr/bin/time ]; then
	echo "run.sh: needs GNU time at /usr/bin/time (apt-get install time)" >&2
	exit 2
fi

mkdir -p "$dir/bin"
(cd "$root" && go build -o "$dir/bin/stampede" ./cmd/stampede && go build -o "$dir/bin/gen" ./bench/gen)
stampede=$dir/bin/stampede

# Inputs: name -> path. The generator is deterministic, so existing files
# are reused.
files=()
for f in $formats; do
	for n in $sizes; do
		ext=log
		[ "$f" = envoy-json ] && ext=jsonl
		path=$dir/$f-$n.$ext
		if [ ! -s "$path" ]; then
			echo "generating $path" >&2
			(cd "$root" && "$dir/bin/gen" -format "$f" -lines "$n" -o "$path")
		fi
		files+=("$path")
	done
done
if [ "$gzip_big" = 1 ]; then
	# A gzip of 1.07 GB of log; the simulated log compresses 30:1, so a
	# 1 GB gzip file would take some 30 GB of log (see README).
	n=${GZIP_LINES:-6000000}
	path=$dir/nginx-$n.log.gz
	if [ ! -s "$path" ]; then
		echo "generating $path" >&2
		(cd "$root" && "$dir/bin/gen" -format nginx -lines "$n" -gzip -o "$path")
	fi
	files+=("$path")
fi

have() { [ "$peers" = 1 ] && command -v "$1" >/dev/null 2>&1; }
slow() { [ "$peer_ok" = 1 ] && have "$1"; }

# commands prints "name<TAB>shell command" for every tool that can read $1.
commands() {
	local f=$1 q
	q=$(printf %q "$f")
	printf 'stampede analyze\t%s analyze %s --format json >/dev/null\n' "$stampede" "$q"
	if [ -n "$budget" ]; then
		printf 'stampede analyze %s\t%s analyze %s --format json --max-memory %s >/dev/null\n' "$budget" "$stampede" "$q" "$budget"
	fi
	printf 'stampede ingest\t%s ingest %s -o %s\n' "$stampede" "$q" "$dir/out.parquet"
	if [ -n "$baseline" ]; then
		printf 'baseline analyze\t%s analyze %s --format json >/dev/null\n' "$baseline" "$q"
	fi
	case $f in
	*.jsonl)
		have jq && printf 'jq (429s per path)\tjq -r "select(.response_code == 429) | .path" %s | sort | uniq -c >/dev/null\n' "$q"
		;;
	*.gz)
		have mawk && printf 'zcat | mawk (status counts)\tzcat %s | mawk "{c[\\$9]++} END {for (k in c) print k, c[k]}" >/dev/null\n' "$q"
		;;
	*)
		have mawk && printf 'mawk (status counts)\tmawk "{c[\\$9]++} END {for (k in c) print k, c[k]}" %s >/dev/null\n' "$q"
		slow goaccess && printf 'goaccess (combined)\tgoaccess %s --log-format=COMBINED --no-global-config -o %s\n' "$q" "$dir/goaccess.json"
		slow lnav && printf 'lnav (count by status)\tlnav -n -c ";SELECT sc_status, count(*) FROM access_log GROUP BY sc_status" %s >/dev/null\n' "$q"
		;;
	esac
}

results=$dir/results.tsv
: >"$results"
for f in "${files[@]}"; do
	# MB/s counts uncompressed bytes, so that a gzip file's rate compares
	# with the same log read plain.
	case $f in
	*.gz) read -r lines size < <(zcat "$f" | wc -lc) ;;
	*) size=$(stat -c %s "$f") lines=$(wc -l <"$f") ;;
	esac
	peer_ok=1
	if [ "$peer_max" -gt 0 ] && [ "$lines" -gt "$peer_max" ]; then
		peer_ok=0
	fi
	mapfile -t cmds < <(commands "$f")
	for ((r = 1; r <= runs; r++)); do
		for c in "${cmds[@]}"; do
			name=${c%%$'\t'*}
			cmd=${c#*$'\t'}
			read -r secs rss user sys < <(/usr/bin/time -f '%e %M %U %S' bash -c "$cmd" 2>&1 >/dev/null | tail -1)
			cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(basename "$f")" "$size" "$lines" "$name" "$secs" "$rss" "$cpu" >>"$results"
		done
	done
done

# Medians per file and tool (wall and CPU seconds separately); peak RSS is
# the largest of the runs.
echo
printf '%-26s %-26s %8s %8s %8s %11s %8s %8s\n' file tool "wall s" "cpu s" "MB/s" "lines/s" "RSS MB" "vs st."
sort -t$'\t' -k1,1 -k4,4 -s "$results" | awk -F'\t' '
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function flush(   med, cmed) {
	if (key == "") return
	med = median(ts, cnt); cmed = median(cs, cnt)
	row[++rows] = file "\t" tool "\t" med "\t" size "\t" lines "\t" rss "\t" cmed
	if (tool == "stampede analyze") base[file] = med
}
{
	k = $1 "\t" $4
	if (k != key) { flush(); key = k; cnt = 0; rss = 0; file = $1; tool = $4; size = $2; lines = $3 }
	cnt++; ts[cnt] = $5; cs[cnt] = $7; if ($6 > rss) rss = $6
}
END {
	flush()
	for (i = 1; i <= rows; i++) {
		split(row[i], c, "\t")
		ratio = (c[3] > 0 && base[c[1]] > 0) ? sprintf("%.2fx", c[3] / base[c[1]]) : "-"
		mbs = (c[3] > 0) ? c[4] / 1e6 / c[3] : 0
		lps = (c[3] > 0) ? c[5] / c[3] : 0
		printf "%-26s %-26s %8.2f %8.2f %8.0f %11.0f %8.0f %8s\n", c[1], c[2], c[3], c[7], mbs, lps, c[6] / 1024, ratio
	}
}'
echo
echo "raw runs: $results (file, bytes, lines, tool, wall s, peak RSS KB, cpu s)"
echo "MB/s and lines/s are from the median wall time; gzip files count uncompressed bytes."
echo "vs st.: the tool's median wall time over stampede analyze's on the same file (above 1: stampede is faster)."
