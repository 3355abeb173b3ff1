#!/usr/bin/env bash
# Peak memory of an analysis without --max-memory whose memory the run must
# judge itself: a gzip log that compresses far better than logs usually do,
# or a log piped through standard input, whose size nothing tells. The room
# is set with GOMEMLIMIT, which the run counts as it counts a container's
# cgroup limit. Measured with GNU time -v. See bench/README.md.
#
#   bench/autospill.sh --case gzip                 # 2.4 GB of text in a gzip of about 20 MB
#   bench/autospill.sh --case stdin                # 3 GB of nginx lines through cat
#   bench/autospill.sh --case stdin --room 4GiB --bin /tmp/old-stampede
#
# It prints the input, wall and CPU time, peak RSS against the room, and the
# run's notice on standard error (which says whether it spilled).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dir=${BENCH_DIR:-/tmp/stampede-bench}
case=gzip
room=4GiB
bin=
gb=

while [ $# -gt 0 ]; do
	case $1 in
	--case) case=$2; shift ;;
	--room) room=$2; shift ;;
	--gb) gb=$2; shift ;;
	--bin) bin=$2; shift ;;
	--dir) dir=$2; shift ;;
	-h | --help) sed -n '2,14p' "$0"; exit 0 ;;
	*) echo "autospill.sh: unknown flag $1 (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ ! -x /usr/bin/time ]; then
	echo "autospill.sh: needs GNU time at /usr/bin/time (apt-get install time)" >&2
	exit 2
fi

mkdir -p "$dir/bin"
(cd "$root" && go build -o "$dir/bin/gen" ./bench/gen)
if [ -z "$bin" ]; then
	(cd "$root" && go build -o "$dir/bin/stampede" ./cmd/stampede)
	bin=$dir/bin/stampede
fi

report=$dir/autospill-$case.time-v.txt
case $case in
gzip)
	gb=${gb:-2.4}
	# Few distinct lines, as a client hammering one endpoint writes them:
	# gzip holds them at over a hundred times.
	input=$dir/repeated-${gb}GB.log.gz
	if [ ! -s "$input" ]; then
		echo "writing $input" >&2
		awk -v bytes="$gb" 'BEGIN {
			n = int(bytes * 1e9 / 81)
			for (i = 0; i < n; i++) {
				s = int(i / 2000)
				printf "10.0.0.%d - - [01/Nov/2026:%02d:%02d:%02d +0000] \"GET /a HTTP/1.1\" %d 0 \"-\" \"curl/8.0\"\n",
					i % 4, int(s / 3600) % 24, int(s / 60) % 60, s % 60, (i % 5 ? 429 : 200)
			}
		}' | gzip -6 >"$input"
	fi
	echo "GOMEMLIMIT=$room stampede analyze $input --format json > /dev/null" >&2
	GOMEMLIMIT=$room /usr/bin/time -v -o "$report" "$bin" analyze "$input" --format json >/dev/null 2>"$dir/autospill.stderr" || true
	;;
stdin)
	gb=${gb:-3}
	lines=$(awk -v gb="$gb" 'BEGIN { printf "%d", gb * 1e9 / 178 }')
	input=$dir/nginx-$lines.log
	if [ ! -s "$input" ]; then
		echo "generating $input" >&2
		"$dir/bin/gen" -format nginx -lines "$lines" -o "$input"
	fi
	echo "cat $input | GOMEMLIMIT=$room stampede analyze - --format json > /dev/null" >&2
	cat "$input" | GOMEMLIMIT=$room /usr/bin/time -v -o "$report" "$bin" analyze - --format json >/dev/null 2>"$dir/autospill.stderr" || true
	;;
*)
	echo "autospill.sh: --case gzip or stdin" >&2
	exit 2
	;;
esac
sed 's/^/stderr      /' "$dir/autospill.stderr" | grep -v '^stderr      $' || true
awk -v input="$input" -v bytes="$(stat -c %s "$input")" -v room="$room" '
	/Maximum resident set size/ { rss_kb = $NF }
	/User time/ { user = $NF }
	/System time/ { sys = $NF }
	/Exit status/ { status = $NF }
	/Elapsed \(wall clock\)/ {
		n = split($NF, p, ":"); wall = 0
		for (i = 1; i <= n; i++) wall = wall * 60 + p[i]
	}
	END {
		printf "input       %s (%.1f MB on disk)\n", input, bytes / 1e6
		printf "exit        %d\n", status
		printf "wall        %.2f s (CPU %.2f s user + %.2f s sys)\n", wall, user, sys
		printf "peak RSS    %.0f MB; room (GOMEMLIMIT) %s\n", rss_kb / 1024, room
	}' "$report"
