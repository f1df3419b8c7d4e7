#!/bin/sh
# with_cluster.sh: without PostgreSQL it skips (77, shown by CTest as
# skipped) and says so, except under CI=true, where it fails, and the
# command does not run; with it, the command gets the URI, its exit status
# comes back, and the cluster is gone afterwards, also after a failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
bad() { echo "FAIL $*"; failures=$((failures + 1)); }

RLYEH_PG_BINDIR=/nonexistent CI= "$here/with_cluster.sh" touch "$tmp/ran" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 77 ] || bad "without CI: exit $rc, not 77"
grep -q 'SKIP' "$tmp/err" || bad "without CI: no SKIP message: $(cat "$tmp/err")"
RLYEH_PG_BINDIR=/nonexistent CI=true "$here/with_cluster.sh" touch "$tmp/ran" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || bad "under CI: exit $rc, not 1"
grep -q 'FAIL' "$tmp/err" || bad "under CI: no FAIL message: $(cat "$tmp/err")"
[ ! -e "$tmp/ran" ] || bad "the command ran without PostgreSQL"
"$here/with_cluster.sh" sh -c 'echo "$RLYEH_TEST_DATABASE" >"$1"
case $RLYEH_TEST_DATABASE in postgresql://*) exit 3;; esac; exit 4' sh "$tmp/uri"
rc=$?
if [ "$rc" -ne 77 ]; then
	[ "$rc" -eq 3 ] || bad "with PostgreSQL: exit $rc, not the command's 3"
	dir=$(sed -n 's/.*host=\([^&]*\).*/\1/p' "$tmp/uri")
	case $dir in /tmp/rlyeh-pg.*) ;; *) bad "cluster folder: '$dir'" ;; esac
	[ ! -e "$dir" ] || bad "$dir is still there after the command"
fi
echo "with_cluster: $failures failed"
[ "$failures" -eq 0 ]
