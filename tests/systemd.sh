#!/bin/sh
# The systemd unit: `systemd-analyze verify` is clean and
# `systemd-analyze security --offline=yes` rates it 2.0 or lower.
# Usage: systemd.sh UNIT_TEMPLATE RLYEH
set -u
template=$1
rlyeh=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "systemd-analyze is missing (scripts/deps installs the systemd package)"
	echo "0 passed, 1 failed"
	exit 1
fi
bindir=$(cd "$(dirname "$rlyeh")" && pwd)
sed "s|@CMAKE_INSTALL_FULL_BINDIR@|$bindir|" "$template" >"$tmp/rlyeh.service"
passes=0
failures=0
if systemd-analyze verify --man=no "$tmp/rlyeh.service" >"$tmp/verify" 2>&1 && [ ! -s "$tmp/verify" ]; then
	passes=$((passes + 1))
else
	echo "FAIL systemd-analyze verify:"; cat "$tmp/verify"
	failures=$((failures + 1))
fi
systemd-analyze security --offline=yes --no-pager "$tmp/rlyeh.service" >"$tmp/security" 2>&1
score=$(sed -n 's/.*Overall exposure level for rlyeh.service: \([0-9.]*\).*/\1/p' "$tmp/security")
if [ -n "$score" ] && awk "BEGIN { exit !($score <= 2.0) }"; then
	echo "exposure $score"
	passes=$((passes + 1))
else
	echo "FAIL exposure level '$score' (want <= 2.0)"; tail -5 "$tmp/security"
	failures=$((failures + 1))
fi
grep -q '^Type=notify' "$tmp/rlyeh.service" && grep -q '^RestartPreventExitStatus=.*3' "$tmp/rlyeh.service" &&
	grep -q '^LoadCredential=token:' "$tmp/rlyeh.service" && grep -q '^DynamicUser=yes' "$tmp/rlyeh.service" &&
	grep -q '^WatchdogSec=' "$tmp/rlyeh.service" && passes=$((passes + 1)) || {
	echo "FAIL the unit lacks notify, watchdog, credential, dynamic user or restart prevention"
	failures=$((failures + 1))
}
echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
