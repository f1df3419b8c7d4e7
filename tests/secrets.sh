#!/bin/sh
# Secrets: a token that could not be sent (a control character, a space) is
# refused by check-config and run alike, with the reason and without the
# token; the running daemon is not dumpable (no core file, its /proc files
# belong to root and another process of its own user cannot read them).
# Usage: secrets.sh RLYEH
set -u
rlyeh=$1
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
passes=0
failures=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL $*"; failures=$((failures + 1)); }
unset RLYEH_DATABASE RLYEH_API_URL RLYEH_TOKEN RLYEH_TOKEN_FILE CREDENTIALS_DIRECTORY

# ---- tokens that could not go into an HTTP header ----
for token in "$(printf 'MTIz\001.abc')" "$(printf 'MTIz.a\033bc')" "MTIz abc" "$(printf 'MTIz\tabc')"; do
	RLYEH_TOKEN=$token "$rlyeh" check-config >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "RLYEH_TOKEN: the token has a" "$tmp/err" &&
		! grep -qF "$token" "$tmp/err"; then ok; else
		bad "check-config with a bad token: exit $rc: $(cat "$tmp/err")"
	fi
	RLYEH_TOKEN=$token RLYEH_DATABASE=$tmp/t.db RLYEH_API_URL=http://127.0.0.1:9 \
		"$rlyeh" run </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "rlyeh run: RLYEH_TOKEN: the token has a" "$tmp/err"; then ok; else
		bad "run with a bad token: exit $rc: $(cat "$tmp/err")"
	fi
	[ ! -e "$tmp/t.db" ] && ok || bad "run with a bad token opened the database"
done
printf 'MTIz.a\001bc\n' >"$tmp/token"
RLYEH_TOKEN_FILE=$tmp/token "$rlyeh" check-config >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "$tmp/token: the token has a control character" "$tmp/err"; then ok; else
	bad "check-config with a bad token file: exit $rc: $(cat "$tmp/err")"
fi
printf 'MTIz.abc\n' >"$tmp/token"
RLYEH_TOKEN_FILE=$tmp/token "$rlyeh" check-config >"$tmp/out" 2>"$tmp/err" && ok ||
	bad "check-config with a good token file: $(cat "$tmp/err")"

# ---- the daemon is not dumpable ----
# Run as another user (nobody), the owner of /proc/PID/* is root exactly when
# the process is not dumpable, and then that user cannot read its environ.
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	echo "not root or no setpriv: the dumpable check is skipped"
else
	chmod 0755 "$tmp"
	mkdir "$tmp/state" && chmod 0777 "$tmp/state"
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	setpriv --reuid=65534 --regid=65534 --clear-groups env RLYEH_TOKEN=MTIz.abc RLYEH_DATABASE="$tmp/state/r.db" \
		RLYEH_API_URL=http://127.0.0.1:9 "$rlyeh" run </dev/null >"$tmp/run.out" 2>&1 &
	pid=$!
	i=0
	while [ $i -lt 100 ] && [ ! -s "$tmp/state/r.db" ]; do sleep 0.05; i=$((i + 1)); done
	if [ -s "$tmp/state/r.db" ] && kill -0 "$pid" 2>/dev/null; then
		uid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")
		[ "$uid" = 65534 ] && ok || bad "the daemon runs as uid $uid"
		owner=$(stat -c %u "/proc/$pid/environ")
		[ "$owner" = 0 ] && ok || bad "/proc/PID/environ belongs to uid $owner: the daemon is dumpable"
		if as_nobody cat "/proc/$pid/environ" >/dev/null 2>&1; then
			bad "another process of the daemon's user reads its environment (the token)"
		else ok; fi
	else
		bad "the daemon did not start: $(cat "$tmp/run.out")"
	fi
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=""
fi

echo "$passes passed, $failures failed"
[ $failures -eq 0 ]
