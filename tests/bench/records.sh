#!/bin/sh
# /leaderboard and /stats: the answer from the stored ratings against the
# replay of every finished game it replaced, at 10,000, 100,000 and
# 1,000,000 finished games, and the cost the ratings add to a game's end.
# Prints a Markdown table (stdout) and the generation and build times with
# the load average (stderr). Build in Release first.
# Usage: tests/bench/records.sh [BUILD_DIR] [GAMES...]
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$build/tests/bench_records" "$dir" "$@"
