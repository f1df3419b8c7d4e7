#!/bin/sh
# Runs a command against its own throwaway PostgreSQL cluster:
#
#   with_cluster.sh COMMAND [ARG...]
#
# starts a cluster (cluster.sh) in a new temporary folder, runs COMMAND with
# RLYEH_TEST_DATABASE set to its URI, and stops and removes the cluster
# when COMMAND ends, whether it passes or fails (also on a signal). Its
# exit status is COMMAND's. Without PostgreSQL it exits 77, which CTest
# shows as skipped, except under CI=true, where that is a failure. A
# cluster left behind by a run that was killed outright (SIGKILL: no trap
# runs) is stopped by the next run: each cluster's folder names the
# process that owns it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -u /tmp/rlyeh-pg.XXXXXX)

for old in /tmp/rlyeh-pg.*/owner; do
	[ -f "$old" ] || continue
	pid=$(cat "$old" 2>/dev/null || true)
	if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
		"$here/cluster.sh" stop "$(dirname "$old")"
	fi
done

cleanup() { "$here/cluster.sh" stop "$dir"; }
trap cleanup EXIT
trap 'exit 143' INT TERM HUP

rc=0
uri=$("$here/cluster.sh" start "$dir") || rc=$?
if [ "$rc" -eq 2 ]; then
	if [ "${CI:-}" = "true" ]; then
		echo "FAIL: PostgreSQL is needed under CI (scripts/deps installs it)" >&2
		exit 1
	fi
	echo "SKIP: PostgreSQL is not installed; the tests against it did not run" >&2
	exit 77
fi
[ "$rc" -eq 0 ] || { echo "FAIL: could not start PostgreSQL" >&2; exit 1; }
echo $$ >"$dir/owner"
rc=0
RLYEH_TEST_DATABASE=$uri "$@" || rc=$?
exit "$rc"
