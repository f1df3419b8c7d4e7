#!/bin/sh
# Runs one fuzzer: each saved crash input in regressions/NAME once, then
# fuzzes for SECONDS over a copy of corpus/NAME in /tmp (SECONDS 0: runs
# the seeds once). Fails when any input crashes, leaks or times out; what
# the fuzzer found is kept in the /tmp directory it names.
# Usage: fuzz_test.sh FUZZER DIR NAME SECONDS
set -u
fuzzer=$1
dir=$2
name=$3
seconds=$4
tmp=$(mktemp -d "/tmp/rlyeh-fuzz-$name.XXXXXX") || exit 1
cd "$tmp" || exit 1

set --
for f in "$dir/regressions/$name"/*; do
	[ -f "$f" ] && set -- "$@" "$f"
done
if [ $# -gt 0 ]; then
	if ! "$fuzzer" -timeout=5 -rss_limit_mb=2048 -artifact_prefix="$tmp/" "$@"; then
		echo "FAIL: a saved input in $dir/regressions/$name fails again (see above)"
		cd / && rm -rf "$tmp"
		exit 1
	fi
fi

mkdir corpus
cp "$dir/corpus/$name"/* corpus/
set -- -timeout=5 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 -artifact_prefix="$tmp/"
[ -f "$dir/$name.dict" ] && set -- "$@" -dict="$dir/$name.dict"
if [ "$seconds" -gt 0 ]; then
	set -- "$@" -max_total_time="$seconds"
else
	set -- "$@" -runs=0
fi
if ! "$fuzzer" "$@" corpus; then
	echo "FAIL: $name: the input that failed is kept in $tmp"
	exit 1
fi
cd / && rm -rf "$tmp"
