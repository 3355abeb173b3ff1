#!/usr/bin/env bash
# Copies one recorded scenario into testdata/recorded/NAME, keeping what a
# user would have (the proxy's access logs, the application's call log, the
# SDK's debug log) gzipped, and the truth derived from the endpoint's log.
# The endpoint's own per-request log is left out: truth.json holds what the
# tests need from it.
#   testdata/recorded/trim.sh HARNESS_OUT/NAME [...]
# TRIM_INTO=SUBDIR puts the copies under testdata/recorded/SUBDIR/, and
# TRIM_FILES="a b" keeps only those of the user's files (re-runs that are
# compared by their truth need less than incidents that are analysed).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
for src in "$@"; do
  name="$(basename "$src")"
  [ -f "$src/truth.json" ] || { echo "$src: no truth.json" >&2; exit 1; }
  python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["cross_checks"]["all_pass"] else 1)' "$src/truth.json" ||
    { echo "$src: the harness cross-checks failed" >&2; exit 1; }
  dst="$here/${TRIM_INTO:+$TRIM_INTO/}$name"
  rm -rf "$dst"; mkdir -p "$dst"
  for f in ${TRIM_FILES:-access.log access_combined.log access_msec.log calls.jsonl sdk_debug.log}; do
    [ -f "$src/$f" ] && gzip -9nc "$src/$f" > "$dst/$f.gz"
  done
  cp "$src/truth.json" "$dst/truth.json"
  echo "$dst: $(du -sk "$dst" | cut -f1) KiB"
done
