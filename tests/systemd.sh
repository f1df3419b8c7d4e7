#!/bin/sh
# The systemd unit: `systemd-analyze verify` is clean and
# `systemd-analyze security --offline=yes` rates it 2.0 or lower; the same
# for an instance of the template unit (rlyeh@.service, one per process),
# which also reads its own configuration file.
# Usage: systemd.sh UNIT_TEMPLATE RLYEH [INSTANCE_TEMPLATE]
set -u
template=$1
rlyeh=$2
instance=${3:-}
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
# No core file of a process holding the token, and a damaged database (5)
# is not restarted every few seconds.
for u in "$tmp/rlyeh.service" ${instance:+"$instance"}; do
	grep -q '^LimitCORE=0$' "$u" && grep -q '^RestartPreventExitStatus=2 3 4 5$' "$u" &&
		passes=$((passes + 1)) || {
		echo "FAIL $u: no LimitCORE=0 or no RestartPreventExitStatus=2 3 4 5"
		failures=$((failures + 1))
	}
done
if [ -n "$instance" ]; then
	mkdir "$tmp/units"
	sed "s|@CMAKE_INSTALL_FULL_BINDIR@|$bindir|" "$instance" >"$tmp/units/rlyeh@.service"
	# An instance is verified through the template file it comes from.
	ln -s "rlyeh@.service" "$tmp/units/rlyeh@b.service"
	if (cd "$tmp/units" && systemd-analyze verify --man=no "$tmp/units/rlyeh@b.service") >"$tmp/verify2" 2>&1 &&
		[ ! -s "$tmp/verify2" ]; then
		passes=$((passes + 1))
	else
		echo "FAIL systemd-analyze verify rlyeh@b.service:"; cat "$tmp/verify2"
		failures=$((failures + 1))
	fi
	systemd-analyze security --offline=yes --no-pager "$tmp/units/rlyeh@b.service" >"$tmp/security2" 2>&1
	score=$(sed -n 's/.*Overall exposure level for rlyeh@b.service: \([0-9.]*\).*/\1/p' "$tmp/security2")
	if [ -n "$score" ] && awk "BEGIN { exit !($score <= 2.0) }"; then
		echo "instance exposure $score"
		passes=$((passes + 1))
	else
		echo "FAIL instance exposure level '$score' (want <= 2.0)"; tail -5 "$tmp/security2"
		failures=$((failures + 1))
	fi
	u="$tmp/units/rlyeh@.service"
	grep -q '^ExecStart=.* run --config ${CONFIGURATION_DIRECTORY}/%i.conf$' "$u" &&
		grep -q '^StateDirectory=rlyeh/%i$' "$u" && ! grep -q '^Environment=RLYEH_DATABASE' "$u" &&
		grep -q '^Type=notify' "$u" && grep -q '^LoadCredential=token:' "$u" &&
		grep -q '^DynamicUser=yes' "$u" && grep -q '^WatchdogSec=' "$u" &&
		grep -q '^RestartPreventExitStatus=.*3' "$u" && passes=$((passes + 1)) || {
		echo "FAIL the template lacks its own configuration, state directory, notify, watchdog, credential or dynamic user"
		failures=$((failures + 1))
	}
	# The same hardening as the single unit: every line from DynamicUser= on.
	sed -n '/^DynamicUser=/,$p' "$tmp/rlyeh.service" | grep -v '^StateDirectory=' >"$tmp/hard1"
	sed -n '/^DynamicUser=/,$p' "$u" | grep -v '^StateDirectory=' >"$tmp/hard2"
	if diff "$tmp/hard1" "$tmp/hard2" >"$tmp/hard" 2>&1; then
		passes=$((passes + 1))
	else
		echo "FAIL the template's hardening differs from rlyeh.service:"; cat "$tmp/hard"
		failures=$((failures + 1))
	fi
fi
echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
